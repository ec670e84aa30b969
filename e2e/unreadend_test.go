package e2e_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// fullPipe returns a pipe already full, whose reader never reads: a
// write to its write end (acprun's stdout or stderr) waits for good. The
// write end is blocking, as a shell's pipe is (testkit.UnreadPipe).
func fullPipe(t *testing.T) *os.File {
	t.Helper()
	w := testkit.UnreadPipe(t)
	fd := int(w.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	for _, chunk := range [][]byte{make([]byte, 4096), {0}} {
		for {
			if _, err := syscall.Write(fd, chunk); err != nil {
				if !errors.Is(err, syscall.EAGAIN) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	return w
}

// endedRun is an acprun started in the background: exited is closed once
// it has exited, with code its exit code.
type endedRun struct {
	cmd    *exec.Cmd
	exited chan struct{}
	code   int
}

// startEnded starts acprun args in dir with stdout and stderr (nil: the
// null device) and env added, and waits for it in the background; it is
// killed at the test's end if it still runs.
func startEnded(t *testing.T, dir string, stdout, stderr *os.File, env []string, args ...string) *endedRun {
	t.Helper()
	r := &endedRun{cmd: exec.Command(acprunFor(t), args...), exited: make(chan struct{})}
	r.cmd.Dir = dir
	r.cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0", "GITHUB_ACTIONS=", "GITHUB_STEP_SUMMARY="), env...)
	r.cmd.Stdout, r.cmd.Stderr = stdout, stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.cmd.Wait()
		r.code = r.cmd.ProcessState.ExitCode()
		close(r.exited)
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.exited
	})
	return r
}

// signal sends acprun sig.
func (r *endedRun) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// exitCode waits for acprun to exit and returns its exit code; it fails
// the test when readerGuard passes first.
func (r *endedRun) exitCode(t *testing.T, after string) int {
	t.Helper()
	select {
	case <-r.exited:
		return r.code
	case <-time.After(readerGuard):
		t.Fatalf("acprun %v still runs %v after %s", r.cmd.Args[1:], readerGuard, after)
		return -1
	}
}

// readWhole reads the FIFO path, which acprun writes an output to, to its
// end; it fails the test when acprun has not written it all by
// readerGuard, or has exited without opening it.
func (r *endedRun) readWhole(t *testing.T, path string) []byte {
	t.Helper()
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		f, err := os.Open(path) // until acprun opens it to write
		if err != nil {
			done <- read{nil, err}
			return
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		done <- read{data, err}
	}()
	select {
	case rd := <-done:
		if rd.err != nil {
			t.Fatal(rd.err)
		}
		return rd.data
	case <-r.exited:
		t.Fatalf("acprun exited %d before it wrote %s", r.code, path)
	case <-time.After(readerGuard):
		t.Fatalf("acprun had not written %s %v after its start: something before it waits", path, readerGuard)
	}
	return nil
}

// unreadEndFiles are a scenario, s.yaml, that passes when pass, else
// fails an expectation (which GitHub annotations report), and a FIFO,
// j.fifo, for its JUnit report: the test reads it to know that the run's
// work is done (-o, written before it, is too).
func unreadEndFiles(t *testing.T, dir string, pass bool) {
	t.Helper()
	want := "hello"
	if !pass {
		want = "goodbye"
	}
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n    expect: {text: {contains: " + want + "}}\n",
	})
	mkfifos(t, dir, "j.fifo")
}

// TestUnreadStderrAtTheEnd: stderr is a pipe nobody reads (acprun run
// 2>&1 | (sleep 1000)): the outputs are written all the same, then the
// progress and the summary are waited for until the next interrupt,
// which gives them up: acprun exits 130 at once, with its results whole.
func TestUnreadStderrAtTheEnd(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	unreadEndFiles(t, dir, true)
	run := startEnded(t, dir, nil, fullPipe(t), nil, "run", "s.yaml", "-o", "r.json", "--junit", "j.fifo")
	if junit := run.readWhole(t, filepath.Join(dir, "j.fifo")); !strings.Contains(string(junit), "<testsuite") {
		t.Errorf("the JUnit report: %q", junit)
	}
	run.signal(t, os.Interrupt)
	if code := run.exitCode(t, "the interrupt"); code != exitInterrupted {
		t.Errorf("exit %d; want %d", code, exitInterrupted)
	}
	out := readResults(t, filepath.Join(dir, "r.json"))
	if len(out.Scenarios) != 1 || out.Scenarios[0].Status != report.StatusPassed || out.Interrupted {
		t.Errorf("results: %+v; want the one scenario passed, the run not interrupted", out.Scenarios)
	}
}

// TestUnreadAnnotationsAtTheEnd: in GitHub Actions, stdout, where the
// annotations go, is a pipe nobody reads: the annotations are waited for
// until the next interrupt, which gives them up, says so, and exits 130 at
// once, the results whole.
func TestUnreadAnnotationsAtTheEnd(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	unreadEndFiles(t, dir, false)
	stderrW, stderr := capture(t)
	run := startEnded(t, dir, fullPipe(t), stderrW, []string{"GITHUB_ACTIONS=true"}, "run", "s.yaml", "-o", "r.json", "--junit", "j.fifo")
	stderrW.Close()
	run.readWhole(t, filepath.Join(dir, "j.fifo"))
	run.signal(t, os.Interrupt)
	code := run.exitCode(t, "the interrupt")
	const lost = "acprun: GitHub annotations: write /dev/stdout: its reader did not read it: interrupted; they are incomplete\n"
	if code != exitInterrupted || !strings.Contains(stderr(), lost) || !strings.Contains(stderr(), "0 passed, 1 failed") {
		t.Errorf("exit %d; want %d, with the summary and %q\nstderr:\n%s", code, exitInterrupted, lost, stderr())
	}
	out := readResults(t, filepath.Join(dir, "r.json"))
	if len(out.Scenarios) != 1 || out.Scenarios[0].Status != report.StatusFailed {
		t.Errorf("results: %+v; want the one scenario failed", out.Scenarios)
	}
}

// TestThirdInterruptExitsAtOnce: acprun is held up by a write to a stderr
// nobody reads before its agents start (the warning that the scenario has
// no permissions), which neither the first interrupt (cancel) nor the
// second (stop waiting) ends: the third exits at once with 130. Three
// different signals, for none to be merged with another.
func TestThirdInterruptExitsAtOnce(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nturns:\n  - prompt: hi\n",
	})
	locks := watchCreates(t, dir, ".r.json.lock")
	run := startEnded(t, dir, nil, fullPipe(t), nil, "run", "s.yaml", "-o", "r.json")
	select { // acprun has taken its interrupts: it pins -o after
	case <-locks:
	case <-run.exited:
		t.Fatalf("acprun exited %d before it pinned r.json", run.code)
	case <-time.After(readerGuard):
		t.Fatal("acprun had not pinned r.json by the test's deadline")
	}
	for _, sig := range []os.Signal{syscall.SIGHUP, os.Interrupt, syscall.SIGTERM} {
		run.signal(t, sig)
	}
	if code := run.exitCode(t, "three interrupts"); code != exitInterrupted {
		t.Errorf("exit %d; want %d", code, exitInterrupted)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".r.json.tmp*")); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}
