package e2e_test

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/report"
)

// pipeRun is acprun started in dir with the given stdout and stderr (the
// write ends of pipes the test holds the read ends of, or closed pipes),
// and TMPDIR a directory of its own, returned, where the run's private
// temporary files go. The caller closes its copies of stdout and stderr
// once started.
func pipeRun(t *testing.T, dir string, stdout, stderr *os.File, args ...string) (cmd *exec.Cmd, tmp string) {
	t.Helper()
	tmp = t.TempDir()
	cmd = exec.Command(acprunFor(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0", "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, tmp
}

// waitCode waits for cmd and returns its exit code: -1 when a signal
// (SIGPIPE) killed it.
func waitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// closedPipe returns the write end of a pipe whose read end is closed:
// writing to it raises SIGPIPE and fails with EPIPE.
func closedPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// capture returns the write end of a pipe to give a command as its stderr,
// and a function that returns everything written to it once the command
// has exited and the write end is closed.
func capture(t *testing.T) (*os.File, func() string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var data []byte
	go func() {
		data, _ = io.ReadAll(r)
		r.Close()
		close(done)
	}()
	return w, func() string { <-done; return string(data) }
}

// assertNoTextDir fails the test when the run left its private temporary
// directory (acprun-text-*) in tmp.
func assertNoTextDir(t *testing.T, tmp string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(tmp, "acprun-text-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the run's temporary directory was left behind: %q", left)
	}
}

// assertResults fails the test unless the results file at path holds the
// scenarios of outputScenarios, alpha passed and beta failed.
func assertResults(t *testing.T, path string) {
	t.Helper()
	out := readResults(t, path)
	got := map[string]report.Status{}
	for _, r := range out.Scenarios {
		got[r.Name] = r.Status
	}
	if len(out.Scenarios) != 2 || got["alpha"] != report.StatusPassed || got["beta"] != report.StatusFailed {
		t.Errorf("results %s: %v, want alpha passed and beta failed", filepath.Base(path), got)
	}
}

// TestBrokenPipeEventsOnStdout: the reader of --events - quits after the
// first line while a scenario is still running (| head -1). acprun is not
// killed by SIGPIPE: the run goes on to its end, the results and the
// JUnit report are written in full, the summary goes to stderr, the run's
// temporary directory is removed, and the exit code is 4, naming the
// events that were lost.
func TestBrokenPipeEventsOnStdout(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// alpha's agent waits for the test to open the gate, so that its
	// turn ends after the reader has gone.
	writeFiles(t, dir, map[string]string{
		"gated.mock.yaml": fmt.Sprintf("turns:\n  - steps: [{waitFor: %q}, {text: hello}]\n", gate),
		"a.yaml": `name: alpha
agent: {command: [acprun, mock-agent, gated.mock.yaml]}
turns:
  - prompt: hi
    expect: {text: {contains: hello}}
`,
	})

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, readStderr := capture(t)
	cmd, tmp := pipeRun(t, dir, w, stderr, "run", "a.yaml", "b.yaml", "-j", "2", "--events", "-", "-o", "out/r.json", "--junit", "out/j.xml")
	w.Close()
	stderr.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"time":`) {
		r.Close()
		t.Fatalf("first line of the events: %q, %v", line, err)
	}
	f, err := os.OpenFile(gate, os.O_WRONLY, 0) // blocks until alpha's agent waits on it
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader quits
	f.Close() // alpha's turn goes on, and its events have no reader
	code := waitCode(t, cmd)
	errText := readStderr()

	if code != exitOutput {
		t.Errorf("exit %d, want %d\n%s", code, exitOutput, errText)
	}
	for _, s := range []string{
		"1 passed, 1 failed",
		"results: out/r.json\n",
		"acprun: --events -: write /dev/stdout: broken pipe; the events file is incomplete\n",
	} {
		if !strings.Contains(errText, s) {
			t.Errorf("stderr does not contain %q:\n%s", s, errText)
		}
	}
	if strings.Contains(errText, "WARNING: DATA RACE") {
		t.Errorf("the race detector fired:\n%s", errText)
	}
	assertResults(t, filepath.Join(dir, "out/r.json"))
	data, err := os.ReadFile(filepath.Join(dir, "out/j.xml"))
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err != nil || xml.Unmarshal(data, &doc) != nil || doc.Tests != 2 || doc.Failures != 1 {
		t.Errorf("JUnit report: %+v, %v\n%s", doc, err, data)
	}
	assertNoTextDir(t, tmp)
}

// TestBrokenPipeOutputOnStdout: the reader of the results or the JUnit
// report on stdout is gone before anything is written (| true). The other
// output is written, the summary names the one lost, and the exit code is
// 4, which beats the failed scenario's 1.
func TestBrokenPipeOutputOnStdout(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	tests := []struct {
		name, results string
		args          []string
		lost          string
	}{
		{"junit", "out/junit.json", []string{"--junit", "-", "-o", "out/junit.json"},
			"acprun: --junit -: write /dev/stdout: broken pipe; the JUnit report was not written\n"},
		{"results", "", []string{"-o", "-", "--junit", "out/j.xml"},
			"acprun: -o -: write /dev/stdout: broken pipe; the results were not written\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr, readStderr := capture(t)
			cmd, tmp := pipeRun(t, dir, closedPipe(t), stderr, append([]string{"run", "a.yaml", "b.yaml"}, tt.args...)...)
			stderr.Close()
			code := waitCode(t, cmd)
			errText := readStderr()
			if code != exitOutput {
				t.Errorf("exit %d, want %d\n%s", code, exitOutput, errText)
			}
			for _, s := range []string{"1 passed, 1 failed", tt.lost} {
				if !strings.Contains(errText, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, errText)
				}
			}
			if tt.results != "" {
				assertResults(t, filepath.Join(dir, tt.results))
			} else if data, err := os.ReadFile(filepath.Join(dir, "out/j.xml")); err != nil || xml.Unmarshal(data, new(struct{})) != nil {
				t.Errorf("JUnit report: %v\n%s", err, data)
			}
			assertNoTextDir(t, tmp)
		})
	}
}

// TestBrokenPipeStderr: the reader of stderr (the progress and the
// summary) is gone before the run starts. That loses nothing the run
// produced: the results are written in full, the temporary directory is
// removed, and the exit code is the run's own (1: a scenario failed), not
// 4.
func TestBrokenPipeStderr(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	for _, tt := range []struct {
		results string
		args    []string
	}{
		{"out/r.json", nil},
		{"out/v.json", []string{"-v"}}, // the agents' text streamed too
	} {
		args := append([]string{"run", "a.yaml", "b.yaml", "-o", tt.results}, tt.args...)
		cmd, tmp := pipeRun(t, dir, nil, closedPipe(t), args...)
		if code := waitCode(t, cmd); code != exitFailed {
			t.Errorf("acprun %s 2>(closed pipe): exit %d, want %d", strings.Join(args, " "), code, exitFailed)
		}
		assertResults(t, filepath.Join(dir, tt.results))
		assertNoTextDir(t, tmp)
	}
	t.Run("merge", func(t *testing.T) {
		cmd, _ := pipeRun(t, dir, nil, closedPipe(t), "merge", "out/r.json", "-o", "out/merged.json")
		if code := waitCode(t, cmd); code != exitFailed {
			t.Errorf("merge 2>(closed pipe): exit %d, want %d", code, exitFailed)
		}
		assertResults(t, filepath.Join(dir, "out/merged.json"))
	})
}

// TestAgentsStartWithDefaultSIGPIPE: acprun catches SIGPIPE, it does not
// ignore it, so the agents it starts do not inherit an ignored SIGPIPE
// (a caught signal is reset to its default on exec). The agent's shell
// writes its ignored signals (SigIgn in /proc/self/status) to a file.
func TestAgentsStartWithDefaultSIGPIPE(t *testing.T) {
	underRace(t)
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml": fmt.Sprintf(`name: sigign
agent:
  command: [sh, -c, 'grep SigIgn /proc/self/status > sigign; exec "$0" mock-agent agent.mock.yaml', %q]
permissions: {default: deny}
turns:
  - prompt: hi
`, acprunBin),
	})
	if res := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	data := readFiles(t, dir, "sigign")["sigign"]
	hex, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "SigIgn:")
	mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
	if !ok || err != nil {
		t.Fatalf("the agent's SigIgn: %q, %v", data, err)
	}
	if mask&(1<<(syscall.SIGPIPE-1)) != 0 {
		t.Errorf("the agent started with SIGPIPE ignored (SigIgn %s)", strings.TrimSpace(hex))
	}
}
