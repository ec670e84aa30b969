package testkit

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Watch opens a pidfd of process pid now, so that a later wait is for this
// process even once its pid is reaped and reused, and returns the wait: it
// reports whether the process has exited (a zombie counts) within
// Failsafe. A process already gone has exited. Where the kernel has no
// pidfds, Watch skips the test.
func Watch(t testing.TB, pid int) (exited func() bool) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return func() bool { return true }
	}
	if err != nil {
		t.Skipf("no pidfd: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return func() bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int(Failsafe.Milliseconds()))
			if err != unix.EINTR {
				return n == 1 && err == nil
			}
		}
	}
}

// Exited waits for process pid to exit, as Watch's wait does.
func Exited(t testing.TB, pid int) bool {
	t.Helper()
	return Watch(t, pid)()
}
