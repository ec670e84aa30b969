package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// sigMask reads the mask named field (SigIgn, SigCgt) of process pid from
// /proc: bit n-1 is signal n.
func sigMask(t *testing.T, pid int, field string) uint64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}

// TestIgnoredStopSignalsStayIgnored: a run started with SIGHUP ignored
// (nohup) or SIGINT ignored (a background job of a non-interactive shell)
// keeps them ignored, for its agents too: the terminal's hangup does not
// interrupt it, and it finishes and exits 0.
func TestIgnoredStopSignalsStayIgnored(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	writeFiles(t, dir, map[string]string{
		"gated.mock.yaml": fmt.Sprintf("turns:\n  - steps: [{waitFor: %q}, {text: done}]\n", gate),
		"s.yaml": `name: nohup
agent: {command: [acprun, mock-agent, gated.mock.yaml]}
turns:
  - prompt: hi
    expect: {text: {contains: done}}
`,
	})
	// The shell ignores them, as nohup and a non-interactive shell's & do,
	// and execs acprun, which inherits that.
	cmd := exec.Command("/bin/sh", "-c", `trap "" HUP INT; exec "$0" "$@"`, acprunFor(t), "run", "s.yaml", "-o", "r.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	stderr, readStderr := capture(t)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr.Close()
	f, err := os.OpenFile(gate, os.O_WRONLY, 0) // blocks until the agent's turn waits on it
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	const hup, intr = 1 << (syscall.SIGHUP - 1), 1 << (syscall.SIGINT - 1)
	if ign := sigMask(t, pid, "SigIgn"); ign&(hup|intr) != hup|intr {
		t.Errorf("acprun's SigIgn %x: SIGHUP and SIGINT are no longer ignored", ign)
	}
	// An ignored signal is dropped as it is sent: once Signal returns, it
	// is gone, or it is pending for acprun's handler.
	for _, sig := range []os.Signal{syscall.SIGHUP, os.Interrupt} {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	f.Close() // the turn goes on
	code := waitCode(t, cmd)
	errText := readStderr()
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", code, errText)
	}
	if res := readResults(t, filepath.Join(dir, "r.json")); res.Interrupted || res.Scenarios[0].Status != "passed" {
		t.Errorf("interrupted %v, status %s: want a run that passed", res.Interrupted, res.Scenarios[0].Status)
	}
	if strings.Contains(errText, "interrupted") {
		t.Errorf("stderr tells of an interrupt:\n%s", errText)
	}
}

// TestTeardownRunsAfterASecondInterrupt: GitHub Actions cancels a job
// with SIGINT, then SIGTERM 7.5s later; with an agent that ignores the
// cancel, the SIGTERM comes during its cancel grace. That second
// interrupt stops the agent at once, but the teardown still runs, to its
// end, and stderr says that a third interrupt would skip it.
func TestTeardownRunsAfterASecondInterrupt(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hang.mock.yaml": "onCancel: ignore\nignoreSigterm: true\nturns: [{steps: [{text: working}, {waitForCancel: true}, {hang: true}]}]\n",
		"s.yaml": `name: gh
agent: {command: [acprun, mock-agent, hang.mock.yaml]}
permissions: {default: deny}
teardown: ["echo cleaning up > teardown.log"]
turns: [{prompt: hi}]
`,
	})
	run := runFollowingTranscript(t, t.Context(), dir, "gh")
	run.waitFor("the turn is working", `"dir":"a2c"`, `"text":"working"`)
	run.interrupt()
	run.waitFor("the cancel", `"method":"session/cancel"`)
	if err := run.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	out := run.waitInterrupted()
	td := out.Scenarios[0].Teardown
	if len(td) != 1 || td[0].ExitCode == nil || *td[0].ExitCode != 0 || td[0].Error != "" || td[0].Signal != "" {
		t.Errorf("teardown %+v, want it run to exit 0", td)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "teardown.log")); err != nil || string(data) != "cleaning up\n" {
		t.Errorf("teardown.log: %q, %v; want the teardown's line", data, err)
	}
	const note = "acprun: interrupted again: stopping the agents at once; the teardown commands still run (interrupt again to exit at once, skipping them: the outputs not written yet are lost)\n"
	if !strings.Contains(run.stderr.String(), note) {
		t.Errorf("stderr does not say %q:\n%s", note, run.stderr.String())
	}
}

// TestInterruptAfterTheRunStopsNothing: an interrupt that comes once
// every scenario has run to its end (the last said to have passed), while
// the run ends or its outputs are written, stops nothing: the results are
// whole, not interrupted, the outputs are written whole, the exit code is
// the run's, and stderr says so if it says anything of the interrupt.
func TestInterruptAfterTheRunStopsNothing(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": `name: late
agent: {command: [acprun, mock-agent, ok.mock.yaml]}
permissions: {default: deny}
teardown: ["echo cleaned"]
turns: [{prompt: hi, expect: {text: {contains: done}}}]
`,
	})
	run := startWatched(t, t.Context(), dir, "run", "s.yaml", "-o", "out.json", "--junit", "j.xml", "--html", "r.html")
	run.waitLine("PASS late") // the scenario's end, teardown included
	res := run.interruptOnce()
	if res.code != 0 {
		t.Fatalf("acprun: exit %d, want 0\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if out.Interrupted || out.Scenarios[0].Status != "passed" {
		t.Errorf("interrupted %v, status %s: want a whole run that passed", out.Interrupted, out.Scenarios[0].Status)
	}
	for _, name := range []string{"j.xml", "r.html"} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !strings.Contains(string(data), "late") {
			t.Errorf("%s: %v, or it does not name the scenario", name, err)
		}
	}
	// The note is said when the interrupt reached acprun before its last
	// look (the outputs written); one that came after finds the run ended
	// and says nothing, and one that came as the run was returning is
	// first said to cancel the running turns, then corrected by the note.
	// Which it is depends on when the signal lands.
	const note = "acprun: interrupted after every scenario had run to its end: nothing was cut short, and the outputs were written whole\n"
	if got := res.stderr; strings.Contains(got, "interrupted") && !strings.Contains(got, note) {
		t.Errorf("stderr speaks of the interrupt without saying %q:\n%s", note, got)
	}
}

// TestVerifyNotRunAfterTheScenarioTimeout: a verify command that the
// scenario's timeout kept from starting fails the scenario as not run,
// not as stopped, with no output to quote.
func TestVerifyNotRunAfterTheScenarioTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"wait.mock.yaml": "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n",
		"s.yaml": `name: late
agent: {command: [acprun, mock-agent, wait.mock.yaml]}
permissions: {default: deny}
timeout: 1s
verify: ["true"]
turns: [{prompt: hi, expect: {stopReason: cancelled, cancelCause: scenarioTimeout}}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	if v := out.Scenarios[0].Verify; len(v) != 1 || v[0].Error != "not run: the scenario's timeout passed" {
		t.Errorf("verify %+v, want it not run", v)
	}
	const want = "s.yaml:5:10: verify `true` not run: the scenario's timeout passed\n"
	if !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "was stopped") {
		t.Errorf("stderr does not say %q alone:\n%s", want, res.stderr)
	}
}

// TestInterruptDuringTheLastTeardown: the tester's case. An interrupt
// that comes while the last scenario's teardown runs (its turns over,
// its agent stopped) lets the teardown run to its end: every scenario has
// its result (passed), and the summary says so rather than that the
// results are partial; the run was interrupted all the same (exit 130).
// The teardown reads a FIFO: the test's open of it for writing returns
// once the teardown runs, and its close, once acprun has said it took the
// interrupt, ends it.
func TestInterruptDuringTheLastTeardown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": `name: last
agent: {command: [acprun, mock-agent, ok.mock.yaml]}
permissions: {default: deny}
teardown: ["cat gate"]
turns: [{prompt: hi, expect: {text: {contains: done}}}]
`,
	})
	run := startWatched(t, t.Context(), dir, "run", "s.yaml", "-o", "out.json")
	w, err := os.OpenFile(gate, os.O_WRONLY, 0) // the teardown is running
	if err != nil {
		t.Fatal(err)
	}
	if err := run.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	run.waitLine("acprun: interrupted:") // acprun has taken the interrupt
	w.Close()                            // the teardown ends
	res := run.end()
	if res.code != 130 {
		t.Fatalf("acprun: exit %d, want 130\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if !out.Interrupted || out.Scenarios[0].Status != "passed" || out.Scenarios[0].Teardown == nil {
		t.Errorf("interrupted %v, status %s, teardown %+v: want an interrupted run whose scenario passed, its teardown run", out.Interrupted, out.Scenarios[0].Status, out.Scenarios[0].Teardown)
	}
	if got := res.stderr; !strings.Contains(got, "interrupted as the run ended: every scenario has its result") || strings.Contains(got, "partial") {
		t.Errorf("stderr does not say every scenario has its result:\n%s", got)
	}
}
