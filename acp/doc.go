// Package acp speaks the Agent Client Protocol (ACP): JSON-RPC 2.0 messages,
// one compact JSON object per line, over a byte stream such as an agent's
// stdin and stdout.
//
// The package has two layers. The wire types (InitializeRequest,
// SessionUpdate, ContentBlock, …) describe ACP's messages. The connection
// (Conn, Call, Handler) moves JSON-RPC requests, notifications and responses
// and knows no ACP method names, so the same Conn serves the client side
// (acprun) and the agent side (the mock agent).
//
// The connection is split by layer: frame.go moves lines, wire.go holds the
// JSON shapes, conn.go is the Conn (its state, its calls, the reader and the
// writer) and dispatch.go hands the messages read to the Handler.
//
// # Order
//
// A Conn reads one stream, and everything that comes of it happens in
// stream order, one message at a time:
//
//   - A notification is handled, a request is handled until its handler
//     returns (and its answer is written) or calls Async, and an answer to
//     one of our calls completes the call, each in its place: when
//     Call.Await returns the answer, every message that arrived before it
//     has been handled.
//   - A handler that must wait calls Async: the messages behind it are then
//     handled while it goes on. The one exception to stream order: a
//     request handler that holds the line may wait for the answers to the
//     calls it sends with its own context; they complete as soon as they
//     are read.
//   - When reading stops (end of stream, read error, StopReading), the calls
//     still pending end only after every message read before has been
//     handled, so Await never reports the end of the stream ahead of
//     messages the peer sent before it. A call that fails to be written
//     ends at once with the write error.
//   - WaitHandled waits until every message read so far has been handled,
//     and Lag says whether handling is behind reading, and for how long it
//     has been: while the reader waits for the dispatcher the peer only
//     looks quiet, so a wait for the peer's silence must not count it.
//     CatchUp waits until every message the peer had written has been
//     handled, those still in the pipe included: what the peer wrote before
//     it did something else (asked a third party) is seen before that.
//
// # Draining
//
// Nothing read is lost silently. The reader goes on while handlers run, up
// to a few thousand messages or 16 MiB of lines waiting, whichever comes
// first (a peer that floods a slow handler fills the pipe, not memory; a
// single line over 16 MiB still goes through), and what it read is handled to the end after
// the stream ends, however long. Done is closed once it has been. Invalid
// input (a line that is not JSON-RPC, too long, with invalid UTF-8, an
// answer to an unknown id) is reported to Options.OnViolation, in its place
// in the stream (as a notification is handled); invalid UTF-8
// is replaced by U+FFFD and the line used, as is one that starts with a
// byte order mark, dropped; a request that is not valid
// JSON-RPC is answered -32600, with its id or null, and so is one on a
// line too long, on which an answer fails its call (see
// Options.MaxLineBytes); a request on a line that is not JSON is answered
// -32700 with its id, and an answer on one fails its call, when the line
// says its id and method, result or error before what breaks it and is
// not the stream's last, cut short by its end; with
// Options.AnswerMalformed, so is any other line that
// is no message at all (-32700 when it is not JSON), with id null. To
// bound the wait for a stream that may not end (an agent's grandchild
// holding its stdout), wait for ReadDone for a while, then call
// StopReading: what was read is still handled. Close stops at once, and
// Dropped says how many messages it left unhandled.
//
// # JSON
//
// Every message is encoded and decoded by github.com/go-json-experiment/json/v1:
// encoding/json as Go 1.27 ships it, the same API, results and error texts,
// implemented on encoding/json/v2, which decodes a value in one pass where
// Go 1.26's encoding/json validates it whole first and then decodes it. That
// makes decoding about three times faster, which an update flood needs.
// Handlers decode params with Request.DecodeParams and results come through
// Call.Await, so that no message takes another path. RawMessage in the
// types is that package's (jsontext.Value), as everywhere in acprun.
//
// # Lenient decoding
//
// Decoding a session/update (SessionUpdate) or a permission request follows
// the schema's x-deserialize-default-on-error: a malformed optional field
// takes its default value (an invalid item of a list is skipped) instead of
// failing the whole message, and Malformed lists what was replaced, so it can
// be reported. A malformed required field still fails the message.
package acp
