//go:build linux

package terminal_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/terminal"
	"golang.org/x/sys/unix"
)

// TestTerminalEscapedChildIsKilled: a child that left the process group
// (setsid) is killed once the leader exits; it carried a mark inside the
// one of the terminal's Env, so a scenario's Kill would find it too.
func TestTerminalEscapedChildIsKilled(t *testing.T) {
	ready, readLine := fifo(t)
	goOn, _, sayGo := fifo2(t)
	parent := reap.New()
	m := terminal.NewManager()
	t.Cleanup(m.Close)
	_, term, err := m.Create(terminal.Config{
		Command: "setsid sh -c 'echo $$ > " + ready + "; sleep 1000; :' & read x < " + goOn + "; echo bye",
		Env:     parent.Set(os.Environ()),
	})
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := strconv.Atoi(readLine())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Kill(escaped, unix.SIGKILL) })
	pidfd := openPidfd(t, escaped)
	if mark := markOf(t, escaped); !strings.HasPrefix(string(mark), string(parent)+".") {
		t.Errorf("the child's mark is %q, want one inside %q", mark, parent)
	}
	sayGo("go")
	wait(t, term)
	waitExited(t, pidfd, escaped)
}

// openPidfd opens a pidfd of process pid, to wait for its exit.
func openPidfd(t *testing.T, pid int) int {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Skipf("no pidfd: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// waitExited waits until the process of pidfd has exited (a zombie
// counts); it fails the test after failsafe.
func waitExited(t *testing.T, pidfd, pid int) {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(failsafe.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if n == 0 || err != nil {
			t.Errorf("process %d still runs %v after its terminal exited (poll: %v)", pid, failsafe, err)
		}
		return
	}
}

// markOf is the mark in process pid's environment.
func markOf(t *testing.T, pid int) reap.Mark {
	t.Helper()
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	return reap.Of(strings.Split(string(env), "\x00"))
}
