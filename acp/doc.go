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
// # Order
//
// A Conn reads one stream, and everything that comes of it happens in
// stream order, dispatched one message at a time:
//
//   - Notifications are handled one at a time in arrival order.
//   - Requests start in that same order (Receiver.Received, when the Handler
//     has it, runs there), but each Handle runs in its own goroutine, so a
//     request that waits never holds up later messages. A Handler that is
//     also a QuickHandler may answer a request in its place instead, when
//     the answer needs no waiting: it is written at once if the peer's
//     input takes it without blocking, else by a goroutine, so that reading
//     never waits for the peer to read.
//   - An answer to one of our calls completes the call in its place in the
//     stream: when Call.Await returns the answer, every notification that
//     arrived before it has been handled and every request before it has
//     been Received and started.
//   - When reading stops (end of stream, read error, StopReading), the calls
//     still pending end only after every message read before has been
//     dispatched, so Await never reports the end of the stream ahead of
//     messages the peer sent before it. A call that fails to be written
//     ends at once with the write error.
//
// With Options.Ordered (the agent side's choice: the mock agent) requests
// are handled one at a time: each message, request, notification or answer,
// waits until the request before it has been answered or its handler called
// Async, except that the answers to our calls go ahead while a request
// handler holds the line, so that it can wait for them. Reading never waits
// for handlers in either mode.
//
// # Draining
//
// Nothing read is lost silently. The reader never waits for handlers: it
// queues what it reads, and the queue is dispatched to the end after the
// stream ends, however long. Done is closed once it has been. Invalid input
// (a line that is not JSON-RPC, too long, with invalid UTF-8, an answer to an
// unknown id) is reported to Options.OnViolation; invalid UTF-8 is replaced
// by U+FFFD and the line used. To bound the wait for a stream that may not
// end (an agent's grandchild holding its stdout), wait for ReadDone for a
// while, then call StopReading: what was read is still dispatched. Close
// stops at once, and Dropped says how many messages it left undispatched.
//
// # Lenient decoding
//
// Decoding a session/update (SessionUpdate) or a permission request follows
// the schema's x-deserialize-default-on-error: a malformed optional field
// takes its default value (an invalid item of a list is skipped) instead of
// failing the whole message, and Malformed lists what was replaced, so it can
// be reported. A malformed required field still fails the message.
package acp
