package scenario_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/scenario"
)

// loadConfig loads src as /cfg/acprun.yaml with the tests' environment.
func loadConfig(t *testing.T, src string) *scenario.Config {
	t.Helper()
	cfg, err := scenario.LoadConfigBytes("/cfg/acprun.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadConfigBytes:\n%v", err)
	}
	return cfg
}

// loadWith loads one scenario file's source as /s/x.yaml with cfg.
func loadWith(t *testing.T, cfg *scenario.Config, src string) []*scenario.Scenario {
	t.Helper()
	o := opts
	o.Config = cfg
	scens, _, err := scenario.LoadBytes("/s/x.yaml", []byte(src), o)
	if err != nil {
		t.Fatalf("LoadBytes:\n%v", err)
	}
	return scens
}

// dirsUnder makes the directories dirs (slash paths) under a new
// temporary directory, which it returns: session cwds must exist.
func dirsUnder(t *testing.T, dirs ...string) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// loadConfigAt is loadConfig for a config file at path.
func loadConfigAt(t *testing.T, path, src string) *scenario.Config {
	t.Helper()
	cfg, err := scenario.LoadConfigBytes(path, []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadConfigBytes:\n%v", err)
	}
	return cfg
}

// loadAt is loadWith for a scenario file at path.
func loadAt(t *testing.T, cfg *scenario.Config, path, src string) []*scenario.Scenario {
	t.Helper()
	o := opts
	o.Config = cfg
	scens, _, err := scenario.LoadBytes(path, []byte(src), o)
	if err != nil {
		t.Fatalf("LoadBytes:\n%v", err)
	}
	return scens
}

func TestLoadConfig(t *testing.T) {
	cfg := loadConfig(t, `# every key
defaults:
  agent: {name: mock, args: [m.mock.yaml]}
  timeout: 10m
  turnTimeout: 2m
  idleTimeout: 1m
  cancelGrace: 3s
  killGrace: 4s
  continueAfterCancel: true
  client: {terminal: false, roots: [./repo, /abs]}
  permissions:
    default: allow
    answerDelay: 1s
    deny: [{kind: delete}]
agents:
  mine:
    description: Our own agent.
    command: ./bin/agent --acp
    env: {KEY: "${ANTHROPIC_API_KEY}", B: 2}
    cwd: work
    auth: key
    mode: code
    mcpServers: [{name: m, command: /bin/mcp, args: [], env: []}]
  claude:
    env: {ANTHROPIC_API_KEY: "${HOME}"}
  codex: {command: [my-codex]}
`)
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "/cfg/acprun.yaml", Line: line, Col: col} }
	wantDefaults := scenario.Defaults{
		Agent: &scenario.Agent{Pos: at(3, 10), Name: "mock", Command: []string{"acprun", "mock-agent", "m.mock.yaml"},
			McpServers: json.RawMessage("[]")},
		Scenario: scenario.Scenario{
			Timeout: 10 * time.Minute, TurnTimeout: 2 * time.Minute, IdleTimeout: time.Minute,
			CancelGrace: 3 * time.Second, KillGrace: 4 * time.Second, ContinueAfterCancel: true,
			Client: scenario.Client{FS: true, Terminal: false, Roots: []string{"/cfg/repo", "/abs"}, Set: true},
			Policy: &approve.Policy{Default: approve.Allow,
				Deny: []approve.Rule{{Pos: "/cfg/acprun.yaml:14", Kind: []string{"delete"}}}},
			AnswerDelay: time.Second,
		},
	}
	if diff := cmp.Diff(wantDefaults, cfg.Defaults, cmpOpts); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
	wantAgents := map[string]scenario.NamedAgent{
		"mine": {Name: "mine", Description: "Our own agent.", Source: "/cfg/acprun.yaml", Agent: scenario.Agent{
			Pos: at(17, 5), Name: "mine", Command: []string{"/cfg/bin/agent", "--acp"},
			Env: map[string]string{"KEY": "sk-test", "B": "2"}, Cwd: "/cfg/work", CwdPos: at(20, 10), Auth: "key", Mode: "code",
			McpServers: json.RawMessage(`[{"name":"m","command":"/bin/mcp","args":[],"env":[]}]`)}},
		"claude": {Name: "claude", Source: "/cfg/acprun.yaml",
			Description: scenario.BuiltinAgents()[0].Description, Agent: scenario.Agent{
				Pos: at(25, 5), Name: "claude", Command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"},
				Env: map[string]string{"ANTHROPIC_API_KEY": "/home/user", "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false"}, AuthEnv: []string{"ANTHROPIC_API_KEY"}}},
		"codex": {Name: "codex", Source: "/cfg/acprun.yaml", Agent: scenario.Agent{
			Pos: at(26, 10), Name: "codex", Command: []string{"my-codex"}, AuthEnv: []string{"OPENAI_API_KEY"}}},
	}
	if diff := cmp.Diff(wantAgents, cfg.Agents, cmpOpts); diff != "" {
		t.Errorf("Agents (-want +got):\n%s", diff)
	}
}

// TestLoadConfigProblemsKeepSecrets: a config with problems is returned
// with them as far as it was read, so that the caller can redact its
// agents' env values from the problems' source lines, which may repeat
// them; a syntax error leaves nothing read, a file that cannot be read no
// config.
func TestLoadConfigProblemsKeepSecrets(t *testing.T) {
	const src = "agents:\n  keyed:\n    command: [a]\n    env: {KEY: sk-partial-123456}\n    descripton: \"uses sk-partial-123456\"\n" +
		"defaults:\n  agent: {command: [b], env: {OTHER: sk-default-654321}}\n  timeout: nope\n"
	cfg, err := scenario.LoadConfigBytes("c.yaml", []byte(src), scenario.LoadOptions{})
	if err == nil || cfg == nil {
		t.Fatalf("LoadConfigBytes = %v, %v; want the config as read and its problems", cfg, err)
	}
	if got := cfg.Agents["keyed"].Agent.Env["KEY"]; got != "sk-partial-123456" {
		t.Errorf("agent keyed's env KEY = %q, want it read despite the problems", got)
	}
	if cfg.Defaults.Agent == nil || cfg.Defaults.Agent.Env["OTHER"] != "sk-default-654321" {
		t.Errorf("defaults.agent = %+v, want it read despite the problems", cfg.Defaults.Agent)
	}
	cfg, err = scenario.LoadConfigBytes("c.yaml", []byte("agents:\n  keyed: {env: {KEY: sk-partial-123456}\n"), scenario.LoadOptions{})
	if err == nil || cfg == nil || len(cfg.Agents) != 0 {
		t.Errorf("LoadConfigBytes(syntax error) = %+v, %v; want an empty config and the error", cfg, err)
	}
	if cfg, err := scenario.LoadConfig(filepath.Join(t.TempDir(), "nope.yaml"), scenario.LoadOptions{}); err == nil || cfg != nil {
		t.Errorf("LoadConfig(missing) = %+v, %v; want no config and the error", cfg, err)
	}
}

func TestLoadConfigEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing\n", "---\n", "defaults:\nagents:\n"} {
		cfg := loadConfig(t, src)
		if len(cfg.Agents) != 0 || cfg.Defaults.Agent != nil || cfg.Defaults.Scenario.Client.Set {
			t.Errorf("LoadConfigBytes(%q) = %+v, want an empty config", src, cfg)
		}
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "scenario key at the top level",
			src:  "timeout: 1m\n",
			want: []string{`c.yaml:1:1: unknown key "timeout" (valid keys: defaults, agents, prices, currency); timeout belongs under defaults`},
		},
		{
			name: "misspelt top-level key",
			src:  "agent:\n  x: {command: [a]}\n",
			want: []string{`c.yaml:1:1: unknown key "agent" (valid keys: defaults, agents, prices, currency); agent belongs under defaults`},
		},
		{
			name: "scenario keys are not defaults",
			src:  "defaults:\n  turn_timeout: 1m\n  turns: []\n",
			want: []string{
				`c.yaml:2:3: unknown key "turn_timeout" (did you mean "turnTimeout"?)`,
				`c.yaml:3:3: unknown key "turns" (valid keys: agent, timeout, turnTimeout, idleTimeout, cancelGrace, killGrace, continueAfterCancel, retries, budget, client, permissions, answers, workspace, sandbox, gateway, setup, verify, teardown, session); turns belongs in a scenario`,
			},
		},
		{
			name: "misspelt agent key",
			src:  "agents:\n  mine: {comand: [a]}\n",
			want: []string{`c.yaml:2:10: unknown key "comand" (did you mean "command"?)`},
		},
		{
			name: "new agent without command",
			src:  "agents:\n  mine:\n    auth: x\n",
			want: []string{`c.yaml:3:5: missing required key "command" (only an agent that changes a built-in one may leave it out: claude, codex, gemini, goose, mock, opencode, qwen)`},
		},
		// An empty program name written as such is an error in the config
		// itself, as an empty command is; one a variable may give is
		// checked where a scenario uses the agent (TestResolveAgent).
		{
			name: "empty program name",
			src:  "agents:\n  mine: {command: [\"\", acp]}\n  other: {command: \"'' acp\"}\n  later: {command: [\"${UNSET_PROG}\"]}\n",
			want: []string{
				`c.yaml:2:19: agent command has an empty program name`,
				`c.yaml:3:20: agent command has an empty program name`,
			},
		},
		{
			name: "agent name and type",
			src:  "agents:\n  my agent: {command: [a]}\n  ok: [a]\n  '': {command: [a]}\n",
			want: []string{
				`c.yaml:2:3: bad agent name "my agent": use letters, digits, '.', '_' and '-', starting with a letter or digit`,
				`c.yaml:3:7: expected a mapping with a command, got a list`,
				`c.yaml:4:3: bad agent name "": use letters, digits, '.', '_' and '-', starting with a letter or digit`,
			},
		},
		{
			name: "agents of the wrong type",
			src:  "agents: [a]\ndefaults: 3\n",
			want: []string{
				`c.yaml:1:9: expected a mapping of agent names to agents, got a list`,
				`c.yaml:2:11: expected a mapping, got a number`,
			},
		},
		{
			name: "unknown default agent",
			src:  "agents:\n  mine: {command: [a]}\ndefaults:\n  agent: mien\n",
			want: []string{`c.yaml:4:10: unknown agent "mien" (did you mean "mine"?)`},
		},
		{
			name: "default agent with name and command",
			src:  "defaults:\n  agent: {name: claude, command: [a], args: [x]}\n",
			want: []string{`c.yaml:2:25: use either name (a named agent) or command, not both`},
		},
		{
			name: "bad values in defaults",
			src:  "defaults:\n  timeout: 90\n  client: {roots: []}\n  permissions: {allow: [{kind: reed}]}\n",
			want: []string{
				`c.yaml:2:12: bad duration "90" (a unit is required): use a Go duration like 90s, 5m or 1h30m`,
				`c.yaml:3:19: roots is empty: list at least one directory, or leave roots out to use the session cwd`,
				`c.yaml:4:32: unknown permission kind "reed" (did you mean "read"?)`,
			},
		},
		{
			name: "bad variable reference",
			src:  "agents:\n  mine: {command: [a, \"${A-b}\"]}\n",
			want: []string{`c.yaml:2:24: bad variable reference "${A-b}": use ${NAME} or ${NAME:-default}`},
		},
		{
			name: "two documents",
			src:  "agents: {}\n---\ndefaults: {}\n",
			want: []string{`c.yaml:3:1: a config file holds one YAML document`},
		},
		{
			name: "syntax error",
			src:  "agents:\n  mine: {command: [a]\n",
			want: []string{`c.yaml:2:9: YAML syntax: did not find expected ',' or '}' while parsing a flow mapping; the { here is never closed with }`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.LoadConfigBytes("c.yaml", []byte(tt.src), opts)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	_, err := scenario.LoadConfig(filepath.Join(t.TempDir(), "nope.yaml"), opts)
	var errs scenario.Errors
	if !errors.As(err, &errs) || len(errs) != 1 || !strings.HasSuffix(err.Error(), "nope.yaml: no such file or directory") {
		t.Errorf("LoadConfig(missing) = %v, want one error ending in nope.yaml: no such file or directory", err)
	}
}

func TestConfigPrecedence(t *testing.T) {
	cfg := loadConfig(t, `defaults:
  agent: claude
  timeout: 10m
  turnTimeout: 2m
  continueAfterCancel: true
  client: {readOnly: true, roots: [shared]}
  permissions: {default: allow, answerDelay: 1s}
agents:
  claude: {command: [my-claude], auth: login}
`)
	scens := loadWith(t, cfg, `name: defaults
turns: [{prompt: hi}]
---
name: overrides
agent: {command: [other]}
timeout: 5m
continueAfterCancel: false
client: {fs: false}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: own-roots
agent: codex
client: {roots: [mine]}
turns: [{prompt: hi}]
`)
	type summary struct {
		Agent               scenario.Agent
		Timeout             time.Duration
		TurnTimeout         time.Duration
		ContinueAfterCancel bool
		Client              scenario.Client
		Default             approve.Verdict
		AnswerDelay         time.Duration
	}
	var got []summary
	for _, s := range scens {
		got = append(got, summary{s.Agent, s.Timeout, s.TurnTimeout, s.ContinueAfterCancel, s.Client,
			s.Policy.Default, s.AnswerDelay})
	}
	mcp := json.RawMessage("[]")
	want := []summary{
		{
			Agent: scenario.Agent{Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 10}, Name: "claude",
				Command: []string{"my-claude"}, Auth: "login", AuthEnv: []string{"ANTHROPIC_API_KEY"}, Env: map[string]string{"CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false"}, Cwd: "/s", McpServers: mcp, Enforcement: claudeEnforcement},
			Timeout: 10 * time.Minute, TurnTimeout: 2 * time.Minute, ContinueAfterCancel: true,
			Client:  scenario.Client{FS: true, Terminal: true, ReadOnly: true, Roots: []string{"/cfg/shared"}, Set: true},
			Default: approve.Allow, AnswerDelay: time.Second,
		},
		{
			Agent: scenario.Agent{Pos: scenario.Pos{File: "/s/x.yaml", Line: 5, Col: 8}, Command: []string{"other"},
				Cwd: "/s", McpServers: mcp},
			Timeout: 5 * time.Minute, TurnTimeout: 2 * time.Minute, ContinueAfterCancel: false,
			Client:  scenario.Client{FS: false, Terminal: true, ReadOnly: true, Roots: []string{"/cfg/shared"}, Set: true},
			Default: approve.Deny,
		},
		{
			Agent: scenario.Agent{Pos: scenario.Pos{File: "/s/x.yaml", Line: 13, Col: 8}, Name: "codex",
				Command: []string{"npx", "-y", "@zed-industries/codex-acp", "-c", "approval_policy=untrusted"}, Auth: "openai-api-key", AuthEnv: []string{"OPENAI_API_KEY"}, Cwd: "/s", McpServers: mcp,
				Enforcement: &scenario.Enforcement{Args: []string{"-c", "approval_policy=untrusted"}, UnaskedModes: []string{"full-access", "agent-full-access", "agent"}}},
			Timeout: 10 * time.Minute, TurnTimeout: 2 * time.Minute, ContinueAfterCancel: true,
			Client:  scenario.Client{FS: true, Terminal: true, ReadOnly: true, Roots: []string{"/s/mine"}, Set: true},
			Default: approve.Allow, AnswerDelay: time.Second,
		},
	}
	if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	// The config's policy is shared, not copied per scenario.
	if scens[0].Policy != cfg.Defaults.Scenario.Policy {
		t.Errorf("scenario policy is not the config's")
	}
}

func TestNoPermissionsWarningWithConfigPolicy(t *testing.T) {
	cfg := loadConfig(t, "defaults: {permissions: {default: deny}}\n")
	o := opts
	o.Config = cfg
	_, warns, err := scenario.LoadBytes("/s/x.yaml", []byte("name: x\nagent: claude\nturns: [{prompt: hi}]\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none when the config has permissions", warns)
	}
}

func TestNamedAgents(t *testing.T) {
	base := dirsUnder(t, "cfg/work", "s/here")
	cfg := loadConfigAt(t, base+"/cfg/acprun.yaml", `agents:
  mine:
    command: [./bin/agent]
    env: {A: a, B: b}
    cwd: work
    auth: key
    mcpServers: [{name: m, command: /m, args: [], env: []}]
  mock: {env: {MOCK: "1"}}
`)
	scens := loadAt(t, cfg, base+"/s/x.yaml", `name: string-form
agent: mine
turns: [{prompt: hi}]
---
name: changed
agent:
  name: mine
  args: [--fast, "${HOME}"]
  env: {B: B, C: c}
  cwd: here
  auth: ""
  mode: plan
  mcpServers: []
turns: [{prompt: hi}]
---
name: mock-with-script
agent: {name: mock, args: [agents/x.mock.yaml]}
turns: [{prompt: hi}]
---
name: builtin
agent: {name: gemini}
turns: [{prompt: hi}]
`)
	var got []scenario.Agent
	for _, s := range scens {
		a := s.Agent
		a.Pos = scenario.Pos{}
		got = append(got, a)
	}
	mcpM := json.RawMessage(`[{"name":"m","command":"/m","args":[],"env":[]}]`)
	cfgAt := func(line, col int) scenario.Pos {
		return scenario.Pos{File: base + "/cfg/acprun.yaml", Line: line, Col: col}
	}
	want := []scenario.Agent{
		{Name: "mine", Command: []string{base + "/cfg/bin/agent"}, Env: map[string]string{"A": "a", "B": "b"},
			Cwd: base + "/cfg/work", CwdPos: cfgAt(5, 10), Auth: "key", McpServers: mcpM},
		{Name: "mine", Command: []string{base + "/cfg/bin/agent", "--fast", "/home/user"},
			Env: map[string]string{"A": "a", "B": "B", "C": "c"}, OwnEnv: map[string]string{"B": "B", "C": "c"}, Cwd: base + "/s/here", OwnCwd: true,
			CwdPos: scenario.Pos{File: base + "/s/x.yaml", Line: 10, Col: 8}, Auth: "", Mode: "plan",
			McpServers: json.RawMessage("[]")},
		{Name: "mock", Command: []string{"acprun", "mock-agent", "agents/x.mock.yaml"},
			Env: map[string]string{"MOCK": "1"}, Cwd: base + "/s", McpServers: json.RawMessage("[]")},
		{Name: "gemini", Command: []string{"npx", "-y", "@google/gemini-cli", "--acp", "--approval-mode", "default"}, AuthEnv: []string{"GEMINI_API_KEY"}, Cwd: base + "/s",
			McpServers:  json.RawMessage("[]"),
			Enforcement: &scenario.Enforcement{Args: []string{"--approval-mode", "default"}, UnaskedModes: []string{"yolo", "autoEdit"}}},
	}
	if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
}

func TestNamedAgentErrors(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine: {command: [a, "${UNSET}"]}
  other: {command: [b], env: {K: "${ALSO_UNSET}"}}
`)
	tests := []struct {
		name string
		cfg  *scenario.Config
		src  string
		want []string
	}{
		{
			name: "unknown name with a close one",
			src:  "name: x\nagent: claud\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:2:8: unknown agent "claud" (did you mean "claude"?)`},
		},
		{
			name: "unknown name lists the known ones",
			src:  "name: x\nagent: {name: zzz, args: [a]}\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:2:15: unknown agent "zzz" (valid agents: claude, codex, gemini, goose, mock, opencode, qwen)`},
		},
		{
			name: "config agents are known",
			cfg:  cfg,
			src:  "name: x\nagent: mines\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:2:8: unknown agent "mines" (did you mean "mine"?)`},
		},
		{
			name: "name and command",
			src:  "name: x\nagent: {command: [a], name: mock}\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:2:9: use either name (a named agent) or command, not both`},
		},
		{
			name: "args without name",
			src:  "name: x\nagent: {command: [a], args: [b]}\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:2:23: args adds arguments to a named agent's command: give name, or write them in command`},
		},
		{
			name: "the mock agent needs a script",
			src:  "name: x\nagent: mock\nturns: [{prompt: hi}]\n---\nname: y\nagent: {name: mock, env: {A: b}}\nturns: [{prompt: hi}]\n",
			want: []string{
				`bad.yaml:2:8: the mock agent needs its script: agent: {name: mock, args: [agents/x.mock.yaml]}, or a config agent with the script in its command`,
				`bad.yaml:6:15: the mock agent needs its script: agent: {name: mock, args: [agents/x.mock.yaml]}, or a config agent with the script in its command`,
			},
		},
		{
			name: "empty name",
			src:  "name: x\nagent: {name: ''}\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:2:15: agent name is empty`},
		},
		{
			name: "an unset variable of a config agent in use is an error in the config",
			cfg:  cfg,
			src:  "name: x\nagent: mine\nturns: [{prompt: hi}]\n---\nname: y\nagent: mine\nturns: [{prompt: hi}]\n",
			want: []string{`/cfg/acprun.yaml:2:24: environment variable UNSET is not set (write ${UNSET:-default} to give a default)`},
		},
		{
			name: "agents not in use do not matter",
			cfg:  cfg,
			src:  "name: x\nagent: other\nturns: [{prompt: hi}]\ntimeout: soon\n",
			want: []string{
				`/cfg/acprun.yaml:3:35: environment variable ALSO_UNSET is not set (write ${ALSO_UNSET:-default} to give a default)`,
				`bad.yaml:4:10: bad duration "soon": use a Go duration like 90s, 5m or 1h30m`,
			},
		},
		{
			name: "agent is required without a config default",
			cfg:  cfg,
			src:  "name: x\nturns: [{prompt: hi}]\n",
			want: []string{`bad.yaml:1:1: missing required key "agent": name the agent that runs it (agent: claude, or agent: {command: [...]}), or give every scenario one with defaults.agent in the config file (acprun.yaml, or --config FILE)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			o.Config = tt.cfg
			scens, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), o)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if scens != nil {
				t.Errorf("LoadBytes returned %d scenarios with errors, want none", len(scens))
			}
		})
	}
	// Agents that are not used do not stop a load.
	loadWith(t, cfg, "name: x\nagent: claude\nturns: [{prompt: hi}]\n")
}

func TestResolveAgent(t *testing.T) {
	dir := t.TempDir()
	cfg := loadConfig(t, "agents:\n  mine: {command: [a, \"${HOME}\"], cwd: "+dir+"}\n  bad: {command: [\"${UNSET}\"]}\n  nodir: {command: [a], cwd: w}\n"+
		"  both: {command: [\"${UNSET}\"], cwd: w}\n  varcwd: {command: [\"${UNSET}\"], cwd: \"${UNSET}/w\"}\n")
	o := opts
	o.Config = cfg
	tests := []struct {
		name    string
		opts    scenario.LoadOptions
		want    scenario.Agent
		wantErr string
	}{
		{name: "codex", opts: opts, want: scenario.Agent{Name: "codex", Command: []string{"npx", "-y", "@zed-industries/codex-acp"},
			Auth: "openai-api-key", AuthEnv: []string{"OPENAI_API_KEY"}, McpServers: json.RawMessage("[]")}},
		{name: "mine", opts: o, want: scenario.Agent{Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 9},
			Name: "mine", Command: []string{"a", "/home/user"}, Cwd: dir, CwdPos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 40},
			McpServers: json.RawMessage("[]")}},
		{name: "mine", opts: opts, wantErr: `unknown agent "mine" (valid agents: claude, codex, gemini, goose, mock, opencode, qwen)`},
		{name: "gooze", opts: o, wantErr: `unknown agent "gooze" (did you mean "goose"?)`},
		{name: "bad", opts: o, wantErr: `/cfg/acprun.yaml:3:20: environment variable UNSET is not set (write ${UNSET:-default} to give a default)`},
		// As a scenario's load says it: probe NAME reported a missing
		// executable instead.
		{name: "nodir", opts: o, wantErr: `/cfg/acprun.yaml:4:30: agent cwd /cfg/w does not exist: create that directory, or change cwd (a relative cwd is relative to /cfg)`},
		// Each problem a run would refuse: the unset variable hid the
		// cwd's. A cwd an unset variable gives has that problem alone.
		{name: "both", opts: o, wantErr: "/cfg/acprun.yaml:5:21: environment variable UNSET is not set (write ${UNSET:-default} to give a default)\n" +
			"/cfg/acprun.yaml:5:38: agent cwd /cfg/w does not exist: create that directory, or change cwd (a relative cwd is relative to /cfg)"},
		{name: "varcwd", opts: o, wantErr: "/cfg/acprun.yaml:6:23: environment variable UNSET is not set (write ${UNSET:-default} to give a default)\n" +
			"/cfg/acprun.yaml:6:41: environment variable UNSET is not set (write ${UNSET:-default} to give a default)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scenario.ResolveAgent(tt.name, tt.opts)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("ResolveAgent(%q) error = %q, want %q", tt.name, gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpOpts); diff != "" {
				t.Errorf("ResolveAgent(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestWithAgent(t *testing.T) {
	base := dirsUnder(t, "s/repo")
	cfg := loadConfigAt(t, base+"/cfg/acprun.yaml", `agents:
  mine:
    command: [mine]
    env: {B: mine}
    cwd: elsewhere
    mcpServers: [{name: m, command: /m, args: [], env: []}]
`)
	o := opts
	o.Config = cfg
	scens := loadAt(t, cfg, base+"/s/x.yaml", `name: x
agent:
  command: [acprun, mock-agent, x.mock.yaml]
  env: {A: own, B: own}
  cwd: repo
  auth: own-auth
  mode: own-mode
  mcpServers: [{name: own, command: /own, args: [], env: []}]
turns: [{prompt: hi}]
`)
	orig := scens[0]
	before := *orig
	before.Agent.Env = map[string]string{"A": "own", "B": "own"}

	claude, err := orig.WithAgent("claude", o)
	if err != nil {
		t.Fatalf("WithAgent(claude): %v", err)
	}
	wantClaude := scenario.Agent{Pos: orig.Agent.Pos, Name: "claude", Command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"},
		Env: map[string]string{"A": "own", "B": "own", "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false"}, OwnEnv: map[string]string{"A": "own", "B": "own"}, Cwd: base + "/s/repo", OwnCwd: true, CwdPos: orig.Agent.CwdPos, McpServers: orig.Agent.McpServers,
		Enforcement: claudeEnforcement, AuthEnv: []string{"ANTHROPIC_API_KEY"}}
	if diff := cmp.Diff(wantClaude, claude.Agent, cmpOpts); diff != "" {
		t.Errorf("WithAgent(claude).Agent (-want +got):\n%s", diff)
	}
	mine, err := orig.WithAgent("mine", o)
	if err != nil {
		t.Fatalf("WithAgent(mine): %v", err)
	}
	wantMine := scenario.Agent{Pos: orig.Agent.Pos, Name: "mine", Command: []string{"mine"},
		Env: map[string]string{"A": "own", "B": "mine"}, OwnEnv: map[string]string{"A": "own", "B": "own"}, Cwd: base + "/s/repo", OwnCwd: true, CwdPos: orig.Agent.CwdPos,
		McpServers: json.RawMessage(`[{"name":"m","command":"/m","args":[],"env":[]}]`)}
	if diff := cmp.Diff(wantMine, mine.Agent, cmpOpts); diff != "" {
		t.Errorf("WithAgent(mine).Agent (-want +got):\n%s", diff)
	}
	// The servers' positions go with them: the scenario's, the config's.
	if got, want := claude.Agent.McpServerPos, []scenario.Pos{{File: base + "/s/x.yaml", Line: 8, Col: 16}}; !cmp.Equal(got, want) {
		t.Errorf("WithAgent(claude).Agent.McpServerPos = %v, want %v", got, want)
	}
	if got, want := mine.Agent.McpServerPos, []scenario.Pos{{File: base + "/cfg/acprun.yaml", Line: 6, Col: 18}}; !cmp.Equal(got, want) {
		t.Errorf("WithAgent(mine).Agent.McpServerPos = %v, want %v", got, want)
	}
	for _, c := range []*scenario.Scenario{claude, mine} {
		if c.Name != orig.Name || len(c.Turns) != 1 || !cmp.Equal(c.Client, orig.Client) {
			t.Errorf("WithAgent changed more than the agent: %+v", c)
		}
	}
	if diff := cmp.Diff(&before, orig, cmpOpts); diff != "" {
		t.Errorf("WithAgent changed the original (-before +after):\n%s", diff)
	}
	if _, err := orig.WithAgent("claud", o); err == nil || err.Error() != `unknown agent "claud" (did you mean "claude"?)` {
		t.Errorf("WithAgent(claud) error = %v, want unknown agent", err)
	}
	if _, err := orig.WithAgent("mock", o); err == nil || !strings.HasPrefix(err.Error(), "the mock agent needs its script") {
		t.Errorf("WithAgent(mock) error = %v, want the mock agent needs its script", err)
	}
}

// TestWithAgentKeepsTheNamedAgentsEnv checks that running a scenario
// against another agent carries over only the variables the scenario's
// agent gives itself: not its named agent's (credentials of that agent),
// nor those permissions.enforce set for it, nor the config's default
// agent's.
func TestWithAgentKeepsTheNamedAgentsEnv(t *testing.T) {
	base := dirsUnder(t, "s")
	cfg := loadConfigAt(t, base+"/cfg/acprun.yaml", `agents:
  one: {command: [one], env: {ONE_KEY: secret-of-one, SHARED: one}}
  two: {command: [two], env: {TWO_KEY: two}}
defaults:
  agent: {name: one, env: {DEFAULT_VAR: d}}
`)
	o := opts
	o.Config = cfg
	scens := loadAt(t, cfg, base+"/s/x.yaml", `name: named
agent: {name: one, env: {MINE: m, SHARED: mine}}
turns: [{prompt: hi}]
---
name: enforced
agent: opencode
turns: [{prompt: hi}]
---
name: defaulted
turns: [{prompt: hi}]
`)
	for _, tt := range []struct {
		scenario *scenario.Scenario
		want     map[string]string
	}{
		{scens[0], map[string]string{"MINE": "m", "SHARED": "mine", "TWO_KEY": "two"}},
		{scens[1], map[string]string{"TWO_KEY": "two"}},
		{scens[2], map[string]string{"TWO_KEY": "two"}},
	} {
		got, err := tt.scenario.WithAgent("two", o)
		if err != nil {
			t.Fatalf("%s: WithAgent(two): %v", tt.scenario.Name, err)
		}
		if diff := cmp.Diff(tt.want, got.Agent.Env); diff != "" {
			t.Errorf("%s: WithAgent(two).Agent.Env (-want +got):\n%s", tt.scenario.Name, diff)
		}
	}
}

func TestNamedAgentsList(t *testing.T) {
	var names []string
	for _, na := range (*scenario.Config)(nil).NamedAgents() {
		names = append(names, na.Name+"="+na.Source)
	}
	want := []string{"claude=built-in", "codex=built-in", "gemini=built-in", "goose=built-in", "mock=built-in",
		"opencode=built-in", "qwen=built-in"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("built-in agents (-want +got):\n%s", diff)
	}
	cfg := loadConfig(t, "agents:\n  goose: {command: [my-goose]}\n  aaa: {command: [a]}\n")
	names = nil
	for _, na := range cfg.NamedAgents() {
		names = append(names, na.Name+"="+na.Source+"="+strings.Join(na.Agent.Command, " "))
	}
	want = []string{"aaa=/cfg/acprun.yaml=a", "claude=built-in=npx -y @agentclientprotocol/claude-agent-acp",
		"codex=built-in=npx -y @zed-industries/codex-acp", "gemini=built-in=npx -y @google/gemini-cli --acp",
		"goose=/cfg/acprun.yaml=my-goose", "mock=built-in=acprun mock-agent", "opencode=built-in=opencode acp",
		"qwen=built-in=npx -y @qwen-code/qwen-code --acp --auth-type=openai"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("config agents (-want +got):\n%s", diff)
	}
	// BuiltinAgents returns copies.
	b := scenario.BuiltinAgents()
	b[0].Agent.Command[0] = "changed"
	if got := scenario.BuiltinAgents()[0].Agent.Command[0]; got != "npx" {
		t.Errorf("BuiltinAgents shares its slices: command[0] = %q", got)
	}
}

func TestHandMadeConfig(t *testing.T) {
	cfg := &scenario.Config{
		Agents: map[string]scenario.NamedAgent{"x": {Name: "x", Agent: scenario.Agent{Name: "x", Command: []string{"x"}}}},
		Defaults: scenario.Defaults{
			Agent:    &scenario.Agent{Name: "x", Command: []string{"x"}},
			Scenario: scenario.Scenario{Timeout: time.Minute},
		},
	}
	scens := loadWith(t, cfg, "name: a\nturns: [{prompt: hi}]\n---\nname: b\nagent: {name: x, args: [y]}\nturns: [{prompt: hi}]\n")
	got := [][]string{scens[0].Agent.Command, scens[1].Agent.Command}
	if diff := cmp.Diff([][]string{{"x"}, {"x", "y"}}, got); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if scens[0].Timeout != time.Minute || !scens[0].Client.FS || string(scens[0].Agent.McpServers) != "[]" {
		t.Errorf("scenario = %+v, want the hand-made defaults and the usual client", scens[0])
	}
	if cfg.Agents["x"].Agent.Command[0] != "x" || len(cfg.Agents["x"].Agent.Command) != 1 {
		t.Errorf("Load changed the config's agent: %v", cfg.Agents["x"].Agent.Command)
	}
}

func TestWalkSkipsConfigFiles(t *testing.T) {
	root := writeTree(t, "a.yaml", "sub/b.yaml")
	for _, name := range []string{"acprun.yaml", "sub/acprun.yml"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("defaults: {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	for _, paths := range [][]string{{"."}, {"**/*.y*ml"}} {
		scens, _, err := scenario.Load(paths, opts)
		if err != nil {
			t.Fatalf("Load(%q): %v", paths, err)
		}
		var names []string
		for _, s := range scens {
			names = append(names, s.Name)
		}
		if diff := cmp.Diff([]string{"a.yaml", "sub/b.yaml"}, names); diff != "" {
			t.Errorf("Load(%q) (-want +got):\n%s", paths, diff)
		}
	}
}

// claudeEnforcement is what permissions.enforce gives the claude agent.
var claudeEnforcement = &scenario.Enforcement{ProjectSettingsFile: ".claude/settings.json",
	ProjectSettings: `{"permissions":{"defaultMode":"default","ask":["Bash","Edit","Write"]}}`,
	UnaskedModes:    []string{"bypassPermissions", "dontAsk", "auto"},
	ModeOptions: map[string]string{"exit-plan-auto": "auto", "exit-plan-bypass": "bypassPermissions",
		"exit-plan-accept-edits": "acceptEdits", "exit-plan-default": "default", "exit-plan-clear-auto": "auto",
		"exit-plan-clear-bypass": "bypassPermissions", "exit-plan-clear-accept-edits": "acceptEdits"}}

func TestConfigAnswers(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  answers: {branch: main}\n")
	scens := loadWith(t, cfg, `name: inherits
agent: claude
turns: [{prompt: hi}]
---
name: replaces
agent: claude
answers: [{match: deploy, values: {env: staging}}]
turns: [{prompt: hi}]
`)
	type answer struct {
		Pos   scenario.Pos
		Match string
		Field string
		Text  string
	}
	summarize := func(s *scenario.Scenario) []answer {
		var got []answer
		for _, a := range s.Answers {
			m := ""
			if a.Match != nil {
				m = a.Match.String()
			}
			for _, v := range a.Values {
				got = append(got, answer{v.Pos, m, v.Field, v.Text})
			}
		}
		return got
	}
	if diff := cmp.Diff([]answer{{scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 21}, "", "branch", "main"}}, summarize(scens[0])); diff != "" {
		t.Errorf("inherited answers (-want +got):\n%s", diff)
	}
	if !scens[0].HasAnswers() {
		t.Errorf("HasAnswers() = false with the config's answers")
	}
	if diff := cmp.Diff([]answer{{scenario.Pos{File: "/s/x.yaml", Line: 7, Col: 41}, "deploy", "env", "staging"}}, summarize(scens[1])); diff != "" {
		t.Errorf("replaced answers (-want +got):\n%s", diff)
	}
}

// TestConfigDefaultsTakeVars: the config's defaults that a scenario with
// vars uses are read as if written in it: their templates take the
// scenario's values, and one that names a variable its vars lack is an
// error at its place in the config file. A scenario without vars, like
// one whose own key replaces the default, keeps the default as written.
func TestConfigDefaultsTakeVars(t *testing.T) {
	base := dirsUnder(t, "cfg/go", "cfg/rust", "s")
	cfgFile := filepath.Join(base, "cfg", "acprun.yaml")
	const config = `defaults:
  agent: {command: [agent, "--lang={{.lang}}"], env: {TOKEN: "{{.lang}}-token"}, cwd: "{{.lang}}"}
  setup: ["make {{.lang}}"]
  verify: ["make check"]
`
	cfg := loadConfigAt(t, cfgFile, config)
	scens := loadAt(t, cfg, filepath.Join(base, "s", "x.yaml"), `name: port
vars: {lang: [go, rust]}
turns: [{prompt: hi}]
---
name: plain
turns: [{prompt: hi}]
agent: {command: [other]}
`)
	type summary struct {
		Name, Cwd        string
		Command          []string
		Env              map[string]string
		Setup, Verify    string
		SetupPos, VerPos scenario.Pos
	}
	var got []summary
	for _, s := range scens {
		got = append(got, summary{s.Name, s.Agent.Cwd, s.Agent.Command, s.Agent.Env, s.Setup[0].Run, s.Verify[0].Run, s.Setup[0].Pos, s.Verify[0].Pos})
	}
	setupPos, verifyPos := scenario.Pos{File: cfgFile, Line: 3, Col: 11}, scenario.Pos{File: cfgFile, Line: 4, Col: 12}
	want := []summary{
		{"port[lang=go]", filepath.Join(base, "cfg", "go"), []string{"agent", "--lang=go"}, map[string]string{"TOKEN": "go-token"}, "make go", "make check", setupPos, verifyPos},
		{"port[lang=rust]", filepath.Join(base, "cfg", "rust"), []string{"agent", "--lang=rust"}, map[string]string{"TOKEN": "rust-token"}, "make rust", "make check", setupPos, verifyPos},
		{"plain", filepath.Join(base, "s"), []string{"other"}, nil, "make {{.lang}}", "make check", setupPos, verifyPos},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}

	// Only the defaults the scenario uses: its own agent replaces the one
	// that names lang, its setup does not. Each error names the scenario
	// whose vars lack the variable, so that the same default is an error
	// for each.
	scFile := filepath.Join(base, "s", "y.yaml")
	errs := loadErrorLines(t, cfgFile, config, scFile, `name: other
vars: {language: go}
agent: {command: [other]}
turns: [{prompt: hi}]
---
vars: {language: rust}
name: another
agent: {command: [other]}
turns: [{prompt: hi}]
`)
	wantErrs := []string{
		cfgFile + `:3:17: {{.lang}}: vars of scenario "other" at ` + scFile + `:1:1 has no lang (did you mean language?)`,
		cfgFile + `:3:17: {{.lang}}: vars of scenario "another" at ` + scFile + `:6:1 has no lang (did you mean language?)`,
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestConfigTurnTimeoutWarning: the config's turnTimeout, when longer than
// the timeout of a scenario it applies to (the config's or the
// scenario's own), is warned about as a scenario's own is, at its place
// in the config file; a scenario that gives its own turnTimeout, or a
// timeout long enough, is not warned about.
func TestConfigTurnTimeoutWarning(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  timeout: 1m\n  turnTimeout: 2m\n  agent: {command: [a]}\n  permissions: {default: deny}\n")
	o := opts
	o.Config = cfg
	_, warns, err := scenario.LoadBytes("/s/x.yaml", []byte(`{name: config timeout, turns: [{prompt: hi}]}
--- {name: own shorter timeout, timeout: 30s, turns: [{prompt: hi}]}
--- {name: own longer timeout, timeout: 5m, turns: [{prompt: hi}]}
--- {name: own turn timeout, turnTimeout: 30s, turns: [{prompt: hi}]}
`), o)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	at := scenario.Pos{File: "/cfg/acprun.yaml", Line: 3, Col: 16}
	want := []scenario.Warning{
		{Pos: at, Msg: `turn timeout 2m0s is longer than the scenario timeout 1m0s (scenario "config timeout")`},
		{Pos: at, Msg: `turn timeout 2m0s is longer than the scenario timeout 30s (scenario "own shorter timeout")`},
	}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestConfigWarningNamesItsScenarios: a warning at a default of the
// config is given once for the scenarios it is about, naming them (the
// first five, and how many more), whichever files they are in; each
// scenario's own warnings keep it unnamed (its results are its own).
func TestConfigWarningNamesItsScenarios(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  timeout: 1m\n  turnTimeout: 2m\n  agent: {command: [a]}\n  permissions: {default: deny}\n")
	o := opts
	o.Config = cfg
	dir := t.TempDir()
	var doc strings.Builder
	for i := range 6 {
		fmt.Fprintf(&doc, "--- {name: s%d, turns: [{prompt: hi}]}\n", i)
	}
	testkit.WriteFiles(t, dir, map[string]string{"a.yaml": doc.String(), "b.yaml": "{name: other, turns: [{prompt: hi}]}\n"})
	scs, warns, err := scenario.Load([]string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")}, o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := []scenario.Warning{{Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 3, Col: 16},
		Msg: `turn timeout 2m0s is longer than the scenario timeout 1m0s (scenarios "s0", "s1", "s2", "s3", "s4" and 2 more)`}}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if got := scs[6].Warnings; len(got) != 1 || got[0].Msg != "turn timeout 2m0s is longer than the scenario timeout 1m0s" {
		t.Errorf("scenario other's warnings %v, want the one, unnamed", got)
	}
}

// TestConfigTimeoutTurnTimeoutFlagWarning: with run's --turn-timeout
// longer than the config's timeout, the warning is at that timeout in the
// config file; for a scenario with a timeout of its own, at that one.
func TestConfigTimeoutTurnTimeoutFlagWarning(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  timeout: 1m\n  agent: {command: [a]}\n  permissions: {default: deny}\n")
	o := opts
	o.Config = cfg
	o.TurnTimeout = 5 * time.Minute
	_, warns, err := scenario.LoadBytes("/s/x.yaml", []byte(`{name: config timeout, turns: [{prompt: hi}]}
--- {name: own timeout, timeout: 2m, turns: [{prompt: hi}]}
`), o)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	want := []scenario.Warning{
		{Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 12}, Msg: `--turn-timeout 5m0s is longer than the scenario timeout 1m0s (scenario "config timeout")`},
		{Pos: scenario.Pos{File: "/s/x.yaml", Line: 2, Col: 34}, Msg: "--turn-timeout 5m0s is longer than the scenario timeout 2m0s"},
	}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestConfigMockAgentWithoutScript: a config agent whose own command is
// acprun mock-agent without a script is the config's problem, found where
// its command is (acprun's command line checks it there, as for acprun
// replay without a transcript): a scenario, WithAgent and OneShot take it
// and keep where its words are. The built-in mock without args, a config
// agent that only changes it too, is the scenario's problem, at its name.
func TestConfigMockAgentWithoutScript(t *testing.T) {
	cfg := loadConfig(t, `agents:
  greeter:
    command: [acprun, mock-agent]
  mock: {env: {A: b}}
`)
	o := opts
	o.Config = cfg
	wantAt := scenario.Pos{File: "/cfg/acprun.yaml", Line: 3, Col: 23}
	sc := loadWith(t, cfg, "name: x\nagent: greeter\nturns: [{prompt: hi}]\n")[0]
	if got := sc.Agent.WordPos(1); got != wantAt {
		t.Errorf("agent: greeter: word 1 at %v, want %v", got, wantAt)
	}
	with, err := sc.WithAgent("greeter", o)
	if err != nil {
		t.Fatalf("WithAgent(greeter): %v", err)
	}
	if got := with.Agent.WordPos(1); got != wantAt {
		t.Errorf("WithAgent(greeter): word 1 at %v, want %v", got, wantAt)
	}
	one, _, err := scenario.OneShot("greeter", o)
	if err != nil {
		t.Fatalf("OneShot(greeter): %v", err)
	}
	if got := one.Agent.WordPos(1); got != wantAt {
		t.Errorf("OneShot(greeter): word 1 at %v, want %v", got, wantAt)
	}
	_, _, err = scenario.LoadBytes("/s/x.yaml", []byte("name: x\nagent: mock\nturns: [{prompt: hi}]\n"), o)
	if want := "/s/x.yaml:2:8: the mock agent needs its script"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("agent: mock (changed by the config): %v, want %s", err, want)
	}
	if _, err := sc.WithAgent("mock", o); err == nil || !strings.HasPrefix(err.Error(), "the mock agent needs its script") {
		t.Errorf("WithAgent(mock) (changed by the config): %v, want the mock agent needs its script", err)
	}
}

// TestWithAgentTheSameAgent: WithAgent with the agent the scenario
// already names (agent: {name: NAME, ...}, the config's default agent of
// that name) changes nothing: the scenario's model, mode, config, args,
// env (over the named agent's) and cwd stay, and the mock agent with its
// script given by args is no bare mock.
func TestWithAgentTheSameAgent(t *testing.T) {
	base := dirsUnder(t, "s/here", "cfg")
	cfg := loadConfigAt(t, base+"/cfg/acprun.yaml", `agents:
  ma: {command: [ma], env: {SHARED: from-config}, model: small, mode: ask}
defaults:
  agent: {name: ma, env: {SHARED: from-default}}
`)
	o := opts
	o.Config = cfg
	scens := loadAt(t, cfg, base+"/s/x.yaml", `name: named
agent: {name: ma, args: [--x], model: big, mode: code, config: {effort: high}, env: {SHARED: from-scenario}, cwd: here}
turns: [{prompt: hi}]
---
name: mock
agent: {name: mock, args: [x.mock.yaml]}
turns: [{prompt: hi}]
---
name: defaulted
turns: [{prompt: hi}]
`)
	for i, name := range []string{"ma", "mock", "ma"} {
		sc := scens[i]
		got, err := sc.WithAgent(name, o)
		if err != nil {
			t.Fatalf("%s: WithAgent(%s): %v", sc.Name, name, err)
		}
		if diff := cmp.Diff(sc, got, cmpOpts); diff != "" {
			t.Errorf("%s: WithAgent(%s) changed the scenario (-before +after):\n%s", sc.Name, name, diff)
		}
	}
	if got := scens[0].Agent; got.Model != "big" || got.Mode != "code" || got.Env["SHARED"] != "from-scenario" || got.Cwd != base+"/s/here" {
		t.Errorf("named: agent %+v; want the scenario's model, mode, env and cwd", got)
	}
}

// TestWithAgentCwd: under WithAgent the session cwd is the one the
// scenario's own agent: gives itself, else the named agent's own, else
// the default (the scenario file's directory, or its workspace): never
// the cwd of the agent it replaces. The default client roots follow it.
func TestWithAgentCwd(t *testing.T) {
	base := dirsUnder(t, "s/mine", "s/src", "cfg/work")
	cfg := loadConfigAt(t, base+"/cfg/acprun.yaml", `agents:
  inwork: {command: [inwork], cwd: ./work}
  plain: {command: [plain]}
  gone: {command: [gone], cwd: ./missing}
`)
	o := opts
	o.Config = cfg
	scens := loadAt(t, cfg, base+"/s/x.yaml", `name: names-plain
agent: plain
turns: [{prompt: hi}]
---
name: names-inwork
agent: inwork
turns: [{prompt: hi}]
---
name: own-cwd
agent: {name: inwork, cwd: mine}
turns: [{prompt: hi}]
---
name: workspace
agent: inwork
workspace: src
turns: [{prompt: hi}]
---
name: own-roots
agent: inwork
client: {roots: [mine]}
turns: [{prompt: hi}]
`)
	for _, tt := range []struct {
		scenario, agent string
		cwd             string
		roots           []string
	}{
		{"names-plain", "inwork", base + "/cfg/work", []string{base + "/cfg/work"}},
		{"names-inwork", "plain", base + "/s", []string{base + "/s"}},
		{"own-cwd", "plain", base + "/s/mine", []string{base + "/s/mine"}},
		{"own-cwd", "claude", base + "/s/mine", []string{base + "/s/mine"}},
		{"workspace", "plain", base + "/s/src", []string{base + "/s/src"}},
		{"own-roots", "plain", base + "/s", []string{base + "/s/mine"}},
	} {
		i := slices.IndexFunc(scens, func(s *scenario.Scenario) bool { return s.Name == tt.scenario })
		got, err := scens[i].WithAgent(tt.agent, o)
		if err != nil {
			t.Fatalf("%s: WithAgent(%s): %v", tt.scenario, tt.agent, err)
		}
		if got.Agent.Cwd != tt.cwd || !slices.Equal(got.Client.Roots, tt.roots) {
			t.Errorf("%s with --agent %s: cwd %s, roots %v; want %s, %v", tt.scenario, tt.agent, got.Agent.Cwd, got.Client.Roots, tt.cwd, tt.roots)
		}
	}
	_, err := scens[0].WithAgent("gone", o)
	if want := base + "/cfg/acprun.yaml:4:32: agent cwd " + base + "/cfg/missing does not exist"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("WithAgent(gone) error = %v; want %s…", err, want)
	}
}

// TestBuiltinEnv: the built-in claude turns its prompt suggestions off
// (a model request after every turn that only an editor shows); a config
// agent of its name keeps that, started its own way too, unless its env
// says otherwise.
func TestBuiltinEnv(t *testing.T) {
	const off = "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION"
	if b := scenario.BuiltinAgents()[0]; b.Name != "claude" || b.Agent.Env[off] != "false" {
		t.Fatalf("built-in %s env %v; want claude with %s=false", b.Name, b.Agent.Env, off)
	}
	cfg := loadConfigAt(t, "/cfg/acprun.yaml", "agents:\n  claude: {command: [my-claude], env: {A: a}}\n  other: {command: [x]}\n")
	if env := cfg.Agents["claude"].Agent.Env; env[off] != "false" || env["A"] != "a" {
		t.Errorf("config claude env %v; want its own and %s=false", env, off)
	}
	if env := cfg.Agents["other"].Agent.Env; env != nil {
		t.Errorf("config agent other env %v; want none", env)
	}
	cfg = loadConfigAt(t, "/cfg/acprun.yaml", "agents:\n  claude: {command: [my-claude], env: {"+off+": \"true\"}}\n")
	if env := cfg.Agents["claude"].Agent.Env; env[off] != "true" {
		t.Errorf("config claude env %v; want its own %s=true", env, off)
	}
}

// TestWarningsBesides: what loading warned about besides the warnings
// of the scenarios that run (which their results carry, and run -q's
// summary says) is the warnings about a scenario that does not run, and
// a config default's warning, given once naming its scenarios, names
// those of them that do not run; it is left out when they all run.
func TestWarningsBesides(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  timeout: 1m\n  turnTimeout: 2m\n  agent: {command: [a]}\n  permissions: {default: deny}\n")
	o := opts
	o.Config = cfg
	loaded, warns, err := scenario.LoadBytes("/s/x.yaml", []byte(`{name: a, turns: [{prompt: hi}]}
--- {name: b, turns: [{prompt: hi}]}
--- {name: c, turnTimeout: 2m, turns: [{prompt: hi}]}
`), o)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	cfgAt := scenario.Pos{File: "/cfg/acprun.yaml", Line: 3, Col: 16}
	cAt := scenario.Pos{File: "/s/x.yaml", Line: 3, Col: 28}
	const msg = "turn timeout 2m0s is longer than the scenario timeout 1m0s"
	for _, tt := range []struct {
		run  []int // of loaded
		want []scenario.Warning
	}{
		{nil, warns},
		{[]int{0, 1, 2}, nil},
		{[]int{0}, []scenario.Warning{{Pos: cfgAt, Msg: msg + ` (scenario "b")`}, {Pos: cAt, Msg: msg}}},
		{[]int{2}, []scenario.Warning{{Pos: cfgAt, Msg: msg + ` (scenarios "a", "b")`}}},
		{[]int{0, 1}, []scenario.Warning{{Pos: cAt, Msg: msg}}},
	} {
		var run []*scenario.Scenario
		for _, i := range tt.run {
			run = append(run, loaded[i])
		}
		if diff := cmp.Diff(tt.want, scenario.WarningsBesides(warns, loaded, run)); diff != "" {
			t.Errorf("running %v: warnings (-want +got):\n%s", tt.run, diff)
		}
	}
}

// TestConfigThatIsAnotherFile: a config file that is another of acprun's
// files (a mock agent script, a run's results, a transcript, a gateway
// cassette) is said as that, with what to do with it, not as unknown keys.
func TestConfigThatIsAnotherFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ src, want string }{
		{"turns: [{steps: [{text: hi}]}]\n", "a mock agent script, not acprun's config file"},
		{"{\n  \"schemaVersion\": 3,\n  \"scenarios\": []\n}\n", "the results of a run (run -o), not acprun's config file"},
		{`{"t":0,"dir":"sent","msg":{}}` + "\n", "a transcript of a run (run --transcripts), not acprun's config file"},
		{`{"version":1,"exchanges":[]}`, "a model gateway cassette, not acprun's config file"},
	} {
		_, err := scenario.LoadConfigBytes("c.yaml", []byte(tt.src), scenario.LoadOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), "c.yaml: "+tt.want+" (defaults, named agents, prices, currency): ") || strings.Contains(err.Error(), "unknown key") {
			t.Errorf("config %q: %v; want it said as %q", tt.src, err, tt.want)
		}
	}
	if _, err := scenario.LoadConfigBytes("c.yaml", []byte("defaults: {turnTimeout: 1m}\n"), scenario.LoadOptions{}); err != nil {
		t.Errorf("a config: %v", err)
	}
}
