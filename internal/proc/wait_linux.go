package proc

import "golang.org/x/sys/unix"

// waitLeader waits for the leader to exit, kills its group while the
// leader is not yet reaped (its id, and so the group's, cannot be reused),
// then reaps it.
func (p *Process) waitLeader() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	p.leaderExited()
	_ = p.cmd.Wait() // the exit status is read from ProcessState
}
