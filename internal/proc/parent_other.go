//go:build !linux

package proc

import "syscall"

// dieWithAcprun does nothing here: only Linux has a parent-death signal.
func dieWithAcprun(*syscall.SysProcAttr) {}
