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

// PipeHungUp reports whether every writer of the pipe whose read end is
// f has closed it (poll's POLLHUP): what the reader will read is what the
// pipe holds now, then the end. It is the kernel's state at the call,
// whether or not the reader has come to the end yet; false once f is
// closed.
func PipeHungUp(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	hup := false
	if rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err == nil && n == 1 {
			hup = fds[0].Revents&unix.POLLHUP != 0
		}
	}) != nil {
		return false
	}
	return hup
}
