package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// PipeUnread is how many bytes the pipe whose read end is f holds that
// were not read yet (FIONREAD, which Linux calls TIOCINQ); 0 once f is
// closed.
func PipeUnread(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	if rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }) != nil {
		return 0
	}
	return n
}
