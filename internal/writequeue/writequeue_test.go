package writequeue_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/writequeue"
)

// TestQueueDropsPastItsLimit: while the writer is blocked, Add never
// waits for it: what fits in the Buf's Limit is held, a droppable piece
// past it is dropped and counted, and the note saying how many takes
// their place, before the next piece kept; then what was kept is written,
// in order. In a synctest bubble an Add that waited for the writer would
// block for good, and the guard's minute would pass.
func TestQueueDropsPastItsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := testkit.NewBlockedWriter()
		note := func(n int) string { return fmt.Sprintf("[%d dropped]", n) }
		q := writequeue.New(w, writequeue.Buf{Limit: 10, Note: note})
		q.Add("aaaa", true)
		<-w.Started // the writer took it and is blocked
		added := make(chan struct{})
		go func() {
			defer close(added)
			for _, s := range []string{"bbbb", "cccc", "dddd", "eeee", "ffff"} {
				q.Add(s, true) // 8 bytes held, then past the limit: dropped
			}
		}()
		select {
		case <-added:
		case <-time.After(time.Minute):
			t.Error("an Add past the limit waited for the writer")
		}
		if got := q.Dropped(); got != 3 {
			t.Errorf("Dropped() = %d; want 3", got)
		}
		close(w.Release)
		q.Flush()
		q.Add("gggg", true) // room again
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := w.Buf.String(), "aaaabbbbcccc[3 dropped]gggg"; got != want {
			t.Errorf("written %q; want %q", got, want)
		}
	})
}

// failingWriter fails every Write.
type failingWriter struct{ writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, errors.New("broken pipe")
}

// TestQueueAfterWriteError: after the first write error nothing more is
// written, and Close returns that error.
func TestQueueAfterWriteError(t *testing.T) {
	w := &failingWriter{}
	q := writequeue.New(w, writequeue.Buf{})
	for range 100 {
		q.Add("0123456789", false)
	}
	if err := q.Close(); err == nil || err.Error() != "broken pipe" {
		t.Errorf("Close: %v; want the write error", err)
	}
	if w.writes != 1 {
		t.Errorf("%d writes; want 1, then none", w.writes)
	}
}

// TestQueueHalt: Halt stops the queue at once, without waiting for a
// write held up by the writer: what waits after that write, and what is
// added later, is never written. It reports that the writer's output may
// not end a line while a piece is being written, whatever it ends with.
func TestQueueHalt(t *testing.T) {
	w := testkit.NewBlockedWriter()
	q := writequeue.New(w, writequeue.Buf{})
	q.Add("r", false)
	<-w.Started // the writer took "r" and is blocked
	q.Add("\nacprun: a note\n", false)
	halted := make(chan bool)
	go func() { halted <- q.Halt() }()
	select {
	case midLine := <-halted:
		if !midLine {
			t.Error("Halt during a write = false; want true: that write may leave the line open")
		}
	case <-time.After(time.Minute): // a guard against a hang
		t.Fatal("Halt waited for the writer")
	}
	q.Add("more\n", false)
	close(w.Release)
	q.Flush()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Buf.String(); got != "r" {
		t.Errorf("written %q; want only the piece being written when halted, %q", got, "r")
	}
}

// TestQueueHaltSaysWhereTheLineIs: once the queue has written all it was
// given, Halt reports whether that ends mid-line: after a dot, yes; after
// a line break, or nothing, no.
func TestQueueHaltSaysWhereTheLineIs(t *testing.T) {
	for _, tt := range []struct {
		pieces  []string
		midLine bool
	}{
		{nil, false},
		{[]string{"."}, true},
		{[]string{".", "\n"}, false},
		{[]string{"a line\n", "r"}, true},
		{[]string{"r", ""}, true},
	} {
		var buf strings.Builder
		q := writequeue.New(&buf, writequeue.Buf{})
		for _, s := range tt.pieces {
			q.Add(s, false)
		}
		q.Flush()
		if got := q.Halt(); got != tt.midLine {
			t.Errorf("after %q: Halt() = %v; want %v", tt.pieces, got, tt.midLine)
		}
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
