package e2e_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/vt"
)

// gatedMock is a mock-agent script whose first turn says it waits, then
// waits for the test to open its gate (a FIFO read by a terminal's cat),
// then says it is released. Later turns end at once.
const gatedMock = `turns:
  - steps:
      - text: "waiting\n"
      - terminal: {command: "cat %s", waitForExit: true, release: true}
      - text: "released\n"
`

// ttyRun is acprun running with its stderr on a pseudo-terminal, the
// screen of which the test watches.
type ttyRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File
	scr  *vt.Screen
	fed  <-chan struct{}
	done chan struct{} // closed when acprun has exited, err set
	err  error
}

// startTTY starts `acprun ARGS` in dir with stderr on a pseudo-terminal of
// cols×rows that is acprun's controlling terminal (so that a resize sends
// it SIGWINCH), stdout to a file.
func startTTY(t *testing.T, dir string, cols, rows int, args ...string) *ttyRun {
	t.Helper()
	return startOn(t, dir, vt.New(cols, rows), false, args...)
}

// startOn is startTTY on the emulated terminal scr, with stdout on it too
// when stdoutTTY.
func startOn(t *testing.T, dir string, scr *vt.Screen, stdoutTTY bool, args ...string) *ttyRun {
	t.Helper()
	cols, rows := scr.Size()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	stdout, err := os.Create(filepath.Join(dir, "stdout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	cmd := exec.Command(acprunFor(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0") // the terminal the test emulates
	cmd.Stdout, cmd.Stderr = stdout, tty
	if stdoutTTY {
		cmd.Stdout = tty
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds it
	r := &ttyRun{t: t, cmd: cmd, ptmx: ptmx, scr: scr, done: make(chan struct{})}
	r.fed = r.scr.Feed(ptmx)
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			cmd.Process.Kill()
			<-r.done
		}
		ptmx.Close()
	})
	return r
}

// waitScreen waits for the screen to hold a match of every one of
// patterns (multi-line mode: ^ and $ match at line breaks), failing the
// test after a deadline far beyond what any machine needs.
func (r *ttyRun) waitScreen(what string, patterns ...string) {
	r.t.Helper()
	var res []*regexp.Regexp
	for _, p := range patterns {
		res = append(res, regexp.MustCompile("(?m)"+p))
	}
	ok := func(screen string) bool {
		for _, re := range res {
			if !re.MatchString(screen) {
				return false
			}
		}
		return true
	}
	if !r.scr.Wait(30*time.Second, ok) {
		r.t.Fatalf("the terminal never showed %s (%q); screen:\n%s", what, patterns, strings.Join(r.scr.Screen(), "\n"))
	}
}

// resize resizes the terminal, as a person does with its window.
func (r *ttyRun) resize(cols, rows int) {
	r.t.Helper()
	r.scr.Resize(cols, rows)
	if err := pty.Setsize(r.ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for acprun to exit and for the terminal to have shown all it
// wrote, and returns the exit code.
func (r *ttyRun) wait() int {
	r.t.Helper()
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		r.t.Fatalf("acprun did not exit; screen:\n%s", strings.Join(r.scr.Screen(), "\n"))
	}
	<-r.fed // the child's end of the terminal is closed: everything was read
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		return ee.ExitCode()
	}
	if r.err != nil {
		r.t.Fatal(r.err)
	}
	return 0
}

// openGate lets the mock agent waiting on the FIFO at path go on.
func openGate(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0) // blocks until cat reads it
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestTTYLiveArea runs three scenarios with stderr on a terminal, each
// held in its first turn until the test opens its gate, and checks what a
// person sees: the running scenarios named with their agent, turn and
// elapsed time above the bar; after the window is made narrow, every line
// of the live area cut to the new width (the long name first); after it is
// made short, fewer named and the others counted ("+1 more"); PASS/FAIL
// lines printed above the live area as the scenarios end; and at the end
// a screen with those lines and the summary only, the live area gone.
func TestTTYLiveArea(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"s.yaml": `name: alpha
agent: {name: mock, args: [a.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: one
  - prompt: two
---
name: beta
agent: {name: mock, args: [b.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: one
    expect: {text: {contains: banana}}
---
name: gamma-has-a-name-far-too-long-for-a-narrow-window
agent: {name: mock, args: [c.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: one
`,
	}
	for _, g := range []string{"a", "b", "c"} {
		files[g+".mock.yaml"] = strings.Replace(gatedMock, "%s", g+".gate", 1)
		if err := syscall.Mkfifo(filepath.Join(dir, g+".gate"), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	writeFiles(t, dir, files)

	r := startTTY(t, dir, 100, 20, "run", "s.yaml", "-j", "3", "-o", "out.json")
	// The running scenarios are listed in the order they started.
	r.waitScreen("the running scenarios above the bar",
		`^  alpha@mock  turn 1/2  \d+s$`,
		`^  beta@mock  turn 1/1  \d+s$`,
		`^  gamma-has-a-name-far-too-long-for-a-narrow-window@mock  turn 1/1  \d+s$`,
		`^(  .*\n){3}\[ +\] 0/3  3 running  \d+s\z`)
	r.waitScreen("the elapsed time moving", `^  alpha@mock  turn 1/2  [1-9]\d*s$`)

	r.resize(40, 20)
	r.waitScreen("the live area cut to 39 columns",
		`^  alpha@mock  turn 1/2  \d+s$`,
		`^  beta@mock  turn 1/1  \d+s$`,
		`^  gamma-has-a-name-far-t[a-z-]*…  turn 1/1  \d+s$`,
		`^(  .*\n){3}\[ +\] 0/3  3 running  \d+s\z`)
	for _, line := range r.scr.Screen() {
		if n := len([]rune(line)); n >= 40 {
			t.Errorf("a line of %d characters on a 40-column terminal: %q", n, line)
		}
	}

	// A short window names fewer and counts the others.
	r.resize(40, 6)
	r.waitScreen("two running scenarios and the third counted",
		`\A(.*\n)*(  \S.*  turn 1/\d  \d+s\n){2}  … \+1 more\n\[ +\] 0/3  3 running  \d+s\z`)

	openGate(t, filepath.Join(dir, "a.gate"))
	r.waitScreen("alpha's PASS line above the live area", `^PASS alpha \[mock\] \([^)]*\)\n(  .*\n){2}\[.*\] 1/3  2 running  \d+s\z`)
	openGate(t, filepath.Join(dir, "b.gate"))
	r.waitScreen("beta's FAIL line", `^FAIL beta \[mock\] \(`, `\] 2/3  1 running  1 failed  \d+s\z`)
	openGate(t, filepath.Join(dir, "c.gate"))
	if code := r.wait(); code != 1 {
		t.Errorf("exit %d; want 1 (beta failed)", code)
	}

	lines := r.scr.Lines()
	screen := strings.Join(lines, "\n")
	// The 40-column window wraps the result lines (they are scrollback, not
	// cut like the live area).
	if !strings.HasPrefix(screen, "PASS alpha [mock] (") || !strings.Contains(screen, "\nFAIL beta [mock] (") {
		t.Fatalf("the terminal does not start with the PASS and FAIL lines:\n%s", screen)
	}
	if !strings.Contains(screen, "\nPASS gamma-has-a-name-far-too-long-for-a\n-narrow-window [mock]") {
		t.Errorf("no PASS line for gamma:\n%s", screen)
	}
	if re := regexp.MustCompile(`(?m)running  \d+s|turn \d/\d  \d+s|^\[[ =>]*\]`); re.MatchString(screen) {
		t.Errorf("the live area was left on the terminal (%q):\n%s", re.FindString(screen), screen)
	}
	if u := r.scr.Unknown(); len(u) > 0 {
		t.Errorf("acprun wrote sequences beyond cursor up and erase: %q", u)
	}
}

// TestTTYBarCounts runs a failure, an error and an invalid result, then a
// scenario held in its turn, and checks that the bar counts them as the
// summary's totals line does, each apart.
func TestTTYBarCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: fails
agent: {name: mock, args: [a.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {text: {contains: banana}}
---
name: errs
agent: {command: [./no-such-agent]}
permissions: {default: deny}
turns:
  - prompt: one
---
name: wrong-agent
agent: {name: mock, args: [a.mock.yaml]}
permissions: {default: deny}
expect:
  agent: {name: other}
turns:
  - prompt: one
---
name: held
agent: {name: mock, args: [held.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: one
`,
		"a.mock.yaml":    "turns: [{steps: [{text: hi}]}]\n",
		"held.mock.yaml": strings.Replace(gatedMock, "%s", "held.gate", 1),
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "held.gate"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := startTTY(t, dir, 100, 20, "run", "s.yaml", "-j", "1", "-o", "out.json")
	r.waitScreen("the bar counting each apart", `^\[=+> *\] 3/4  1 running  1 failed  1 error  1 invalid  \d+s\z`)
	openGate(t, filepath.Join(dir, "held.gate"))
	r.wait()
	if screen := strings.Join(r.scr.Lines(), "\n"); !strings.Contains(screen, "\n1 passed, 1 failed, 1 error, 1 invalid in ") {
		t.Errorf("the summary does not count as the bar did:\n%s", screen)
	}
}

// verboseMock thinks, runs a tool call, says a secret split between
// chunks, answers, and says more after the answer; its second turn says one
// line.
const verboseMock = `turns:
  - steps:
      - thought: ["Let me ", "look at main.go.\nThen answer."]
      - tool_call: {toolCallId: c1, title: Read main.go, kind: read, status: pending}
      - tool_call_update: {toolCallId: c1, status: in_progress}
      - tool_call_update: {toolCallId: c1, content: [{text: "package main"}]}
      - tool_call_update: {toolCallId: c1, status: completed}
      - text: ["The token is ghp_Sec", "r3tValue42.\n\nIt prints ", "\u001b[2Jhello.\nDone"]
    after:
      - text: "said late"
  - steps:
      - text: "Second turn.\n"
`

// TestVerboseStream runs -v with stderr not a terminal and checks that the
// agent's thoughts, text and tool calls are streamed as they came, each
// line labelled with scenario and agent: text joined into lines (cut at a
// line break, when the agent moves on, and when its turn is answered),
// blank lines left out, the secret of agent.env redacted though it came in
// two chunks, control characters escaped; the late text after the turn's
// answer is labelled late.
func TestVerboseStream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": verboseMock,
		"s.yaml": `name: fix-vet
agent: {name: mock, args: [agent.mock.yaml], env: {API_TOKEN: ghp_Secr3tValue42}}
permissions: {default: allow}
turns:
  - prompt: one
  - prompt: two
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("exit %d; want 0\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stderr, "Secr3t") || strings.Contains(res.stderr, "\x1b") {
		t.Errorf("the secret or an escape character reached stderr:\n%s", res.stderr)
	}
	var got []string
	for _, line := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(line, "[") {
			got = append(got, regexp.MustCompile(`\(\d[^)]*\)$`).ReplaceAllString(line, "(TIME)"))
		}
	}
	want := []string{
		"[fix-vet@mock] turn 1 started",
		"[fix-vet@mock] thought: Let me look at main.go.",
		"[fix-vet@mock] thought: Then answer.",
		`[fix-vet@mock] tool call "Read main.go" (read): pending`,
		`[fix-vet@mock] tool call "Read main.go" (read): in_progress`,
		`[fix-vet@mock] tool call "Read main.go" (read): completed`,
		"[fix-vet@mock] text: The token is [REDACTED].",
		`[fix-vet@mock] text: It prints \x1b[2Jhello.`,
		"[fix-vet@mock] text: Done",
		"[fix-vet@mock] turn 1: end_turn (TIME)",
		"[fix-vet@mock] turn 2 started",
		"[fix-vet@mock] late text: said late",
		"[fix-vet@mock] text: Second turn.",
		"[fix-vet@mock] turn 2: end_turn (TIME)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-v lines (-want +got):\n%s\nstderr:\n%s", diff, res.stderr)
	}
}

// TestTTYVerbose runs -v with stderr on a terminal: the streamed lines go
// above the live area as they come, and stay there, in order, once the
// area is gone.
func TestTTYVerbose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": strings.Replace(gatedMock, "%s", "gate", 1),
		"s.yaml": `name: alpha
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: one
`,
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "gate"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := startTTY(t, dir, 80, 24, "run", "s.yaml", "-v", "-o", "out.json")
	r.waitScreen("a streamed line above the live area",
		`^\[alpha@mock\] turn 1 started\n\[alpha@mock\] text: waiting\n  alpha@mock  turn 1/1  \d+s\n\[ +\] 0/1  1 running  \d+s\z`)
	openGate(t, filepath.Join(dir, "gate"))
	if code := r.wait(); code != 0 {
		t.Errorf("exit %d; want 0", code)
	}
	lines := r.scr.Lines()
	want := []string{"[alpha@mock] turn 1 started", "[alpha@mock] text: waiting"}
	if len(lines) < 5 || !slices.Equal(lines[:2], want) ||
		!strings.HasPrefix(lines[2], "[alpha@mock] text: terminal: ") ||
		!strings.HasPrefix(lines[3], "[alpha@mock] turn 1: end_turn (") ||
		!strings.HasPrefix(lines[4], "PASS alpha [mock] (") {
		t.Errorf("the terminal does not start with the -v lines and the PASS line:\n%s", strings.Join(lines, "\n"))
	}
	screen := strings.Join(lines, "\n")
	if re := regexp.MustCompile(`(?m)running  \d+s|turn \d/\d  \d+s|^\[[ =>]*\]`); re.MatchString(screen) {
		t.Errorf("the live area was left on the terminal (%q):\n%s", re.FindString(screen), screen)
	}
}
