//go:build !linux

package terminal

// waitLeader reaps the leader, then kills its group. Without waitid's
// WNOWAIT there is a small window in which the group's id could be reused.
func (t *Terminal) waitLeader() {
	_ = t.cmd.Wait()
	t.leaderExited()
}
