package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
)

// TestSandboxTempRemovedReadOnly: a sandboxed agent that leaves a
// read-only directory, and an unsearchable one, with files inside in its
// private TMPDIR does not keep that directory (and what the agent put
// there) on disk past the scenario: acprun removes it as it removes a
// workspace, with no warning, under either backend.
func TestSandboxTempRemovedReadOnly(t *testing.T) {
	t.Parallel()
	for _, bwrap := range []bool{false, true} {
		name := "landlock"
		if bwrap {
			name = "bwrap"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			env := needSandbox(t, bwrap, realTempDir(t))
			ws := filepath.Join(dir, "ws")
			writeFiles(t, dir, map[string]string{
				"r.mock.yaml": `turns:
  - steps:
      - spawn: 'mkdir "$TMPDIR/ro" "$TMPDIR/closed" && echo s > "$TMPDIR/ro/f" && echo s > "$TMPDIR/closed/g" && chmod 500 "$TMPDIR/ro" && chmod 0 "$TMPDIR/closed" && echo made'
`,
				"s.yaml": `name: tmp
agent: {command: [acprun, mock-agent, r.mock.yaml]}
sandbox: {network: off}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      text: {contains: [made]}
`,
			})
			t.Cleanup(func() { // whatever is left, t.TempDir can remove it
				_ = filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
					if d != nil && d.IsDir() {
						os.Chmod(p, 0o700)
					}
					return nil
				})
			})
			name, args := testkit.BoundCommand(t, acprunFor(t), "run", "s.yaml", "-o", "out.json", "--workspace-dir", "ws")
			res, _ := runBinary(t, name, dir, env, args...)
			sc := scenarioNamed(t, readResults(t, filepath.Join(dir, "out.json")), "tmp")
			if res.code != exitOK || sc.Status != "passed" {
				t.Errorf("exit %d, status %s (%s %q); want 0, passed\n%s", res.code, sc.Status, sc.Error, sc.Failures, res.stderr)
			}
			for _, w := range sc.Warnings {
				if strings.Contains(w, "temporary directory") {
					t.Errorf("warning %q; want none", w)
				}
			}
			var left []string
			_ = filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
				if strings.HasPrefix(d.Name(), "acprun-tmp-") {
					left = append(left, p)
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left behind: %q", left)
			}
		})
	}
}

// TestSandboxTempRemovedReadOnlyWhenKilled: when acprun is killed with
// SIGKILL while a sandboxed agent runs, the guard removes the agent's
// private TMPDIR, whatever read-only or unsearchable directories the
// agent left there.
func TestSandboxTempRemovedReadOnlyWhenKilled(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, false, realTempDir(t))
	fifo, read, _ := testkit.FIFO(t)
	ws := filepath.Join(dir, "ws")
	writeFiles(t, dir, map[string]string{
		"r.mock.yaml": `onCancel: ignore
ignoreSigterm: true
ignoreEOF: true
turns:
  - steps:
      - spawn: 'mkdir "$TMPDIR/ro" "$TMPDIR/closed" && echo s > "$TMPDIR/ro/f" && echo s > "$TMPDIR/closed/g" && chmod 500 "$TMPDIR/ro" && chmod 0 "$TMPDIR/closed" && echo $PPID > ` + fifo + `'
      - hang: true
`,
		"s.yaml": `name: tmp
agent: {command: [acprun, mock-agent, r.mock.yaml]}
sandbox: {network: off, write: [` + filepath.Dir(fifo) + `]}
turnTimeout: 1h
permissions: {default: deny}
turns:
  - prompt: go
`,
	})
	t.Cleanup(func() { // whatever is left, t.TempDir can remove it
		_ = filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
	})
	name, args := testkit.BoundCommand(t, acprunFor(t), "run", "s.yaml", "-o", "out.json", "--workspace-dir", "ws")
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	agent, err := strconv.Atoi(read()) // its TMPDIR is filled
	if err != nil {
		t.Fatal(err)
	}
	agentEnv, err := testkit.Environ(agent)
	if err != nil {
		t.Fatal(err)
	}
	mark, _, _ := strings.Cut(string(reap.Of(agentEnv)), ".")
	guard := testkit.Processes(t, testkit.WithEnv(reap.GuardVar+"="+mark))
	if len(guard) != 1 {
		t.Fatalf("%d processes guard the run (%s), want 1", len(guard), mark)
	}
	exited := testkit.Watch(t, guard[0])
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if !exited() { // the guard's end says it has done its work
		t.Fatalf("the guard still runs %v after acprun was killed", testkit.Failsafe)
	}
	var left []string
	_ = filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if d != nil && strings.HasPrefix(d.Name(), "acprun-tmp-") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}
