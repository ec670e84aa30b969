// Package scenario reads acprun's YAML scenario files into validated
// Scenario values. It reads files but never runs anything.
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
// # Format
//
// A file holds one scenario, or several as YAML documents separated by
// "---" (empty documents are skipped). Keys are camelCase:
//
//	name: fix-vet                 # required; unique across all loaded files
//	description: Ask the agent to fix what go vet reports.
//	tags: [nightly]               # a string or a list
//	agent:                        # required (unless the config has a default): a mapping, or a named agent: claude
//	  command: [npx, -y, "@zed-industries/claude-agent-acp"]  # a list, or a string split like a shell would
//	  env: {ANTHROPIC_API_KEY: "${ANTHROPIC_API_KEY}"}
//	  cwd: ./repo                 # session cwd, relative to the file (must exist); default: the file's directory
//	  auth: openai-api-key        # authenticate with this method id before session/new
//	  mode: code                  # session/set_mode after session/new
//	  mcpServers: []              # passed to session/new as written
//	timeout: 10m                  # the whole scenario (Go durations: 90s, 5m, 1h30m)
//	turnTimeout: 2m               # default for each turn
//	idleTimeout: 1m               # no message from the agent for that long
//	cancelGrace: 10s              # after session/cancel, how long to wait for the answer
//	killGrace: 5s                 # after closing stdin, before SIGTERM
//	continueAfterCancel: false
//	client: {fs: true, terminal: true, readOnly: false, roots: [./repo]}  # roots default to the session cwd
//	permissions:                  # also for terminal commands; without it all are denied (a warning says so)
//	  default: deny               # allow | deny
//	  allow:
//	    - kind: [read, search]    # read edit delete move search execute think fetch switch_mode other
//	    - kind: execute
//	      command: "go test *"
//	      always: true
//	      examples: {match: ["go test ./..."], noMatch: ["go test ./... && rm -rf /"]}
//	  deny:
//	    - command: ["git push *", "curl *"]
//	    - path: ["**/.env", "/etc/**"]
//	    - title: "*delete*"
//	    - input: {url: "^https?://"}
//	expect: {denied: 0}           # scenario level: denied (exact) or maxDenied
//	turns:                        # required, at least one
//	  - prompt: "Run go vet and fix what it reports."
//	    timeout: 5m
//	    expect: {stopReason: end_turn}   # the default
//	  - prompt:
//	      - text: "Summarise the change."
//	      - file: ./NOTES.md      # relative to the file; must exist
//	      - image: ./shot.png     # png, jpeg, gif or webp; must exist
//	    expect:
//	      stopReason: [end_turn, max_tokens]
//	      text: {contains: "vet", matches: "(?i)fixed \\d+"}  # contains: all must appear; matches: RE2
//	      maxDenied: 1
//
// An agent is given by its command, or by the name of a named agent (see
// below): `agent: claude`, or a mapping with name instead of command whose
// other keys change the named agent: args are added to its command, env
// variables to its env, and cwd, auth, mode and mcpServers replace its own:
//
//	agent: {name: mock, args: [agents/basic.mock.yaml]}
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
// agent.args, agent.env, agent.cwd, agent.auth, agent.mode, client.roots and the
// strings inside agent.mcpServers. It happens after YAML parsing, so a
// value never changes the file's structure; a string command is split into
// words first, so a variable holding spaces stays one word. A $ followed by
// anything else is kept as it is. Prompts, expectations and rules are never
// interpolated. An unset variable without a default is an error. An
// interpolated value that ends up empty leaves cwd, auth and mode unset.
// Inside a flow collection ([...] or {...}) quote a value holding ${...},
// since YAML reads its braces as syntax.
//
// # Named agents
//
// BuiltinAgents are the well-known ACP agents: claude (npx -y
// @zed-industries/claude-agent-acp), codex (npx -y @zed-industries/codex-acp,
// auth openai-api-key), gemini (npx -y @google/gemini-cli --acp), goose
// (goose acp), mock (acprun mock-agent, which needs its script in args),
// opencode (opencode acp) and qwen (npx -y @qwen-code/qwen-code --acp). A
// config file adds agents and may replace built-in ones. An unknown name is
// an error that suggests a close one or lists the known names.
// ResolveAgent looks a name up; Scenario.WithAgent runs a scenario against
// another named agent, keeping its session cwd.
//
// # Config file
//
// LoadConfig reads a config file, by convention acprun.yaml in the working
// directory (ConfigFile), and LoadOptions.Config hands it to Load. It has
// two keys, each optional:
//
//	defaults:                     # any of these scenario keys, for every scenario
//	  agent: claude               # the agent of scenarios without one (a name or a mapping)
//	  timeout: 10m                # also turnTimeout, idleTimeout, cancelGrace, killGrace
//	  continueAfterCancel: false
//	  client: {readOnly: true}
//	  permissions: {default: deny, allow: [{kind: read}]}
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
//	    mcpServers: []
//
// A scenario key replaces the config's value of that key as a whole, except
// that client merges key by key; flags of the command line override both.
// Relative paths in the config file (cwd, client.roots, and a program path
// with a / as the first word of a command) resolve against its directory.
// Config agents' variables are expanded when a scenario uses the agent, so
// an unset variable is an error only for the scenarios that use that
// agent. A directory walk or a glob skips files named acprun.yaml or
// acprun.yml.
//
// JSONSchema and ConfigJSONSchema return JSON Schemas of the scenario and
// config formats for editors.
package scenario
