package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// orderLog records what the handlers of an ordered Conn saw, in the order
// they saw it.
type orderLog struct {
	mu     sync.Mutex
	events []string
}

func (l *orderLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *orderLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// TestOrderedHandlesInArrivalOrder: requests and notifications
// are handled one at a time in the order read, each request is answered
// before the next message is handled, and Done waits for all of it.
func TestOrderedHandlesInArrivalOrder(t *testing.T) {
	checkLeaks(t)
	const n = 300
	var log orderLog
	var running, overlaps atomic.Int32
	h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer running.Add(-1)
		if !req.IsNotification() {
			runtime.Gosched() // invite the next message to overtake, if it could
		}
		log.add("%s %s", req.Method, req.Params)
		return "ok", nil
	})
	c, p := newRawPeer(t, h, nil)

	var want, wantIDs []string
	for i := range n {
		if i%3 == 2 {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"i":%d}}`, i))
			want = append(want, fmt.Sprintf(`note {"i":%d}`, i))
			continue
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"req","params":{"i":%d}}`, i, i))
		want = append(want, fmt.Sprintf(`req {"i":%d}`, i))
		wantIDs = append(wantIDs, fmt.Sprint(i))
	}
	var gotIDs []string
	for range wantIDs {
		gotIDs = append(gotIDs, p.recv()["id"])
	}
	p.nc.Close()
	recvFrom(t, c.Done(), "Conn.Done")

	if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("%d handlers started while another was running", n)
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("handling order when Done closed (-want +got):\n%s", diff)
	}
}

// TestOrderedAsyncRunsConcurrently: a handler that calls Async lets the
// messages after it be handled while it runs, here the notification it
// waits for and a request answered ahead of it.
func TestOrderedAsyncRunsConcurrently(t *testing.T) {
	checkLeaks(t)
	var log orderLog
	stop := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "long":
			log.add("long: started")
			Async(ctx)
			Async(ctx) // again: nothing more happens
			select {
			case <-stop:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			log.add("long: stopped")
			return "long done", nil
		case "stop":
			log.add("stop")
			close(stop)
		default:
			log.add("%s", req.Method)
		}
		return req.Method + " done", nil
	})
	c, p := newRawPeer(t, h, nil)
	p.send(
		`{"jsonrpc":"2.0","id":1,"method":"long"}`,
		`{"jsonrpc":"2.0","id":2,"method":"quick"}`,
	)
	if got := p.recv(); got["id"] != "2" {
		t.Fatalf("first answer = %v; want the quick request's, while the long one runs", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"stop"}`)
	if got := p.recv(); got["id"] != "1" || got["result"] != `"long done"` {
		t.Fatalf("second answer = %v; want the long request's", got)
	}
	p.nc.Close()
	recvFrom(t, c.Done(), "Conn.Done")
	want := []string{"long: started", "quick", "stop", "long: stopped"}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestOrderedHandlerAwaitsItsCall: an ordered handler that waits for the
// answer to its own call gets it although the answer arrives behind a
// notification, which is handled only once the handler was answered.
func TestOrderedHandlerAwaitsItsCall(t *testing.T) {
	checkLeaks(t)
	var log orderLog
	var c *Conn
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.IsNotification() {
			log.add("note")
			return nil, nil
		}
		var answer string
		if err := c.Call(ctx, "ask", nil).Await(ctx, &answer); err != nil {
			return nil, err
		}
		log.add("answered: %s", answer)
		return answer, nil
	})
	c, p := newRawPeer(t, h, nil)
	p.send(`{"jsonrpc":"2.0","id":"r","method":"work"}`)
	if got := p.recv(); got["method"] != `"ask"` {
		t.Fatalf("conn wrote %v; want the handler's call", got)
	}
	p.send(
		`{"jsonrpc":"2.0","method":"note"}`,
		`{"jsonrpc":"2.0","id":1,"result":"yes"}`,
	)
	if got := p.recv(); got["id"] != `"r"` || got["result"] != `"yes"` {
		t.Fatalf("conn wrote %v; want the answer to r", got)
	}
	p.nc.Close()
	recvFrom(t, c.Done(), "Conn.Done")
	if diff := cmp.Diff([]string{"answered: yes", "note"}, log.get()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestOrderedAnswerInStreamOrder: when no handler holds the line, an answer
// to our call completes it only after the messages before it were handled.
func TestOrderedAnswerInStreamOrder(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	var log orderLog
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		Async(ctx)
		runtime.Gosched() // invite the answer to overtake, if it could
		log.add("%s %s", req.Method, req.Params)
		return nil, nil
	})
	c, p := newRawPeer(t, h, nil)
	call := c.Call(ctx, "prompt", nil)
	p.recv()
	var want []string
	for i := range 50 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"update","params":{"i":%d}}`, i))
		want = append(want, fmt.Sprintf(`update {"i":%d}`, i))
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":"done"}`)
	if err := call.Await(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("notifications handled when Await returned (-want +got):\n%s", diff)
	}
}

// TestOrderedEndOfStream: at the end of the stream an ordered handler
// waiting for an answer that cannot come gets ErrClosed, an answer read
// before the end still completes its call, the request queued behind is
// handled, and Done waits for it.
func TestOrderedEndOfStream(t *testing.T) {
	checkLeaks(t)
	var log orderLog
	var c *Conn
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "work":
			first := c.Call(ctx, "first", nil)
			second := c.Call(ctx, "second", nil)
			var got string
			err := first.Await(ctx, &got)
			log.add("first: %q %v", got, err)
			err = second.Await(ctx, nil)
			log.add("second: closed %v", errors.Is(err, ErrClosed))
		default:
			log.add("%s", req.Method)
		}
		return nil, nil
	})
	c, p := newRawPeer(t, h, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	p.recv()
	p.recv()
	p.send(
		`{"jsonrpc":"2.0","id":2,"method":"behind"}`,
		`{"jsonrpc":"2.0","id":1,"result":"one"}`,
	)
	p.nc.Close()
	recvFrom(t, c.Done(), "Conn.Done")
	want := []string{`first: "one" <nil>`, "second: closed true", "behind"}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("events when Done closed (-want +got):\n%s", diff)
	}
}

// TestOrderedCloseDropsQueued: Close ends a holding handler's context and
// counts the messages queued behind it as dropped.
func TestOrderedCloseDropsQueued(t *testing.T) {
	checkLeaks(t)
	started := make(chan struct{})
	var handled atomic.Int32
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "block" {
			close(started)
			<-ctx.Done() // until Close
			return nil, nil
		}
		handled.Add(1)
		return nil, nil
	})
	c, p := newRawPeer(t, h, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	for i := range 4 {
		p.send(notification(i))
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"later"}`)
	p.nc.Close()
	recvFrom(t, c.ReadDone(), "the reader to stop")
	recvFrom(t, started, "the blocking handler")
	c.Close()
	if got := c.Dropped(); got != 5 {
		t.Errorf("Dropped() = %d; want the 5 messages queued behind the holding handler", got)
	}
	if n := handled.Load(); n != 0 {
		t.Errorf("%d messages behind the holding handler were handled", n)
	}
}

// TestAnswerWaitsBehindHolder: while a request handler holds the line, an
// answer to a call it did not send (the client's prompt) does not overtake
// the messages read before it: it completes its call only after the
// handler let go and the notification between them was handled.
func TestAnswerWaitsBehindHolder(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	var log orderLog
	holding := make(chan struct{})
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.IsNotification() {
			log.add("note")
			return nil, nil
		}
		close(holding)
		<-release
		log.add("work answered")
		return nil, nil
	})
	opts, marker := markerRead()
	c, p := newRawPeer(t, h, opts)
	call := c.Call(ctx, "session/prompt", nil)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":"w","method":"work"}`)
	recvFrom(t, holding, "the handler to hold the line")
	p.send(`{"jsonrpc":"2.0","method":"note"}`, `{"jsonrpc":"2.0","id":1,"result":"done"}`, "marker")
	recvFrom(t, marker, "the marker line") // the answer has been read
	select {
	case <-call.Done():
		t.Fatal("the call completed while the handler before its answer held the line")
	default:
	}
	close(release)
	if err := call.Await(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"work answered", "note"}, log.get()); diff != "" {
		t.Errorf("events when Await returned (-want +got):\n%s", diff)
	}
}

// TestViolationsInStreamOrder: a protocol violation is reported in its
// line's place in the stream, after the messages before it were handled
// and before those after it, however far the reader is ahead: a line that
// is not JSON, one with invalid UTF-8 (reported, then its message
// handled) and an answer to an unknown id, read while a handler holds the
// line.
func TestViolationsInStreamOrder(t *testing.T) {
	checkLeaks(t)
	var log orderLog
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p struct{ N string }
		_ = json.Unmarshal(req.Params, &p)
		if p.N == "1" {
			<-release
		}
		log.add("note %s", p.N)
		return nil, nil
	})
	opts, marker := markerRead()
	opts.OnViolation = func(v Violation) { log.add("violation %.20s", v.Line) }
	c, p := newRawPeer(t, h, opts)
	p.send(`{"jsonrpc":"2.0","method":"n","params":{"n":"1"}}`,
		"not json",
		`{"jsonrpc":"2.0","method":"n","params":{"n":"2`+"\xff"+`"}}`,
		`{"jsonrpc":"2.0","id":99,"result":null}`,
		`{"jsonrpc":"2.0","method":"n","params":{"n":"3"}}`,
		"marker")
	recvFrom(t, marker, "the marker line") // every line has been read
	if got := log.get(); len(got) != 0 {
		t.Errorf("reported while the first notification's handler held the line: %q", got)
	}
	close(release)
	p.nc.Close() // the end of the stream: Done once everything read is handled
	recvFrom(t, c.Done(), "everything handled")
	want := []string{
		"note 1",
		"violation not json",
		`violation {"jsonrpc":"2.0","me`,
		"note 2\uFFFD",
		`violation {"jsonrpc":"2.0","id`,
		"note 3",
		"violation marker",
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("what was handled and reported, in order (-want +got):\n%s", diff)
	}
}
