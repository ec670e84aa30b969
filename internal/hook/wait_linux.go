package hook

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitLeader waits for cmd's leader to exit, calls exited while it is not yet
// reaped (so its id, and its group's, cannot be reused), then reaps it.
func waitLeader(cmd *exec.Cmd, exited func()) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	exited()
	_ = cmd.Wait()
}
