package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
