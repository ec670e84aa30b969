package testkit_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m, nil) }

// TestMainSetsTMPDIR: the tests' temporary files go under Main's
// directory, not the machine's.
func TestMainSetsTMPDIR(t *testing.T) {
	tmp := os.Getenv("TMPDIR")
	if filepath.Base(tmp) != "tmp" || !strings.HasPrefix(filepath.Base(filepath.Dir(tmp)), "acprun-test-") {
		t.Errorf("TMPDIR = %q; want a tmp directory inside Main's", tmp)
	}
	if dir := t.TempDir(); !strings.HasPrefix(dir, tmp+"/") {
		t.Errorf("t.TempDir() = %q; want it under TMPDIR %q", dir, tmp)
	}
}

// TestBuildOnce: a package is built once for the same flags, and a build
// error says what failed.
func TestBuildOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	a, err := testkit.Build(".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := testkit.Build(".")
	if err != nil || a != b {
		t.Errorf("second Build = %q, %v; want the first's %q", b, err, a)
	}
	if err := exec.Command(a).Run(); err != nil {
		t.Errorf("the binary built does not run: %v", err)
	}
	if _, err := testkit.Build("./nothing-here"); err == nil || !strings.Contains(err.Error(), "go build ./nothing-here") {
		t.Errorf("Build of a missing package = %v; want the go build error", err)
	}
}

// TestLeftoversAndDying: a process working in a directory is a leftover
// until it is killed; then it is dying and exits.
func TestLeftoversAndDying(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, readLine, _ := testkit.FIFO(t)
	// The shell waits on its stdin, which stays open: it is the one
	// process, and it is what it is when it says its pid (after an exec,
	// its environment and cwd could be read in the middle of the exec).
	cmd := exec.Command("sh", "-c", "echo $$ > "+path+"; read -r line")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TESTKIT_MARK="+t.Name())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid, err := strconv.Atoi(readLine())
	if err != nil || pid != cmd.Process.Pid {
		t.Fatalf("pid line %d, %v; want %d", pid, err, cmd.Process.Pid)
	}
	exited := testkit.Watch(t, pid)
	for _, match := range []func(int) bool{testkit.InDir(dir), testkit.WithEnv("TESTKIT_MARK=" + t.Name())} {
		if got := testkit.Leftovers(t, match); len(got) != 1 || !strings.HasPrefix(got[0], strconv.Itoa(pid)+" (") {
			t.Errorf("Leftovers = %q; want process %d", got, pid)
		}
	}
	if testkit.Dying(pid) {
		t.Errorf("Dying(%d) before the kill", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !exited() {
		t.Fatalf("process %d has not exited after SIGKILL", pid)
	}
	if !testkit.Dying(pid) {
		t.Errorf("Dying(%d) = false for a killed process", pid)
	}
	if got := testkit.Leftovers(t, testkit.InDir(dir)); len(got) != 0 {
		t.Errorf("Leftovers after the kill = %q; want none", got)
	}
}

// errorRecorder is a testing.TB that records what Errorf says.
type errorRecorder struct {
	testing.TB
	errors []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestGolden: the same bytes pass; other bytes fail with their difference.
func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	same := &errorRecorder{TB: t}
	testkit.Golden(same, path, []byte("one\ntwo\n"))
	if len(same.errors) != 0 {
		t.Errorf("Golden with the same bytes: %q; want no error", same.errors)
	}
	other := &errorRecorder{TB: t}
	testkit.Golden(other, path, []byte("one\nthree\n"))
	if len(other.errors) != 1 || !strings.Contains(other.errors[0], "two") || !strings.Contains(other.errors[0], "three") {
		t.Errorf("Golden with other bytes: %q; want one error showing the difference", other.errors)
	}
}

// envHangupChild makes TestHangupsReachChildren's test binary, started with
// SIGHUP ignored, report how a child of its own takes a SIGHUP.
const envHangupChild = "TESTKIT_HANGUP_CHILD"

// TestHangupsReachChildren: a test binary started with SIGHUP ignored (as
// under nohup) starts its children with the default SIGHUP, which ends
// them, so that the tests that hang up on acprun see what a user's hangup
// does.
func TestHangupsReachChildren(t *testing.T) {
	if os.Getenv(envHangupChild) == "1" {
		out, _ := exec.Command("sh", "-c", `kill -HUP $$; echo survived`).CombinedOutput()
		fmt.Printf("child: %q\n", out)
		return
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" -test.run '^TestHangupsReachChildren$' -test.v`, self)
	cmd.Env = append(os.Environ(), envHangupChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `child: ""`) {
		t.Errorf("a child of a test binary started with SIGHUP ignored: %v\n%s\nwant it ended by the SIGHUP (no output)", err, out)
	}
}
