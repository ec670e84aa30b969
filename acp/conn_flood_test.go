package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// floodReader serves n notification lines, counting how many it served.
type floodReader struct {
	n, served int
	served64  atomic.Int64
	pending   []byte
}

func (f *floodReader) Read(p []byte) (int, error) {
	for len(f.pending) < len(p) && f.served < f.n {
		f.pending = fmt.Appendf(f.pending, `{"jsonrpc":"2.0","method":"note","params":{"i":%d}}`+"\n", f.served)
		f.served++
	}
	if len(f.pending) == 0 {
		return 0, io.EOF
	}
	k := copy(p, f.pending)
	f.pending = f.pending[k:]
	f.served64.Store(int64(f.served))
	return k, nil
}

// blockedCounter handles floodReader's notes: it blocks on the first until
// release is closed, then counts them, and those out of order.
type blockedCounter struct {
	release             chan struct{}
	handled, outOfOrder atomic.Int64
}

func newBlockedCounter() *blockedCounter { return &blockedCounter{release: make(chan struct{})} }

func (b *blockedCounter) Handle(_ context.Context, req *Request) (any, error) {
	if b.handled.Load() == 0 {
		<-b.release
	}
	if want := fmt.Sprintf(`{"i":%d}`, b.handled.Load()); string(req.Params) != want {
		b.outOfOrder.Add(1)
	}
	b.handled.Add(1)
	return nil, nil
}

// A peer that floods a notification handler that blocks is read only so
// far: the messages waiting are bounded; once the handler goes on, every
// one is handled, in order.
func TestConnStopsReadingBehindABlockedHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 50000
		r := &floodReader{n: n}
		h := newBlockedCounter()
		c := NewConn(r, io.Discard, h, nil)
		synctest.Wait() // the handler waits, and so does the reader
		// What may be read and not handled: the batch the dispatcher took
		// before the handler blocked (at most a full queue), the queue, the
		// reader's batch, and a buffer of lines.
		bound := int64(2*(maxQueued+flushEvery) + readBufBytes/40 + 1)
		if got := r.served64.Load(); got > bound {
			t.Errorf("read %d lines behind a blocked handler; want at most %d", got, bound)
		}
		close(h.release)
		<-c.Done()
		if err := c.Err(); !errors.Is(err, io.EOF) {
			t.Errorf("Err() = %v; want EOF", err)
		}
		if h.handled.Load() != n || h.outOfOrder.Load() != 0 {
			t.Errorf("handled %d (%d out of order); want all %d in order", h.handled.Load(), h.outOfOrder.Load(), n)
		}
		c.Close()
	})
}

// Once ReadToEnd is called (the peer has exited), the reader reads on to
// the end of the stream behind a handler that blocks, so that nothing the
// peer wrote is left unread when the wait for the end is cut short; every
// message is still handled, in order, once the handler goes on.
func TestConnReadToEndReadsBehindABlockedHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 50000
		r := &floodReader{n: n}
		h := newBlockedCounter()
		c := NewConn(r, io.Discard, h, nil)
		synctest.Wait() // the handler waits, and so does the reader
		if isDone(c.ReadDone()) {
			t.Fatal("the reader reached the end behind a blocked handler before ReadToEnd")
		}
		c.ReadToEnd()
		synctest.Wait()
		if !isDone(c.ReadDone()) || r.served64.Load() != n {
			t.Fatalf("after ReadToEnd the reader read %d lines of %d and is not done; want the whole stream read", r.served64.Load(), n)
		}
		c.StopReading() // as internal/proc does past DrainDelay: everything was read already
		close(h.release)
		<-c.Done()
		if h.handled.Load() != n || h.outOfOrder.Load() != 0 {
			t.Errorf("handled %d (%d out of order); want all %d in order", h.handled.Load(), h.outOfOrder.Load(), n)
		}
		c.Close()
	})
}

// isDone reports whether ch is closed.
func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
