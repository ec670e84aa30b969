package acp

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// WaitHandled, while a handler blocks and the reader waits with lines it
// read: it waits until every message read before the call was handled,
// not for those read after, and Lag counts the time behind.
func TestWaitHandledWaitsForWhatWasRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &floodReader{n: 50000}
		h := newBlockedCounter()
		c := NewConn(r, io.Discard, h, nil)
		defer c.Close()
		synctest.Wait()               // the handler waits, and so does the reader
		read := r.served64.Load() - 1 // the last line served may be cut short
		if l := c.Lag(); !l.Behind {
			t.Errorf("Lag() = %+v with a blocked handler; want behind", l)
		}
		done := make(chan error, 1)
		go func() { done <- c.WaitHandled(context.Background()) }()
		time.Sleep(time.Second)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("WaitHandled returned %v while the handler blocks", err)
		default:
		}
		if l := c.Lag(); !l.Behind || l.Total < time.Second {
			t.Errorf("Lag() = %+v after a second blocked; want behind for a second at least", l)
		}
		close(h.release)
		if err := <-done; err != nil {
			t.Fatalf("WaitHandled: %v", err)
		}
		if got := h.handled.Load(); got < read {
			t.Errorf("WaitHandled returned with %d handled; want the %d read before the call", got, read)
		}
		<-c.Done()
		if got := h.handled.Load(); got != 50000 {
			t.Errorf("handled %d; want all", got)
		}
	})
}

// Lag says since when the Conn has caught up: the handling of the last
// message; WaitHandled returns at once then, and with ctx's cause when it
// ends first.
func TestLagSinceTheLastMessageHandled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := make(chan struct{})
		h := HandlerFunc(func(context.Context, *Request) (any, error) {
			<-slow
			return nil, nil
		})
		c, p := newRawPeer(t, h, nil)
		start := time.Now()
		if l := c.Lag(); l.Behind || !l.Since.Equal(start) || l.Total != 0 {
			t.Errorf("Lag() at the start = %+v; want caught up since the start", l)
		}
		time.Sleep(time.Second)
		p.send(`{"jsonrpc":"2.0","method":"note"}`)
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if err := c.WaitHandled(ctx); err != context.DeadlineExceeded {
			t.Errorf("WaitHandled behind a blocked handler = %v; want the deadline", err)
		}
		close(slow)
		synctest.Wait()
		l := c.Lag()
		if l.Behind || !l.Since.Equal(start.Add(1300*time.Millisecond)) || l.Total != 300*time.Millisecond {
			t.Errorf("Lag() = %+v; want caught up at 1.3s, behind 300ms", l)
		}
		if err := c.WaitHandled(context.Background()); err != nil {
			t.Errorf("WaitHandled caught up = %v", err)
		}
	})
}
