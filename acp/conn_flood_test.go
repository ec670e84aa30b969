package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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

// bigFloodReader serves n notification lines of about size bytes each,
// counting the bytes it served.
type bigFloodReader struct {
	n, size int
	served  atomic.Int64
	next    int
	pending []byte
}

func (f *bigFloodReader) Read(p []byte) (int, error) {
	if len(f.pending) == 0 && f.next < f.n {
		f.pending = fmt.Appendf(f.pending, `{"jsonrpc":"2.0","method":"note","params":{"i":%d,"pad":"%s"}}`+"\n",
			f.next, strings.Repeat("x", f.size))
		f.next++
	}
	if len(f.pending) == 0 {
		return 0, io.EOF
	}
	k := copy(p, f.pending)
	f.pending = f.pending[k:]
	f.served.Add(int64(k))
	return k, nil
}

// A peer that floods a handler that blocks with large messages (a few
// thousand would be far more than memory should hold) is read only so far
// in bytes too: the reader stops once maxQueuedBytes of lines wait, and
// once the handler goes on every message is handled, in order.
func TestConnStopsReadingBehindABlockedHandlerInBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size, n = 256 << 10, 128 // 32 MiB, twice the bound
		r := &bigFloodReader{n: n, size: size}
		var handled, outOfOrder atomic.Int64
		release := make(chan struct{})
		h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
			if handled.Load() == 0 {
				<-release
			}
			var p struct{ I int64 }
			if err := req.DecodeParams(&p); err != nil || p.I != handled.Load() {
				outOfOrder.Add(1)
			}
			handled.Add(1)
			return nil, nil
		})
		c := NewConn(r, io.Discard, h, nil)
		synctest.Wait() // the handler waits, and so does the reader
		// What may be read and not handled: the line being handled, the
		// queue (under the bound, and the batch that took it past), the
		// line the reader holds and its read buffer.
		bound := int64(maxQueuedBytes + 3*(size+100) + readBufBytes)
		if got := r.served.Load(); got > bound {
			t.Errorf("read %d bytes behind a blocked handler; want at most %d", got, bound)
		}
		if isDone(c.ReadDone()) {
			t.Error("the reader reached the end of the stream behind a blocked handler")
		}
		close(release)
		<-c.Done()
		if err := c.Err(); !errors.Is(err, io.EOF) {
			t.Errorf("Err() = %v; want EOF", err)
		}
		if handled.Load() != n || outOfOrder.Load() != 0 {
			t.Errorf("handled %d (%d out of order); want all %d in order", handled.Load(), outOfOrder.Load(), n)
		}
		c.Close()
	})
}

// A message larger than maxQueuedBytes is still queued and handled: the
// bound holds the reader back only while other messages wait.
func TestConnQueuesAMessageLargerThanTheBytesBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size, n = maxQueuedBytes + 1<<20, 2
		r := &bigFloodReader{n: n, size: size}
		var handled atomic.Int64
		h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
			handled.Add(1)
			return nil, nil
		})
		c := NewConn(r, io.Discard, h, nil)
		<-c.Done()
		if handled.Load() != n {
			t.Errorf("handled %d messages of %d bytes; want all %d", handled.Load(), size, n)
		}
		c.Close()
	})
}
