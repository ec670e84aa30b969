// Package mockagent is a deterministic ACP agent driven by a YAML script.
//
// It stands in for a real coding agent in acprun's tests, in examples/, and
// for users who want to dry-run scenarios and permission rules without an
// LLM or a network. The command `acprun mock-agent SCRIPT` runs it on
// stdin/stdout; tests can also run it in-process over a pipe:
//
//	s, err := mockagent.Load("examples/agents/basic.mock.yaml")
//	if err != nil {
//		return err // every problem, each as file:line:col: msg
//	}
//	err = mockagent.Run(ctx, s, agentIn, agentOut, os.Stderr,
//		mockagent.WithExit(func(code int) { /* an exit step ran */ }))
//
// The agent answers initialize, authenticate, session/new, session/load,
// session/resume, session/set_mode, session/set_config_option,
// session/set_model, session/prompt and session/close as the script says
// (any number of sessions per process, each with its own cwd), keeps its
// sessions' histories in a directory when the script names one (so that a
// later agent process can load them), plays one entry of
// the script's turns per prompt, honours session/cancel, can ask a model
// over HTTP as real agents do (through acprun's gateway), and can misbehave
// on purpose (exit mid-turn, hang, print garbage, flood, keep pipes open
// through a grandchild). Reference documents the whole script format.
package mockagent

// Reference is the script format, as printed by `acprun mock-agent --help`.
const Reference = `A mock-agent script is a YAML mapping. Every key is optional; unknown keys
are errors (reported as file:line:col). Relative paths in read/write/terminal
steps, diffs and locations are resolved against the session's cwd.

Top level
  protocolVersion: 1          answered to initialize (set 2 to test a mismatch)
  agentInfo: {name, title, version}
  agentCapabilities:
    loadSession: false        also enables session/load (else -32601)
    promptCapabilities: {image, audio, embeddedContext}
    mcpCapabilities: {http, sse}
    sessionCapabilities: {list, delete, additionalDirectories, resume, close}
                              each true or {} (advertised only; resume also
                              enables session/resume and close session/close,
                              else -32601; without additionalDirectories a
                              session request that carries some is -32602)
    auth: {logout: true}
  authMethods: [{id, name, description, type: agent|terminal, args, env, _meta}]
  authRequired: false         session/new, session/load and session/resume
                              answer -32000 (auth_required) until authenticate
                              succeeds with a listed non-terminal id; always:
                              even after it
  authError: {code, message, data}  authenticate with a listed non-terminal
                              id answers this error (refuses it)
  sessionId: mock-session-1   id of the first session/new; later ones get "-2", "-3"…
  modes: {currentModeId, availableModes: [{id, name, description}]}
                              session/set_mode rejects other ids with -32602
  configOptions:              sent in session/new and session/load answers;
                              session/set_config_option sets one and answers
                              them all (unknown ids or values: -32602)
    - {id: effort, name: Effort, category: thought_level, currentValue: low,
       options: [{value: low, name: Low}, {value: high, name: High}]}
    - {id: thinking, type: boolean, currentValue: false}
                              type: select (default) or boolean; currentValue
                              defaults to the first option's value (false)
  models: {currentModelId, availableModels: [{modelId, name, description}]}
                              the legacy model list, sent with sessions; only
                              then session/set_model (other ids: -32602)
  permissionOptions:          options of every permission step (default: Claude's)
    - {optionId: allow_always, name: Always Allow, kind: allow_always}
    - {optionId: allow, name: Allow, kind: allow_once}
    - {optionId: reject, name: Reject, kind: reject_once}
  onCancel: cancelled         what session/cancel does: cancelled (stop, report
                              unfinished tool calls failed, answer "cancelled"),
                              end_turn (same, answer "end_turn"), or ignore (keep
                              playing; waitForCancel still returns)
  ignoreSigterm: false        the mock-agent process ignores SIGTERM
  ignoreEOF: false            keep running after stdin ends (once everything
                              read is answered) until signalled, as agents
                              that hold a session open do
  startDelay: 0s              wait this long before reading stdin, as a real
                              agent's start-up does (e.g. 1s)
  updatesBeforeSessionNew: [steps]  sent for the new session id before the
                              session/new response
  load: [steps]               played by session/load before its response,
                              after the saved history (see sessions)
  sessions: DIR               keep every session in DIR (relative to the
                              script), one SESSION-ID.json each: its cwd and
                              history (each prompt's text and the reply's
                              agent_message_chunk text), saved before each
                              prompt is answered. session/load of a saved
                              session replays its history (user_message_chunk,
                              agent_message_chunk) before the load: steps;
                              session/resume restores it without a replay; an
                              unknown id is -32002, another cwd -32602.
                              session/new claims the first id DIR does not
                              have yet (agents may share DIR). Without
                              sessions, load and resume accept any id with
                              an empty history. The agent makes DIR when it
                              starts; one it cannot make or write stops it
                              there (exit 2), the error at sessions:.
  loadError: {code, message, data}  session/load and session/resume answer
                              this error (refuse to continue a session)
  delay: {session/new: 5s}    answer these requests late: initialize,
                              authenticate, session/new, session/load,
                              session/resume, session/set_mode,
                              session/set_config_option, session/set_model;
                              a duration, or never. The messages behind a
                              delayed request are handled meanwhile
  onCancelRequest: cancelled  what $/cancel_request does to a delayed request:
                              cancelled (answer it -32800 at once) or ignore
                              (it keeps its delay); other requests are
                              answered as they would be
  turns: [turn]
  default: turn               played when no entry of turns fits (without it:
                              end_turn and no output)

Choosing a turn for the Nth session/prompt of a session
  1. the first entry with match: whose regexp (Go syntax) matches the prompt's
     text (its text blocks joined by newlines);
  2. else the Nth entry without match: (prompts claimed by a match still count);
  3. else default:.

Turn
  match: '(?i)deploy'         regexp; makes the entry match-only
  steps: [steps]              played in order
  stopReason: end_turn        answer when the steps run out: end_turn,
                              max_tokens, max_turn_requests, refusal,
                              cancelled, or any string verbatim
  error: {code, message, data}  answer a JSON-RPC error instead
  usage: {inputTokens, outputTokens, totalTokens, thoughtTokens,
          cachedReadTokens, cachedWriteTokens}   usage on the response;
                              totalTokens defaults to input+output+thought
  onCancel: ...               overrides the script's onCancel for this turn
  after: [steps]              sent after the response (late updates)

Steps (a mapping with exactly one of these keys)
  text: "Hello"               agent_message_chunk; a list sends one chunk each;
    chunks: 3                   split a string into 3 chunks
    messageId: m1
  thought: "..."              agent_thought_chunk (same options)
  user: "..."                 user_message_chunk (same options; e.g. for load)
  plan: [{content, priority: high|medium|low, status: pending|in_progress|completed}]
  tool_call: {toolCallId, title, kind, status, name, rawInput, rawOutput,
              locations: [{path, line}], content: [item], _meta}
                              toolCallId and title are required; name is the
                              tool's (ToolCall.name: Bash, mcp__x__y); rawInput and
                              rawOutput take any YAML; an item is one of
                              {text: "..."}, {diff: {path, oldText, newText}}
                              (no oldText = new file), {terminal: terminalId}
  tool_call_update: {toolCallId, ...}  same fields, all optional; an id that
                              was never announced is fine
  permission: {toolCallId, ...}  session/request_permission with this tool
                              call (same fields as tool_call_update)
    options: [...]              instead of permissionOptions
    allowed: [steps]            played if an allow_* option was selected
    rejected: [steps]           played if a reject_* option was selected (also
                                after an unknown optionId or an error answer,
                                reported first as an "error: ..." text chunk)
    cancelled: [steps]          played if the outcome was "cancelled"; then the
                                turn ends per onCancel (ignore: goes on)
                              After allowed/rejected steps the turn goes on.
  elicit:                     elicitation/create, only in a mode the client
                              offers (else says "elicit: not asked (...)")
    message: "Which branch?"    (required)
    mode: form                  form (default), url, or any string verbatim
    fields: {branch: string, env: [dev, prod]}  the form's fields, all
                                required: string, number, integer, boolean,
                                or a list of choices (a string field)
    schema: {...}               instead of fields: the requestedSchema as written
    toolCallId: t1
    url: https://...            mode url; elicitationId: ID (default
                                elicitation-1)
    force: true                 ask even in a mode the client does not offer
                              Says "elicit: accept {"branch":"main"}" (the
                              content as JSON), "elicit: decline" or
                              "elicit: cancel", or "error: ..." for an error.
  notice: {severity: error, title: MCP server unavailable, description: ...}
                              a notice update (severity info, warning, error
                              or any string); to a client without
                              session.notices a text chunk says so instead
  compaction: {compactionId: c1, status: in_progress, summary: "...", error: "..."}
                              a compaction_update; {compactionId: c1, chunk:
                              "..."} a compaction_summary_chunk; to a client
                              without session.compaction a text chunk says
                              so instead
  read: {path, line, limit}   fs/read_text_file; says "read: <content>"
  write: {path, content}      fs/write_text_file; says "write: ok"
  terminal:                   terminal/create, then in this order as asked:
    command: "go test ./..."    (required) args: [...] env: {NAME: value}
    cwd: dir  outputByteLimit: 32000
    toolCallId: t1              send tool_call_update {in_progress, terminal content}
    waitForExit: true           says "exit: <code>" (a cancel meanwhile kills
                                and releases the terminal, then the turn ends)
    output: true                says "output: <text>", or once the command
                                exited "output, exit <code>: <text>" (or
                                "exit signal <name>"); "output (truncated)"
                                when the client cut the output short
    kill: true                  says "kill: ok"
    killFirst: true             with kill: kill before output, as an agent's
                                timeout does
    release: true               says "release: ok"
                              create says "terminal: <id>". Any failed call
                              says "error: <method>: <message> (<code>)".
  sleep: 50ms                 pause (a cancel interrupts it)
  waitForCancel: true         block until session/cancel arrives
  showConfig: true            says what is set in the session, e.g.
                              "config: effort=high, thinking=true; model: big;
                              mode: code" (the parts the script offers;
                              "config: none" when it offers none)
  showRoots: true             says the session's roots: its cwd, then its
                              additionalDirectories ("roots: /work, /data")
  update: {sessionUpdate: agent_error, ...}   any update, sent verbatim
  usage_update: {used, size, cost: {amount, currency}}
                              a cancel it leads to (a budget passed) stops
                              the steps after it only once it has arrived:
                              follow it with waitForCancel: true to end
                              the turn there every run
  history: true               agent_message_chunk with the session's earlier
                              prompts and replies, one "user: …" or
                              "agent: …" line each ("(no history)" if none)
  waitFor: PATH               read the file to its end (relative to the
                              session cwd): a FIFO holds the agent here until
                              a writer opens and closes it; a cancel ends the
                              wait; a failure says "error: waitFor: …".
                              ${NAME} is expanded from the environment; a
                              path that expands to "" skips the step
  stop: max_tokens            end the turn now with this stop reason
  error: {code, message, data}  end the turn now with a JSON-RPC error
Own system calls (not through the client: no permission is asked, what an
OS sandbox around the agent holds; $NAME and ${NAME} are expanded from the
environment, relative paths are relative to the session cwd)
  writeFile: {path, content}  write the file itself; says "writeFile: ok", or
                              "writeFile: error: <the system's error>"
  readFile: PATH              read the file itself; says "readFile: <content>"
                              (or "readFile: error: ...")
  spawn: "touch x"            run the shell line (/bin/sh -c, in the session
                              cwd) as its own child and wait for it; says
                              "spawn: exit <code>: <output>"
  connect: HOST:PORT          open a TCP connection and close it; says
                              "connect: ok" (or "connect: error: ...")
  listen: HOST:PORT           listen on the TCP address (port 0: any) and
                              close it; says "listen: ok" (or "listen:
                              error: ...")
A model over HTTP (the request an agent's SDK sends, e.g. to acprun's gateway)
  model: {api: anthropic, model: claude-sonnet-4-5, prompt: "Say hi"}
                              api: anthropic (POST BASE/v1/messages),
                              openai-chat (BASE/chat/completions),
                              openai-responses (BASE/responses) or gemini
                              (BASE/v1beta/models/MODEL:streamGenerateContent
                              ?alt=sse, :generateContent unstreamed); api,
                              model and prompt are required. {{prompt}} in
                              the prompt is the turn's prompt text. Says the
                              answer's text in one agent_message_chunk. A
                              non-2xx answer or an error in the stream ends
                              the turn with -32603 "model step: API: STATUS:
                              the answer's error message"; so does an unset
                              base URL variable. A cancel aborts the request;
                              acprun's gateway refusing the request of a turn
                              it cancelled (a budget, a replay divergence:
                              header Acprun-Cancelled) counts as that cancel.
                              In a turn's after: steps it is a background
                              request (as an agent's title or suggestion
                              request once the turn has answered), sent once
                              the client has sent the session's next message
                              (its next prompt, or session/close, which
                              waits for it): its text is said late, and an
                              error answer ends the after: steps (no turn to
                              fail)
    env: ANTHROPIC_BASE_URL     the variable holding BASE (default per api:
                                ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
                                OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL)
    key: ANTHROPIC_API_KEY      the variable holding the API key, sent as the
                                API's header when set (default per api:
                                ANTHROPIC_API_KEY, OPENAI_API_KEY,
                                OPENAI_API_KEY, GEMINI_API_KEY)
    stream: true                ask for server-sent events (false: one JSON)
    show: text                  text (say the answer) or none
Misbehaviour
  exit: 3                     exit the process at once with this code
  hang: true                  never write or answer anything again; ignore
                              cancel and the end of stdin (notes it on stderr)
  garbage: "not json"         print this line on stdout
  flood: {count: 1000, text: x}  that many agent_message_chunks, at full speed
  stderr: "text"              write a line to stderr
  spawnGrandchild: true       start "sleep 3600" (via /bin/sh, ignoring SIGTERM)
                              holding stdout and stderr; its pid goes to stderr
Outside a turn (updatesBeforeSessionNew, load, after) permission, elicit, read,
write, terminal, waitForCancel, stop and error are not allowed, nor is model
but in after.

Sessions
  One agent process serves any number of sessions, one after another or side
  by side: each session/new opens one with its own cwd (relative paths of its
  steps resolve there), prompts, history and settings. session/close (only
  with sessionCapabilities.close) cancels the session's running turn, as
  session/cancel does, and ends the session: later requests for it are
  -32002 (unknown session).

Requests are handled in arrival order, so a client may send them without
waiting for answers. When stdin ends, the agent still answers everything it
has read (turns play on; client calls fail; waitForCancel counts as a cancel)
and then exits 0 (with ignoreEOF it stays until signalled); SIGTERM (unless
ignoreSigterm) makes it exit 130 at once.
The agent's own requests are numbered from 1 by the acp connection.
A line that is not JSON is answered -32700 (parse error), and one that is
JSON but no message (a batch: ACP has none) -32600 (invalid request), once
and with id null, as a JSON-RPC server answers them.

Example
  agentInfo: {name: demo-agent, version: "1.0"}
  turns:
    - steps:
        - thought: The user wants the tests run.
        - tool_call:
            toolCallId: call_1
            title: go test ./...
            kind: execute
            rawInput: {command: go test ./..., description: Run the tests}
        - permission: {toolCallId: call_1}
          allowed:
            - tool_call_update: {toolCallId: call_1, status: completed}
            - text: All tests pass.
          rejected:
            - tool_call_update: {toolCallId: call_1, status: failed}
            - text: OK, I will not run them.
      usage: {inputTokens: 1200, outputTokens: 80}
    - match: '(?i)refuse'
      steps: [{text: "I can't help with that."}]
      stopReason: refusal
`
