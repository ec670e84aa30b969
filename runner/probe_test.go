package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/scenario"
)

// probeScript is a mock agent with something of everything Probe reports.
const probeScript = `
agentInfo: {name: probe-mock, title: Probe mock, version: "0.3.1"}
agentCapabilities: {loadSession: true}
authMethods:
  - {id: api-key, name: API key}
  - {id: login, name: Log in, type: terminal}
sessionId: probe-session
modes:
  currentModeId: ask
  availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]
updatesBeforeSessionNew:
  - update:
      sessionUpdate: available_commands_update
      availableCommands: [{name: review, description: Review the change}]
  - thought: warming up
`

func TestProbe(t *testing.T) {
	bin := agentBin(t)
	dir := t.TempDir()
	for name, script := range map[string]string{
		"offers.mock.yaml": probeScript,
		"auth.mock.yaml":   "authRequired: true\n" + probeScript,
		"v2.mock.yaml":     "protocolVersion: 2\nagentInfo: {name: future, version: '9'}\n",
		"hang.mock.yaml":   "updatesBeforeSessionNew: [{hang: true}]\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	authMethods := []acp.AuthMethod{{ID: "api-key", Name: "API key"}, {ID: "login", Name: "Log in", Type: "terminal"}}
	offered := ProbeReport{
		Command:         []string{bin, "mock-agent", "offers.mock.yaml"},
		Cwd:             dir,
		ProtocolVersion: 1,
		AgentInfo:       &acp.Implementation{Name: "probe-mock", Title: "Probe mock", Version: "0.3.1"},
		AuthMethods:     authMethods,
		SessionID:       "probe-session",
		Modes: &acp.SessionModeState{CurrentModeID: "ask",
			AvailableModes: []acp.SessionMode{{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code"}}},
		ConfigOptions: []acp.SessionConfigOption{},
		Commands:      []acp.AvailableCommand{{Name: "review", Description: "Review the change"}},
		Updates:       map[string]int{"agent_thought_chunk": 1},
	}
	// with returns offered changed by edit.
	with := func(edit func(r *ProbeReport)) ProbeReport {
		r := offered
		r.Command = slices.Clone(r.Command)
		edit(&r)
		return r
	}
	// initialized edits offered into the report of the script's agent that
	// answered initialize only.
	initialized := func(script string) func(r *ProbeReport) {
		return func(r *ProbeReport) {
			r.Command[2] = script
			r.SessionID, r.Modes, r.Commands, r.Updates = "", nil, []acp.AvailableCommand{}, nil
		}
	}
	tests := []struct {
		name    string
		agent   scenario.Agent
		timeout time.Duration
		want    ProbeReport
		wantErr string // the error starts with it
		stderr  bool   // the report keeps the agent's stderr
	}{
		{name: "what it offers", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "offers.mock.yaml"}},
			want: offered},
		{name: "named agent with auth", agent: scenario.Agent{Name: "mine", Command: []string{"acprun", "mock-agent", "auth.mock.yaml"}, Auth: "api-key"},
			want: with(func(r *ProbeReport) { r.Agent, r.Command[2], r.Authenticated = "mine", "auth.mock.yaml", "api-key" })},
		{name: "auth not offered", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "offers.mock.yaml"}, Auth: "sso"},
			want: with(func(r *ProbeReport) {
				r.Warnings = []string{`the agent offers no auth method "sso"; not authenticated`}
			})},
		{name: "terminal auth", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "auth.mock.yaml"}, Auth: "login"},
			want:    with(initialized("auth.mock.yaml")),
			wantErr: `authenticate: auth method "login" is a terminal login (type: terminal)`},
		{name: "authentication required", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "auth.mock.yaml"}},
			want:    with(initialized("auth.mock.yaml")),
			wantErr: "session/new: the agent requires authentication (try --auth with one of: api-key); or log in once, by hand, with its terminal login (login): jsonrpc error -32000"},
		{name: "protocol version", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "v2.mock.yaml"}},
			want: ProbeReport{Command: []string{bin, "mock-agent", "v2.mock.yaml"}, Cwd: dir, ProtocolVersion: 2,
				AgentInfo:   &acp.Implementation{Name: "future", Version: "9"},
				AuthMethods: []acp.AuthMethod{}, ConfigOptions: []acp.SessionConfigOption{}, Commands: []acp.AvailableCommand{}},
			wantErr: "initialize: the agent speaks ACP protocol version 2, which acprun does not support yet (acprun speaks version 1); acprun sent it nothing more"},
		{name: "agent exits at once", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "missing.mock.yaml"}},
			want: ProbeReport{Command: []string{bin, "mock-agent", "missing.mock.yaml"}, Cwd: dir,
				AuthMethods: []acp.AuthMethod{}, ConfigOptions: []acp.SessionConfigOption{}, Commands: []acp.AvailableCommand{}},
			wantErr: "the agent exited with code 2 before answering initialize", stderr: true},
		// An agent that closes its output and lives on is not said to have
		// been killed by the SIGTERM acprun then sends it, as a run says it.
		{name: "agent closes its output", agent: scenario.Agent{Command: []string{"sh", "-c", "exec 1>&-; exec sleep 100"}},
			want: ProbeReport{Command: []string{"sh", "-c", "exec 1>&-; exec sleep 100"}, Cwd: dir,
				AuthMethods: []acp.AuthMethod{}, ConfigOptions: []acp.SessionConfigOption{}, Commands: []acp.AvailableCommand{}},
			wantErr: "the agent closed its output before answering initialize"},
		// A program that is not there is said as a run says it (CheckProgram),
		// not in exec's words.
		{name: "not started", agent: scenario.Agent{Command: []string{"/nonexistent/agent"}},
			want: ProbeReport{Command: []string{"/nonexistent/agent"}, Cwd: dir,
				AuthMethods: []acp.AuthMethod{}, ConfigOptions: []acp.SessionConfigOption{}, Commands: []acp.AvailableCommand{}},
			wantErr: "agent command /nonexistent/agent: no such file"},
		{name: "not in PATH", agent: scenario.Agent{Name: "mine", Command: []string{"nosuchcmd-xyz", "acp"}},
			want: ProbeReport{Agent: "mine", Command: []string{"nosuchcmd-xyz", "acp"}, Cwd: dir,
				AuthMethods: []acp.AuthMethod{}, ConfigOptions: []acp.SessionConfigOption{}, Commands: []acp.AvailableCommand{}},
			wantErr: "agent mine: command nosuchcmd-xyz: not found in PATH: install it, or give its path"},
		// The agent hangs in session/new; whether the timeout comes before
		// or after initialize's answer is up to the machine's speed.
		{name: "timeout", agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "hang.mock.yaml"}}, timeout: 300 * time.Millisecond,
			wantErr: "probe timed out after 300ms: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.agent.Cwd = dir
			rep, err := Probe(context.Background(), ProbeOptions{Agent: tt.agent, Timeout: tt.timeout, Self: bin, Version: "test"})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Probe: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("Probe: error %v, want one starting with %q", err, tt.wantErr)
			case err != nil && rep.Error != err.Error():
				t.Errorf("report's error = %q, want %q", rep.Error, err.Error())
			}
			if tt.name == "timeout" {
				return // what came before the deadline depends on the machine
			}
			if tt.stderr != (rep.StderrTail != "") {
				t.Errorf("stderr tail = %q, want one: %v", rep.StderrTail, tt.stderr)
			}
			if (rep.Capabilities != nil) != (tt.want.ProtocolVersion != 0) {
				t.Errorf("capabilities = %+v; want them set only when initialize was answered", rep.Capabilities)
			}
			if tt.want.ProtocolVersion == 1 && !rep.Capabilities.LoadSession {
				t.Errorf("capabilities = %+v, want loadSession", rep.Capabilities)
			}
			rep.Capabilities, rep.Error, rep.StderrTail = nil, "", ""
			if diff := cmp.Diff(tt.want, rep); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProbeNonJSON: what an agent printed that is not JSON-RPC is in the
// probe's warnings, as protocol violations (the first three, the others
// counted), whether the probe fails or not; and a probe that fails with
// nothing but such lines from the agent (a program that is no ACP agent)
// says so, quoting the first.
func TestProbeNonJSON(t *testing.T) {
	bin := agentBin(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "offers.mock.yaml"), []byte(probeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	violation := func(line string) string {
		return fmt.Sprintf("protocol violation: invalid JSON-RPC message: not a JSON object: %q (%d bytes)", line, len(line))
	}
	tests := []struct {
		name     string
		script   string // run by sh, $0 the mock agent; it reads initialize before it exits
		warnings []string
		err      string // "": none
	}{
		{name: "usage text, then exit", script: `echo "Usage: this is not an ACP agent"; echo; echo "hello world"; read -r _; exit 1`,
			warnings: []string{violation("Usage: this is not an ACP agent"), violation("hello world")},
			err:      `the agent exited with code 1 before answering initialize; the agent printed no JSON-RPC message, only: "Usage: this is not an ACP agent" and 1 more line`},
		{name: "more lines than are quoted", script: `for i in 1 2 3 4 5; do echo "line $i"; done; read -r _`,
			warnings: []string{violation("line 1"), violation("line 2"), violation("line 3"), "2 more protocol violations"},
			err:      `initialize: acp: connection closed: agent closed its output (EOF); the agent printed no JSON-RPC message, only: "line 1" and 4 more lines`},
		{name: "a banner, then ACP", script: `echo "Welcome to agent 1.0"; exec "$0" mock-agent offers.mock.yaml`,
			warnings: []string{violation("Welcome to agent 1.0")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			agent := scenario.Agent{Command: []string{"/bin/sh", "-c", tt.script, bin}, Cwd: dir}
			rep, err := Probe(context.Background(), ProbeOptions{Agent: agent, Self: bin, Version: "test"})
			if got := fmt.Sprint(err); tt.err == "" && err != nil || tt.err != "" && got != tt.err {
				t.Errorf("Probe: error %v, want %q", err, tt.err)
			}
			if diff := cmp.Diff(tt.warnings, rep.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProbeApply checks which session updates change the report: mode and
// config option updates only after the session/new answer.
func TestProbeApply(t *testing.T) {
	t.Parallel()
	cmds := []acp.AvailableCommand{{Name: "init"}}
	opts := []acp.SessionConfigOption{{ID: "model", Name: "Model", Type: "select", CurrentValue: "fast"}}
	updates := []acp.SessionUpdate{
		{Kind: "current_mode_update", CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: "early"}},
		{Kind: "config_option_update", ConfigOptionUpdate: &acp.ConfigOptionUpdate{}},
		{Kind: "available_commands_update", AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{}},
		{Kind: "current_mode_update", CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: "code"}},
		{Kind: "config_option_update", ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}},
		{Kind: "available_commands_update", AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: cmds}},
		{Kind: "plan", Plan: &acp.Plan{}},
	}
	h := &probeHandler{updates: updates}
	rep := ProbeReport{Modes: &acp.SessionModeState{CurrentModeID: "ask"}, Commands: []acp.AvailableCommand{}}
	h.apply(&rep, 3)
	want := ProbeReport{
		Modes:         &acp.SessionModeState{CurrentModeID: "code"},
		ConfigOptions: opts,
		Commands:      cmds,
		Updates:       map[string]int{"current_mode_update": 1, "config_option_update": 1, "plan": 1},
	}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}

	// An empty commands update leaves an empty list, not nil.
	h = &probeHandler{updates: updates[2:3]}
	rep = ProbeReport{Commands: cmds}
	h.apply(&rep, 0)
	if rep.Commands == nil || len(rep.Commands) != 0 {
		t.Errorf("commands = %#v, want an empty list", rep.Commands)
	}
}

// TestProbeRedacts: what the agent offers, its stderr and the error are
// redacted of the values of the agent's env and of the secret-looking
// variables of the environment, as a run's results are.
func TestProbeRedacts(t *testing.T) {
	const envSecret, environSecret = "sk-live-ABCDEF123456", "ghp_EnvSecretValue99"
	bin := agentBin(t)
	dir := t.TempDir()
	leaky := `
agentInfo: {name: "agent-` + envSecret + `", version: "` + environSecret + `"}
authMethods: [{id: "key-` + envSecret + `", name: "API key ` + environSecret + `"}]
sessionId: "session-` + envSecret + `"
updatesBeforeSessionNew:
  - update:
      sessionUpdate: available_commands_update
      availableCommands: [{name: "cmd-` + environSecret + `", description: "` + envSecret + `"}]
`
	for name, script := range map[string]string{
		"leaky.mock.yaml": leaky,
		"dies.mock.yaml":  "updatesBeforeSessionNew: [{stderr: \"TOKEN_A=" + envSecret + " MY_API_KEY=" + environSecret + "\"}, {exit: 3}]\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	environ := append(os.Environ(), "MY_API_KEY="+environSecret)
	for _, tt := range []struct {
		name    string
		command []string
		failed  bool
	}{
		{"offered", []string{"acprun", "mock-agent", "leaky.mock.yaml"}, false},
		{"stderr", []string{"acprun", "mock-agent", "dies.mock.yaml"}, true},
		{"error", []string{filepath.Join(dir, "missing-"+envSecret)}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			agent := scenario.Agent{Command: tt.command, Cwd: dir, Env: map[string]string{"TOKEN_A": envSecret}}
			rep, err := Probe(context.Background(), ProbeOptions{Agent: agent, Self: bin, Environ: environ, Version: "test"})
			if (err != nil) != tt.failed {
				t.Fatalf("Probe: error %v, want one: %v", err, tt.failed)
			}
			if err != nil && (strings.Contains(err.Error(), "ABCDEF") || strings.Contains(err.Error(), "EnvSecret")) {
				t.Errorf("the error leaks a secret: %v", err)
			}
			b, jerr := json.Marshal(rep)
			if jerr != nil {
				t.Fatal(jerr)
			}
			if strings.Contains(string(b), "ABCDEF") || strings.Contains(string(b), "EnvSecret") || !strings.Contains(string(b), "[REDACTED]") {
				t.Errorf("the report leaks a secret, or redacts nothing: %s", b)
			}
		})
	}
}

// TestProbeMarksItsAgent checks that the probed agent carries the mark of
// the probe's guard, which kills what it left when acprun is killed: the
// guard given, or, without one, the guard Probe starts, inside the mark
// acprun carries.
func TestProbeMarksItsAgent(t *testing.T) {
	t.Parallel()
	given := StartGuard("", nil)
	defer given.Close()
	for _, guard := range []*Guard{given, nil} {
		dir := t.TempDir()
		agent := scenario.Agent{Command: []string{"/bin/sh", "-c", `echo "$` + reap.Var + `" > mark; read -r _; exit 1`}, Cwd: dir}
		Probe(t.Context(), ProbeOptions{Agent: agent, Guard: guard, Timeout: time.Minute, Environ: reap.Mark("outer").Set(os.Environ())})
		got, err := os.ReadFile(filepath.Join(dir, "mark"))
		if err != nil {
			t.Fatal(err)
		}
		mark := strings.TrimSpace(string(got))
		switch {
		case guard != nil && mark != string(guard.mark):
			t.Errorf("the agent carries the mark %q; want the given guard's, %q", mark, guard.mark)
		case guard == nil && !strings.HasPrefix(mark, "outer."):
			t.Errorf("the agent carries the mark %q; want one of Probe's own guard, inside outer", mark)
		}
	}
}

// TestProbeSparesNames: the probe redacts as a run does: not the probed
// agent's name, nor words of the protocol its env holds, and it redacts
// the secrets of the config's other agents too.
func TestProbeSparesNames(t *testing.T) {
	t.Parallel()
	const other = "sk-other-ABCDEF123456"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.mock.yaml"), []byte("agentInfo: {name: \"greeter agent "+other+"\", version: \"1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &scenario.Config{Agents: map[string]scenario.NamedAgent{"other": {Name: "other", Agent: scenario.Agent{
		Name: "other", Command: []string{"x"}, Env: map[string]string{"API_KEY": other}}}}}
	agent := scenario.Agent{Name: "greeter", Command: []string{"acprun", "mock-agent", "a.mock.yaml"}, Cwd: dir,
		Env: map[string]string{"APP_MODE": "agent", "MODEL_NAME": "greeter"}}
	rep, err := Probe(t.Context(), ProbeOptions{Agent: agent, Self: agentBin(t), Version: "test", Config: cfg})
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	if rep.Agent != "greeter" || rep.AgentInfo == nil || rep.AgentInfo.Name != "greeter agent "+redact.Marker {
		t.Errorf("agent %q, agentInfo %+v; want greeter, and the other agent's secret redacted", rep.Agent, rep.AgentInfo)
	}
	if !slices.Contains(rep.Command, "mock-agent") {
		t.Errorf("command %q; want mock-agent kept", rep.Command)
	}
}

// TestProbeStopsByItsTimeout: the probe's Timeout bounds the whole probe,
// the stop of its agent too: an agent that ignores the end of its input
// and SIGTERM is killed when the time is up, not after the graces
// (probeGrace twice), which would outlast it. Whether the handshake ends
// before the deadline is up to the machine; either way the probe is over
// long before the graces would be.
func TestProbeStopsByItsTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stubborn.mock.yaml"), []byte("ignoreEOF: true\nignoreSigterm: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := scenario.Agent{Command: []string{"acprun", "mock-agent", "stubborn.mock.yaml"}, Cwd: dir}
	const timeout = time.Second
	start := time.Now()
	Probe(t.Context(), ProbeOptions{Agent: agent, Timeout: timeout, Self: agentBin(t), Version: "test"})
	if took := time.Since(start); took >= 2*probeGrace {
		t.Errorf("the probe took %s; want it over soon after its timeout, %s", took.Round(time.Millisecond), timeout)
	}
}

// TestProbeListensAtMostSettle: the probe listens for session updates
// probeSettle at most in all, as its help says, an agent that floods it
// without end too; it listened as long as acprun was behind, up to
// settleBound (30s). The agent floods faster than acprun handles, so
// acprun is behind every time it looks.
func TestProbeListensAtMostSettle(t *testing.T) {
	t.Parallel()
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`
	script := `read -r _; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}'
read -r _; echo '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'
exec yes '` + update + `'`
	agent := scenario.Agent{Command: []string{"/bin/sh", "-c", script}, Cwd: t.TempDir()}
	start := time.Now()
	rep, err := Probe(t.Context(), ProbeOptions{Agent: agent, Timeout: time.Minute, Version: "test"})
	if err != nil || rep.Updates["agent_message_chunk"] == 0 {
		t.Fatalf("Probe: %v, updates %v; want it to open the session and count the flood", err, rep.Updates)
	}
	// The old wait lasted settleBound at least (acprun is behind a flood
	// of yes every time it looks); the bound is that, not a speed: the
	// backlog handled after the 3s takes long on a loaded machine.
	if took := time.Since(start); took >= settleBound {
		t.Errorf("the probe took %s; want it to listen %s at most, then stop the agent", took.Round(time.Millisecond), probeSettle)
	}
}
