package output_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
)

// TestProbe checks the text of probe reports, from one whose agent never
// started to one that offers everything: what is printed as far as the
// probe got, aligned, descriptions on one line.
func TestProbe(t *testing.T) {
	none := []acp.AuthMethod{}
	tests := []struct {
		name string
		rep  runner.ProbeReport
		want string
	}{
		{
			name: "not started",
			rep: runner.ProbeReport{Command: []string{"my agent", "it's"}, Cwd: "/w", AuthMethods: none,
				Error: "start my agent: no such file", StderrTail: "not shown"},
			want: `command:  'my agent' 'it'\''s'
cwd:      /w
`,
		},
		{
			name: "never initialized, warned of what the agent printed",
			rep: runner.ProbeReport{Command: []string{"/bin/agent"}, Cwd: "/w", AuthMethods: none,
				Warnings: []string{`protocol violation: invalid JSON-RPC message: not a JSON object: "Usage: agent\tFILE" (17 bytes)`}},
			want: `command:  /bin/agent
cwd:      /w
warning:  protocol violation: invalid JSON-RPC message: not a JSON object: "Usage: agent\tFILE" (17 bytes)
`,
		},
		{
			name: "initialized, no session",
			rep: runner.ProbeReport{Command: []string{"/bin/agent"}, Cwd: "/w", ProtocolVersion: 2,
				Capabilities: &acp.AgentCapabilities{}, AuthMethods: none, Warnings: []string{"shown without a session"}},
			want: `command:           /bin/agent
cwd:               /w
protocol version:  2
agent info:        none
capabilities:
  loadSession      no
  prompt           text, resource_link
  mcp              stdio
  session          none
  auth             none
auth methods:      none
warning:           shown without a session
`,
		},
		{
			name: "session offering nothing",
			rep: runner.ProbeReport{Command: []string{"/bin/agent"}, Cwd: "/w", ProtocolVersion: 1,
				AgentInfo: &acp.Implementation{Name: "x", Version: "2"}, Capabilities: &acp.AgentCapabilities{},
				AuthMethods: none, SessionID: "s", Modes: &acp.SessionModeState{CurrentModeID: "ask"},
				Models: &acp.SessionModelState{CurrentModelID: "m"}},
			want: `command:           /bin/agent
cwd:               /w
protocol version:  1
agent info:        x 2
capabilities:
  loadSession      no
  prompt           text, resource_link
  mcp              stdio
  session          none
  auth             none
auth methods:      none
session:           s
modes:             none
config options:    none
commands:          none
`,
		},
		{
			name: "everything",
			rep:  fullProbeReport(),
			want: `named agent:       mine
command:           acprun mock-agent 'my script.yaml'
cwd:               /work
protocol version:  1
agent info:        a 1.0 (A)
capabilities:
  loadSession      yes
  prompt           text, resource_link, image, audio, embeddedContext
  mcp              stdio, http, sse
  session          list, delete, additionalDirectories, resume, close
  auth             logout
auth methods:
  key              API key [agent] — Uses KEY
  login            Log in [terminal]
authenticated:     key
session:           s-1
modes:             current ask
  ask              Ask — Asks first
  code             Code
config options:    set with agent.config: {ID: VALUE} (agent.model: the option of category model)
  model            Model (select, category model) = fast of fast, slow — Which model
  effort           Effort (select) = low of low, high
  verbose          Verbose (boolean) = true
models (legacy):   current m1; set with agent.model
  m1               Model one
commands:
  /review <files>  Review the change
  /init            Write AGENTS.md
other updates:     agent_thought_chunk ×1, plan ×2
warning:           w1
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Probe(&buf, tt.rep); err != nil {
				t.Fatalf("Probe: %v", err)
			}
			if diff := cmp.Diff(strings.Split(tt.want, "\n"), strings.Split(buf.String(), "\n")); diff != "" {
				t.Errorf("Probe (-want +got):\n%s", diff)
			}
		})
	}
}

// fullProbeReport is a probe of an agent that offers something of
// everything.
func fullProbeReport() runner.ProbeReport {
	return runner.ProbeReport{
		Agent:           "mine",
		Command:         []string{"acprun", "mock-agent", "my script.yaml"},
		Cwd:             "/work",
		ProtocolVersion: 1,
		AgentInfo:       &acp.Implementation{Name: "a", Title: "A", Version: "1.0"},
		Capabilities: &acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
			McpCapabilities:    acp.McpCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: acp.SessionCapabilities{List: &acp.Capability{}, Delete: &acp.Capability{},
				AdditionalDirectories: &acp.Capability{}, Resume: &acp.Capability{}, Close: &acp.Capability{}},
			Auth: acp.AgentAuthCapabilities{Logout: &acp.Capability{}},
		},
		AuthMethods: []acp.AuthMethod{
			{ID: "key", Name: "API key", Description: "Uses\n  KEY"},
			{ID: "login", Name: "Log in", Type: acp.AuthTypeTerminal},
		},
		Authenticated: "key",
		SessionID:     "s-1",
		Modes: &acp.SessionModeState{CurrentModeID: "ask", AvailableModes: []acp.SessionMode{
			{ID: "ask", Name: "Ask", Description: "Asks first"}, {ID: "code", Name: "Code"}}},
		ConfigOptions: []acp.SessionConfigOption{
			{ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: "fast", Description: "Which model",
				Options: &acp.SessionConfigSelectOptions{
					Groups: []acp.SessionConfigSelectGroup{
						{Group: "quick", Name: "Quick", Options: []acp.SessionConfigSelectOption{{Value: "fast", Name: "Fast"}}},
						{Group: "deep", Name: "Deep", Options: []acp.SessionConfigSelectOption{{Value: "slow", Name: "Slow"}}},
					},
				}},
			{ID: "effort", Name: "Effort", Type: "select", CurrentValue: "low",
				Options: &acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "low"}, {Value: "high"}}}},
			{ID: "verbose", Name: "Verbose", Type: "boolean", CurrentValue: true},
		},
		Models: &acp.SessionModelState{CurrentModelID: "m1", AvailableModels: []acp.ModelInfo{{ModelID: "m1", Name: "Model one"}}},
		Commands: []acp.AvailableCommand{
			{Name: "review", Description: "Review the\nchange", Input: &acp.AvailableCommandInput{Hint: "files"}},
			{Name: "init", Description: "Write AGENTS.md"},
		},
		Updates:  map[string]int{"plan": 2, "agent_thought_chunk": 1},
		Warnings: []string{"w1"},
	}
}

// TestProbeJSON checks that the JSON of a report reads back as the same
// report, with empty lists as [] and nothing of what the probe did not get.
func TestProbeJSON(t *testing.T) {
	rep := fullProbeReport()
	var buf bytes.Buffer
	if err := output.ProbeJSON(&buf, rep); err != nil {
		t.Fatalf("ProbeJSON: %v", err)
	}
	var got runner.ProbeReport
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("ProbeJSON wrote no report: %v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(rep, got); diff != "" {
		t.Errorf("ProbeJSON read back (-want +got):\n%s", diff)
	}

	buf.Reset()
	if err := output.ProbeJSON(&buf, runner.ProbeReport{Command: []string{"x"}, Cwd: "/w", AuthMethods: []acp.AuthMethod{},
		ConfigOptions: []acp.SessionConfigOption{}, Commands: []acp.AvailableCommand{}, Error: "start x: no"}); err != nil {
		t.Fatalf("ProbeJSON: %v", err)
	}
	want := `{
  "command": [
    "x"
  ],
  "cwd": "/w",
  "authMethods": [],
  "configOptions": [],
  "availableCommands": [],
  "error": "start x: no"
}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("ProbeJSON of a failed probe (-want +got):\n%s", diff)
	}
}

// TestProbeStderr checks that only the last 20 lines of the agent's stderr
// are shown, and nothing when there is none.
func TestProbeStderr(t *testing.T) {
	var lines []string
	for i := 1; i <= 25; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	var buf bytes.Buffer
	if err := output.ProbeStderr(&buf, runner.ProbeReport{StderrTail: strings.Join(lines, "\n") + "\n"}); err != nil {
		t.Fatalf("ProbeStderr: %v", err)
	}
	want := "agent stderr (last lines):\n| " + strings.Join(lines[5:], "\n| ") + "\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("ProbeStderr (-want +got):\n%s", diff)
	}
	buf.Reset()
	if err := output.ProbeStderr(&buf, runner.ProbeReport{}); err != nil || buf.Len() != 0 {
		t.Errorf("ProbeStderr without stderr: wrote %q, %v; want nothing", buf.String(), err)
	}
}

// TestProbeEscapesAgentText: what the agent said of itself, and its
// stderr, are printed with their control characters escaped as \xNN.
func TestProbeEscapesAgentText(t *testing.T) {
	rep := runner.ProbeReport{
		Command: []string{"a"}, Cwd: "/w", Capabilities: &acp.AgentCapabilities{},
		AgentInfo:  &acp.Implementation{Name: "evil\x1b]0;pwned\x07", Version: "1\n::error::x"},
		StderrTail: "boom\x1b[2J\r\n",
	}
	var buf bytes.Buffer
	if err := output.Probe(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := output.ProbeStderr(&buf, rep); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{`evil\x1b]0;pwned\x07 1\x0a::error::x`, "| boom\\x1b[2J\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("probe output lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsFunc(got, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
		t.Errorf("probe output holds a raw control character:\n%q", got)
	}
}

// TestProbeWideText checks that the probe's columns are aligned by the
// cells text takes on a terminal: CJK and emoji two each.
func TestProbeWideText(t *testing.T) {
	rep := runner.ProbeReport{
		Command: []string{"a"}, Cwd: "/w", Capabilities: &acp.AgentCapabilities{}, SessionID: "s-1",
		Modes: &acp.SessionModeState{CurrentModeID: "ok", AvailableModes: []acp.SessionMode{
			{ID: "日本語模式", Name: "Japanese"}, {ID: "✅ok", Name: "Check"},
		}},
	}
	var buf bytes.Buffer
	if err := output.Probe(&buf, rep); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	// The values start where the ASCII session line's does.
	var col int
	for line := range strings.Lines(got) {
		if v, ok := strings.CutPrefix(line, "session:"); ok {
			col = len("session:") + len(v) - len(strings.TrimLeft(v, " "))
		}
	}
	for _, want := range []string{
		"  日本語模式" + strings.Repeat(" ", col-2-10) + "Japanese\n",
		"  ✅ok" + strings.Repeat(" ", col-2-4) + "Check\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("probe output lacks %q:\n%s", want, got)
		}
	}
}
