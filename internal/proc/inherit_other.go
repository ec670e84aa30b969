//go:build !linux

package proc

import "fmt"

// closeInheritedOnExec marks each descriptor /dev/fd lists.
func closeInheritedOnExec() error {
	if err := cloexecListed("/dev/fd"); err != nil {
		return fmt.Errorf("mark inherited descriptors close-on-exec: %w", err)
	}
	return nil
}
