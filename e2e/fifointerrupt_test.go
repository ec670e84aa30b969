package e2e_test

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifoDeadline bounds each test of this file: an acprun that one
// interrupt does not stop is killed then, and the test fails.
const fifoDeadline = 2 * time.Minute

// watchedRun is an acprun command whose stderr the test reads line by
// line, to know where it is without polling.
type watchedRun struct {
	t      *testing.T
	ctx    context.Context
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	stderr strings.Builder // the lines read so far, then the rest
	stdout strings.Builder
}

// startWatched starts acprun args in dir, killed at ctx's deadline.
func startWatched(t *testing.T, ctx context.Context, dir string, args ...string) *watchedRun {
	t.Helper()
	return startWatchedEnv(t, ctx, dir, nil, args...)
}

// startWatchedEnv is startWatched with env (NAME=value) added to the
// environment.
func startWatchedEnv(t *testing.T, ctx context.Context, dir string, env []string, args ...string) *watchedRun {
	t.Helper()
	return startWatchedTo(t, ctx, dir, env, nil, args...)
}

// startWatchedTo is startWatchedEnv with stdout, unless nil, as acprun's
// stdout: a file of the test's, which the run's result does not hold.
func startWatchedTo(t *testing.T, ctx context.Context, dir string, env []string, stdout *os.File, args ...string) *watchedRun {
	t.Helper()
	r := &watchedRun{t: t, ctx: ctx, cmd: exec.CommandContext(ctx, acprunFor(t), args...)}
	r.cmd.Dir = dir
	r.cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	r.cmd.Stdout = &r.stdout
	if stdout != nil {
		r.cmd.Stdout = stdout
	}
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.lines = bufio.NewScanner(stderr)
	return r
}

// waitLine reads stderr up to a line that holds substr; when stderr ends
// first, it fails the test with what acprun printed.
func (r *watchedRun) waitLine(substr string) {
	r.t.Helper()
	for r.lines.Scan() {
		r.stderr.WriteString(r.lines.Text() + "\n")
		if strings.Contains(r.lines.Text(), substr) {
			return
		}
	}
	r.cmd.Wait()
	if r.ctx.Err() != nil {
		r.t.Fatalf("acprun had not printed %q by the test's deadline\n%s", substr, r.stderr.String())
	}
	r.t.Fatalf("acprun ended before printing %q\n%s", substr, r.stderr.String())
}

// interruptOnce sends acprun one SIGINT, as ^C does, and waits for it to
// exit: it fails the test unless acprun exited before the deadline. It
// returns what acprun did.
func (r *watchedRun) interruptOnce() result {
	r.t.Helper()
	return r.signalOnce(os.Interrupt)
}

// signalOnce is interruptOnce with the signal sig.
func (r *watchedRun) signalOnce(sig os.Signal) result {
	r.t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatal(err)
	}
	return r.end()
}

// end reads stderr to its end and waits for acprun to exit: it fails the
// test unless acprun exited before the deadline. It returns what acprun
// did.
func (r *watchedRun) end() result {
	r.t.Helper()
	for r.lines.Scan() {
		r.stderr.WriteString(r.lines.Text() + "\n")
	}
	err := r.cmd.Wait()
	if r.ctx.Err() != nil {
		r.t.Fatalf("acprun %v still running at the test's deadline\n%s", r.cmd.Args[1:], r.stderr.String())
	}
	res := result{stdout: r.stdout.String(), stderr: r.stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	if strings.Contains(res.stderr, "WARNING: DATA RACE") {
		r.t.Errorf("acprun %v: the race detector fired:\n%s", r.cmd.Args[1:], res.stderr)
	}
	return res
}

// mkfifos makes a FIFO at each name under dir.
func mkfifos(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
}

// TestInterruptWhileAnOutputWaitsForItsReader: an output that is a FIFO
// no process reads is waited for, saying so on stderr, and one interrupt
// gives it up: acprun exits 130 at once, naming the FIFO that had no
// reader, with the other outputs written and the FIFO left a FIFO. So for
// every command with an output file, for run's events, which are opened
// before any agent starts, and for a transcript, which its scenario opens
// as it starts: the scenario is interrupted, and the results say why.
func TestInterruptWhileAnOutputWaitsForItsReader(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml":      "name: s\nagent: {name: mock, args: [m.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	if res := acprun(t, dir, "run", "s.yaml", "-o", "r.json", "-q"); res.code != exitOK {
		t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
	}
	tests := []struct {
		name    string
		args    []string
		fifo    string
		waiting string // the line that says acprun waits
		lost    string // the line that says what was lost
		written string // an output written all the same
	}{
		{"run -o", []string{"run", "s.yaml", "-o", "r.fifo", "--junit", "j.xml"}, "r.fifo",
			"acprun: -o r.fifo: waiting for a reader of the FIFO (Ctrl-C gives up the results)",
			"acprun: -o r.fifo: no reader on FIFO r.fifo: interrupted; the results were not written", "j.xml"},
		{"run --junit", []string{"run", "s.yaml", "-o", "r2.json", "--junit", "j.fifo"}, "j.fifo",
			"acprun: --junit j.fifo: waiting for a reader of the FIFO (Ctrl-C gives up the JUnit report)",
			"acprun: --junit j.fifo: no reader on FIFO j.fifo: interrupted; the JUnit report was not written", "r2.json"},
		{"run --events", []string{"run", "s.yaml", "-o", "r3.json", "--events", "e.fifo"}, "e.fifo",
			"acprun: --events e.fifo: waiting for a reader of the FIFO before any agent starts (Ctrl-C stops the run)",
			"acprun: --events e.fifo: no reader on FIFO e.fifo: interrupted", ""},
		{"run --transcripts", []string{"run", "s.yaml", "-o", "r4.json", "--transcripts", "tr"}, "tr/s@mock.jsonl",
			"acprun: --transcripts tr: waiting for a reader of the FIFO tr/s@mock.jsonl (Ctrl-C stops the run)",
			"    warning: transcript: no reader on FIFO tr/s@mock.jsonl: interrupted", "r4.json"},
		{"merge", []string{"merge", "r.json", "-o", "m.fifo"}, "m.fifo",
			"acprun: -o m.fifo: waiting for a reader of the FIFO (Ctrl-C gives up the merged results)",
			"acprun: merge: -o m.fifo: no reader on FIFO m.fifo: interrupted; the merged results were not written", ""},
		{"report", []string{"report", "r.json", "-o", "h.fifo"}, "h.fifo",
			"acprun: -o h.fifo: waiting for a reader of the FIFO (Ctrl-C gives up the report)",
			"acprun: report: -o h.fifo: no reader on FIFO h.fifo: interrupted; the report was not written", ""},
		{"schema", []string{"schema", "-o", "s.fifo"}, "s.fifo",
			"acprun: -o s.fifo: waiting for a reader of the FIFO (Ctrl-C gives up the schema)",
			"acprun: -o s.fifo: no reader on FIFO s.fifo: interrupted; the schema was not written", ""},
		{"probe", []string{"probe", "-o", "p.fifo", "--", "acprun", "mock-agent", "m.mock.yaml"}, "p.fifo",
			"acprun: -o p.fifo: waiting for a reader of the FIFO (Ctrl-C gives up the probe's JSON)",
			"acprun: -o p.fifo: no reader on FIFO p.fifo: interrupted; the probe's JSON was not written", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mkfifos(t, dir, tt.fifo)
			ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
			defer cancel()
			run := startWatched(t, ctx, dir, tt.args...)
			run.waitLine(tt.waiting)
			res := run.interruptOnce()
			if res.code != exitInterrupted || !strings.Contains(res.stderr, tt.lost+"\n") {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and %q", res.code, res.stderr, exitInterrupted, tt.lost)
			}
			if fi, err := os.Lstat(filepath.Join(dir, tt.fifo)); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("%s is no longer a FIFO: %v", tt.fifo, err)
			}
			if tt.written != "" {
				if data, err := os.ReadFile(filepath.Join(dir, tt.written)); err != nil || len(data) == 0 {
					t.Errorf("%s was not written: %v", tt.written, err)
				}
			}
		})
	}
}

// TestInterruptedRunWaitsForNoFIFO: a run interrupted while its agent
// works does not then wait for the reader of an output FIFO that has
// none: the one interrupt ends it with exit 130, naming the FIFO, and the
// other outputs hold the partial results.
func TestInterruptedRunWaitsForNoFIFO(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"w.mock.yaml": "turns:\n  - steps: [{text: hi}]\n  - steps: [{text: working}, {waitForCancel: true}]\n",
		"w.yaml":      "name: first\nagent: {name: mock, args: [w.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n  - prompt: two\n",
	})
	mkfifos(t, dir, "r.fifo")
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatched(t, ctx, dir, "run", "w.yaml", "-o", "r.fifo", "--junit", "j.xml", "-v")
	run.waitLine("[first@mock] turn 2 started")
	res := run.interruptOnce()
	const lost = "acprun: -o r.fifo: no reader on FIFO r.fifo: interrupted; the results were not written\n"
	if res.code != exitInterrupted || !strings.Contains(res.stderr, lost) || strings.Contains(res.stderr, "waiting for a reader") {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %q, without waiting for a reader", res.code, res.stderr, exitInterrupted, lost)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "j.xml"))
	if err != nil || !strings.Contains(string(junit), "acprun was interrupted during turn 2") {
		t.Errorf("the JUnit report lacks the interrupted scenario (%v):\n%s", err, junit)
	}
}
