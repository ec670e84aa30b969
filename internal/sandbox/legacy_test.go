//go:build linux && !(arm64 || riscv64 || loong64)

package sandbox_test

import "golang.org/x/sys/unix"

func init() {
	legacyCalls = map[string]uintptr{"chmod": unix.SYS_CHMOD, "open": unix.SYS_OPEN, "creat": unix.SYS_CREAT, "mknod": unix.SYS_MKNOD}
}
