// Package scenario reads acprun's YAML scenario files (and the config
// file) into validated Scenario values, and selects which of them run. It
// reads files but never runs anything.
//
// Files are decoded into yaml.Node trees and walked by hand, so every
// problem carries its position and all problems of all files are reported
// at once, sorted, one per line:
//
//	bad.yaml:4:3: unknown key "promt" (did you mean "prompt"?)
//	bad.yaml:9:14: bad duration "90": use a Go duration like 90s, 5m or 1h30m
//
// # Loading
//
// Load takes files, directories and globs. A directory is walked
// recursively for *.yaml and *.yml files; hidden files and directories,
// testdata directories and mock agent scripts (*.mock.yaml, *.mock.yml) are
// skipped, and symbolic links to directories are not followed. A file named
// explicitly is always loaded, whatever its name. A glob uses
// filepath.Match syntax in each path element plus ** for any number of
// directories; it picks up scenario files as a walk would. A path that does
// not exist is an error; a directory or glob with no scenario files is a
// warning (an empty selection, which the caller decides about).
// Files are loaded in sorted order, and each file's scenarios in the order
// they are written.
//
// # Selecting
//
// Select is a pure function of the loaded scenarios and a Selection (the
// command line's --run, --tag, --shard and --agent): it filters, shards
// deterministically and makes the matrix scenario × named agent, keeping
// the scenarios' order. Pick chooses one scenario of a file by name.
//
// # Format
//
// A file holds one scenario, or several as YAML documents separated by
// "---" (empty documents are skipped), in at most 4 MiB. Keys are camelCase:
//
//	name: fix-vet                 # required; unique across all loaded files
//	description: Ask the agent to fix what go vet reports.
//	tags: [nightly]               # a string or a list
//	agent:                        # required (unless the config has a default): a mapping, or a named agent: claude
//	  command: [npx, -y, "@agentclientprotocol/claude-agent-acp"]  # a list, or a string split like a shell would
//	  env: {ANTHROPIC_API_KEY: "${ANTHROPIC_API_KEY}"}
//	  cwd: ./repo                 # session cwd, relative to the file (must exist); default: the file's directory
//	  auth: openai-api-key        # authenticate with this method id before session/new
//	  mode: code                  # session/set_mode after session/new (or its config option of category mode)
//	  model: sonnet               # the config option of category model, else session/set_model
//	  config: {effort: high}      # session/set_config_option by option id; values must be offered
//	  mcpServers: []              # passed to session/new; http/sse ones only with the agent's mcpCapabilities
//	  reuse: false                # share the agent process with scenarios started the same way (own session each)
//	timeout: 10m                  # the whole scenario, the agent's shutdown included (Go durations: 90s, 5m, 1h30m)
//	turnTimeout: 2m               # default for each turn
//	idleTimeout: 1m               # no message from the agent for that long
//	cancelGrace: 10s              # after session/cancel, how long to wait for the answer
//	killGrace: 5s                 # after closing stdin, before SIGTERM (50ms after a clean end; then SIGKILL); never past timeout
//	continueAfterCancel: false
//	retries: 2                    # run an attempt that errored or was invalid again, up to 2 times (0-10; default 0)
//	budget: {maxCost: 2.5, maxTotalTokens: 200000}  # what the agent may spend, as it reports it, enforced live:
//	                              # the turn that passes it is cancelled (cancelCause budget), the rest skipped, and
//	                              # the scenario fails; maxCost at each usage_update, maxTotalTokens at each answer;
//	                              # maxRequests: N, model requests through the gateway (needs gateway)
//	client: {fs: true, terminal: true, readOnly: false, roots: [./repo]}  # the session cwd is always a root
//	permissions:                  # also for terminal commands; without it all are denied (a warning says so)
//	  default: deny               # allow | deny
//	  allow:
//	    - kind: [read, search]    # read edit delete move search execute think fetch switch_mode other
//	    - tool: Read              # a glob on the tool's name (ToolCall.name), any case
//	    - kind: execute
//	      command: "go test *"
//	      always: true
//	      examples: {match: ["go test ./..."], noMatch: ["go test ./... && rm -rf /"]}
//	  deny:
//	    - command: ["git push *", "curl *"]
//	    - path: ["**/.env", "/etc/**"]
//	    - title: "*delete*"
//	    - input: {url: "^https?://"}
//	answers: {branch: main}       # fill the agent's forms (elicitation/create); see Answers below
//	workspace: ./fixtures/repo    # a fresh copy for each attempt; or {from: DIR}, or {git: ./repo, ref: HEAD~3}
//	                              # with protect: [tests/**, verify.sh]: globs the agent must not change (see below)
//	sandbox:                      # an OS sandbox around the agent side ({} or true: the defaults; false: none)
//	  write: ["~/.cache/tool"]    # writable besides the cwd, TMPDIR, the agent's state dirs (a string or a list)
//	  hide: [./secrets]           # unreadable besides ~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc, ~/.docker
//	  network: on                 # on (default) | off: no connection at all
//	  ports: [443]                # with network on, the only TCP ports it may connect to
//	  level: required             # required (default): refuse a host that cannot enforce it | best-effort
//	gateway:                      # acprun's model gateway between the agent and its model (or a mode alone: gateway: meter)
//	  mode: replay                # record | replay | meter (required; run --gateway MODE overrides it)
//	  dir: cassettes              # where the cassettes are, relative to the file (the default)
//	  env: MY_BASE_URL            # the agent's base-URL variable: needed for an agent given by its command
//	  upstream: https://api.example.com/v1  # where record and meter forward; default: the agent's own value of env
//	  key: MY_API_KEY             # its API-key variable, a dummy key in replay
//	setup:                        # shell lines run before the agent starts; each must exit 0
//	  - npm ci
//	  - {run: make build, timeout: 5m}   # timeout default 10m
//	expect: {denied: 0}           # scenario level: denied (exact) or maxDenied, and the keys below, and
//	                              # agent: {name: "@agentclientprotocol/claude-agent-acp", version: {matches: '^0\.101\.'}} (initialize's agentInfo)
//	turns:                        # required, at least one, at most 1000
//	  - prompt: "Run go vet and fix what it reports."
//	    timeout: 5m
//	    budget: {maxCost: 0.5}    # what this turn may spend (its cost: the session's, less the cost before it)
//	    expect: {stopReason: end_turn}   # the default
//	  - prompt: "Deploy it."
//	    answers:                  # tried before the scenario's
//	      - {match: "(?i)deploy", values: {env: staging, confirm: true}}
//	    expect: {notices: {max: warning}}  # no notice above warning (info < warning < error)
//	  - prompt: "Refactor everything."
//	    timeout: 1m
//	    expect: {stopReason: cancelled, cancelCause: turnTimeout}  # cancelled for its timeout: turnTimeout,
//	                              # idleTimeout or scenarioTimeout (or a list); needs stopReason. A cancel for
//	                              # an interrupt, the run's --timeout or --fail-fast meets no expectation
//	  - prompt: {file: ./prompts/review.md}  # the prompt is this file's text (UTF-8, at most 4 MiB), read at load
//	  - prompt:
//	      - text: "Summarise the change."
//	      - file: ./NOTES.md      # attached, not read into the text; relative to the file; must exist
//	      - image: ./shot.png     # png, jpeg, gif or webp; must exist; files and images: 6 MiB a prompt
//	    expect:
//	      stopReason: [end_turn, max_tokens]
//	      text: {contains: "vet", matches: "(?i)fixed \\d+"}  # contains: all must appear; matches: RE2
//	      maxDenied: 1
//	      toolCalls:              # a pattern is a tool kind (as in rules), else a glob on the title or the tool's name
//	        used: [edit, "Write *"]      # each matches at least one tool call
//	        notUsed: [delete]            # none matches any
//	        count: {execute: "<=2", edit: 1, "Read *": ">=1"}  # N, "<=N" or ">=N" calls
//	        status: completed            # every tool call ended so: completed | failed
//	        sequence: [read, edit, execute]  # in this order, other calls between allowed
//	      files:                  # relative to the workspace (or the session cwd); no absolute paths, no ..
//	        exists: [done.txt]
//	        absent: [tmp.txt]
//	        contains: {README.md: hello}     # a string or a list, all must appear
//	        matches: {main.go: "func main"}  # RE2
//	        unchanged: ["vendor/**", go.mod]  # globs (dir/ = dir/**): not created, modified or deleted; needs a workspace
//	        golden: {out.txt: ./golden/out.txt}  # equal byte for byte; the golden file is relative to this file and must exist
//	      permissions: {requested: [edit], notRequested: [execute, "mcp__*"]}  # as in toolCalls
//	      usage: {maxTotalTokens: 50000, maxCost: 0.5}  # what the agent reported
//	      judge:                  # a second agent reads the finished work in a read-only session
//	        agent: claude         # required; a name or a mapping, like the scenario's agent
//	        rubric: "Answer PASS if the fix is minimal, else FAIL and why."  # required
//	        pass: "^PASS"         # RE2 matched against the judge's reply; default \A[\W_]*PASS(?:[\W_]|\z): its first word is PASS
//	        timeout: 2m           # default 5m
//	verify:                       # shell lines run after the last turn; each is an expectation
//	  - test -f done.txt          # must exit 0
//	  - run: go test ./...
//	    timeout: 10m
//	    expect: {exitCode: 0, stdout: {contains: [ok], matches: "PASS"}}
//	teardown: ["rm -rf /tmp/x"]   # shell lines run last, always; their outcome is only recorded
//	session: {resume: true, stateFile: .acprun/state.json}  # continue the agent's session across runs
//
// toolCalls, files, permissions, usage, judge and notices may be given in a
// turn's expect (about that turn) or in the scenario's (about all of it,
// the notices before the first turn included). A toolCalls or permissions
// value that is not a tool kind but close to one (exec) gets a warning,
// since it is taken as a title or tool name. notices.max fails the turn
// (or scenario) whose agent sent a notice more severe than it; a severity
// ACP does not define counts as error.
//
// # Answers
//
// answers, in the scenario or a turn, script the answers to the agent's
// questions (elicitation/create in form mode): a mapping of form fields to
// values, for every question, or a list of {match: REGEX, values: {FIELD:
// VALUE}} entries, match an RE2 regexp on the question's message (none:
// every question). A value is a scalar, or a list for a multi-select;
// ${VAR} is expanded. With answers anywhere in the scenario the runner
// advertises form elicitation, and fills each form field by field, from
// the first entry (the turn's, then the scenario's) that matches and has
// the field; a question it cannot answer is declined with a warning, and a
// URL question always is.
//
// A workspace gives each attempt (scenario × agent × attempt) a fresh
// copy of a directory, or a git checkout of ref (default HEAD); the copy
// is removed after a passing attempt. Its directory must exist. When the
// agent has no cwd of its own, the session cwd and the client roots
// default to the workspace, meaning the attempt's copy; the paths of rules
// and files expectations then refer to the copy too. workspace: null
// means none, even when the config's defaults give one.
//
// workspace.protect lists globs (relative to the workspace, like
// files.unchanged) of files the agent must leave alone: tests, the verify
// script. They are compared before the first turn (after setup) and after
// the last; when the agent created, modified or deleted one, the attempt
// is invalid (tampered), naming the files, and its verify does not run.
// expect.agent (scenario level only) names the agent the scenario must run
// against, as initialize's agentInfo gives its name and version: each a
// string it must equal, or {matches: RE}; another agent makes the attempt
// invalid (agent) before any turn. An invalid attempt measured nothing: it
// neither passed nor failed.
//
// setup, verify and teardown commands are shell lines, run by /bin/sh -c
// in the workspace (or the session cwd), each in its own process group,
// with acprun's environment and the agent's env: a string, or a mapping
// with run, timeout and, for verify only, expect (default: exit code 0).
// An empty list means none. A setup command that fails ends the attempt as
// an error; verify commands run after the last turn and are expectations;
// teardown commands run last whatever happened, once the workspace exists
// (not when it could not be made), and one that fails gives a warning.
// ACPRUN_WORKSPACE names the attempt's copy (when there is a workspace).
// What a command starts in the background is killed when it exits (see
// package internal/hook), so a setup cannot start a server for the agent.
//
// sandbox puts the agent, everything it starts, the terminals acprun runs
// for it, the judges and with verify: true the verify commands (never
// setup or teardown) in an OS sandbox (see the
// runner): writes only in the session cwd, a private TMPDIR, the named
// agent's state directories (SandboxWrite) and write; hide (and
// SandboxHide) unreadable; network off, or ports only. Its paths take ~
// (HOME) and ${VAR}, and are relative to the file. With level required a
// host that cannot enforce it all ends the scenario as an error before
// the agent starts; best-effort runs with what the host can do and
// warns. sandbox: null (or false) means none, even when the config's
// defaults give one; the scenario's sandbox replaces the config's whole.
//
// gateway puts acprun's model gateway (internal/gateway) between the agent
// and its model provider: the runner serves it on loopback and sets the
// agent's base-URL variables (Gateway.Targets) to it. A named agent's
// registry entry says which variables it reads (claude ANTHROPIC_BASE_URL;
// codex and qwen OPENAI_BASE_URL; gemini GOOGLE_GEMINI_BASE_URL; goose
// ANTHROPIC_HOST and OPENAI_HOST; opencode its providers' baseURL options
// in OPENCODE_CONFIG_CONTENT); an agent given by its command, or a config
// agent of another name, needs env. The upstream is gateway.upstream, else
// the agent's own value of the variable (its env, then acprun's
// environment), else the provider's default. acprun's mock and replay
// agents have no variable of their own: without env their gateway has no
// target (a warning when the file asks for one). LoadOptions.Gateway (run --gateway) gives
// every scenario a gateway in its mode. budget.maxRequests needs a
// gateway. gateway: null (or false) means none, even when the config's
// defaults give one; the scenario's gateway replaces the config's whole.
//
// session.resume continues, from one run to the next, the agent's session
// that the state file (stateFile, default .acprun/state.json beside the
// scenario file, interpolated) recorded for the scenario's name and agent;
// the runner loads it with session/load or session/resume and falls back
// to a new session, with a warning, when it cannot. Scenario.StateFile
// gives the default even without a session key, for `run --resume`. A resumed session
// with a workspace (and no agent.cwd) gets a warning: each attempt's cwd is
// a fresh copy, so the recorded session is never continued.
//
// An agent is given by its command, or by the name of a named agent (see
// below): `agent: claude`, or a mapping with name instead of command whose
// other keys change the named agent: args are added to its command, env
// variables to its env, config options to its config (an id in both takes
// the scenario's value; an empty value, such as "${UNSET:-}", drops it), and
// cwd, auth, mode, model and mcpServers replace its own:
//
//	agent: {name: mock, args: [agents/basic.mock.yaml]}
//
// After session/new the runner sets the session up as the agent allows:
// agent.mode through the agent's config option of category mode when it
// has one (else session/set_mode), agent.model through the config option
// of category model (else session/set_model, when the agent offers
// models), then each agent.config option in order. An option id or a
// value the agent does not offer is an error at the value's position,
// listing what it offers, before the first prompt. Each entry of
// agent.mcpServers is checked against ACP's McpServer when the file is
// loaded (stdio {name, command, args, env}; {name, type: http or sse, url,
// headers}; env and headers lists of {name, value}); a relative command
// path (with a /) is resolved against the file's directory. MCP servers of
// type http or sse are left out with a warning when the agent's
// mcpCapabilities lack that transport.
//
// An agent may instead replay a transcript recorded by `acprun run
// --transcripts DIR`: `agent: {replay: transcripts/basic.jsonl}`, relative
// to the file, which must exist (its contents are read when the scenario
// runs). Its command is then [acprun, replay, ABSOLUTE-PATH], run by the
// running acprun binary; it does not go with command, name or args.
//
// A prompt is a string, {file: PATH} or a list of parts. {file: PATH}
// reads the prompt's text from PATH (relative to the scenario file) when
// the file is loaded, so that validate and run --dry-run show it and a
// missing, unreadable, non-UTF-8, empty or too large file is an error at
// the file: value; the text is sent as it is, final newline included. In
// a list of parts, file: attaches the file instead (a resource the agent
// may read). run --prompt FILE (or - for stdin) replaces the turns of one
// scenario with one turn of that text.
//
// retries: N (0 to MaxRetries; the config's defaults may set it) runs an
// attempt that errored or was invalid again, up to N times, for flaky
// infrastructure (an agent that crashed, a provider's rate limit); an
// attempt that failed is the agent's verdict and is not run again. Each try
// has a fresh workspace. The runner keeps every try in the results: the
// attempt passes if any try passes (it is then flaky), and ends as its
// last try did when none does. With run --repeat, a retry is another try
// of the same attempt, not another sample.
//
// A permission rule needs at least one matcher (kind, title, command, path,
// input); its examples are checked with approve.CheckExamples when the file
// is loaded. YAML anchors, aliases and merge keys (<<) may be used; an
// anchor stays usable in the later documents of the same file.
//
// # Interpolation
//
// ${VAR} and ${VAR:-default} (default used when VAR is unset or empty) are
// replaced, and $$ stands for a single $, in the values of agent.command,
// agent.args, agent.env, agent.cwd, agent.auth, agent.mode, agent.model, the
// values of agent.config, client.roots and the
// strings inside agent.mcpServers, and in the paths of workspace (and its
// ref), sandbox.write and sandbox.hide (which also take a leading ~ for
// HOME), gateway.dir and gateway.upstream, files.golden and
// session.stateFile. It happens after YAML parsing, so a
// value never changes the file's structure; a string command is split into
// words first, so a variable holding spaces stays one word. A $ followed by
// anything else is kept as it is. Prompts (inline, or the text and the
// path of prompt: {file: PATH}), rules and the other
// expectations (including the paths of files, which are the workspace's)
// are never interpolated. Nor are the run lines of setup, verify and
// teardown: the shell expands $VARS itself, and the commands get the
// agent's environment. An unset variable without a default is an error;
// with LoadOptions.DeferUnset, an error only of the scenario that uses it
// (Scenario.Unset), for a command to report for the scenarios it selects
// (UnsetErrors) and to warn about for the others (UnsetWarnings). An
// interpolated value that ends up empty leaves cwd, auth, mode, model or
// that config option unset.
// Inside a flow collection ([...] or {...}) quote a value holding ${...},
// since YAML reads its braces as syntax.
//
// # Named agents
//
// BuiltinAgents are the well-known ACP agents: claude (npx -y
// @agentclientprotocol/claude-agent-acp), codex (npx -y
// @zed-industries/codex-acp, auth openai-api-key), gemini (npx -y @google/gemini-cli --acp), goose
// (goose acp), mock (acprun mock-agent, which needs its script in args),
// opencode (opencode acp) and qwen (npx -y @qwen-code/qwen-code --acp
// --auth-type=openai, which makes it read OPENAI_API_KEY). A
// config file adds agents and may replace built-in ones. An unknown name is
// an error that suggests a close one or lists the known names.
// ResolveAgent looks a name up; Scenario.WithAgent runs a scenario against
// another named agent, keeping its session cwd.
//
// # Config file
//
// LoadConfig reads a config file, by convention acprun.yaml in the working
// directory (ConfigFile), and LoadOptions.Config hands it to Load. Its keys
// are each optional:
//
//	defaults:                     # any of these scenario keys, for every scenario
//	  agent: claude               # the agent of scenarios without one (a name or a mapping)
//	  timeout: 10m                # also turnTimeout, idleTimeout, cancelGrace, killGrace
//	  continueAfterCancel: false    # also retries
//	  client: {readOnly: true}
//	  permissions: {default: deny, allow: [{kind: read}]}
//	  answers: {branch: main}     # a scenario's own answers replace these
//	  workspace: ./fixtures/repo  # also sandbox, gateway, setup, verify and teardown
//	  session: {resume: true}     # stateFile relative to this file; default: beside each scenario file
//	agents:                       # named agents
//	  claude:                     # a built-in's name: replaces it; without command, changes it
//	    env: {ANTHROPIC_API_KEY: "${MY_CLAUDE_KEY}"}
//	  mine:
//	    description: Our agent, built from source.
//	    command: [./bin/agent, --acp]  # required for a new name
//	    env: {MODEL: "${MODEL:-small}"}
//	    cwd: ./repo
//	    auth: api-key
//	    mode: code
//	    model: small
//	    config: {effort: low}
//	    mcpServers: []
//	prices:                       # the gateway's costs: per million tokens, by model as requests name it
//	  claude-sonnet-4-5: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}  # input and output required
//	currency: USD                 # what the prices and every maxCost are in (the default)
//
// A scenario key replaces the config's value of that key as a whole, except
// that client merges key by key; flags of the command line override both.
// Relative paths in the config file (cwd, client.roots, workspace, sandbox, gateway.dir, and a
// program path with a / as the first word of a command) resolve against
// its directory.
// Config agents' variables are expanded when a scenario uses the agent, so
// an unset variable is an error only for the scenarios that use that
// agent; one in another default is an error only for the scenarios that
// use that default (whose own key does not replace it). A directory walk or a glob skips files named acprun.yaml or
// acprun.yml.
//
// JSONSchema and ConfigJSONSchema return JSON Schemas of the scenario and
// config formats for editors.
package scenario
