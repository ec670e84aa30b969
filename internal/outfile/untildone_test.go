package outfile_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/testkit"
)

// TestUntilDoneGivesUp: a pipe that no one reads takes what it holds;
// a write past that waits for its reader until ctx ends, then fails with
// an *UnreadError carrying ctx's cause, having written what the pipe took.
// A write that waited for good would make the guard's minute pass.
func TestUntilDoneGivesUp(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	cause := errors.New("run timeout")
	ctx, cancel := context.WithCancelCause(context.Background())
	wr := outfile.UntilDone(ctx, w)
	big := strings.Repeat("x", 1<<20) // more than a pipe holds
	done := make(chan error, 1)
	var n int
	go func() {
		var err error
		n, err = wr.Write([]byte(big))
		done <- err
	}()
	cancel(cause)
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the write waited for the reader after ctx ended")
	}
	if ue, ok := errors.AsType[*outfile.UnreadError](err); !ok || !errors.Is(ue.Cause, cause) {
		t.Errorf("Write: %v; want an *UnreadError of the cause", err)
	}
	if n == 0 || n >= len(big) {
		t.Errorf("wrote %d bytes; want what the pipe holds", n)
	}
	// After ctx ended, what the pipe takes is written still.
	buf := make([]byte, n)
	r.Read(buf)
	if _, err := wr.Write([]byte("more")); err != nil {
		t.Errorf("Write to a pipe with room: %v", err)
	}
}

// TestReopenPipe: the pipe a blocking file writes to (as stdout is),
// opened anew, is given up as UntilDone gives up a FIFO, while the file
// stays blocking: its mode is shared with every process that holds it. A
// regular file is not opened anew.
func TestReopenPipe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux opens a pipe anew")
	}
	w := testkit.UnreadPipe(t)
	f := outfile.ReopenPipe(w)
	if f == nil {
		t.Fatal("ReopenPipe of a pipe: nil")
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := outfile.UntilDone(ctx, f).Write([]byte(strings.Repeat("x", 1<<20))) // more than a pipe holds
	if _, ok := errors.AsType[*outfile.UnreadError](err); !ok || !strings.HasPrefix(err.Error(), "write "+w.Name()+": ") {
		t.Errorf("Write: %v; want an *UnreadError, writing %s", err, w.Name())
	}
	rc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Errorf("the pipe's first file: flags %#x, %v; want it blocking still", flags, err)
	}
	regular, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	if f := outfile.ReopenPipe(regular); f != nil {
		f.Close()
		t.Error("ReopenPipe of a regular file: not nil")
	}
}
