package reap

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

// TestGuardKillsTheRunWhenAcprunIsGone: once the write end of its input
// closes, as it does when acprun dies, the guard (this test binary, made
// one by this package's init) kills every process of the run's mark: a
// command's shell and the child it forked, and a daemon in a session of
// its own; it leaves another run's process alone, and removes the
// directory it was given. The processes start after the guard: had they
// inherited the write end, the guard would never see its end.
func TestGuardKillsTheRunWhenAcprunIsGone(t *testing.T) {
	run := New()
	g, err := StartGuard("", run)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.Close()
		run.Kill() // what the guard failed to kill
	})
	spill := filepath.Join(t.TempDir(), "spill")
	if err := os.Mkdir(spill, 0o700); err != nil {
		t.Fatal(err)
	}
	g.Remove(spill)

	shell := exec.Command("/bin/sh", "-c", "sleep 1000 & echo $!; wait")
	shell.Env = run.Sub().Set(os.Environ())
	out, err := shell.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		shell.Process.Kill()
		shell.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the shell's child: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	execDone(t, child, "sleep")
	setsid := daemon(t, run.Sub(), "sleep 1000")
	other := daemon(t, New(), "sleep 1000")

	g.Close() // as the kernel does when acprun dies
	select {
	case <-g.exited: // it exits once it has killed and removed
	case <-time.After(time.Minute):
		t.Fatal("the guard did not exit within a minute of the end of its input")
	}
	for what, pid := range map[string]int{"the shell": shell.Process.Pid, "the shell's child": child, "the setsid'd daemon": setsid} {
		if !dying(pid) {
			t.Errorf("%s (%d: %s) still runs after the guard exited", what, pid, cmdline(pid))
		}
	}
	if dying(other) {
		t.Errorf("the guard killed %d, of another run", other)
	}
	if _, err := os.Stat(spill); !os.IsNotExist(err) {
		t.Errorf("the directory the guard was given is still there (%v)", err)
	}
}

// TestGuardLeavesWhatWasForgotten: a path given to Remove and then to
// Forget (a temporary file renamed into place: the file now at its name,
// were it one, is not the guard's) is left where it is when the guard
// ends; one not forgotten is removed.
func TestGuardLeavesWhatWasForgotten(t *testing.T) {
	g, err := StartGuard("", New())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	done, left := filepath.Join(dir, ".r.json.tmp1"), filepath.Join(dir, ".j.xml.tmp2")
	g.Remove(done)
	g.Remove(left)
	g.Forget(done)
	for _, p := range []string{done, left} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g.Close()
	select {
	case <-g.exited:
	case <-time.After(time.Minute):
		t.Fatal("the guard did not exit within a minute of the end of its input")
	}
	if _, err := os.Stat(done); err != nil {
		t.Errorf("the guard removed %s, forgotten: %v", done, err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the guard left %s, not forgotten (%v)", left, err)
	}
}
