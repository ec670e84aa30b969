package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// DefaultMaxLineBytes is the longest line a Conn accepts unless
// Options.MaxLineBytes says otherwise.
const DefaultMaxLineBytes = 64 << 20

const (
	excerptBytes = 200      // how much of a bad line a Violation keeps
	readBufBytes = 64 << 10 // lines up to this size are decoded in place
	keepBufBytes = 1 << 20  // larger line buffers are dropped after use
)

// Handler handles incoming requests and notifications.
//
// For a request, the returned result is sent back (nil as null); an *Error
// is sent as that error and any other error as -32603 with its message. For
// a notification the return values are ignored.
//
// Notifications are handled one at a time in arrival order on one goroutine;
// a notification handler that waits for the answer to one of our calls
// therefore deadlocks. Each request runs in its own goroutine. ctx ends when
// the Conn is closed.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

var _ Handler = HandlerFunc(nil)

// Direction says which way a line travelled.
type Direction string

// Directions passed to Options.Tap.
const (
	Sent     Direction = "sent"
	Received Direction = "received"
)

// Options configures a Conn. The zero value (or a nil *Options) gives the
// defaults.
type Options struct {
	// MaxLineBytes is the longest incoming line accepted, without its
	// newline; 0 means DefaultMaxLineBytes. A longer line is reported to
	// OnViolation and skipped.
	MaxLineBytes int

	// Peer names the other side in errors, e.g. "agent" gives
	// "acp: connection closed: agent closed its output (EOF)". Default "peer".
	Peer string

	// Tap, when set, sees every line both ways (without the trailing
	// newline) with a timestamp. It is called synchronously, from the
	// reading goroutine or under the write lock, and must not retain line.
	// A line over MaxLineBytes is not tapped (OnViolation reports it).
	Tap func(dir Direction, line []byte, at time.Time)

	// OnViolation, when set, is told about protocol violations: a line that
	// is not JSON-RPC, a line over MaxLineBytes, a response to an unknown id.
	// It is called from the reading goroutine and should return quickly.
	OnViolation func(v Violation)
}

// Violation describes an incoming line that broke the protocol. The line is
// skipped and the connection goes on.
type Violation struct {
	Msg  string // what is wrong, with the quoted (truncated) line and its size
	Line []byte // the start of the line (at most about 200 bytes), a copy
	Size int    // the length of the whole line in bytes
}

// Conn is a JSON-RPC 2.0 connection over newline-delimited JSON. It is
// symmetric: both sides send requests and notifications. Its methods are safe
// for concurrent use.
type Conn struct {
	r           io.Reader
	w           io.Writer
	h           Handler
	maxLine     int
	peer        string
	tap         func(Direction, []byte, time.Time)
	onViolation func(Violation)

	// handlerCtx is the lifetime of the connection, passed to handlers and
	// cancelled by Close.
	handlerCtx context.Context
	cancel     context.CancelCauseFunc

	wsem chan struct{} // 1-buffered: holding it means owning the writer
	wbuf []byte        // guarded by wsem
	werr error         // guarded by wsem; sticky, the writer is broken

	closing atomic.Bool

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*Call // our calls still waiting for their answer
	queue    []inMsg         // read but not yet dispatched
	readDone bool            // the reader has queued its last message
	readErr  error           // why reading stopped; nil while running

	wake       chan struct{} // 1-buffered: the queue changed or Close began
	readerDone chan struct{}
	done       chan struct{}
	wg         sync.WaitGroup // every goroutine the Conn started

	closeOnce sync.Once
	closeErr  error
}

// inMsg is a decoded incoming message on its way to the dispatcher: a
// request or notification (req) or an answer to one of our calls (call).
type inMsg struct {
	req    *Request
	call   *Call
	result json.RawMessage
	err    error
}

// NewConn starts a connection reading messages from r and writing them to w.
// h handles incoming requests and notifications; if h is nil every request
// is answered with -32601 and notifications are dropped. opts may be nil.
//
// Close closes r and w when they are io.Closers; closing r must interrupt a
// pending Read (true for pipes and net.Conn), or Close waits until it
// returns.
func NewConn(r io.Reader, w io.Writer, h Handler, opts *Options) *Conn {
	if opts == nil {
		opts = &Options{}
	}
	c := &Conn{
		r:           r,
		w:           w,
		h:           h,
		maxLine:     opts.MaxLineBytes,
		peer:        opts.Peer,
		tap:         opts.Tap,
		onViolation: opts.OnViolation,
		wsem:        make(chan struct{}, 1),
		pending:     make(map[int64]*Call),
		wake:        make(chan struct{}, 1),
		readerDone:  make(chan struct{}),
		done:        make(chan struct{}),
	}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLineBytes
	}
	if c.peer == "" {
		c.peer = "peer"
	}
	c.handlerCtx, c.cancel = context.WithCancelCause(context.Background())
	c.wg.Add(2)
	go c.read()
	go c.dispatch()
	return c
}

// Call is one of our requests. Its answer arrives asynchronously.
type Call struct {
	id     int64
	method string
	done   chan struct{}

	// Guarded by Conn.mu until done is closed, then read-only.
	answered bool // the reader has queued the answer
	finished bool
	result   json.RawMessage
	err      error
}

// ID returns the request id sent for the call.
func (c *Call) ID() ID { return intID(c.id) }

// Done is closed once the answer (or the end of the connection) arrived.
func (c *Call) Done() <-chan struct{} { return c.done }

// Await waits for the answer and decodes its result into result (which may
// be nil). If ctx ends first it returns context.Cause(ctx) and the call stays
// pending: Await may be called again to get the answer. An error answer is
// returned as *Error; the end of the connection as an error wrapping
// ErrClosed that says why.
func (c *Call) Await(ctx context.Context, result any) error {
	select {
	case <-c.done:
	default:
		select {
		case <-c.done:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	if c.err != nil {
		return c.err
	}
	if result != nil {
		if err := json.Unmarshal(c.result, result); err != nil {
			return fmt.Errorf("acp: decode %s result: %w", c.method, err)
		}
	}
	return nil
}

// Call sends a request and returns without waiting for the answer; use
// Call.Await. ctx bounds only the sending. Failures to send (a closed
// connection, a write error, params that do not marshal) end the call at
// once.
func (c *Conn) Call(ctx context.Context, method string, params any) *Call {
	raw, merr := marshalValue(params)
	c.mu.Lock()
	c.nextID++
	call := &Call{id: c.nextID, method: method, done: make(chan struct{})}
	failed := true
	switch {
	case merr != nil:
		c.finishLocked(call, nil, fmt.Errorf("acp: %s params: %w", method, merr))
	case c.readErr != nil:
		c.finishLocked(call, nil, c.readErr)
	default:
		c.pending[call.id] = call
		failed = false
	}
	c.mu.Unlock()
	if failed {
		return call
	}
	m := message{id: call.ID().raw, method: method, params: raw}
	if err := c.send(ctx, &m); err != nil {
		c.mu.Lock()
		delete(c.pending, call.id)
		c.finishLocked(call, nil, err)
		c.mu.Unlock()
	}
	return call
}

// Notify sends a notification. ctx bounds waiting for the writer.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalValue(params)
	if err != nil {
		return fmt.Errorf("acp: %s params: %w", method, err)
	}
	return c.send(ctx, &message{method: method, params: raw})
}

// Done is closed when reading has stopped (end of stream, read error or
// Close), every message read before has been dispatched and pending calls
// were ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why reading stopped, or nil while the connection runs. It
// wraps ErrClosed.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// Close ends the connection: it closes r and w if they are io.Closers, ends
// pending calls with ErrClosed, cancels the contexts of running handlers and
// waits for every goroutine the Conn started, including handlers. It must not
// be called from a Handler. Close is idempotent and safe to call
// concurrently; it returns the error of closing r or w.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.cancel(ErrClosed)
		c.mu.Lock()
		if c.readErr == nil {
			c.readErr = ErrClosed
		}
		for id, call := range c.pending {
			delete(c.pending, id)
			c.finishLocked(call, nil, ErrClosed)
		}
		c.mu.Unlock()
		c.signal()
		var errs []error
		if wc, ok := c.w.(io.Closer); ok {
			errs = append(errs, closeQuietly(wc))
		}
		if rc, ok := c.r.(io.Closer); ok {
			errs = append(errs, closeQuietly(rc))
		}
		c.closeErr = errors.Join(errs...)
	})
	c.wg.Wait()
	return c.closeErr
}

// closeQuietly closes cl, ignoring that it was already closed (r and w are
// often the same object).
func closeQuietly(cl io.Closer) error {
	err := cl.Close()
	if errors.Is(err, os.ErrClosed) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("acp: close: %w", err)
	}
	return nil
}

// finishLocked ends call once; c.mu must be held.
func (c *Conn) finishLocked(call *Call, result json.RawMessage, err error) {
	if call.finished {
		return
	}
	call.finished = true
	call.result, call.err = result, err
	close(call.done)
}

// signal wakes the dispatcher.
func (c *Conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// deadliner is a writer whose blocked writes can be cut short (os.File
// pipes, net.Conn).
type deadliner interface {
	SetWriteDeadline(t time.Time) error
}

// write writes buf. When ctx ends while the peer does not read (a full
// pipe), a writer with deadlines is cut short, so that no deadline and no
// interrupt is ever stuck behind a write.
func (c *Conn) write(ctx context.Context, buf []byte) (int, error) {
	d, ok := c.w.(deadliner)
	if !ok || ctx.Done() == nil {
		return c.w.Write(buf)
	}
	var mu sync.Mutex
	cut := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		cut = true
		_ = d.SetWriteDeadline(time.Unix(1, 0))
	})
	n, err := c.w.Write(buf)
	stop()
	mu.Lock()
	defer mu.Unlock()
	if cut {
		if err == nil {
			// The line went out whole before the deadline bit: the
			// stream is sound, so later writes may block again.
			_ = d.SetWriteDeadline(time.Time{})
			return n, nil
		}
		// Part of a line may be out: the error stays (see send).
		return n, fmt.Errorf("%w (%w)", err, context.Cause(ctx))
	}
	return n, err
}

// send writes one message as a line. Writes are serialised; after a write
// error every later write fails with it, since a partial line may have gone
// out.
func (c *Conn) send(ctx context.Context, m *message) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	select {
	case c.wsem <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-c.wsem }()
	if c.closing.Load() {
		return ErrClosed
	}
	if c.werr != nil {
		return c.werr
	}
	buf := appendMessage(c.wbuf[:0], m)
	if c.tap != nil {
		c.tap(Sent, buf, time.Now())
	}
	buf = append(buf, '\n')
	_, err := c.write(ctx, buf)
	if cap(buf) <= keepBufBytes {
		c.wbuf = buf[:0]
	} else {
		c.wbuf = nil
	}
	if err != nil {
		if c.closing.Load() {
			return ErrClosed
		}
		c.werr = fmt.Errorf("acp: write to %s: %w", c.peer, err)
		return c.werr
	}
	return nil
}

// read is the reading goroutine: it splits the stream into lines, decodes
// them and queues them for the dispatcher. It never waits for handlers.
func (c *Conn) read() {
	defer c.wg.Done()
	defer close(c.readerDone)
	lr := &lineReader{br: bufio.NewReaderSize(c.r, readBufBytes), max: c.maxLine}
	dec := newDecoder()
	for {
		line, size, over, err := lr.next()
		if err == nil && c.closing.Load() {
			err = ErrClosed
		}
		if err != nil {
			c.endReading(err)
			return
		}
		if over {
			c.violate(fmt.Sprintf("line exceeds %d bytes; skipped", c.maxLine), line, size)
			continue
		}
		if c.tap != nil {
			c.tap(Received, line, time.Now())
		}
		if isBlank(line) {
			continue
		}
		c.receive(dec, line)
	}
}

// receive decodes one line and queues it.
func (c *Conn) receive(dec *decoder, line []byte) {
	m, err := dec.decode(line)
	if errors.Is(err, errInvalidRequest) {
		c.violate(err.Error(), line, len(line))
		req := &Request{ID: &ID{raw: m.id}, Method: m.method}
		c.enqueue(inMsg{req: req, err: NewError(CodeInvalidRequest, "%v", err)})
		return
	}
	if err == nil && m.method != "" {
		req := &Request{Method: m.method, Params: m.params}
		if m.id != nil {
			req.ID = &ID{raw: m.id}
		}
		c.enqueue(inMsg{req: req})
		return
	}
	if m.id == nil { // not even a response we can attribute
		c.violate("invalid JSON-RPC message: "+err.Error(), line, len(line))
		return
	}
	var call *Call
	n, ours := parseOurID(m.id)
	c.mu.Lock()
	if ours {
		call = c.pending[n]
	}
	if call == nil || call.answered {
		c.mu.Unlock()
		msg := "response to unknown id " + string(m.id)
		if err != nil {
			msg = "invalid response to unknown id " + string(m.id) + ": " + err.Error()
		}
		c.violate(msg, line, len(line))
		return
	}
	call.answered = true
	in := inMsg{call: call, result: m.result}
	switch {
	case err != nil:
		in.err = fmt.Errorf("acp: %s: invalid response: %w", call.method, err)
	case m.err != nil:
		in.err = m.err
	}
	c.queue = append(c.queue, in)
	c.mu.Unlock()
	c.signal()
	if err != nil {
		c.violate("invalid JSON-RPC response: "+err.Error(), line, len(line))
	}
}

func (c *Conn) enqueue(in inMsg) {
	c.mu.Lock()
	c.queue = append(c.queue, in)
	c.mu.Unlock()
	c.signal()
}

// endReading records why reading stopped and at once ends the pending calls
// whose answer has not been read; answers already queued are still
// delivered in order.
func (c *Conn) endReading(err error) {
	c.mu.Lock()
	if c.readErr == nil {
		switch {
		case errors.Is(err, io.EOF):
			c.readErr = &closedError{reason: c.peer + " closed its output (EOF)", cause: err}
		default:
			c.readErr = &closedError{reason: "read from " + c.peer + ": " + err.Error(), cause: err}
		}
	}
	for id, call := range c.pending {
		if !call.answered {
			delete(c.pending, id)
			c.finishLocked(call, nil, c.readErr)
		}
	}
	c.readDone = true
	c.mu.Unlock()
	c.signal()
}

// dispatch is the dispatcher goroutine: it takes queued messages in batches
// and handles them in order. Notifications run here, one at a time; each
// request gets its own goroutine; answers complete their calls.
func (c *Conn) dispatch() {
	defer c.wg.Done()
	var batch []inMsg
	for !c.closing.Load() {
		clear(batch)
		c.mu.Lock()
		batch, c.queue = c.queue, batch[:0]
		ended := c.readDone
		c.mu.Unlock()
		for i := range batch {
			if c.closing.Load() {
				break
			}
			c.handle(&batch[i])
		}
		if len(batch) == 0 {
			if ended {
				break
			}
			<-c.wake
		}
	}
	<-c.readerDone
	c.mu.Lock()
	for id, call := range c.pending {
		delete(c.pending, id)
		c.finishLocked(call, nil, c.readErr)
	}
	c.queue = nil
	c.mu.Unlock()
	close(c.done)
}

func (c *Conn) handle(in *inMsg) {
	switch {
	case in.call != nil:
		c.mu.Lock()
		delete(c.pending, in.call.id)
		c.finishLocked(in.call, in.result, in.err)
		c.mu.Unlock()
	case in.req.ID == nil:
		if c.h != nil {
			_, _ = c.h.Handle(c.handlerCtx, in.req)
		}
	default:
		c.wg.Add(1)
		go c.serve(in.req, in.err)
	}
}

// serve runs the handler for one request and sends its answer; a request
// that was invalid (invalid != nil) is answered with that error.
func (c *Conn) serve(req *Request, invalid error) {
	defer c.wg.Done()
	resp := message{id: req.ID.raw}
	var result any
	var err error
	if invalid != nil {
		err = invalid
	} else if c.h == nil {
		err = MethodNotFound(req.Method)
	} else {
		result, err = c.h.Handle(c.handlerCtx, req)
	}
	if err == nil {
		resp.result, err = marshalValue(result)
		if err != nil {
			err = fmt.Errorf("marshal result: %w", err)
		}
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e == nil {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		resp.err = e
	}
	// A failed write leaves nobody to tell; the reader sees the end.
	_ = c.send(c.handlerCtx, &resp)
}

// violate reports a protocol violation with the start of the line quoted.
func (c *Conn) violate(msg string, line []byte, size int) {
	if c.onViolation == nil {
		return
	}
	ex := line
	if len(ex) > excerptBytes {
		cut := excerptBytes
		for cut > excerptBytes-utf8.UTFMax && !utf8.RuneStart(ex[cut]) {
			cut--
		}
		ex = ex[:cut]
	}
	ex = append([]byte(nil), ex...)
	q := strconv.Quote(string(ex))
	if len(ex) < size {
		q += "…"
	}
	c.onViolation(Violation{Msg: fmt.Sprintf("%s: %s (%d bytes)", msg, q, size), Line: ex, Size: size})
}

// lineReader splits a stream into lines of any length up to max.
type lineReader struct {
	br  *bufio.Reader
	max int
	acc []byte // a line longer than the bufio buffer, or an excerpt
	err error  // sticky end of stream
}

// next returns the next line without its '\n'; it is valid until the next
// call. A line longer than max comes back as its first bytes with over set;
// the rest is discarded. size is always the whole line's length. err
// (io.EOF or a read error) comes only when no line is left: a last line
// without '\n' is returned first.
func (lr *lineReader) next() (line []byte, size int, over bool, err error) {
	if lr.err != nil {
		return nil, 0, false, lr.err
	}
	if cap(lr.acc) > keepBufBytes {
		lr.acc = nil
	}
	lr.acc = lr.acc[:0]
	for {
		frag, rerr := lr.br.ReadSlice('\n')
		complete := rerr == nil
		if complete {
			frag = frag[:len(frag)-1]
		}
		size += len(frag)
		switch {
		case over:
		case size > lr.max:
			over = true
			keep := min(len(lr.acc), excerptBytes)
			lr.acc = append(lr.acc[:keep], frag[:min(len(frag), excerptBytes-keep)]...)
		case complete && len(lr.acc) == 0:
			return frag, size, false, nil // the common case: decoded in place
		default:
			lr.acc = append(lr.acc, frag...)
		}
		if complete {
			return lr.acc, size, over, nil
		}
		if rerr != bufio.ErrBufferFull {
			lr.err = rerr
			if size == 0 {
				return nil, 0, false, rerr
			}
			return lr.acc, size, over, nil
		}
	}
}
