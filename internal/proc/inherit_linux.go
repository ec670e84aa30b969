package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec uses close_range(2) with CLOSE_RANGE_CLOEXEC (Linux
// 5.11), and where that fails (an older kernel, a seccomp filter that
// refuses the call) marks each descriptor /proc/self/fd lists.
func closeInheritedOnExec() error {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return nil
	}
	if err := cloexecListed("/proc/self/fd"); err != nil {
		return fmt.Errorf("mark inherited descriptors close-on-exec: %w", err)
	}
	return nil
}
