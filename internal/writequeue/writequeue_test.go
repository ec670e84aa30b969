package writequeue_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/writequeue"
)

// TestQueueWaitsPastItsBound: while the writer is blocked, Add takes what
// fits in the bound, the piece being written included, and the next Add
// waits until the writer has taken enough (synctest.Wait: until every
// goroutine is blocked); then everything is written, in order.
func TestQueueWaitsPastItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := testkit.NewBlockedWriter()
		q := writequeue.New(w, writequeue.Buf{}, 10)
		q.Add("aaaa", false)
		<-w.Started // the writer took it and is blocked
		q.Add("bbbb", false)
		added := make(chan struct{})
		go func() {
			defer close(added)
			q.Add("cccc", false) // 12 bytes held: past the bound
		}()
		synctest.Wait()
		select {
		case <-added:
			t.Error("an Add past the bound did not wait for the writer")
		default:
		}
		close(w.Release)
		<-added
		q.Add(strings.Repeat("d", 20), false) // alone, larger than the bound
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := w.Buf.String(), "aaaabbbbcccc"+strings.Repeat("d", 20); got != want {
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
// written, an Add past the bound does not wait for a writer that will
// write nothing, and Close returns that error.
func TestQueueAfterWriteError(t *testing.T) {
	w := &failingWriter{}
	q := writequeue.New(w, writequeue.Buf{}, 10)
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
