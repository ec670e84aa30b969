package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"time"
)

// UntilDone returns a writer to f that waits for f's reader (a FIFO's, a
// pipe's) only until ctx ends (an interrupt, the run's --timeout): a
// write under way then ends, and every write from then on writes what f
// takes without waiting, failing with an *UnreadError for the rest. A
// regular file never waits, and is written as f.Write would.
func UntilDone(ctx context.Context, f *os.File) io.Writer {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) }) // wakes a write that waits
	return &untilDone{ctx: ctx, f: f, rc: rc}
}

// ReopenPipe opens anew, for UntilDone, the pipe w writes to when w is an
// *os.File on one (stdout): a file of its own, named as w, that Go's
// poller waits on. w itself is not one: making it non-blocking would make
// it so for every process that shares it (the shell, the agents), while
// the file opened anew (/proc/self/fd/N) has a mode of its own. It
// returns nil when w is no pipe, or cannot be opened so: on another OS
// than Linux, or once the pipe's reader has gone. The caller closes it.
func ReopenPipe(w io.Writer) *os.File {
	f, ok := w.(*os.File)
	if !ok || runtime.GOOS != "linux" {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	rc.Control(func(old uintptr) {
		fd, err = syscall.Open(fmt.Sprintf("/proc/self/fd/%d", old), syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	})
	if err != nil || fd < 0 {
		return nil
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// PipeUntilDone returns a writer to w, the pipe stdout is, that waits for
// its reader only until ctx ends (UntilDone), through the file ReopenPipe
// opens, and what the caller closes once written. Where ReopenPipe opens
// none, it returns w itself, whose reader is waited for as long as it
// takes, and a Closer that does nothing.
func PipeUntilDone(ctx context.Context, w io.Writer) (io.Writer, io.Closer) {
	f := ReopenPipe(w)
	if f == nil {
		return w, noClose{}
	}
	return UntilDone(ctx, f), f
}

// noClose is an io.Closer with nothing to close.
type noClose struct{}

func (noClose) Close() error { return nil }

// untilDone is the writer of UntilDone.
type untilDone struct {
	ctx context.Context
	f   *os.File
	rc  syscall.RawConn
}

func (w *untilDone) Write(p []byte) (int, error) {
	n := 0
	var err error
	write := func(fd uintptr) bool { // false: wait until f takes more
		for n < len(p) {
			k, e := syscall.Write(int(fd), p[n:])
			switch {
			case e == syscall.EINTR:
			case e == syscall.EAGAIN && w.ctx.Err() == nil:
				return false
			case e == syscall.EAGAIN:
				err = &UnreadError{Cause: context.Cause(w.ctx)}
				return true
			case e != nil:
				err = e
				return true
			default:
				n += k
			}
		}
		return true
	}
	werr := w.rc.Write(write)
	if errors.Is(werr, os.ErrDeadlineExceeded) && w.ctx.Err() != nil {
		// ctx's deadline is f's: what f takes now is written still.
		werr = w.rc.Control(func(fd uintptr) { write(fd) })
	}
	if err == nil {
		err = werr
	}
	if err != nil {
		return n, &fs.PathError{Op: "write", Path: w.f.Name(), Err: err}
	}
	return n, nil
}

// UnreadError is the error of a write given up because its reader (a
// FIFO's, a pipe's) did not read it before the context ended.
type UnreadError struct {
	Cause error // why the wait ended: the context's cause
}

func (e *UnreadError) Error() string {
	return fmt.Sprintf("its reader did not read it: %v", e.Cause)
}

// Unwrap returns the cause.
func (e *UnreadError) Unwrap() error { return e.Cause }
