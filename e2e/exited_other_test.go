//go:build !linux

package e2e_test

// exited returns nil, a channel that never receives: without waitid's
// WNOWAIT a process's exit cannot be seen without reaping it.
func exited(int) <-chan struct{} { return nil }
