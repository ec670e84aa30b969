package e2e_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// resumeScript is a mock agent that keeps its sessions in sessions/ and
// says, in every reply, the history it has: what a second run's turn
// shows of the first. ${GATE} (from the environment) names a FIFO that
// holds the turn until the test writes it; unset, the turn does not wait.
const resumeScript = `agentCapabilities: {loadSession: true}
sessions: sessions
turns:
  - steps:
      - waitFor: ${GATE}
      - text: "history: "
      - history: true
`

// resumeScenario continues its session across runs.
const resumeScenario = `name: nightly
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {}
session: {resume: true}
turns:
  - prompt: triage the new issues
`

// resumeDir makes a directory with the mock script and the scenario.
func resumeDir(t *testing.T, script, scenario string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": script, "s.yaml": scenario})
	return dir
}

// resumeRun runs `acprun run s.yaml -o OUT ARGS` in dir and returns what it
// did and the one scenario's result.
func resumeRun(t *testing.T, dir, out string, args ...string) (result, report.Result) {
	t.Helper()
	res := acprun(t, dir, append([]string{"run", "s.yaml", "-o", out}, args...)...)
	path := filepath.Join(dir, out)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("acprun run: exit %d and no results (%v)\nstderr:\n%s", res.code, err, res.stderr)
	}
	rs := readResults(t, path)
	if len(rs.Scenarios) != 1 {
		t.Fatalf("%d scenario results, want 1", len(rs.Scenarios))
	}
	return res, rs.Scenarios[0]
}

// resumeState reads the state file.
func resumeState(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	var doc struct {
		Version  int                       `json:"version"`
		Sessions map[string]map[string]any `json:"sessions"`
	}
	readJSON(t, path, &doc)
	if doc.Version != 1 {
		t.Errorf("state file version %d", doc.Version)
	}
	return doc.Sessions
}

func TestResumeContinuesTheSession(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	res, first := resumeRun(t, dir, "one.json")
	if res.code != 0 {
		t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
	}
	s := first.Session
	if s == nil || s.Method != "session/new" || s.Resumed || s.Recorded != "" || s.SessionID != "mock-session-1" || !s.Saved {
		t.Fatalf("first run's session: %+v", s)
	}
	if got := first.Turns[0].Text; got != "history: (no history)" {
		t.Errorf("first run's reply %q", got)
	}

	res, second := resumeRun(t, dir, "two.json")
	if res.code != 0 {
		t.Fatalf("second run: exit %d\n%s", res.code, res.stderr)
	}
	s = second.Session
	if s == nil || s.Method != "session/load" || !s.Resumed || s.Recorded != "mock-session-1" || s.SessionID != "mock-session-1" {
		t.Fatalf("second run's session: %+v", s)
	}
	// The agent's reply shows it has the first run's conversation.
	if want := "history: user: triage the new issues\nagent: history: (no history)"; second.Turns[0].Text != want {
		t.Errorf("second run's reply %q, want %q", second.Turns[0].Text, want)
	}
	// The replay is history, not turn 1, nor what came before it.
	wantHistory := []report.HistoryMessage{
		{Role: "user", Text: "triage the new issues"},
		{Role: "agent", Text: "history: (no history)"},
	}
	if s.History == nil || fmt.Sprint(s.History.Messages) != fmt.Sprint(wantHistory) ||
		s.History.Updates["user_message_chunk"] != 1 || s.History.Updates["agent_message_chunk"] != 1 {
		t.Errorf("history: %+v, want %+v", s.History, wantHistory)
	}
	if u := second.Turns[0].Updates; u["user_message_chunk"] != 0 || u["agent_message_chunk"] != 2 {
		t.Errorf("turn 1's updates %v: the replay was counted into it", u)
	}
	if second.SetupUpdates != nil {
		t.Errorf("setupUpdates %v: the replay was counted as setup", second.SetupUpdates)
	}
	for _, w := range second.Warnings {
		t.Errorf("warning: %s", w)
	}
	entries := resumeState(t, filepath.Join(dir, ".acprun", "state.json"))
	e := entries["nightly @ acprun mock-agent agent.mock.yaml"]
	if e["sessionId"] != "mock-session-1" || e["method"] != "session/load" || e["cwd"] != dir {
		t.Errorf("state entry %v (all: %v)", e, entries)
	}
}

// TestResumeFlag continues sessions of scenarios without a session key,
// in the default state file, with session/resume when that is what the
// agent offers: no replay, but the agent has the history.
func TestResumeFlag(t *testing.T) {
	t.Parallel()
	script := strings.Replace(resumeScript, "{loadSession: true}", "{sessionCapabilities: {resume: {}}}", 1)
	scenario := strings.Replace(resumeScenario, "session: {resume: true}\n", "", 1)
	dir := resumeDir(t, script, scenario)
	if res, r := resumeRun(t, dir, "one.json"); res.code != 0 || r.Session != nil {
		t.Fatalf("without --resume: exit %d, session %+v\n%s", res.code, r.Session, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".acprun")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run without --resume made .acprun (%v)", err)
	}
	for _, out := range []string{"two.json", "three.json"} {
		res, r := resumeRun(t, dir, out, "--resume")
		if res.code != 0 {
			t.Fatalf("--resume: exit %d\n%s", res.code, res.stderr)
		}
		if out == "two.json" {
			if r.Session == nil || r.Session.Method != "session/new" {
				t.Fatalf("first --resume run: %+v", r.Session)
			}
			continue
		}
		s := r.Session
		if s == nil || s.Method != "session/resume" || !s.Resumed || s.History != nil {
			t.Fatalf("second --resume run: %+v", s)
		}
		if !strings.HasPrefix(r.Turns[0].Text, "history: user: triage the new issues\n") {
			t.Errorf("reply after session/resume %q", r.Turns[0].Text)
		}
	}
}

func TestResumeFallsBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// between changes dir after the first run.
		between func(t *testing.T, dir string)
		warning string
	}{
		{"refused", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"agent.mock.yaml": resumeScript + "loadError: {code: -32603, message: cannot load today}\n"})
		}, `session: the agent refused session/load (cannot load today, code -32603); started a new session instead of continuing session "mock-session-1"`},
		{"gone", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "sessions", "mock-session-1.json")); err != nil {
				t.Fatal(err)
			}
		}, `session: the recorded session is gone (session/load: session/load: session "mock-session-1" not found, code -32002); started a new session`},
		{"another cwd", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			// The same command, run in sub/, where it finds a script of its own.
			writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(resumeScenario, "agent.mock.yaml]}", "agent.mock.yaml], cwd: sub}", 1),
				"sub/agent.mock.yaml": resumeScript})
		}, "session: the recorded session's cwd "},
		{"no capability", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"agent.mock.yaml": strings.Replace(resumeScript, "loadSession: true", "loadSession: false", 1)})
		}, "session: the agent advertises neither loadSession nor sessionCapabilities.resume; started a new session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := resumeDir(t, resumeScript, resumeScenario)
			if res, _ := resumeRun(t, dir, "one.json"); res.code != 0 {
				t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
			}
			tt.between(t, dir)
			res, r := resumeRun(t, dir, "two.json")
			if res.code != 0 || r.Status != report.StatusPassed {
				t.Fatalf("second run: exit %d, %s\n%s", res.code, r.Status, res.stderr)
			}
			if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], tt.warning) {
				t.Errorf("warnings %q, want one starting %q", r.Warnings, tt.warning)
			}
			if !strings.Contains(res.stderr, tt.warning) {
				t.Errorf("stderr does not give the warning:\n%s", res.stderr)
			}
			s := r.Session
			if s == nil || s.Method != "session/new" || s.Resumed || s.Recorded != "mock-session-1" || s.Fallback == "" || s.History != nil {
				t.Fatalf("session %+v", s)
			}
			if r.Turns[0].Text != "history: (no history)" {
				t.Errorf("a new session's reply %q", r.Turns[0].Text)
			}
			// The new session is the one recorded for the next run.
			e := resumeState(t, filepath.Join(dir, ".acprun", "state.json"))["nightly @ acprun mock-agent agent.mock.yaml"]
			if e["sessionId"] != s.SessionID || e["method"] != "session/new" {
				t.Errorf("state entry %v, want session %s", e, s.SessionID)
			}
		})
	}
}

// resumeProc is an acprun run started in the background, whose stderr the
// test reads line by line.
type resumeProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string // stderr, line by line; closed at its end
	all   strings.Builder
	done  chan struct{} // closed once the process has exited
	code  int
}

// resumeStart starts `acprun run s.yaml -o OUT ARGS` in dir with env added.
func resumeStart(t *testing.T, dir string, env []string, out string, args ...string) *resumeProc {
	t.Helper()
	cmd := exec.Command(acprunFor(t), append([]string{"run", "s.yaml", "-o", out}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &resumeProc{t: t, cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.all.WriteString(sc.Text() + "\n")
			p.lines <- sc.Text()
		}
		close(p.lines)
		err := cmd.Wait() // after the last read of the pipe
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		case err != nil:
			p.code = -1
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitLine reads p's stderr up to a line containing sub and returns it.
func (p *resumeProc) waitLine(sub string) string {
	p.t.Helper()
	for line := range p.lines {
		if strings.Contains(line, sub) {
			return line
		}
	}
	<-p.done
	p.t.Fatalf("stderr ended (exit %d) before a line with %q:\n%s", p.code, sub, p.all.String())
	return ""
}

// exit waits for the process and returns its exit code and stderr.
func (p *resumeProc) exit() (int, string) {
	for range p.lines { // what waitLine did not read
	}
	<-p.done
	return p.code, p.all.String()
}

// resumeGate is the FIFO a first run's agent waits on.
type resumeGate struct {
	t    *testing.T
	path string
	w    *os.File
}

func newResumeGate(t *testing.T, dir string) *resumeGate {
	t.Helper()
	path := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	g := &resumeGate{t: t, path: path}
	t.Cleanup(g.open)
	return g
}

// reached returns once the agent of p waits on the gate (the open of its
// write end returns when the agent opens the read end); it fails the test
// when p exits first.
func (g *resumeGate) reached(p *resumeProc) {
	g.t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(g.path, os.O_WRONLY, 0)
		if err == nil {
			opened <- w
		}
	}()
	select {
	case g.w = <-opened:
	case <-p.done:
		// Let the open above return, then fail.
		if r, err := os.OpenFile(g.path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			if w := <-opened; w != nil {
				w.Close()
			}
			r.Close()
		}
		g.t.Fatalf("acprun exited %d before its agent reached the gate\n%s", p.code, p.all.String())
	}
}

// open lets the agent go on.
func (g *resumeGate) open() {
	if g.w != nil {
		g.w.Close()
		g.w = nil
	}
}

func TestResumeLockWait(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	gate := newResumeGate(t, dir)
	first := resumeStart(t, dir, []string{"GATE=" + gate.path}, "one.json")
	gate.reached(first) // the first run holds the lock, in its turn
	second := resumeStart(t, dir, nil, "two.json", "--lock", "wait")
	line := second.waitLine("waiting for state file")
	for _, want := range []string{filepath.Join(dir, ".acprun", "state.json"), fmt.Sprintf("(pid %d)", first.cmd.Process.Pid)} {
		if !strings.Contains(line, want) {
			t.Errorf("waiting message %q lacks %q", line, want)
		}
	}
	gate.open()
	if code, stderr := first.exit(); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	if code, stderr := second.exit(); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	one := readResults(t, filepath.Join(dir, "one.json")).Scenarios[0]
	two := readResults(t, filepath.Join(dir, "two.json")).Scenarios[0]
	if one.Session.Method != "session/new" || two.Session.Method != "session/load" || two.Session.Recorded != one.Session.SessionID {
		t.Errorf("the second run did not continue the first's session: %+v then %+v", one.Session, two.Session)
	}
	if !strings.HasPrefix(two.Turns[0].Text, "history: user: triage the new issues") {
		t.Errorf("second run's reply %q", two.Turns[0].Text)
	}
}

func TestResumeLockFail(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	gate := newResumeGate(t, dir)
	first := resumeStart(t, dir, []string{"GATE=" + gate.path}, "one.json")
	gate.reached(first)
	res := acprun(t, dir, "run", "s.yaml", "-o", "two.json", "--lock", "fail")
	state := filepath.Join(dir, ".acprun", "state.json")
	want := fmt.Sprintf("acprun: state file %s is locked by another acprun run (pid %d): try again once it has finished, or use --lock wait to wait for it\n",
		state, first.cmd.Process.Pid)
	if res.code != 6 || res.stderr != want {
		t.Errorf("second run: exit %d, stderr:\n%s\nwant exit 6 and:\n%s", res.code, res.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "two.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run wrote results (%v)", err)
	}
	gate.open()
	if code, stderr := first.exit(); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	// Once the first run is done, the lock is free again.
	if res, r := resumeRun(t, dir, "three.json", "--lock", "fail"); res.code != 0 || r.Session.Method != "session/load" {
		t.Errorf("after the first run: exit %d, session %+v\n%s", res.code, r.Session, res.stderr)
	}
}

// TestResumeLockSameOutput: the next run of a cron line finds the last
// one still going, with the same state file and the same -o file: with
// --lock fail it exits 6 naming the holder, as for the state file alone,
// not 2 as if given another run's output by mistake; with --lock wait it
// waits for it, then writes the -o file in its turn.
func TestResumeLockSameOutput(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	gate := newResumeGate(t, dir)
	first := resumeStart(t, dir, []string{"GATE=" + gate.path}, "nightly.json")
	gate.reached(first)
	res := acprun(t, dir, "run", "s.yaml", "-o", "nightly.json", "--lock", "fail")
	want := fmt.Sprintf("acprun: state file %s is locked by another acprun run (pid %d): try again once it has finished, or use --lock wait to wait for it\n",
		filepath.Join(dir, ".acprun", "state.json"), first.cmd.Process.Pid)
	if res.code != 6 || res.stderr != want {
		t.Errorf("--lock fail: exit %d, stderr:\n%s\nwant exit 6 and:\n%s", res.code, res.stderr, want)
	}
	second := resumeStart(t, dir, nil, "nightly.json", "--lock", "wait")
	second.waitLine("waiting for state file")
	gate.open()
	if code, stderr := first.exit(); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	if code, stderr := second.exit(); code != 0 {
		t.Fatalf("--lock wait: exit %d\n%s", code, stderr)
	}
	if r := readResults(t, filepath.Join(dir, "nightly.json")).Scenarios[0]; r.Session.Method != "session/load" {
		t.Errorf("--lock wait: the results are not the second run's: session %+v", r.Session)
	}
}

// TestResumeCorruptStateFile: a state file that is not one acprun wrote
// (not JSON, JSON of another shape, empty: acprun writes it whole) stops
// the run before any agent starts, exit 2, saying where (the column in
// characters) and what is wrong in the file's own terms and what to do;
// the file is left as it was.
func TestResumeCorruptStateFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, content, want string }{
		{"syntax", "{\n  \"version\": 1,\n  \"sessions\": {\"x\": \n", ":3:21: not a valid acprun state file: unexpected end of JSON input"},
		{"array", "[1,2]", `:1:1: not a valid acprun state file: the file holds an array, want an object with "version" and "sessions"`},
		{"accent", "{\"version\": 1, \"sessions\": {\"é @ mock\": 7}}", `:1:41: not a valid acprun state file: the session "é @ mock" is a number, want an object with "sessionId", "scenario", "agent", "cwd"…`},
		{"empty", "", ":1:1: not a valid acprun state file: it is empty, and acprun never writes an empty one"},
		{"blank", "\n", ":1:1: not a valid acprun state file: it is empty, and acprun never writes an empty one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := resumeDir(t, resumeScript, resumeScenario)
			writeFiles(t, dir, map[string]string{".acprun/state.json": tt.content})
			res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
			state := filepath.Join(dir, ".acprun", "state.json")
			if res.code != 2 {
				t.Errorf("exit %d, want 2", res.code)
			}
			want := "acprun: " + state + tt.want + "; fix it, or delete it to start new sessions (it only records which session each scenario had last)\n"
			if res.stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "sessions")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an agent ran despite the corrupt state file (%v)", err)
			}
			if data := readFiles(t, dir, ".acprun/state.json")[".acprun/state.json"]; string(data) != tt.content {
				t.Errorf("the state file holds %q after the run, want it left as it was", data)
			}
		})
	}
}

// TestResumeInterrupted interrupts a run in its turn: the session it
// opened is recorded, the file stays whole, and the next run continues it.
func TestResumeInterrupted(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	gate := newResumeGate(t, dir)
	first := resumeStart(t, dir, []string{"GATE=" + gate.path}, "one.json")
	gate.reached(first)
	if err := first.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code, stderr := first.exit() // the cancel ends the agent's wait
	gate.open()
	if code != 130 {
		t.Fatalf("interrupted run: exit %d, want 130\n%s", code, stderr)
	}
	one := readResults(t, filepath.Join(dir, "one.json")).Scenarios[0]
	if one.Turns[0].StopReason != "cancelled" || one.Session == nil || !one.Session.Saved {
		t.Errorf("interrupted run: turn %s, session %+v", one.Turns[0].StopReason, one.Session)
	}
	e := resumeState(t, filepath.Join(dir, ".acprun", "state.json"))["nightly @ acprun mock-agent agent.mock.yaml"]
	if e["sessionId"] != "mock-session-1" {
		t.Errorf("state entry after the interrupt: %v", e)
	}
	res, r := resumeRun(t, dir, "two.json", "--lock", "fail")
	if res.code != 0 || r.Session.Method != "session/load" || r.Session.Recorded != "mock-session-1" {
		t.Errorf("next run: exit %d, session %+v\n%s", res.code, r.Session, res.stderr)
	}
}

// TestResumeDryRun shows the session in the plan, and locks and writes
// nothing.
func TestResumeDryRun(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, strings.Replace(resumeScenario, "session: {resume: true}\n", "session: {stateFile: state/nightly.json}\n", 1))
	res := acprun(t, dir, "run", "s.yaml", "--dry-run", "--resume")
	want := fmt.Sprintf("  session:  continues the session recorded in %s under %q (session/load or session/resume, else a new one)\n",
		filepath.Join(dir, "state", "nightly.json"), "nightly @ acprun mock-agent agent.mock.yaml")
	if res.code != 0 || !strings.Contains(res.stdout, want) {
		t.Errorf("exit %d, plan:\n%s\nwant a line:\n%s", res.code, res.stdout, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--dry-run made the state file's directory (%v)", err)
	}
}

// TestResumeAttemptsAndScenariosShareAFile runs two scenarios of one file,
// each twice, in parallel, on one state file: each has its own entry, and
// each scenario's second attempt continues its first.
func TestResumeAttemptsAndScenariosShareAFile(t *testing.T) {
	t.Parallel()
	two := resumeScenario + "---\n" + strings.Replace(resumeScenario, "name: nightly", "name: weekly", 1)
	dir := resumeDir(t, resumeScript, two)
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json", "--repeat", "2", "-j", "4")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	rs := readResults(t, filepath.Join(dir, "out.json"))
	byName := map[string][]*report.SessionResult{}
	for _, r := range rs.Scenarios {
		byName[r.Name] = append(byName[r.Name], r.Session)
	}
	ids := map[string]bool{}
	for name, ss := range byName {
		if len(ss) != 2 {
			t.Fatalf("%s: %d attempts", name, len(ss))
		}
		// Attempts take turns on their entry, in either order.
		newer, older := ss[0], ss[1]
		if older.Method == "session/new" {
			newer, older = older, newer
		}
		if newer.Method != "session/new" || older.Method != "session/load" || older.Recorded != newer.SessionID {
			t.Errorf("%s: attempts %+v and %+v do not continue one session", name, ss[0], ss[1])
		}
		ids[newer.SessionID] = true
	}
	if len(ids) != 2 {
		t.Errorf("the two scenarios share a session: %v", ids)
	}
	entries := resumeState(t, filepath.Join(dir, ".acprun", "state.json"))
	for _, key := range []string{"nightly @ acprun mock-agent agent.mock.yaml", "weekly @ acprun mock-agent agent.mock.yaml"} {
		if e, ok := entries[key]; !ok || !ids[fmt.Sprint(e["sessionId"])] {
			t.Errorf("entry %q: %v", key, e)
		}
	}
}

// TestResumeLockWaitEnds: a run waiting for the lock gives up at --timeout
// (exit 6) or at an interrupt (exit 130), and runs nothing.
func TestResumeLockWaitEnds(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	gate := newResumeGate(t, dir)
	first := resumeStart(t, dir, []string{"GATE=" + gate.path}, "one.json")
	gate.reached(first)

	res := acprun(t, dir, "run", "s.yaml", "-o", "two.json", "--timeout", "100ms")
	if res.code != 6 || !strings.Contains(res.stderr, "waiting for the lock: run timeout") {
		t.Errorf("--timeout while waiting: exit %d\n%s", res.code, res.stderr)
	}
	waiting := resumeStart(t, dir, nil, "three.json")
	waiting.waitLine("waiting for state file")
	if err := waiting.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code, stderr := waiting.exit(); code != 130 || !strings.Contains(stderr, "waiting for the lock: interrupted") {
		t.Errorf("interrupted while waiting: exit %d\n%s", code, stderr)
	}
	for _, out := range []string{"two.json", "three.json"} {
		if _, err := os.Stat(filepath.Join(dir, out)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written by a run that never got the lock (%v)", out, err)
		}
	}
	gate.open()
	if code, stderr := first.exit(); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
}

// TestResumeStateFileHasNoSecrets: a secret in the agent's command line is
// redacted from the state file's key, as from every output.
func TestResumeStateFileHasNoSecrets(t *testing.T) {
	t.Parallel()
	scenario := strings.Replace(resumeScenario, "agent: {command: [acprun, mock-agent, agent.mock.yaml]}",
		`agent: {command: [sh, -c, 'exec "$ACPRUN" mock-agent agent.mock.yaml', "${API_TOKEN}"]}`, 1)
	dir := resumeDir(t, resumeScript, scenario)
	const secret = "tok-0123456789abcdef"
	env := []string{"ACPRUN=" + acprunBin, "API_TOKEN=" + secret}
	for _, out := range []string{"one.json", "two.json"} {
		res := acprunEnv(t, dir, env, "run", "s.yaml", "-o", out)
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, ".acprun", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || !strings.Contains(string(data), "[REDACTED]") {
		t.Errorf("state file:\n%s", data)
	}
	if r := readResults(t, filepath.Join(dir, "two.json")).Scenarios[0]; r.Session == nil || !r.Session.Resumed {
		t.Errorf("the redacted key did not find the session: %+v", r.Session)
	}
}

// TestResumeSecretSessionID: a session id that holds a secret (a value of
// its agent's env) is not written to the state file: its scenario
// starts a new session each run, with a warning, while a scenario sharing
// the file continues its own as usual.
func TestResumeSecretSessionID(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	scenarios := resumeScenario + `---
name: leaky
agent: {command: [acprun, mock-agent, leaky.mock.yaml], env: {TOKEN_A: "` + secret + `"}}
permissions: {}
session: {resume: true}
turns: [{prompt: hi}]
`
	dir := resumeDir(t, resumeScript, scenarios)
	writeFiles(t, dir, map[string]string{"leaky.mock.yaml": "agentCapabilities: {loadSession: true}\nsessionId: \"sess-" + secret + "\"\n"})
	for i, out := range []string{"one.json", "two.json"} {
		res := acprun(t, dir, "run", "s.yaml", "-o", out)
		if res.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i+1, res.code, res.stderr)
		}
		rs := readResults(t, filepath.Join(dir, out))
		nightly, leaky := rs.Scenarios[0].Session, rs.Scenarios[1].Session
		if nightly == nil || nightly.Resumed != (i == 1) || !nightly.Saved {
			t.Errorf("run %d: nightly's session %+v, want it saved, and continued by the second run", i+1, nightly)
		}
		if leaky == nil || leaky.Resumed || leaky.Recorded != "" || leaky.Saved || !strings.Contains(leaky.SaveError, "holds a secret") {
			t.Errorf("run %d: leaky's session %+v, want a new one, not saved", i+1, leaky)
		}
		if !strings.Contains(res.stderr, "session id holds a secret") {
			t.Errorf("run %d: no warning that the session id holds a secret:\n%s", i+1, res.stderr)
		}
		state, err := os.ReadFile(filepath.Join(dir, ".acprun", "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		results, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{"state file": string(state), "results": string(results), "stderr": res.stderr} {
			if strings.Contains(data, "ABCDEF") {
				t.Errorf("run %d: the %s leaks the secret:\n%s", i+1, name, data)
			}
		}
	}
}

// TestResumeStateFilePlantedLink: the agent, whose cwd holds the state
// file, replaces it with a symlink to a file of the user's during its
// turn. acprun writes its state file in that place, not through the link:
// the user's file is as it was.
func TestResumeStateFilePlantedLink(t *testing.T) {
	t.Parallel()
	victim := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`turns:
  - steps:
      - spawn: "ln -s %s .acprun/planted && mv -f .acprun/planted .acprun/state.json"
      - text: ok
`, victim)
	dir := resumeDir(t, script, resumeScenario)
	res, r := resumeRun(t, dir, "r.json")
	if res.code != 0 || r.Turns[0].Text != "spawn: exit 0: ok" { // the link was planted
		t.Fatalf("exit %d, reply %q\n%s", res.code, r.Turns[0].Text, res.stderr)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("acprun wrote its state through the agent's link: the user's file holds %q", data)
	}
	if e := resumeState(t, filepath.Join(dir, ".acprun", "state.json")); e["nightly @ acprun mock-agent agent.mock.yaml"]["sessionId"] != "mock-session-1" {
		t.Errorf("state file: %v", e)
	}
}

// TestResumeStateDirPlantedFIFO: the agent moves the state file's
// directory away and puts a symlink to a FIFO in its place. acprun writes
// the state in the directory it opened, and ends: it never opens the FIFO
// (to sync the directory), which would wait for a writer forever, past
// any interrupt.
func TestResumeStateDirPlantedFIFO(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps:
      - spawn: "mv .acprun moved && mkfifo fifo && ln -s fifo .acprun"
      - text: ok
`
	dir := resumeDir(t, script, resumeScenario)
	out, err := runWithin(t, dir, time.Minute, "acprun hung on the FIFO put in the place of the state file's directory")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if e := resumeState(t, filepath.Join(dir, "moved", "state.json")); e["nightly @ acprun mock-agent agent.mock.yaml"]["sessionId"] != "mock-session-1" {
		t.Errorf("state file: %v", e)
	}
}

// TestResumeStateLockPlanted: the agent of one run, whose cwd holds
// .acprun/, puts a symlink or a second name (hard link) of a file of the
// user's in the place of the state file's lock. The next run replaces it
// with a new lock file and says so, never opening what was there: the
// user's file is as it was, and the session is continued.
func TestResumeStateLockPlanted(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, ln, was string }{
		{"symlink", "ln -s", "a symbolic link to "},
		{"hard link", "ln", "a second name of another file (a hard link)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), "bashrc") // the same file system, for the hard link
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf(`agentCapabilities: {loadSession: true}
sessions: sessions
turns:
  - steps:
      - spawn: "rm -f .acprun/state.json.lock && %s %s .acprun/state.json.lock"
      - text: ok
`, tt.ln, victim)
			writeFiles(t, dir, map[string]string{"agent.mock.yaml": script, "s.yaml": resumeScenario})
			if res, r := resumeRun(t, dir, "one.json", "--lock", "fail"); res.code != 0 || r.Turns[0].Text != "spawn: exit 0: ok" { // planted
				t.Fatalf("first run: exit %d, reply %q\n%s", res.code, r.Turns[0].Text, res.stderr)
			}
			res, r := resumeRun(t, dir, "two.json", "--lock", "fail")
			if res.code != 0 || r.Session == nil || !r.Session.Resumed {
				t.Errorf("second run: exit %d, session %+v; want the session continued\n%s", res.code, r.Session, res.stderr)
			}
			if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
				t.Errorf("the second run wrote through the planted lock: the user's file holds %q", data)
			}
			state := filepath.Join(dir, ".acprun", "state.json")
			want := fmt.Sprintf("acprun: warning: state file %s: its lock %[1]s.lock was %s", state, tt.was)
			if !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "(an agent may have put it there): replaced by a new one, without opening what was there\n") {
				t.Errorf("the second run does not say %q… replaced:\n%s", want, res.stderr)
			}
		})
	}
}

// TestResumeStateDirPlantedLink: the agent of one run moves .acprun/ away
// and puts a symlink to it in its place. The next run does not follow
// it: it exits 2 before any agent starts, naming the link and what to do,
// and writes nothing where it leads.
func TestResumeStateDirPlantedLink(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps:
      - spawn: "mv .acprun moved && ln -s moved .acprun"
      - text: ok
`
	dir := resumeDir(t, script, resumeScenario)
	if res, r := resumeRun(t, dir, "one.json"); res.code != 0 || r.Turns[0].Text != "spawn: exit 0: ok" {
		t.Fatalf("first run: exit %d, reply %q\n%s", res.code, r.Turns[0].Text, res.stderr)
	}
	before := dirNames(t, filepath.Join(dir, "moved"))
	res := acprun(t, dir, "run", "s.yaml", "-o", "two.json")
	link := filepath.Join(dir, ".acprun")
	want := fmt.Sprintf("acprun: state file %s: its directory %s is a symbolic link (to moved), which acprun does not follow there (an agent may have put it); remove the link, or give session.stateFile the path it leads to\n",
		filepath.Join(link, "state.json"), link)
	if res.code != 2 || res.stderr != want {
		t.Errorf("second run: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", res.code, res.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "two.json")); err == nil {
		t.Errorf("the second run wrote results")
	}
	if after := dirNames(t, filepath.Join(dir, "moved")); !slices.Equal(after, before) {
		t.Errorf("the directory the link leads to holds %q, was %q", after, before)
	}
}

// TestResumeStateFileIsNoOutput: an output naming the session state file
// of a scenario that continues its session is refused before anything
// runs, naming the scenario, before the state file exists as after: the
// state file stays a state file, and the next run continues the session.
func TestResumeStateFileIsNoOutput(t *testing.T) {
	t.Parallel()
	dir := resumeDir(t, resumeScript, resumeScenario)
	want := `acprun: -o .acprun/state.json: it is the session state file of scenario "nightly"; give the results another file` + "\n"
	res := acprun(t, dir, "run", "s.yaml", "-o", ".acprun/state.json")
	if res.code != 2 || res.stderr != want {
		t.Errorf("before the first run: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", res.code, res.stderr, want)
	}
	if res, _ := resumeRun(t, dir, "one.json"); res.code != 0 {
		t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
	}
	state := filepath.Join(dir, ".acprun", "state.json")
	before, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	res = acprun(t, dir, "run", "s.yaml", "-o", "one.json", "--junit", ".acprun/state.json")
	if want := `acprun: --junit .acprun/state.json: it is the session state file of scenario "nightly"; give the JUnit report another file` + "\n"; res.code != 2 || res.stderr != want {
		t.Errorf("after it: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", res.code, res.stderr, want)
	}
	if after, _ := os.ReadFile(state); string(after) != string(before) {
		t.Errorf("the state file holds %q, was %q", after, before)
	}
	if res, r := resumeRun(t, dir, "two.json"); res.code != 0 || r.Session == nil || !r.Session.Resumed {
		t.Errorf("next run: exit %d, session %+v; want it continued\n%s", res.code, r.Session, res.stderr)
	}
}

// TestResumeStateFileTwoSpellings: one state file reached by two paths —
// the default one of two scenario files named through a symlinked
// directory and by its real path, or one session.stateFile named both
// ways — is locked once: the run neither fails naming its own pid
// (--lock fail) nor waits for itself (--lock wait), each result keeps the
// path its scenario named, and the next run continues both sessions.
func TestResumeStateFileTwoSpellings(t *testing.T) {
	t.Parallel()
	scenarioOf := func(name, session string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {}\nsession: " + session + "\nturns:\n  - prompt: hi\n"
	}
	for _, tt := range []struct {
		name  string
		files func(base string) map[string]string
		args  func(base string) []string
		state func(base string) (a, b string) // as each scenario names it
	}{
		{"default state file", func(string) map[string]string {
			return map[string]string{"real/suite/a.yaml": scenarioOf("a", "{resume: true}"), "real/suite/b.yaml": scenarioOf("b", "{resume: true}")}
		}, func(base string) []string {
			return []string{"suite/a.yaml", filepath.Join(base, "real", "suite", "b.yaml")}
		}, func(base string) (string, string) {
			return filepath.Join(base, "link", "suite", ".acprun", "state.json"), filepath.Join(base, "real", "suite", ".acprun", "state.json")
		}},
		{"session.stateFile", func(base string) map[string]string {
			return map[string]string{"real/suite/s.yaml": scenarioOf("a", "{resume: true, stateFile: ../st/state.json}") + "---\n" +
				scenarioOf("b", "{resume: true, stateFile: "+filepath.Join(base, "real", "st", "state.json")+"}")}
		}, func(string) []string {
			return []string{"suite/s.yaml"}
		}, func(base string) (string, string) {
			return filepath.Join(base, "link", "st", "state.json"), filepath.Join(base, "real", "st", "state.json")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := realTempDir(t)
			files := tt.files(base)
			files["real/suite/agent.mock.yaml"] = resumeScript
			writeFiles(t, base, files)
			if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
				t.Fatal(err)
			}
			cwd := filepath.Join(base, "link")
			stateA, stateB := tt.state(base)
			for i, lock := range []string{"fail", "wait"} {
				out := filepath.Join(base, lock+".json")
				args := append(append([]string{"run"}, tt.args(base)...), "--lock", lock, "-o", out)
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, acprunFor(t), args...)
				cmd.Dir = cwd
				cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0", "PWD="+cwd) // the cwd as the shell names it
				res, _ := runCommand(t, cmd)
				hung := ctx.Err() != nil
				cancel()
				if hung || res.code != 0 {
					t.Fatalf("--lock %s: exit %d (hung: %v)\n%s", lock, res.code, hung, res.stderr)
				}
				rs := readResults(t, out)
				want := map[string]string{"a": stateA, "b": stateB}
				method := "session/new"
				if i > 0 {
					method = "session/load"
				}
				for _, r := range rs.Scenarios {
					if r.Status != report.StatusPassed || r.Session == nil || r.Session.StateFile != want[r.Name] || r.Session.Method != method {
						t.Errorf("--lock %s: %s: status %s, session %+v; want state file %s, %s", lock, r.Name, r.Status, r.Session, want[r.Name], method)
					}
				}
			}
			if e := resumeState(t, stateB); len(e) != 2 {
				t.Errorf("state file holds %v, want both scenarios", e)
			}
		})
	}
}

// TestResumeLockOrderWhateverTheSpelling: two runs lock the state files
// they share in the same order, whatever paths they name them by, so that
// they never wait for each other in a circle. One run holds P and Q;
// another that names Q through a symlink sorting before P (a → z) still
// waits for P first, as a run naming both by their real paths does.
func TestResumeLockOrderWhateverTheSpelling(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	p, q := filepath.Join(base, "m", "state.json"), filepath.Join(base, "z", "q", "state.json")
	scenario := func(name, script, state string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, " + script + "]}\npermissions: {}\nsession: {resume: true, stateFile: " + state + "}\nturns:\n  - prompt: hi\n"
	}
	writeFiles(t, base, map[string]string{
		"holder/agent.mock.yaml": resumeScript,
		"holder/free.mock.yaml":  "agentCapabilities: {loadSession: true}\nturns:\n  - steps:\n      - text: ok\n",
		"holder/s.yaml":          scenario("p", "agent.mock.yaml", p) + "---\n" + scenario("q", "free.mock.yaml", q),
		"waiter/agent.mock.yaml": resumeScript,
		"waiter/s.yaml":          scenario("q", "agent.mock.yaml", filepath.Join(base, "a", "q", "state.json")) + "---\n" + scenario("p", "agent.mock.yaml", p),
		"z/.keep":                "",
	})
	if err := os.Symlink("z", filepath.Join(base, "a")); err != nil {
		t.Fatal(err)
	}
	holderDir := filepath.Join(base, "holder")
	gate := newResumeGate(t, holderDir)
	holder := resumeStart(t, holderDir, []string{"GATE=" + gate.path}, "out.json")
	gate.reached(holder) // it holds both locks until it ends
	waiter := resumeStart(t, filepath.Join(base, "waiter"), nil, "out.json", "--lock", "wait")
	want := fmt.Sprintf("acprun: waiting for state file %s: another acprun run (pid %d) holds its lock (--lock fail would exit instead)", p, holder.cmd.Process.Pid)
	if line := waiter.waitLine("waiting for state file"); line != want {
		t.Errorf("the second run waits first with:\n%s\nwant:\n%s", line, want)
	}
	gate.open()
	if code, stderr := holder.exit(); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	if code, stderr := waiter.exit(); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
}

// TestResumeOneShotAfterOneThatDidNot: a one-shot run with --resume after
// one without it (which records no session) starts a new session, and
// says so in a warning rather than seem to continue the conversation; the
// next one continues it, without the warning.
func TestResumeOneShotAfterOneThatDidNot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "agentCapabilities: {loadSession: true}\nturns:\n  - steps: [{text: hi}]\n",
		"acprun.yaml":     "agents:\n  m: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
	})
	if res := acprun(t, dir, "run", "--agent", "m", "--prompt", "one", "-o", "out.json"); res.code != 0 {
		t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
	}
	want := `session: no session is recorded for "prompt @ m" in ` + filepath.Join(dir, ".acprun", "state.json") +
		" yet; started a new session"
	res, out := runResults(t, dir, "--agent", "m", "--prompt", "two", "--resume")
	if res.code != 0 || !strings.Contains(res.stderr, want) || out.Scenarios[0].Session.Resumed {
		t.Errorf("--resume after a run without it: exit %d, session %+v, stderr:\n%s\nwant 0 and:\n%s", res.code, out.Scenarios[0].Session, res.stderr, want)
	}
	res, out = runResults(t, dir, "--agent", "m", "--prompt", "three", "--resume")
	if res.code != 0 || strings.Contains(res.stderr, "no session is recorded") || !out.Scenarios[0].Session.Resumed {
		t.Errorf("--resume again: exit %d, session %+v, stderr:\n%s", res.code, out.Scenarios[0].Session, res.stderr)
	}
}

// TestResumeNothingRecordedSaysWhatHappened: the warning of a scenario
// that continues its session with none recorded yet says what the run
// did, never more: nothing when the agent opened no session (it wanted
// authentication), and no promise that the session is recorded for the
// next run when another warning says it is not (its id holds a secret).
func TestResumeNothingRecordedSaysWhatHappened(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"auth.mock.yaml":   "agentCapabilities: {loadSession: true}\nauthRequired: true\nauthMethods: [{id: key, name: Key}]\n",
		"secret.mock.yaml": "agentCapabilities: {loadSession: true}\nsessionId: sess-hunter2222\n",
		"auth.yaml":        "name: auth\nagent: {command: [acprun, mock-agent, auth.mock.yaml]}\npermissions: {}\nsession: {resume: true}\nturns: [{prompt: hi}]\n",
		"secret.yaml":      "name: secret\nagent: {command: [acprun, mock-agent, secret.mock.yaml], env: {TOKEN: hunter2222}}\npermissions: {}\nsession: {resume: true}\nturns: [{prompt: hi}]\n",
	})
	state := filepath.Join(dir, ".acprun", "state.json")
	res, out := runResults(t, dir, "auth.yaml")
	if res.code != 3 || slices.ContainsFunc(out.Scenarios[0].Warnings, func(w string) bool { return strings.HasPrefix(w, "session:") }) {
		t.Errorf("no session opened: exit %d, warnings %q; want 3 and no session: warning", res.code, out.Scenarios[0].Warnings)
	}
	res, out = runResults(t, dir, "secret.yaml")
	want := []string{
		`session: no session is recorded for "secret @ acprun mock-agent secret.mock.yaml" in ` + state + " yet; started a new session",
		"session: the agent's session id holds a secret, so it is not recorded in the state file (an output, redacted as the others); the next run will start a new session",
	}
	if diff := cmp.Diff(want, out.Scenarios[0].Warnings); res.code != 0 || diff != "" {
		t.Errorf("a session id not saved: exit %d, warnings (-want +got):\n%s", res.code, diff)
	}
}
