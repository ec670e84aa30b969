package writequeue_test

import (
	"errors"
	"fmt"
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
