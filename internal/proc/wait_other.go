//go:build !linux

package proc

// waitLeader reaps the leader, then kills its group. Without waitid's
// WNOWAIT there is a small window in which the group's id could be reused.
func (p *Process) waitLeader() {
	_ = p.cmd.Wait() // the exit status is read from ProcessState
	p.leaderExited()
}
