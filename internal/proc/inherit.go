package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInheritedOnExec marks every file descriptor of this process above
// 2 close-on-exec, so that the programs it starts get stdin, stdout,
// stderr and the files they are given, and nothing else. Call it at
// start-up, before any process is started: the descriptors it changes are
// those the process inherited open across exec (a make jobserver's,
// flock 9>file's, a CI runner's), which would otherwise pass to every
// process it starts and through any sandbox around them; those Go opened
// are close-on-exec already. The process itself keeps them open: a path
// such as /dev/fd/7 still opens the file.
func CloseInheritedOnExec() error { return closeInheritedOnExec() }

// cloexecListed marks close-on-exec each descriptor above 2 that dir (the
// process's descriptor directory: /proc/self/fd, /dev/fd) lists.
func cloexecListed(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if errors.Is(err, unix.EBADF) {
			continue // the directory's own, closed since
		}
		if err == nil && flags&unix.FD_CLOEXEC == 0 {
			_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
		}
		if err != nil {
			return fmt.Errorf("descriptor %d: %w", fd, err)
		}
	}
	return nil
}
