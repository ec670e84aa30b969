//go:build !linux

package reap

// Kill does nothing outside Linux: there is no /proc to find marked
// processes in.
func (m Mark) Kill() []Process { return nil }

// KillOutside does nothing outside Linux, as Kill.
func (m Mark) KillOutside(pgid int) []Process { return nil }
