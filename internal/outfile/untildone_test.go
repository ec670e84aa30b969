package outfile_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/outfile"
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
