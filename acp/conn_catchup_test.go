package acp

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCatchUpWithoutAPipe: a stream with no descriptor (io.Pipe): CatchUp
// cannot know what waits in it, and waits for what the Conn has read, the
// whole lines still in its buffer included. The lines come in one read (a
// single write, shorter than the buffer): once the first is tapped, all
// are read.
func TestCatchUpWithoutAPipe(t *testing.T) {
	checkLeaks(t)
	const n = 300
	pr, pw := io.Pipe()
	defer pw.Close()
	var handled atomic.Int64
	h := HandlerFunc(func(context.Context, *Request) (any, error) {
		handled.Add(1)
		return nil, nil
	})
	first := make(chan struct{})
	var once sync.Once
	c := NewConn(pr, io.Discard, h, &Options{Tap: func(Direction, []byte, time.Time) { once.Do(func() { close(first) }) }})
	defer c.Close()
	go io.WriteString(pw, strings.Repeat(`{"jsonrpc":"2.0","method":"note","params":{"text":"a few words"}}`+"\n", n))
	recvFrom(t, first, "the first line to be read")
	if err := c.CatchUp(testCtx(t)); err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	if got := handled.Load(); got != n {
		t.Errorf("after CatchUp: %d handled; want all %d", got, n)
	}
}

// TestCatchUpBounded: behind a handler that does not return, CatchUp
// returns ctx's cause when ctx ends, and nil once the Conn is closed.
func TestCatchUpBounded(t *testing.T) {
	checkLeaks(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	h := newBlockedCounter()
	read := make(chan struct{})
	c := NewConn(pr, io.Discard, h, &Options{Tap: func(Direction, []byte, time.Time) { close(read) }})
	go io.WriteString(pw, `{"jsonrpc":"2.0","method":"note","params":{"i":0}}`+"\n")
	recvFrom(t, read, "the line to be read")
	stop := errors.New("enough")
	ctx, cancel := context.WithCancelCause(testCtx(t))
	cancel(stop)
	if err := c.CatchUp(ctx); !errors.Is(err, stop) {
		t.Errorf("CatchUp behind a blocked handler = %v; want ctx's cause", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.CatchUp(testCtx(t)) }()
	close(h.release)
	if err := recvFrom(t, done, "CatchUp"); err != nil {
		t.Errorf("CatchUp once the handler returned = %v; want nil", err)
	}
	c.Close()
	if err := c.CatchUp(testCtx(t)); err != nil {
		t.Errorf("CatchUp after Close = %v; want nil", err)
	}
}
