package e2e_test

import "golang.org/x/sys/unix"

// exited returns a channel closed once the child process pid has exited,
// which it does not reap: the exec.Cmd's Wait still reads its status.
func exited(pid int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
	}()
	return done
}
