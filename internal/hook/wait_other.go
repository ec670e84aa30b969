//go:build !linux

package hook

import "os/exec"

// waitLeader reaps cmd's leader, then calls exited. Without waitid's WNOWAIT
// there is a small window in which the group's id could be reused.
func waitLeader(cmd *exec.Cmd, exited func()) {
	_ = cmd.Wait()
	exited()
}
