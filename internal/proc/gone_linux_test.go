package proc_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/proc"
	"golang.org/x/sys/unix"
)

// TestGroupIsKilledWhenTheLeaderExits: a background child in the group
// does not outlive the leader, with or without Reap.
func TestGroupIsKilledWhenTheLeaderExits(t *testing.T) {
	for _, reap := range []bool{false, true} {
		out, err := proc.NewOutput(100)
		if err != nil {
			t.Fatal(err)
		}
		// The child closes stdout so that only the leader's exit ends it.
		p := start(t, proc.Config{Args: sh("sleep 1000 >/dev/null & echo $!"), Stdout: out.File(), Readers: []proc.Reader{out}, Reap: reap})
		await(t, p.Done(), "Done")
		child, err := strconv.Atoi(strings.TrimSpace(string(out.Tail().Bytes())))
		if err != nil {
			t.Fatal(err)
		}
		waitGone(t, child)
	}
}

// waitGone fails the test unless process pid exits (a zombie counts)
// within failsafe.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return // gone and reaped already
	}
	if err != nil {
		t.Skipf("no pidfd: %v", err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(failsafe.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if n == 0 || err != nil {
			t.Errorf("process %d still runs %v after its leader exited (poll: %v)", pid, failsafe, err)
		}
		return
	}
}
