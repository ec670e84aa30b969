package e2e_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rerunNotRunSuite writes the suite of TestRerunFailedKeepsNotRun in dir:
// f1, f2 and f3 fail, p passes; f1's agent waits for the cancel instead
// while the file "wait" is there. -o's file is last.json.
func rerunNotRunSuite(t *testing.T, dir string) {
	t.Helper()
	scenario := func(name, command, word string) string {
		return "name: " + name + "\nagent: {command: [" + command + "]}\npermissions: {default: deny}\n" +
			"turns:\n  - prompt: hi\n    expect: {text: {contains: " + word + "}}\n"
	}
	writeFiles(t, dir, map[string]string{
		"say.mock.yaml":  "turns:\n  - steps:\n      - text: \"said hello\"\n",
		"wait.mock.yaml": "turns:\n  - steps:\n      - text: working\n      - waitForCancel: true\n",
		"f1.yaml":        scenario("f1", filepath.Join(dir, "f1.sh"), "nope"),
		"f2.yaml":        scenario("f2", "acprun, mock-agent, say.mock.yaml", "nope"),
		"f3.yaml":        scenario("f3", "acprun, mock-agent, say.mock.yaml", "nope"),
		"p.yaml":         scenario("p", "acprun, mock-agent, say.mock.yaml", "hello"),
	})
	script := "#!/bin/sh\nd=$(dirname \"$0\"); if [ -e \"$d/wait\" ]; then exec acprun mock-agent \"$d/wait.mock.yaml\"; else exec acprun mock-agent \"$d/say.mock.yaml\"; fi\n"
	if err := os.WriteFile(filepath.Join(dir, "f1.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestRerunFailedKeepsNotRun: a rerun whose -o is the file --rerun-failed
// read, stopped before it started some of what it selected (an
// interrupt, --fail-fast), keeps in that file the earlier results of the
// scenarios it never started, unchanged (failures, text), in place of
// its not-run ones, and says so in its summary; a scenario it started
// has the rerun's result, cut short or not. The file says the run was
// interrupted, and the next --rerun-failed reruns them all.
func TestRerunFailedKeepsNotRun(t *testing.T) {
	underRace(t)
	t.Parallel()
	env := []string{"PATH=" + filepath.Dir(acprunBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	tests := []struct {
		name  string
		f1    string // f1's status in the rerun
		rerun func(t *testing.T, dir string) result
	}{
		{"interrupt", "interrupted", func(t *testing.T, dir string) result {
			writeFiles(t, dir, map[string]string{"wait": ""})
			return interruptOnceStarted(t, dir, env, "f1", "run", ".", "--rerun-failed", "last.json", "-o", "last.json", "-j", "1", "--events", "-")
		}},
		{"fail-fast", "failed", func(t *testing.T, dir string) result {
			res := acprunEnv(t, dir, env, "run", ".", "--rerun-failed", "last.json", "-o", "last.json", "-j", "1", "--fail-fast")
			if res.code != exitFailed {
				t.Fatalf("rerun: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
			}
			return res
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			rerunNotRunSuite(t, dir)
			last := filepath.Join(dir, "last.json")
			if res := acprunEnv(t, dir, env, "run", ".", "-o", "last.json", "-q"); res.code != exitFailed {
				t.Fatalf("first run: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
			}
			first := readResults(t, last)
			if diff := cmp.Diff([]string{"f1:failed", "f2:failed", "f3:failed", "p:passed"}, statuses(t, last)); diff != "" {
				t.Fatalf("first run's results (-want +got):\n%s", diff)
			}

			res := tt.rerun(t, dir)
			const note = "2 scenarios not run, their earlier results kept in last.json for the next --rerun-failed: f2 (failed), f3 (failed)\n"
			if !strings.Contains(res.stderr, note) {
				t.Errorf("rerun: stderr does not say %q:\n%s", note, res.stderr)
			}
			if !strings.Contains(res.stderr, "NOT RUN f2 (f2.yaml:1)") {
				t.Errorf("rerun: the summary does not list f2 as not run:\n%s", res.stderr)
			}
			out := readResults(t, last)
			if diff := cmp.Diff([]string{"f1:" + tt.f1, "f2:failed", "f3:failed"}, statuses(t, last)); diff != "" {
				t.Errorf("rerun's results (-want +got):\n%s", diff)
			}
			if out.Interrupted != (tt.name == "interrupt") || out.Summary.NotRun != 0 || out.Summary.Failed != 2+btoi(tt.f1 == "failed") {
				t.Errorf("rerun's results: interrupted %v, summary %+v", out.Interrupted, out.Summary)
			}
			if len(out.Scenarios) == 3 {
				if f1 := out.Scenarios[0]; f1.NotRun {
					t.Errorf("f1 not run: %+v; want the rerun's own result", f1)
				}
				for i, r := range out.Scenarios[1:] {
					if diff := cmp.Diff(first.Scenarios[i+1], r); diff != "" || len(r.Failures) == 0 || !strings.Contains(r.Turns[0].Text, "said hello") {
						t.Errorf("%s is not kept as it was (-first +kept):\n%s", r.Name, diff)
					}
				}
			}

			os.Remove(filepath.Join(dir, "wait"))
			res = acprunEnv(t, dir, env, "run", ".", "--rerun-failed", "last.json", "-o", "last.json", "-q")
			if res.code != exitFailed {
				t.Fatalf("next rerun: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
			}
			if diff := cmp.Diff([]string{"f1:failed", "f2:failed", "f3:failed"}, statuses(t, last)); diff != "" {
				t.Errorf("next rerun's results (-want +got):\n%s", diff)
			}
		})
	}
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// interruptOnceStarted runs acprun with args (which write --events to
// stdout) in dir with env added, sends it SIGINT once the events say
// that the first turn of scenario name started, and returns what it did;
// it fails the test unless acprun exited 130.
func interruptOnceStarted(t *testing.T, dir string, env []string, name string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), acprunFor(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	lines := bufio.NewScanner(pipe)
	started := false
	for !started && lines.Scan() {
		stdout.WriteString(lines.Text() + "\n")
		started = allIn(lines.Text(), []string{`"event":"turn_started"`, `"scenario":"` + name + `"`})
	}
	if started {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
	}
	for lines.Scan() {
		stdout.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	if !started {
		t.Fatalf("acprun ended (%v) before %s started\n%s", err, name, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("acprun: %v, want exit %d\n%s", err, exitInterrupted, stderr.String())
	}
	if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
		t.Errorf("acprun: the race detector fired:\n%s", stderr.String())
	}
	return result{code: exitInterrupted, stdout: stdout.String(), stderr: stderr.String()}
}
