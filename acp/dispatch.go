package acp

import (
	"context"
	"errors"

	json "github.com/go-json-experiment/json/v1"
)

// Handler handles incoming requests and notifications.
//
// Messages are handled one at a time, in the order they arrive: a
// notification's Handle, a request's Handle until it returns or calls
// Async, and the completion of one of our calls by its answer (when
// Call.Await returns the answer, every message that came before it has been
// handled). A request handler that returns without calling Async holds
// the line until its answer is written.
//
// A handler that must wait (for a timer, a process, another message) calls
// Async once its ordered part is done: the messages behind it are then
// handled while it goes on, and its answer is written whenever it returns.
// A request handler that holds the line may wait for the answers to the
// calls it sends with its own ctx (see Conn.Send); waiting for anything
// else that comes on the stream deadlocks. While a handler runs, the
// reader goes on up to a few thousand messages or 16 MiB of lines, then
// waits: a peer that floods a slow handler fills the pipe, not memory. It goes on without
// bound only while an answer cannot be written because the peer does not
// read, while the handler holding the line has a call pending, or once
// ReadToEnd was called (the peer has exited).
//
// For a request, the returned result is sent back (nil as null); an *Error
// is sent as that error and any other error as -32603 with its message. For
// a notification the return values are ignored. ctx ends when the Conn is
// closed.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

var _ Handler = HandlerFunc(nil)

// Async, called by a request handler, lets the Conn go on to the next
// message while the handler keeps running: the rest of the handler runs
// concurrently with the messages after it, and its answer is written
// whenever it returns. Everything the handler did before Async happened
// before the next message is handled. Calling Async again, after the
// handler returned, or from a notification handler does nothing. ctx is
// the handler's context, or one derived from it.
func Async(ctx context.Context) {
	if t, ok := ctx.Value(turnKey{}).(*turn); ok {
		t.c.release(t)
	}
}

// AfterAnswer, called by a request handler (not by a goroutine it
// started), has f called once the handler's answer has been written, with
// nil, or once its write has failed, with the write's error (ErrClosed
// once the Conn is closing): a handler that calls Async learns when its
// answer is out, and whether the peer can have it. It reports whether f
// will be called; false when ctx is not a request handler's.
func AfterAnswer(ctx context.Context, f func(written error)) bool {
	t, ok := ctx.Value(turnKey{}).(*turn)
	if ok {
		t.after = append(t.after, f)
	}
	return ok
}

// turnKey is the context key of a request handler's turn.
type turnKey struct{}

// turn is a request handler's hold on the line.
type turn struct {
	c     *Conn
	async bool          // Async released the line; guarded by c.mu
	after []func(error) // called once the answer is out (AfterAnswer); the handler's goroutine's
}

// release ends t's hold on the line, if it still holds it, and starts a
// dispatcher for the messages behind it.
func (c *Conn) release(t *turn) {
	released := false
	c.update(func(s *state) {
		if s.holder == t {
			s.holder, t.async, released = nil, true, true
			s.lag.handled++
			s.lag.track()
		}
	})
	if released {
		c.wg.Add(1)
		go c.dispatch()
	}
}

// dispatch is the dispatcher: it handles the queued messages one at a time,
// in stream order, until a request handler calls Async (a new dispatcher
// then goes on) or no message is left and none will come. The last one
// ends the pending calls and closes Done.
func (c *Conn) dispatch() {
	defer c.wg.Done()
	handled := false
	for {
		in, ok := c.next(handled)
		if !ok {
			close(c.done)
			return
		}
		if handled = c.handle(&in); !handled {
			return
		}
	}
}

// next counts the message dispatched last as handled, if handled says
// so, then takes the next message to dispatch, waiting for one. ok is
// false once there is none and none will come: reading stopped and every
// message read was dispatched, and the pending calls were ended; or Close
// began, and the messages not dispatched were dropped.
func (c *Conn) next(handled bool) (in inMsg, ok bool) {
	if handled {
		c.countHandled()
	}
	c.wait(func(s *state) bool {
		return len(s.queue) > 0 || s.readDone || c.closing()
	}, func(s *state) {
		switch {
		case c.closing():
			s.dropped += len(s.queue)
			s.queue, s.queued = nil, 0
		case len(s.queue) > 0:
			in, ok = s.queue[0], true
			s.queued -= in.size
			s.queue[0] = inMsg{}
			s.queue = s.queue[1:]
		default:
			s.endCalls()
		}
	})
	return in, ok
}

// countHandled counts one more message as handled; it wakes the callers
// of WaitHandled and CatchUp, if any wait.
func (c *Conn) countHandled() {
	c.mu.Lock()
	l := &c.st.lag
	l.handled++
	l.track()
	wake := l.waiters > 0
	c.mu.Unlock()
	if wake {
		c.changed.Broadcast()
	}
}

// handle dispatches one message. It reports false when a request handler
// called Async: the dispatching goes on in another goroutine.
func (c *Conn) handle(in *inMsg) bool {
	for _, v := range in.violations {
		c.onViolation(v)
	}
	switch {
	case in.req == nil && in.call == nil: // a line that was only a violation
	case in.call != nil:
		c.update(func(s *state) {
			delete(s.pending, in.call.id)
			in.call.finish(in.result, in.err)
		})
	case in.req.ID == nil:
		if c.h != nil {
			_, _ = c.h.Handle(c.ctx, in.req)
		}
	case in.err != nil: // invalid: answered by the Conn
		_ = c.reply(in.req, nil, in.err)
	case c.h == nil:
		_ = c.reply(in.req, nil, MethodNotFound(in.req.Method))
	default:
		t := &turn{c: c}
		c.update(func(s *state) { s.holder = t })
		result, err := c.h.Handle(context.WithValue(c.ctx, turnKey{}, t), in.req)
		async := false
		c.update(func(s *state) {
			if s.holder == t {
				s.holder = nil
			}
			async = t.async
		})
		written := c.reply(in.req, result, err) // in its place, unless async
		for _, f := range t.after {
			f(written)
		}
		return !async
	}
	return true
}

// Answered reports whether the reader has read the call's answer. The
// answer may still wait to be dispatched behind the messages read before
// it (Done closes once it is): checked just before writing a message, it
// says that the answer came first, whatever the scheduling of the
// handlers, and so cannot be the peer's response to that message.
func (c *Call) Answered() bool {
	c.conn.mu.Lock()
	defer c.conn.mu.Unlock()
	return c.answered
}

// reply sends the answer to req made of a handler's result and error: an
// *Error is sent as that error, any other error (or a result that does not
// marshal) as -32603 with its message. Meanwhile the reader goes on without
// bound: a peer that writes without reading what it is sent must not wait
// for us to read while we wait for it to read, whether the dispatcher
// writes the answer or a handler that called Async does (the handler that
// holds the line may wait for that answer). It returns the write's error:
// the peer is not told of a failed write (the reader sees the end), the
// handler may be (AfterAnswer).
func (c *Conn) reply(req *Request, result any, err error) error {
	c.update(func(s *state) { s.answering++ })
	defer c.update(func(s *state) { s.answering-- })
	resp := outgoing{ID: req.ID.raw, Result: result}
	if err == nil && result == nil {
		resp.Result = json.RawMessage("null")
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e == nil {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		if len(e.Data) > 0 && !json.Valid(e.Data) { // left out, or the line would not encode
			e = &Error{Code: e.Code, Message: e.Message}
		}
		resp.Result, resp.Error = nil, e
	}
	return c.send(c.ctx, &resp)
}
