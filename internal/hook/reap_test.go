//go:build linux

package hook_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/hook"
	"github.com/acprun/acprun/internal/reap"
	"golang.org/x/sys/unix"
)

// TestRunKillsEscapedGrandchild: a grandchild that left the process
// group (setsid) and holds the pipes is killed once the leader exits; it
// carried a mark inside the one of Env.
func TestRunKillsEscapedGrandchild(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	pidFifo, readLine := fifo(t)
	goOn := filepath.Join(dir, "go")
	if err := syscall.Mkfifo(goOn, 0o600); err != nil {
		t.Fatal(err)
	}
	say, err := os.OpenFile(goOn, os.O_RDWR, 0) // never blocks
	if err != nil {
		t.Fatal(err)
	}
	defer say.Close()
	parent := reap.New()
	done := make(chan hook.Result, 1)
	go func() {
		// The grandchild tells the leader its pid once it is in its own
		// session; the leader passes it to the test and waits for its go.
		done <- run(t, t.Context(), hook.Command{
			Run: "(setsid sh -c 'echo $$ > " + ready + "; sleep 1000; :' &); read pid < " + ready +
				"; echo $pid > " + pidFifo + "; read x < " + goOn + "; echo hi",
			Env: parent.Set(os.Environ()),
		})
	}()
	escaped, err := strconv.Atoi(readLine())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Kill(escaped, unix.SIGKILL) })
	fd, err := unix.PidfdOpen(escaped, 0)
	if err != nil {
		t.Skipf("no pidfd: %v", err)
	}
	defer unix.Close(fd)
	env, err := os.ReadFile("/proc/" + strconv.Itoa(escaped) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if mark := reap.Of(strings.Split(string(env), "\x00")); !strings.HasPrefix(string(mark), string(parent)+".") {
		t.Errorf("the grandchild's mark is %q, want one inside %q", mark, parent)
	}
	if _, err := say.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Stdout != "hi\n" || res.Err != nil {
		t.Errorf("Run = %+v, want stdout %q", res, "hi\n")
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(failsafe.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if n == 0 || err != nil {
			t.Errorf("grandchild %d still runs %v after Run returned (poll: %v)", escaped, failsafe, err)
		}
		break
	}
}
