package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

func TestSandbox(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  sandbox: {write: [cache], network: off, level: best-effort}\n")
	o := opts
	o.Config = cfg
	o.LookupEnv = func(name string) (string, bool) {
		if name == "STATE" {
			return "/var/state", true
		}
		return env(name)
	}
	scens, _, err := scenario.LoadBytes("/s/x.yaml", []byte(`name: full
agent: {command: [a]}
sandbox:
  write: ["~/.cache/tool", "${STATE}/x", ./out, /abs, "~"]
  hide: "~/secrets"
  network: on
  ports: [443, 80]
  level: required
  verify: true
turns: [{prompt: hi}]
---
name: defaults
agent: {command: [a]}
sandbox: {}
turns: [{prompt: hi}]
---
name: shorthand
agent: {command: [a]}
sandbox: true
turns: [{prompt: hi}]
---
name: from-config
agent: {command: [a]}
turns: [{prompt: hi}]
---
name: none
agent: {command: [a]}
sandbox: false
turns: [{prompt: hi}]
---
name: "null"
agent: {command: [a]}
sandbox: null
turns: [{prompt: hi}]
---
name: single-port
agent: {command: [a]}
sandbox: {network: true, ports: 443}
turns: [{prompt: hi}]
`), o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*scenario.Sandbox{}
	for _, sc := range scens {
		if sc.Sandbox != nil {
			sb := *sc.Sandbox
			sb.Pos = scenario.Pos{}
			got[sc.Name] = &sb
		} else {
			got[sc.Name] = nil
		}
	}
	at := func(file string, line, col int) scenario.Pos { return scenario.Pos{File: file, Line: line, Col: col} }
	want := map[string]*scenario.Sandbox{
		"full": {Write: []string{"/home/user/.cache/tool", "/var/state/x", "/s/out", "/abs", "/home/user"},
			WritePos: []scenario.Pos{at("/s/x.yaml", 4, 11), at("/s/x.yaml", 4, 28), at("/s/x.yaml", 4, 42), at("/s/x.yaml", 4, 49), at("/s/x.yaml", 4, 55)},
			Hide:     []string{"/home/user/secrets"}, HidePos: []scenario.Pos{at("/s/x.yaml", 5, 9)},
			Network: true, Ports: []int{443, 80}, Level: "required", Verify: true},
		"defaults":  {Network: true, Level: "required"},
		"shorthand": {Network: true, Level: "required"},
		"from-config": {Write: []string{"/cfg/cache"}, WritePos: []scenario.Pos{at("/cfg/acprun.yaml", 2, 21)},
			Network: false, Level: "best-effort"},
		"none":        nil,
		"null":        nil,
		"single-port": {Network: true, Ports: []int{443}, Level: "required"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sandboxes (-want +got):\n%s", d)
	}
	if p := scens[0].Sandbox.Pos; p.Line != 4 || p.Col != 3 {
		t.Errorf("pos %v, want line 4 col 3", p)
	}
}

func TestSandboxErrors(t *testing.T) {
	for _, tc := range []struct {
		name, sandbox string
		want          []string
	}{
		{"not a mapping", `sandbox: [a]`,
			[]string{`bad.yaml:3:10: expected a sandbox: a mapping of write, hide, network, ports, level and verify ({} for the defaults), or true, or false for none, got a list`}},
		{"unknown key", `sandbox: {writes: [a]}`,
			[]string{`bad.yaml:3:11: unknown key "writes" (did you mean "write"?)`}},
		{"bad level", `sandbox: {level: strict}`,
			[]string{`bad.yaml:3:18: unknown sandbox level "strict" (valid levels: required, best-effort): required ends the scenario before its agent starts when this host cannot enforce the sandbox, best-effort runs it with what the host can do`}},
		{"bad network", `sandbox: {network: partly}`,
			[]string{`bad.yaml:3:20: expected network: on (connections allowed, to ports only when it lists some) or off (no connection), got "partly"`}},
		{"bad ports", `sandbox: {ports: [0, 65536, x, 443]}`, []string{
			`bad.yaml:3:19: expected a TCP port from 1 to 65535, got 0`,
			`bad.yaml:3:22: expected a TCP port from 1 to 65535, got 65536`,
			`bad.yaml:3:29: expected a TCP port from 1 to 65535, got x`,
		}},
		{"empty ports", `sandbox: {ports: []}`,
			[]string{`bad.yaml:3:18: ports is empty: list the TCP ports the agent may connect to, or leave ports out to allow any`}},
		{"ports with network off", `sandbox: {network: off, ports: [443]}`,
			[]string{`bad.yaml:3:25: sandbox ports allow outbound TCP to those ports only, with network on; network off allows no connection at all: remove ports, or set network: on`}},
		{"empty path", `sandbox: {write: [""]}`,
			[]string{`bad.yaml:3:19: sandbox write path is empty`}},
		{"tilde user", `sandbox: {hide: ["~root/x"]}`,
			[]string{`bad.yaml:3:18: sandbox hide path ~root/x: only ~ and ~/ stand for the home directory (~user does not): write the path in full`}},
		{"unset variable", `sandbox: {write: ["${NOPE}/x"]}`,
			[]string{`bad.yaml:3:20: environment variable NOPE is not set (write ${NOPE:-default} to give a default)`}},
		{"verify not a boolean", `sandbox: {verify: yes please}`,
			[]string{`bad.yaml:3:19: expected true or false, got the string "yes please"`}},
		{"path not a string", `sandbox: {write: [{a: b}]}`,
			[]string{`bad.yaml:3:19: expected a string, got a mapping`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "name: x\nagent: {command: [a]}\n" + tc.sandbox + "\nturns: [{prompt: hi}]\n"
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
			if d := cmp.Diff(tc.want, errorLines(t, err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	// No HOME for ~.
	o := opts
	o.LookupEnv = func(name string) (string, bool) {
		if name == "HOME" {
			return "", false
		}
		return env(name)
	}
	_, _, err := scenario.LoadBytes("bad.yaml", []byte("name: x\nagent: {command: [a]}\nsandbox: {write: [\"~/x\"]}\nturns: [{prompt: hi}]\n"), o)
	want := []string{`bad.yaml:3:19: sandbox write path ~/x starts with ~, and HOME is not set: set HOME, or write the path in full`}
	if d := cmp.Diff(want, errorLines(t, err)); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	// And in the config's defaults, at the config file's positions.
	_, err = scenario.LoadConfigBytes("acprun.yaml", []byte("defaults:\n  sandbox: {level: maybe}\n"), opts)
	want = []string{`acprun.yaml:2:20: unknown sandbox level "maybe" (valid levels: required, best-effort): required ends the scenario before its agent starts when this host cannot enforce the sandbox, best-effort runs it with what the host can do`}
	if d := cmp.Diff(want, errorLines(t, err)); d != "" {
		t.Errorf("config errors (-want +got):\n%s", d)
	}
}

func TestSandboxDefaultPaths(t *testing.T) {
	vars := map[string]string{"HOME": "/home/u", "CODEX_HOME": "/srv/codex", "XDG_CONFIG_HOME": "/xdg/config"}
	getenv := func(k string) string { return vars[k] }
	for _, tc := range []struct {
		agent scenario.Agent
		want  []string
	}{
		{scenario.Agent{Name: "claude", Command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}},
			[]string{"/home/u/.claude", "/home/u/.claude.json", "/home/u/.npm"}},
		{scenario.Agent{Name: "codex", Command: []string{"npx"}}, []string{"/srv/codex", "/home/u/.npm"}},
		{scenario.Agent{Name: "gemini", Command: []string{"gemini"}}, []string{"/home/u/.gemini"}},
		{scenario.Agent{Name: "qwen", Command: []string{"/usr/bin/qwen"}}, []string{"/home/u/.qwen"}},
		{scenario.Agent{Name: "opencode", Command: []string{"opencode", "acp"}}, []string{
			"/home/u/.local/share/opencode", "/xdg/config/opencode", "/home/u/.local/state/opencode", "/home/u/.cache/opencode"}},
		{scenario.Agent{Command: []string{"/usr/local/bin/npm", "exec", "x"}}, []string{"/home/u/.npm"}},
		{scenario.Agent{Name: "mock", Command: []string{"acprun", "mock-agent", "x.yaml"}}, nil},
	} {
		if d := cmp.Diff(tc.want, scenario.SandboxWrite(tc.agent, getenv)); d != "" {
			t.Errorf("%s %q (-want +got):\n%s", tc.agent.Name, tc.agent.Command, d)
		}
	}
	want := []string{"/home/u/.ssh", "/home/u/.aws", "/home/u/.config/gh", "/home/u/.netrc", "/home/u/.docker",
		"/agent/.ssh", "/agent/.aws", "/agent/.config/gh", "/agent/.netrc", "/agent/.docker"}
	if d := cmp.Diff(want, scenario.SandboxHide([]string{"/home/u", "/agent"})); d != "" {
		t.Errorf("hide (-want +got):\n%s", d)
	}
	if got := scenario.SandboxWrite(scenario.Agent{Name: "claude"}, func(string) string { return "" }); got != nil {
		t.Errorf("without HOME: %q", got)
	}
}

// TestSandboxTempEnv: claude's temporary directory is CLAUDE_CODE_TMPDIR's
// (/tmp without it), not TMPDIR's; the other agents read TMPDIR.
func TestSandboxTempEnv(t *testing.T) {
	if got := scenario.SandboxTempEnv(scenario.Agent{Name: "claude"}); !cmp.Equal(got, []string{"CLAUDE_CODE_TMPDIR"}) {
		t.Errorf("claude: %q", got)
	}
	for _, name := range []string{"codex", "gemini", "mock", ""} {
		if got := scenario.SandboxTempEnv(scenario.Agent{Name: name}); got != nil {
			t.Errorf("%q: %q", name, got)
		}
	}
}
