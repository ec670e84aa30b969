//go:build !linux

package proc

import "os"

// PipeUnread is how many bytes the pipe whose read end is f holds that
// were not read yet: not known here, so 0, and a pipe is taken for empty
// once DrainDelay has passed.
func PipeUnread(f *os.File) int { return 0 }

// PipeHungUp reports whether every writer of the pipe whose read end is
// f has closed it: not known here, so false, and the reader's end of
// input tells.
func PipeHungUp(f *os.File) bool { return false }
