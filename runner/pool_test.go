package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// runScenarios loads src as dir/s.yaml (the mock agent scripts it names
// written beside it from scripts) and runs it with opts on the acprun
// binary's mock agent.
func runScenarios(t *testing.T, opts Options, src string, scripts map[string]string) report.Report {
	t.Helper()
	dir := t.TempDir()
	for name, s := range scripts {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	scs, _, err := scenario.LoadBytes(file, []byte(src), scenario.LoadOptions{})
	if err != nil {
		t.Fatalf("load:\n%v", err)
	}
	opts.Self = agentBin(t)
	if opts.WorkspaceDir == "" {
		opts.WorkspaceDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts, scs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// scenarioDoc is one scenario of runScenarios' file, on the agent of
// script, with reuse as given.
func scenarioDoc(name, script string, reuse bool, extra string) string {
	return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, " + script + "], reuse: " + boolText(reuse) + "}\n" +
		"killGrace: 1h\npermissions: {default: allow}\n" + extra + "turns: [{prompt: hi}]\n"
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

const closingAgent = "agentCapabilities: {sessionCapabilities: {close: true}}\nignoreEOF: true\n"

// TestCleanEndStopsAtOnce: an agent that ignores the end of its input is
// stopped with SIGTERM right after a clean end (killGrace is an hour),
// after session/close; a scenario whose turn was cancelled gets the long
// way (its killGrace is short here, so that the test ends).
func TestCleanEndStopsAtOnce(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{Parallel: 1},
		scenarioDoc("clean", "agent.mock.yaml", false, "")+
			"---\nname: cancelled\nagent: {command: [acprun, mock-agent, slow.mock.yaml]}\nkillGrace: 100ms\nturnTimeout: 1s\n"+
			"permissions: {default: allow}\nturns: [{prompt: hi, expect: {stopReason: cancelled}}]\n",
		map[string]string{
			"agent.mock.yaml": closingAgent + "turns: [{steps: [{text: hi}]}]\n",
			"slow.mock.yaml":  closingAgent + "turns: [{steps: [{waitForCancel: true}]}]\n",
		})
	clean, cancelled := rep.Scenarios[0], rep.Scenarios[1]
	if clean.Status != report.StatusPassed || clean.Agent.Stop != report.StopClean || clean.SessionClose == nil || !clean.SessionClose.OK || len(clean.Warnings) > 0 {
		t.Errorf("clean end: status %s, stop %q, sessionClose %+v, warnings %q; want passed, clean, ok, none",
			clean.Status, clean.Agent.Stop, clean.SessionClose, clean.Warnings)
	}
	if cancelled.Status != report.StatusPassed || cancelled.Agent.Stop != report.StopGrace || cancelled.SessionClose == nil || !cancelled.SessionClose.OK {
		t.Errorf("cancelled turn: status %s, stop %q, sessionClose %+v; want passed, grace, ok", cancelled.Status, cancelled.Agent.Stop, cancelled.SessionClose)
	}
}

// TestCleanEnd lists what makes an end clean.
func TestCleanEnd(t *testing.T) {
	t.Parallel()
	answered := report.TurnResult{Index: 1, StopReason: "end_turn"}
	tests := []struct {
		name   string
		change func(r *scenarioRun)
		clean  bool
	}{
		{"every turn answered, session/close answered", func(*scenarioRun) {}, true},
		{"another stop reason", func(r *scenarioRun) { r.res.Turns[0].StopReason = "refusal" }, true},
		{"session/close not offered", func(r *scenarioRun) { r.res.SessionClose = nil }, false},
		{"session/close failed", func(r *scenarioRun) { r.res.SessionClose = &report.SessionClose{Error: "x"} }, false},
		{"cancelled by acprun", func(r *scenarioRun) { r.res.Turns[0].CancelCause = report.CauseTurnTimeout }, false},
		{"an error answer", func(r *scenarioRun) { r.res.Turns[0].StopReason = report.OutcomeError }, false},
		{"a turn skipped", func(r *scenarioRun) {
			r.res.Turns = append(r.res.Turns, report.TurnResult{Index: 2, StopReason: report.OutcomeSkipped})
		}, false},
		{"a turn missing", func(r *scenarioRun) { r.res.Turns = nil }, false},
		{"the session did not open", func(r *scenarioRun) { r.opened = false }, false},
		{"an error", func(r *scenarioRun) { r.res.Error = "x" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scenario.Scenario{Turns: []scenario.Turn{{}}}
			if tt.name == "a turn skipped" {
				sc.Turns = append(sc.Turns, scenario.Turn{})
			}
			r := &scenarioRun{sc: sc, res: &report.Result{Turns: []report.TurnResult{answered}, SessionClose: &report.SessionClose{OK: true}}, opened: true}
			tt.change(r)
			if got := r.cleanEnd(context.Background()); got != tt.clean {
				t.Errorf("cleanEnd = %v; want %v", got, tt.clean)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &scenarioRun{sc: &scenario.Scenario{Turns: []scenario.Turn{{}}}, res: &report.Result{Turns: []report.TurnResult{answered}, SessionClose: &report.SessionClose{OK: true}}, opened: true}
	if r.cleanEnd(ctx) {
		t.Error("cleanEnd = true after an interrupt")
	}
}

// TestReuse runs three scenarios on one process (-j 1): each opens and
// closes its own session on it, and what the agent writes to stderr during
// a scenario is that scenario's (they fail, so that their stderr is kept).
// The fourth scenario starts the agent with another env: it gets a process
// of its own.
func TestReuse(t *testing.T) {
	t.Parallel()
	script := closingAgent + `turns:
  - {match: alpha, steps: [{stderr: alpha}, {text: done}]}
  - {match: beta, steps: [{stderr: beta}, {text: done}]}
default: {steps: [{stderr: other}, {text: done}]}
`
	doc := func(name, prompt, env string) string {
		return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true" + env + "}\n" +
			"killGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: " + prompt + ", expect: {text: {contains: nope}}}]\n"
	}
	src := doc("a", "alpha", "") + doc("b", "beta", "") + doc("c", "gamma", "") + doc("d", "alpha", ", env: {OTHER: x}")
	var mu sync.Mutex
	var sent []string
	tap := func(dir acp.Direction, line []byte, _ time.Time) {
		var m struct {
			Method string `json:"method"`
		}
		if dir == acp.Sent && json.Unmarshal(line, &m) == nil && (m.Method == acp.MethodSessionNew || m.Method == acp.MethodInitialize) {
			mu.Lock()
			sent = append(sent, m.Method)
			mu.Unlock()
		}
	}
	rep := runScenarios(t, Options{Parallel: 1, tap: tap}, src, map[string]string{"agent.mock.yaml": script})
	var pids []int
	wantStderr := map[string]string{"a": "alpha\n", "b": "beta\n", "c": "other\n", "d": "alpha\n"}
	for i, r := range rep.Scenarios {
		if r.Status != report.StatusFailed || r.Agent.Pool == nil {
			t.Fatalf("%s: status %s, pool %+v, warnings %q, error %q", r.Name, r.Status, r.Agent.Pool, r.Warnings, r.Error)
		}
		pids = append(pids, r.Agent.Pool.Pid)
		wantID, wantSessions := "acprun#1", i+1
		if r.Name == "d" {
			wantID, wantSessions = "acprun#2", 1
		}
		if r.Agent.Pool.ID != wantID || r.Agent.Pool.Sessions != wantSessions || r.Agent.Stop != report.StopKept {
			t.Errorf("%s: pool %+v, stop %q; want %s with %d sessions, kept", r.Name, r.Agent.Pool, r.Agent.Stop, wantID, wantSessions)
		}
		if r.SessionClose == nil || !r.SessionClose.OK {
			t.Errorf("%s: sessionClose %+v", r.Name, r.SessionClose)
		}
		if r.StderrTail != wantStderr[r.Name] {
			t.Errorf("%s: stderrTail %q; want %q", r.Name, r.StderrTail, wantStderr[r.Name])
		}
	}
	if pids[0] != pids[1] || pids[1] != pids[2] || pids[3] == pids[0] {
		t.Errorf("pids %v; want a, b and c on one process, d on another", pids)
	}
	want := []string{"initialize", "session/new", "session/new", "session/new", "initialize", "session/new"}
	if strings.Join(sent, " ") != strings.Join(want, " ") {
		t.Errorf("sent %q; want %q", sent, want)
	}
}

// TestReuseAfterCrash: the process crashes during the second of three
// scenarios; that one errors and names the process it crashed on,
// retired after agent_exited; the third passes on a new process. Nothing
// is left running.
func TestReuseAfterCrash(t *testing.T) {
	t.Parallel()
	script := closingAgent + "turns:\n  - {match: crash, steps: [{text: bye}, {exit: 3}]}\ndefault: {steps: [{text: done}]}\n"
	marker := "REUSE_TEST=" + t.Name() + "-" + strconv.Itoa(os.Getpid())
	doc := func(name, prompt string) string {
		return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true, env: {" +
			strings.Replace(marker, "=", ": ", 1) + "}}\nkillGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: " + prompt + "}]\n"
	}
	rep := runScenarios(t, Options{Parallel: 1}, doc("a", "hi")+doc("b", "crash")+doc("c", "hi"), map[string]string{"agent.mock.yaml": script})
	if code := exitOf(rep); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if live := testkit.Leftovers(t, testkit.WithEnv(marker)); len(live) > 0 {
		t.Errorf("left running after the run: %v", live)
	}
	a, b, c := rep.Scenarios[0], rep.Scenarios[1], rep.Scenarios[2]
	if a.Status != report.StatusPassed || b.Status != report.StatusError || c.Status != report.StatusPassed || b.Turns[0].StopReason != report.OutcomeAgentExited {
		t.Fatalf("statuses %s, %s, %s; want passed, error (agent_exited), passed (b: %s)", a.Status, b.Status, c.Status, b.Error)
	}
	if b.Agent.Pool == nil || b.Agent.Pool.ID != "acprun#1" || b.Agent.Pool.Sessions != 2 || !strings.Contains(b.Agent.Pool.Retired, "agent_exited") {
		t.Errorf("b: pool %+v; want acprun#1, its second session, retired after agent_exited", b.Agent.Pool)
	}
	if c.Agent.Pool == nil || c.Agent.Pool.ID != "acprun#2" || c.Agent.Pool.Sessions != 1 || c.Agent.Pool.Pid == b.Agent.Pool.Pid {
		t.Errorf("c: pool %+v; want a new process, acprun#2", c.Agent.Pool)
	}
	if b.ExitCode == nil || *b.ExitCode != 3 {
		t.Errorf("b: exitCode %v; want 3", b.ExitCode)
	}
}

// TestReuseNeedsSessionClose: an agent that does not offer session/close
// is not reused: every scenario starts its own process, with a warning.
func TestReuseNeedsSessionClose(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{Parallel: 1, ReuseAgents: true},
		scenarioDoc("a", "agent.mock.yaml", false, "")+scenarioDoc("b", "agent.mock.yaml", false, ""),
		map[string]string{"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	for _, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || r.Agent.Pool != nil || r.Agent.Stop != report.StopGrace || r.SessionClose != nil {
			t.Errorf("%s: status %s, pool %+v, stop %q, sessionClose %+v; want passed, no pool, grace (no session/close), none", r.Name, r.Status, r.Agent.Pool, r.Agent.Stop, r.SessionClose)
		}
		if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "--reuse-agents: the agent does not offer session/close") {
			t.Errorf("%s: warnings %q; want one saying it does not offer session/close", r.Name, r.Warnings)
		}
	}
}

// TestBindingRoutesBySession: a request goes to the session bound when it
// is handled; one that comes while none is bound is refused and unfits the
// process, as an update then does.
func TestBindingRoutesBySession(t *testing.T) {
	t.Parallel()
	b := newBinding(nil)
	b.endPrelude()
	newSession := func() *session {
		return &session{sessionID: "s1", policy: &approve.Policy{Default: approve.Allow}, obs: (&observer{}).forJob(Ref{Name: "bound"}, redact.New())}
	}
	first, second := newSession(), newSession()
	b.bind(&link{sess: first, tap: func(acp.Direction, []byte, time.Time) {}})
	ask := func() *acp.Request {
		id := acp.ID{}
		_ = json.Unmarshal([]byte("7"), &id)
		return &acp.Request{ID: &id, Method: acp.MethodSessionRequestPermission,
			Params: []byte(`{"sessionId":"s1","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`)}
	}
	if _, err := b.Handle(context.Background(), ask()); err != nil {
		t.Fatal(err)
	}
	b.bind(&link{sess: second, tap: func(acp.Direction, []byte, time.Time) {}})
	if len(first.setup.permissions) != 1 || len(second.setup.permissions) != 0 {
		t.Errorf("permissions recorded by the first and second session: %d, %d; want 1, 0", len(first.setup.permissions), len(second.setup.permissions))
	}
	b.unbind()
	id := acp.ID{}
	if _, err := b.Handle(context.Background(), &acp.Request{ID: &id, Method: acp.MethodFSReadTextFile}); err == nil {
		t.Error("a request while no session is bound was answered")
	}
	if got := b.strayProblem(); !strings.Contains(got, "fs/read_text_file while no session was open") {
		t.Errorf("strayProblem = %q", got)
	}
	quiet := newBinding(nil)
	quiet.endPrelude()
	if _, err := quiet.Handle(context.Background(), &acp.Request{Method: acp.MethodSessionUpdate, Params: []byte(`{"sessionId":"s1","update":{}}`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := quiet.strayProblem(), `session/update for session "s1" while no session was open`; got != want {
		t.Errorf("after an update while no session is bound: strayProblem = %q; want %q", got, want)
	}
}

// TestBindingPreludeEndsItsLastWrite: the end of the write of the
// prelude's last line of acprun's, tapped once the prelude has ended (the
// answer to initialize was read first), is still the prelude's: a
// transcript that replays it does not hold that line, and what follows
// it, to its close.
func TestBindingPreludeEndsItsLastWrite(t *testing.T) {
	t.Parallel()
	b := newBinding(nil)
	initLine := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	b.tap(acp.Sent, initLine, time.Now())
	b.tap(acp.Received, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`), time.Now())
	b.endPrelude()
	b.tap(acp.Written, initLine, time.Now())
	b.tap(acp.Received, []byte(`{"jsonrpc":"2.0","method":"idle"}`), time.Now()) // not the prelude's

	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := startTranscript(path, f, f, redact.New(), maxTranscriptHeld)
	defer tr.close()
	b.bind(&link{tr: tr, tap: tr.tap})
	tr.flush()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); strings.Count(got, "\n") != 2 || !strings.Contains(got, `"method":"initialize"`) || !strings.Contains(got, `"result"`) {
		t.Errorf("transcript once bound:\n%s\nwant initialize and its answer", got)
	}
}

// TestReuseRetiresAfterTerminalLeftRunning: a process whose agent left a
// terminal running at the end of its scenario is not reused.
func TestReuseRetiresAfterTerminalLeftRunning(t *testing.T) {
	t.Parallel()
	script := closingAgent + "turns:\n  - {match: leave, steps: [{terminal: {command: sleep 1000}}, {text: left}]}\ndefault: {steps: [{text: fine}]}\n"
	doc := func(name, prompt string) string {
		return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true}\n" +
			"killGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: " + prompt + "}]\n"
	}
	rep := runScenarios(t, Options{Parallel: 1}, doc("a", "leave")+doc("b", "hi"), map[string]string{"agent.mock.yaml": script})
	a, b := rep.Scenarios[0], rep.Scenarios[1]
	if a.Status != report.StatusPassed || b.Status != report.StatusPassed {
		t.Fatalf("statuses %s, %s (%q, %q)", a.Status, b.Status, a.Warnings, b.Warnings)
	}
	if p := a.Agent.Pool; p == nil || p.Retired != "the agent left 1 terminal(s) running" || a.Agent.Stop != report.StopClean {
		t.Errorf("a: pool %+v, stop %q; want retired for the terminal, stopped after a clean end", p, a.Agent.Stop)
	}
	if p := b.Agent.Pool; p == nil || p.ID != "acprun#2" {
		t.Errorf("b: pool %+v; want a new process", p)
	}
}

// TestPoolTakeSkipsBrokenIdleProcesses: an idle process that exited,
// misbehaved or closed its output while idle is stopped instead of being
// taken, and said why: one that closed its output and exits within its
// killGrace is said to have exited, however soon after it exits;
// a new process's slot comes from stopping the oldest idle one when every
// slot is taken.
func TestPoolTakeSkipsBrokenIdleProcesses(t *testing.T) {
	t.Parallel()
	pl := newPool(1, t.TempDir(), nil)
	var violated chan struct{} // closed at the first violation of the next process
	idle := func(script, id string) *proc {
		t.Helper()
		b := newBinding(nil)
		b.endPrelude()
		seen := make(chan struct{})
		violated = seen
		var once sync.Once
		a, err := startAgent(agentConfig{Argv: []string{"/bin/sh", "-c", script}, Env: os.Environ(), Handler: b,
			Conn: &acp.Options{Tap: b.tap, OnViolation: func(v acp.Violation) {
				b.violation(v)
				once.Do(func() { close(seen) })
			}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Kill)
		pl.reserve(nil)
		p := &proc{agent: a, bind: b, pool: pl, key: "k", id: id, slot: true, killGrace: time.Hour}
		pl.put(p)
		return p
	}
	gone := idle("exit 0", "x#1")
	<-gone.agent.Exited()
	if p, why := pl.take("k", nil); p != nil || len(why) != 1 || !strings.Contains(why[0], "x#1") || !strings.Contains(why[0], "exited with code 0 while idle") {
		t.Errorf("take = %v, %q; want nothing, and why x#1 was not reused", p, why)
	}
	loud := idle("echo not json; cat >/dev/null", "x#2")
	<-violated // the line that is not JSON-RPC came while no scenario was bound
	if p, why := pl.take("k", nil); p != nil || len(why) != 1 || !strings.Contains(why[0], "not json") || !isClosed(loud.agent.Exited()) {
		t.Errorf("take = %v, %q; want nothing, why x#2 was not reused, and x#2 stopped", p, why)
	}
	mute := idle("exec 1>&-; cat >/dev/null", "x#4")
	mute.killGrace = 100 * time.Millisecond // waited for in vain: it runs on
	<-mute.agent.Conn.ReadDone()            // its output closed while it was idle
	if p, why := pl.take("k", nil); p != nil || len(why) != 1 || !strings.Contains(why[0], "x#4") || !strings.Contains(why[0], "the agent closed its output while idle") || !isClosed(mute.agent.Exited()) {
		t.Errorf("take = %v, %q; want nothing, why x#4 was not reused, and x#4 stopped", p, why)
	}
	late := idle("exec 1>&-; sleep 0.2; exit 3", "x#5")
	<-late.agent.Conn.ReadDone() // its output closed while it was idle; it exits right after
	if p, why := pl.take("k", nil); p != nil || len(why) != 1 || !strings.Contains(why[0], "x#5") || !strings.Contains(why[0], "the agent exited with code 3 while idle") {
		t.Errorf("take = %v, %q; want nothing, and x#5 not reused as it exited", p, why)
	}
	kept := idle("cat >/dev/null", "x#3")
	pl.reserve(nil) // the one slot is x#3's: it is stopped for the new process
	if !isClosed(kept.agent.Exited()) || pl.live != 1 || len(pl.idle) != 0 {
		t.Errorf("after reserve: x#3 exited %v, %d live, %d idle; want x#3 stopped, 1 live, none idle", isClosed(kept.agent.Exited()), pl.live, len(pl.idle))
	}
}

// TestReuseKeepsTheCommand: a pooled process is started with the
// scenario's command as written, in the scenario's cwd, as without reuse:
// an argument that happens to name a directory there (mock-agent, as
// `goose acp` in a project with an acp/ directory) is not made a path.
// Scenarios in another cwd get another process.
func TestReuseKeepsTheCommand(t *testing.T) {
	t.Parallel()
	doc := func(name, cwd string) string {
		return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true" + cwd + "}\n" +
			"permissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: fine}}}]\n"
	}
	agent := closingAgent + "default: {steps: [{text: fine}]}\n"
	rep := runScenarios(t, Options{Parallel: 1}, doc("a", "")+doc("b", "")+doc("c", ", cwd: sub"), map[string]string{
		"agent.mock.yaml":     agent,
		"mock-agent/doc.txt":  "a directory named as the command's first argument",
		"sub/agent.mock.yaml": agent,
	})
	want := map[string]string{"a": "acprun#1", "b": "acprun#1", "c": "acprun#2"}
	for _, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || r.Agent.Pool == nil || r.Agent.Pool.ID != want[r.Name] {
			t.Errorf("%s: status %s, pool %+v, error %q, stderr %q; want passed on %s", r.Name, r.Status, r.Agent.Pool, r.Error, r.StderrTail, want[r.Name])
		}
	}
}

// TestOwnProcess lists the scenarios that run their agent on a process of
// their own although they ask to reuse it.
func TestOwnProcess(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sc   scenario.Scenario
		want string
	}{
		{"plain", scenario.Scenario{}, ""},
		{"a replay", scenario.Scenario{Agent: scenario.Agent{Command: []string{"acprun", "replay", "t.jsonl"}}}, ownReplay},
		{"a workspace", scenario.Scenario{Workspace: &scenario.Workspace{}}, ownFiles},
		{"verify", scenario.Scenario{Verify: []scenario.Command{{Run: "true"}}}, ownFiles},
		{"expect.files", scenario.Scenario{Expect: scenario.Expect{Files: &scenario.FilesExpect{}}}, ownFiles},
		{"a judge", scenario.Scenario{Expect: scenario.Expect{Judge: &scenario.Judge{}}}, ownFiles},
		{"the last turn's expect.files", scenario.Scenario{Turns: []scenario.Turn{{}, {Expect: scenario.Expect{Files: &scenario.FilesExpect{}}}}}, ownFiles},
		{"the last turn's judge", scenario.Scenario{Turns: []scenario.Turn{{}, {Expect: scenario.Expect{Judge: &scenario.Judge{}}}}}, ownFiles},
		{"an earlier turn's expect.files", scenario.Scenario{Turns: []scenario.Turn{{Expect: scenario.Expect{Files: &scenario.FilesExpect{}}}, {}}}, ownFiles},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ownProcess(&tt.sc); got != tt.want {
				t.Errorf("ownProcess() = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestTellersPickedInJobOrder: the note of why a scenario that asks to
// reuse its agent runs on a process of its own is said in the first try of
// the first such job in the run's order, whichever job starts first, and
// only with reuse asked for.
func TestTellersPickedInJobOrder(t *testing.T) {
	t.Parallel()
	plain := &scenario.Scenario{Name: "plain", File: "s.yaml"}
	files := func(name string) *scenario.Scenario {
		return &scenario.Scenario{Name: name, File: "s.yaml", Workspace: &scenario.Workspace{}}
	}
	jobs := []job{newJob(plain, 0), newJob(files("b1"), 0), newJob(files("b2"), 0)}
	pl := newPool(2, t.TempDir(), nil)
	pl.pickTellers(jobs, true)
	first := jobs[1].ref
	again := first
	again.Retry = 1
	for _, tt := range []struct {
		ref  Ref
		want bool
	}{{first, true}, {again, false}, {jobs[2].ref, false}, {jobs[0].ref, false}} {
		if got := pl.tells(ownFiles, tt.ref); got != tt.want {
			t.Errorf("tells(ownFiles, %+v) = %v; want %v", tt.ref, got, tt.want)
		}
	}
	none := newPool(2, t.TempDir(), nil)
	none.pickTellers(jobs, false)
	if none.tells(ownFiles, first) {
		t.Error("a note is told without reuse asked for")
	}
}

// shAgent is an agent of the reuse tests that serves one session after
// another on one process and offers session/close; its first argument
// says what it does besides (words):
//   - afterclose: right after the answer to session/close, an update
//     for the closed session;
//   - writeclose: right after it, fs/write_text_file for the closed
//     session (after-close.txt in its cwd);
//   - stalenew: before the answer to a session/new, an update for the
//     session before;
//   - sameid: every session/new is answered with session id s1;
//   - eofwrite: at the end of its input, it writes bg.txt in the cwd of
//     its last session, as a task of its own finishing would (it ignores
//     SIGTERM, so that it always does).
const shAgent = `MODE=$1
case "$MODE" in *eofwrite*) trap '' TERM;; esac
n=0
update() { printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s"}}}}\n' "$1" "$2"; }
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),"method".*/\1/p')
  case "$line" in
  *'"method":"initialize"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}}}}\n' "$id";;
  *'"method":"session/new"'*)
    n=$((n+1))
    cwd=$(printf '%s\n' "$line" | sed -n 's/.*"cwd":"\([^"]*\)".*/\1/p')
    case "$MODE" in *stalenew*) if [ $n -gt 1 ]; then update "s$((n-1))" STALE; fi;; esac
    sid=s$n
    case "$MODE" in *sameid*) sid=s1;; esac
    printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"%s"}}\n' "$id" "$sid";;
  *'"method":"session/prompt"'*)
    update "$sid" hello
    printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id";;
  *'"method":"session/close"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
    case "$MODE" in *afterclose*) update "s$n" AFTER-CLOSE;; esac
    case "$MODE" in *writeclose*)
      printf '{"jsonrpc":"2.0","id":"w%s","method":"fs/write_text_file","params":{"sessionId":"s%s","path":"%s/after-close.txt","content":"late"}}\n' "$n" "$n" "$cwd";;
    esac;;
  esac
done
case "$MODE" in *eofwrite*) echo "written at the end of its input" > "$cwd/bg.txt";; esac
`

// shScenario is a scenario of the reuse tests on shAgent in mode, with
// reuse as given and extra keys.
func shScenario(name, mode string, reuse bool, extra string) string {
	return "---\nname: " + name + "\nagent: {command: [sh, agent.sh, " + mode + "], reuse: " + boolText(reuse) + "}\n" +
		"killGrace: 1h\nclient: {fs: true}\npermissions: {default: allow}\n" + extra + "turns: [{prompt: hi, expect: {text: {contains: hello}}}]\n"
}

// TestReuseDrainsTheClosedSession: what the agent sends for its session
// right after the answer to session/close is that scenario's, every run,
// with reuse as without: an update is late, a request is refused as a
// protocol violation of that scenario (and the process is not reused),
// never served. The next scenario is not blamed for any of it.
func TestReuseDrainsTheClosedSession(t *testing.T) {
	t.Parallel()
	type outcome struct {
		Status     report.Status
		LateText   string
		Violations []string
		Requests   int
	}
	for _, tt := range []struct {
		mode    string
		retired string
	}{
		{"afterclose", ""},
		{"afterclose-writeclose", "the agent broke the protocol (see violations)"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			var without []outcome
			for run, reuse := range []bool{false, true, true, true} {
				rep := runScenarios(t, Options{Parallel: 1}, shScenario("a", tt.mode, reuse, "")+shScenario("b", tt.mode, reuse, ""),
					map[string]string{"agent.sh": shAgent})
				var got []outcome
				for i, r := range rep.Scenarios {
					o := outcome{Status: r.Status, Violations: r.Violations}
					if len(r.Turns) == 1 {
						o.LateText, o.Requests = r.Turns[0].LateText, len(r.Turns[0].ClientRequests)
					}
					got = append(got, o)
					if _, err := os.Stat(filepath.Join(filepath.Dir(r.File), "after-close.txt")); err == nil {
						t.Errorf("run %d: %s: a write after session/close was served", run, r.Name)
					}
					if !reuse {
						continue
					}
					wantID, wantSessions := "sh#1", i+1
					if tt.retired != "" {
						wantID, wantSessions = "sh#"+strconv.Itoa(i+1), 1
					}
					if p := r.Agent.Pool; p == nil || p.ID != wantID || p.Sessions != wantSessions || p.Retired != tt.retired {
						t.Errorf("run %d: %s: pool %+v; want %s, session %d, retired %q", run, r.Name, p, wantID, wantSessions, tt.retired)
					}
				}
				want := outcome{Status: report.StatusPassed, LateText: "AFTER-CLOSE"}
				if tt.retired != "" {
					want.Violations = []string{`fs/write_text_file for session "s1" after its session/close was answered; refused`}
				}
				for i, o := range got {
					if diff := cmp.Diff(want, o); diff != "" {
						t.Errorf("run %d (reuse %v): %s (-want +got):\n%s", run, reuse, rep.Scenarios[i].Name, diff)
					}
				}
				if !reuse {
					without = got
				} else if diff := cmp.Diff(without, got); diff != "" {
					t.Errorf("run %d: with reuse (-without +with):\n%s", run, diff)
				}
			}
		})
	}
}

// TestReuseStrayUpdateIsNoScenarios: an update for the session of an
// earlier scenario, which the agent sends during the next one, is not
// that scenario's: it is dropped, not a protocol violation of the
// scenario, which passes; a warning says what came, and the process is
// not reused after it.
func TestReuseStrayUpdateIsNoScenarios(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{Parallel: 1}, shScenario("a", "stalenew", true, "")+shScenario("b", "stalenew", true, "")+shScenario("c", "stalenew", true, ""),
		map[string]string{"agent.sh": shAgent})
	stray := `session/update for session "s1", which an earlier scenario closed on this agent process`
	for i, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || len(r.Violations) > 0 {
			t.Errorf("%s: status %s, violations %q; want passed, none", r.Name, r.Status, r.Violations)
		}
		p := r.Agent.Pool
		switch i {
		case 0:
			if p == nil || p.ID != "sh#1" || p.Retired != "" || len(r.Warnings) > 0 {
				t.Errorf("a: pool %+v, warnings %q; want sh#1 kept, no warning", p, r.Warnings)
			}
		case 1:
			if p == nil || p.ID != "sh#1" || p.Retired != stray || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], stray) {
				t.Errorf("b: pool %+v, warnings %q; want sh#1 retired for the stray update, and a warning naming it", p, r.Warnings)
			}
		case 2:
			if p == nil || p.ID != "sh#2" || len(r.Warnings) > 0 {
				t.Errorf("c: pool %+v, warnings %q; want a new process sh#2, no warning", p, r.Warnings)
			}
		}
	}
}

// TestReuseSessionIDAgain: an agent that answers a session/new with the
// id of a session an earlier scenario opened on the same process (every
// session "s1") cannot have its messages told from that session's: the
// scenario errors at once, saying so, instead of running with its output
// dropped as the earlier session's, and the process is retired; the next
// scenario runs on a new process.
func TestReuseSessionIDAgain(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{Parallel: 1}, shScenario("a", "sameid", true, "")+shScenario("b", "sameid", true, "")+shScenario("c", "sameid", true, ""),
		map[string]string{"agent.sh": shAgent})
	const again = `session/new: the agent answered with sessionId "s1", the id of a session an earlier scenario opened on this agent process (agent.reuse): ` +
		"a session's messages could not be told from the other's; each session needs an id of its own"
	type outcome struct {
		Status      report.Status
		Error       string
		ID, Retired string
	}
	var got []outcome
	for _, r := range rep.Scenarios {
		o := outcome{Status: r.Status, Error: r.Error}
		if p := r.Agent.Pool; p != nil {
			o.ID, o.Retired = p.ID, p.Retired
		}
		got = append(got, o)
	}
	want := []outcome{
		{Status: report.StatusPassed, ID: "sh#1"},
		{Status: report.StatusError, Error: again, ID: "sh#1", Retired: "the session did not open"},
		{Status: report.StatusPassed, ID: "sh#2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
}

// TestReuseNotWhereTheVerdictReadsFiles: a scenario whose verdict looks
// at what the agent left in the file system (here its workspace, verify
// and expect.files) runs its agent as without reuse, stopped before its
// workspace is listed and checked: what the agent writes as it ends (at
// the end of its input) is in the change set, and verify and files see
// it, with reuse as without. A note says so, once in the run.
func TestReuseNotWhereTheVerdictReadsFiles(t *testing.T) {
	t.Parallel()
	extra := "workspace: {from: proj}\nverify: [test ! -e bg.txt]\nexpect: {files: {absent: [bg.txt]}}\n"
	var without []string
	for _, reuse := range []bool{false, true} {
		rep := runScenarios(t, Options{Parallel: 1}, shScenario("a", "eofwrite", reuse, extra)+shScenario("b", "eofwrite", reuse, extra),
			map[string]string{"proj/agent.sh": shAgent}) // the agent's cwd is the workspace's copy
		var got []string
		for i, r := range rep.Scenarios {
			if r.Agent.Pool != nil || r.Agent.Stop != report.StopClean {
				t.Errorf("reuse %v: %s: pool %+v, stop %q; want no pool, stopped after a clean end", reuse, r.Name, r.Agent.Pool, r.Agent.Stop)
			}
			if ws := r.Workspace; ws == nil || strings.Join(ws.Created, " ") != "bg.txt" {
				t.Errorf("reuse %v: %s: workspace %+v; want bg.txt created", reuse, r.Name, ws)
			}
			wantWarnings := 0
			if reuse && i == 0 {
				wantWarnings = 1
			}
			if len(r.Warnings) != wantWarnings || wantWarnings == 1 && !strings.Contains(r.Warnings[0], "agent.reuse: "+ownFiles) {
				t.Errorf("reuse %v: %s: warnings %q; want %d (the note, once)", reuse, r.Name, r.Warnings, wantWarnings)
			}
			got = append(got, string(r.Status))
			for _, f := range r.Failures {
				got = append(got, f[strings.Index(f, ": ")+2:])
			}
		}
		if !reuse {
			without = got
		} else if diff := cmp.Diff(without, got); diff != "" {
			t.Errorf("with reuse (-without +with):\n%s", diff)
		}
	}
	if len(without) != 6 {
		t.Errorf("statuses and failures without reuse: %q; want each scenario failed by verify and expect.files", without)
	}
}

// TestReuseRetiredAsTheAgentExited: an agent that closes its output after
// its last answer and exits a moment later is retired for how it exited,
// every run, not for whichever end acprun noticed first (it was "the
// agent closed its output" when the exit came a little later).
func TestReuseRetiredAsTheAgentExited(t *testing.T) {
	t.Parallel()
	agent := `while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),"method".*/\1/p')
  case "$line" in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}}}}\n' "$id";;
  *'"method":"session/new"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}\n' "$id";;
  *'"method":"session/prompt"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id"
    exec 1>&-; sleep 0.2; exit 3;;
  esac
done
`
	doc := func(name string) string {
		return "---\nname: " + name + "\nagent: {command: [sh, agent.sh], reuse: true}\nkillGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: hi}]\n"
	}
	rep := runScenarios(t, Options{Parallel: 1}, doc("a")+doc("b"), map[string]string{"agent.sh": agent})
	for i, r := range rep.Scenarios {
		want := &report.PoolInfo{ID: "sh#" + strconv.Itoa(i+1), Sessions: 1, Retired: "the agent exited with code 3"}
		if r.Agent.Pool != nil {
			want.Pid = r.Agent.Pool.Pid
		}
		if diff := cmp.Diff(want, r.Agent.Pool); diff != "" || r.Status != report.StatusPassed {
			t.Errorf("%s: status %s, pool (-want +got):\n%s", r.Name, r.Status, diff)
		}
	}
}

// TestReuseKeepsAgentsApart: scenarios of different agents (a named agent
// and a command, or two named agents of one command, as in an --agent
// matrix) never share a process, though they start it the same way: each
// agent's results are its own, and the process is named after its agent.
func TestReuseKeepsAgentsApart(t *testing.T) {
	t.Parallel()
	named := func(name string) string {
		return "---\nname: " + name + "\nagent: {name: mock, args: [agent.mock.yaml], reuse: true}\nkillGrace: 1h\npermissions: {default: allow}\nturns: [{prompt: hi}]\n"
	}
	src := named("a") + scenarioDoc("b", "agent.mock.yaml", true, "") + named("c")
	rep := runScenarios(t, Options{Parallel: 1}, src, map[string]string{"agent.mock.yaml": closingAgent})
	type served struct {
		ID       string
		Sessions int
	}
	var got []served
	for _, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || r.Agent.Pool == nil {
			t.Fatalf("%s: status %s, pool %+v; want passed on a pooled process (%s)", r.Name, r.Status, r.Agent.Pool, r.Error)
		}
		got = append(got, served{r.Agent.Pool.ID, r.Agent.Pool.Sessions})
	}
	// -j 1: b's process takes the one slot of mock#1, idle, which is stopped.
	want := []served{{"mock#1", 1}, {"acprun#1", 1}, {"mock#2", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("processes (-want +got):\n%s", diff)
	}
}
