// Package replay is an ACP agent that plays back the agent side of a
// transcript recorded by `acprun run --transcripts DIR`, so that a
// scenario's rules and expectations can be run again against an expensive
// agent's recorded behaviour, for free and in an instant.
//
// Load reads a transcript (JSONL lines {"t": ms, "dir": "c2a"|"a2c",
// "msg": {…}} or {"t", "dir", "raw": "…"}) into a Recording, and Run plays
// it on stdin/stdout (Walk reads it as Load does and also hands over every
// message in order, for a reader of its own such as acprun explain):
//
//   - every request of the client other than session/prompt (initialize,
//     authenticate, session/new, session/set_mode, …) is answered with the
//     result or error recorded for the same call of that method (the n-th
//     session/set_mode gets the n-th recorded answer), with the incoming
//     request's id (a session/close the recording lacks, as those made
//     before acprun sent it do, is answered with an empty result: the
//     session ends there all the same). The settings of the session its
//     prompts ran in are checked against the recorded call (see
//     Settings); the params of the others (initialize, authenticate,
//     session/close) are not;
//   - the k-th session/prompt is checked against the k-th recorded prompt
//     (its content blocks; an attached file by its content, not its uri),
//     after the settings recorded before it (see Settings),
//     then what the agent sent during that turn is
//     sent again in the recorded order: session/update notifications and
//     other notifications as recorded, raw lines (garbage the agent printed)
//     as recorded, and the agent's requests (session/request_permission,
//     fs/*, terminal/*) with fresh ids; the client's answer to each is
//     awaited where the recording has it (so requests the agent made
//     together still go out together) and checked against the recorded one
//     (a permission's outcome and optionId; the result or error of the
//     others); then the prompt is answered with the recorded stop reason,
//     usage or error;
//   - what the agent sent after answering (late updates) is sent after the
//     answer, before the next request of the client is read.
//
// # Divergence
//
// The client diverges from the recording when it answers a request
// differently, sends a different prompt, sets up the session otherwise
// (see Settings), sends more prompts (or more calls of a method) than
// recorded, or calls a method the recording does not have. Run then stops playing that turn, writes one line to stderr naming
// the turn, the request and what was recorded and what came, and answers
// the prompt (or the diverging request) with a JSON-RPC error whose message
// starts with "replay diverged: " and whose data holds the details (see
// Divergence). Later prompts are still played, each checked on its own.
// A divergence in what the agent sent outside a turn (before the client's
// first request, or after an answer) has no request to answer: it is only
// reported on stderr, and the rest of those lines is not played.
//
// # Settings
//
// The recorded agent answered its prompts in the session the client set
// up: a replay that took another setup would give the verdict of a run
// the agent never made. So session/set_mode, session/set_model and
// session/set_config_option are each compared with the recorded call of
// the same number, by their params but for the sessionId (which names the
// session, not what the agent does) and _meta: another mode, model,
// config option or value diverges at that request. A prompt before which
// the recording holds a setting the client has not made (a mode removed
// from the scenario) diverges at that prompt, naming the first such
// setting. A session/new (or session/load) is compared by the MCP
// servers it offers, by name and transport, in any order: one added,
// removed or renamed diverges. Its cwd is not compared, nor the
// servers' commands, arguments, urls, env and headers, nor the
// additionalDirectories: they hold the paths of the workspace copy and
// the checkout, which change from run to run, and secrets.
//
// # Cancel and the end of the recording
//
// A session/cancel the recording does not hold in that turn (the recording
// acprun handled the answer before it could cancel, or sent none) does not
// cut what the recorded agent sent without waiting: that agent never saw
// the cancel, and whether the client's came before a line or after it is
// a matter of speed, so that is played as recorded, answer included. It
// stops the playing where the replay waits: for the client's answer to a
// request of the agent, when the cancel came first, or for the recorded
// time of a paced message; pending requests are then not waited for (the
// client answers its permission requests "cancelled" itself) and the
// prompt is answered with stopReason "cancelled". When the
// recording itself holds the client's session/cancel in that turn, the
// replay waits for the client's cancel at that point, as the recorded agent
// did (so that a recorded timeout times out again), then plays what the
// recorded agent sent after it. A turn whose recorded cancel a deadline
// sent (cause turnTimeout, or none given) plays at the recorded pace, as
// Options.Timing does, and the whole recording does when the scenario's
// timeout (scenarioTimeout) sent one: the deadline needs the time to pass
// anyway, and messages sent at once, then nothing, would let a shorter
// idleTimeout cancel first, for another cause; if the recorded agent never answered the
// cancelled prompt, neither does the replay (acprun then finds it
// unresponsive, as it found the recorded agent). A recorded cancel whose
// _meta gives a cause outside the scenario (report.MetaCancelCause:
// interrupt, runTimeout or failFast, see report.ExternalCause) is one no
// replaying client makes at that point: the replay stops there and answers
// the prompt at once with an error saying the recording cannot be replayed
// past it (unless the client has cancelled by then: stopReason
// "cancelled"). A cancel without a cause (a transcript recorded before
// acprun gave it) is waited for. A cancel whose _meta says acprun's model
// gateway found its cause (report.MetaCancelAt: a budget the recorded
// agent's model requests passed) is not: the replayed agent makes no model
// requests, so no replaying client cancels there; the replay plays on past
// it, what the recorded agent sent after it and its answer, as recorded,
// and says so on stderr.
//
// A setup request (session/new, …) whose recorded answer came after
// acprun's $/cancel_request for it (its deadline passed) is answered only
// once the client sends its own $/cancel_request for it, so that the setup
// times out again; one the client cancels sooner is answered with the
// error -32800 "Request cancelled".
//
// A recording that ends in a request of the client neither answered nor
// cancelled ends where the recorded agent did: it exited, or closed its
// output, there (acprun records nothing more of a session whose agent
// went). Run plays what the agent sent in that request, says so on stderr
// and returns ErrRecordingEnded, the request unanswered (acprun replay
// exits with code 3, and acprun finds the agent exited, as it did). The
// transcript's last line records the exit of an agent that exited on its
// own ({"t": ms, "dir": "a2c", "exit": {"code": 5}}, or {"signal":
// "SIGSEGV"}): Run's error is then an *AgentExit, which wraps
// ErrRecordingEnded, and acprun replay exits with the recorded code. An
// agent that exited after answering the last request it got, before acprun
// asked it anything more (between turns), is replayed so too: once what it
// sent after that answer is played, Run says so on stderr and returns the
// *AgentExit, without reading the client's next request. Any
// other request whose answer the recording lacks (one whose last line is
// cut short, the recorder killed) is answered with an error saying the
// recording ends there.
//
// # Paths
//
// Absolute paths under the recorded session cwd (the cwd of the recorded
// session/new) are moved to the replay's session cwd, in what is sent and
// in the answers compared, so that a transcript recorded in one workspace
// copy or checkout replays in another. Terminal ids the client gives are
// mapped to the recorded ones the same way.
//
// # Secrets
//
// What the client sends and the recording are compared once both are
// redacted with Options.Redact, the replaying run's secrets (acprun hands
// them to a replay it starts in SecretsVar): a recorded redact.Marker (a
// secret redacted at record time) matches a secret redacted in its place,
// whatever its value on this machine, and no other text, which would hide
// a changed prompt or answer.
//
// # What Load refuses
//
// A transcript holds one agent session, a new one: a second session/new,
// and a session/load or session/resume (a resumed session, which the
// replaying client, starting a new session, cannot play; Walk reads it),
// are errors of Load, as is a transcript without initialize. A judge's
// transcript (NAME.judge.jsonl) is one session of its own and replays
// like any other. Its lines must pair up: an answer
// (the agent's or the client's) to an id with no unanswered request of the
// other side before it, a request reusing the id of an unanswered one of
// its side, an id that is not a string or a number (null only in an error
// answer, which is played as recorded), and a raw line that is a JSON
// object or holds a line break, and a line after the agent's exit, are
// errors of Load, at their line and column. Played, any of them could reach the client as the answer to
// whatever it has pending at that moment, a race the verdict would hang on.
// So is a request of the agent whose answer from the client is missing
// though the client went on to send another request (other than
// session/close): played, the replayed agent would take its recorded
// branch whatever the client answered. One left at the end of the
// transcript (the agent gone, the recording cut short) is played.
//
// # Order
//
// One goroutine writes, in the recorded order; another reads the client's
// messages and numbers them in the order read. Where the client's answer
// to a recorded request and its session/cancel (or the end of its input)
// have both come when the replay looks for the answer, the one sent first
// is taken, so the same messages of the client give the same ending
// however fast the replay went.
package replay
