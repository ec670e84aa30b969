//go:build linux && !(arm64 || riscv64 || loong64)

package sandbox

import "golang.org/x/sys/unix"

// legacyModeCalls are the system calls that give a file a mode on the
// architectures that still have those without "at" (see modeCalls).
var legacyModeCalls = []modeCall{
	{unix.SYS_CHMOD, 1, -1},
	{unix.SYS_OPEN, 2, 1},
	{unix.SYS_CREAT, 1, -1},
	{unix.SYS_MKNOD, 1, -1},
}
