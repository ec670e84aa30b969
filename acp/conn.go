package acp

import (
	"bufio"
	"bytes"
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
	"syscall"
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
	flushEvery   = 256      // the reader hands over its messages at least this often
	// maxQueued bounds the messages read and not yet taken by the
	// dispatcher: past it the reader waits, so that a peer that floods a
	// slow handler fills the pipe, not memory.
	maxQueued = 4096
)

// Handler handles incoming requests and notifications.
//
// For a request, the returned result is sent back (nil as null); an *Error
// is sent as that error and any other error as -32603 with its message. For
// a notification the return values are ignored.
//
// Notifications are handled one at a time in arrival order on one goroutine;
// a notification handler that waits for the answer to one of our calls
// therefore deadlocks, and one that blocks stops the reading once a few
// thousand messages wait behind it (the peer's writes then block, instead
// of the memory growing). Each request runs in its own goroutine (unless a
// QuickHandler answers it at once); by default requests run concurrently,
// but with Options.Ordered each waits for the one before it (see Async).
// ctx ends when the Conn is closed.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

var _ Handler = HandlerFunc(nil)

// Receiver is an optional interface of a Handler that wants to see each
// incoming request in stream order. The Conn calls Received(req) as it
// dispatches, one message at a time, in arrival order with the
// notifications and the answers to our calls, just before it calls
// QuickHandler.HandleQuick or starts the goroutine that calls Handle with
// the same *Request. So when Call.Await returns, Received has run for every
// request that arrived before the answer.
//
// Received is called for every request that is passed to Handle (not for
// notifications, nor for invalid requests answered with -32600). It blocks
// the dispatching of everything behind it, and may be called from the
// reading goroutine: it must return quickly and must not wait for the
// answer to one of our calls. With Options.Ordered the
// request is then queued for its turn, so Handle may start much later.
type Receiver interface {
	Received(req *Request)
}

// QuickHandler is an optional interface of a Handler that can answer some
// requests at once, on the goroutine that dispatches them, which saves
// handing each one to a goroutine of its own (most of the cost of a
// request that the handler answers without waiting). On a Conn without
// Options.Ordered, the Conn calls HandleQuick(req) for every request it
// would pass to Handle, right after Receiver.Received; ok false declines,
// and the request is then served as usual, by Handle in its own goroutine.
// With ok true, result and err are the answer, as Handle's would be, and
// Handle is not called for req.
//
// HandleQuick runs on the reading or the dispatching goroutine, in stream
// order with the other messages: it must not block and must not wait for
// anything, not for the peer, another message, the answer to one of our
// calls, a timer, a context or another handler. It may take locks that are
// only ever held briefly. A handler that would have to wait declines.
//
// The answer is written at once when the writer is free and the peer's
// input can take the whole line without blocking (a writer that is a
// non-blocking, pollable file, such as an os.Pipe or an exec pipe, see
// syscall.Conn); otherwise a goroutine writes it, or the rest of it, so
// that the reading never waits for the peer to read.
type QuickHandler interface {
	HandleQuick(req *Request) (result any, ok bool, err error)
}

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
	// An outgoing line is tapped just before it is written, so that a
	// transcript keeps requests ahead of their answers; a write that then
	// fails before any byte went out (its context ended first) is tapped
	// all the same.
	// An incoming line is tapped after invalid UTF-8 in it was replaced, so
	// Tap always sees valid UTF-8. A line over MaxLineBytes is not tapped
	// (OnViolation reports it).
	Tap func(dir Direction, line []byte, at time.Time)

	// OnViolation, when set, is told about protocol violations: a line that
	// is not JSON-RPC, a line over MaxLineBytes, a line with invalid UTF-8
	// (which is then replaced and the line used), a response to an unknown
	// id, a line cut short by StopReading. It is called from the reading
	// goroutine and should return quickly.
	OnViolation func(v Violation)

	// Ordered makes the Conn handle requests one at a time in arrival
	// order, interleaved with the notifications and the answers to our
	// calls: each message waits until the request before it has been
	// answered (its handler returned and the answer was written) or its
	// handler called Async. A handler that must keep running while later
	// messages are handled (a long task that waits for a cancel
	// notification) calls Async once its ordered part is done.
	//
	// Reading never waits for handlers, and while a request handler holds
	// the line the answers to our calls that arrive complete their calls at
	// once, ahead of the messages queued before them: an ordered handler may
	// wait for the answer to one of its calls. It must not wait for a later
	// request or notification without calling Async first, since those are
	// handled only after it. Otherwise an answer completes its call in its
	// place in the stream, after the messages before it were handled.
	//
	// Without Ordered every request handler starts at once in its own
	// goroutine and runs concurrently with everything else.
	Ordered bool
}

// Async, called by a request handler of a Conn with Options.Ordered, lets
// the Conn go on to the next message while the handler keeps running: the
// rest of the handler runs concurrently with the messages after it, and its
// answer is written whenever it returns. Everything the handler did before
// Async happened before the next message is handled. Calling Async again,
// from a notification handler, or on an unordered Conn does nothing. ctx is
// the handler's context, or one derived from it.
func Async(ctx context.Context) {
	if t, ok := ctx.Value(turnKey{}).(*turn); ok {
		t.end()
	}
}

// turnKey is the context key of an ordered request's turn.
type turnKey struct{}

// turn is an ordered request's hold on the messages behind it.
type turn struct {
	once sync.Once
	done chan struct{} // closed when the next message may be handled
}

func (t *turn) end() { t.once.Do(func() { close(t.done) }) }

// Violation describes an incoming line that broke the protocol. Unless Msg
// says otherwise the line is skipped, and the connection goes on.
type Violation struct {
	Msg  string // what is wrong, with the quoted (truncated) line and its size
	Line []byte // the start of the line (at most about 200 bytes, valid UTF-8), a copy
	Size int    // the length of the whole line in bytes
}

// Conn is a JSON-RPC 2.0 connection over newline-delimited JSON. It is
// symmetric: both sides send requests and notifications. Its methods are safe
// for concurrent use.
type Conn struct {
	r           io.Reader
	w           io.Writer
	h           Handler
	recv        Receiver        // h, when it implements Receiver
	qh          QuickHandler    // h, when it implements QuickHandler and the Conn is unordered
	raw         syscall.RawConn // w, when it is a non-blocking pollable file; else nil
	maxLine     int
	peer        string
	tap         func(Direction, []byte, time.Time)
	onViolation func(Violation)
	ordered     bool

	// handlerCtx is the lifetime of the connection, passed to handlers and
	// cancelled by Close.
	handlerCtx context.Context
	cancel     context.CancelCauseFunc

	wsem chan struct{} // 1-buffered: holding it means owning the writer
	wbuf []byte        // guarded by wsem
	werr error         // guarded by wsem; sticky, the writer is broken

	closing  atomic.Bool // Close began: stop reading and dispatching now
	spare    chan job    // unbuffered: the idle serving goroutine waits here
	hasSpare atomic.Bool // a serving goroutine is (about to be) the spare
	stopping atomic.Bool // StopReading began: stop reading, dispatch what was read

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*Call // our calls still waiting for their answer
	queue    []inMsg         // read but not yet dispatched
	room     *sync.Cond      // on mu: the dispatcher took the queue, or Close began
	readDone bool            // the reader has queued its last message
	// busy says that the dispatcher took messages and may not have
	// dispatched them all yet; while it is false and the queue is empty the
	// reader may dispatch a batch itself (see flush).
	busy    bool
	readErr error // why reading stopped; nil while running
	ended   bool  // the dispatcher is finished: no call can be answered
	dropped int   // messages read but not dispatched because of Close

	// With Options.Ordered, the messages (requests, notifications and
	// answers to our calls) dispatched but not yet handled, in order
	// (guarded by mu):
	inOrder       []inMsg
	inOrderDone   bool          // the dispatcher queues nothing more
	answersQueued int           // answers to our calls in inOrder
	orderWake     chan struct{} // 1-buffered: inOrder changed or Close began
	orderDone     chan struct{} // closed when the ordered handling goroutine ends

	wake       chan struct{} // 1-buffered: the queue changed or Close began
	readerDone chan struct{}
	done       chan struct{}
	wg         sync.WaitGroup // every goroutine the Conn started

	closeOnce sync.Once
	closeErr  error
	stopOnce  sync.Once
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
		ordered:     opts.Ordered,
		wsem:        make(chan struct{}, 1),
		spare:       make(chan job),
		pending:     make(map[int64]*Call),
		wake:        make(chan struct{}, 1),
		readerDone:  make(chan struct{}),
		done:        make(chan struct{}),
	}
	c.recv, _ = h.(Receiver)
	if !c.ordered {
		c.qh, _ = h.(QuickHandler)
	}
	c.raw = nonBlocking(w)
	c.room = sync.NewCond(&c.mu)
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLineBytes
	}
	if c.peer == "" {
		c.peer = "peer"
	}
	c.handlerCtx, c.cancel = context.WithCancelCause(context.Background())
	if c.ordered {
		c.orderWake = make(chan struct{}, 1)
		c.orderDone = make(chan struct{})
		c.wg.Add(1)
		go c.handleInOrder()
	}
	c.wg.Add(2)
	go c.read()
	go c.dispatch()
	return c
}

// Call is one of our requests. Its answer arrives asynchronously.
type Call struct {
	conn   *Conn
	id     int64
	method string
	done   chan struct{}

	// Guarded by Conn.mu until done is closed, then read-only.
	params   json.RawMessage // until Send
	sent     bool            // Send was called
	answered bool            // the reader has queued the answer
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

// NewCall prepares a request without writing it: it assigns the id,
// marshals params and registers the call as pending, so that its answer is
// recognised from the moment Send starts writing. Params that do not marshal
// or a connection that is closed end the call at once. A call made after
// reading stopped (end of stream, StopReading) ends once every message read
// before has been dispatched.
//
// Every call from NewCall must be passed to Send, or it stays pending until
// the connection ends.
func (c *Conn) NewCall(method string, params any) *Call {
	raw, merr := marshalValue(params)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	call := &Call{conn: c, id: c.nextID, method: method, params: raw, done: make(chan struct{})}
	switch {
	case merr != nil:
		c.finishLocked(call, nil, fmt.Errorf("acp: %s params: %w", method, merr))
	case c.ended || c.closing.Load():
		err := c.readErr
		if err == nil { // Close has begun but not yet recorded it
			err = ErrClosed
		}
		c.finishLocked(call, nil, err)
	default:
		// After the end of stream the dispatcher ends it, in order.
		c.pending[call.id] = call
	}
	return call
}

// Send writes a call made by NewCall. ctx bounds only the writing (and the
// wait for the writer): once the line is out, the call waits for its answer
// whatever ctx does. A failure to write ends the call at once with that
// error. Send returns when the line is written or the write failed; the
// answer can be dispatched, and Await return, as soon as Send starts writing,
// even before Send returns. A call that already ended, or whose answer can no
// longer be read because reading stopped, is not written. Calling Send again
// for the same call does nothing.
func (c *Conn) Send(ctx context.Context, call *Call) {
	if call.conn != c {
		panic("acp: Send of a call made by another Conn")
	}
	c.mu.Lock()
	skip := call.sent || call.finished || c.readErr != nil
	call.sent = true
	params := call.params
	call.params = nil
	c.mu.Unlock()
	if skip {
		return
	}
	m := message{ID: call.ID().raw, Method: call.method, Params: params}
	if err := c.send(ctx, &m); err != nil {
		c.mu.Lock()
		if c.pending[call.id] == call {
			delete(c.pending, call.id)
		}
		c.finishLocked(call, nil, err)
		c.mu.Unlock()
	}
}

// Call sends a request and returns without waiting for the answer; use
// Call.Await. It is NewCall followed by Send: ctx bounds only the sending,
// and failures to send (a closed connection, a write error, params that do
// not marshal) end the call at once.
func (c *Conn) Call(ctx context.Context, method string, params any) *Call {
	call := c.NewCall(method, params)
	c.Send(ctx, call)
	return call
}

// Notify sends a notification. ctx bounds waiting for the writer and the
// writing.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalValue(params)
	if err != nil {
		return fmt.Errorf("acp: %s params: %w", method, err)
	}
	return c.send(ctx, &message{Method: method, Params: raw})
}

// ReadDone is closed when the reader has stopped (end of stream, read error,
// StopReading or Close) and has queued every message it read. The messages
// may still be waiting to be dispatched: Done tells when they were.
func (c *Conn) ReadDone() <-chan struct{} { return c.readerDone }

// Done is closed when reading has stopped (end of stream, read error,
// StopReading or Close), every message read before has been dispatched
// (except those Close dropped, see Dropped) and pending calls were ended.
// With Options.Ordered it is closed once, in addition, every notification
// read has been handled and every request's handler has returned or called
// Async; the pending calls end as soon as every answer read has completed
// its call, so that a handler waiting for an answer that can no longer come
// goes on.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why reading stopped, or nil while the connection runs. It
// wraps ErrClosed.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// StopReading stops reading now, without dropping what was already read:
// the lines already read are still decoded and every message queued is
// dispatched in order; then the pending calls end with an error wrapping
// ErrClosed that says reading was stopped, and Done is closed. Use it to
// bound the wait for the end of a stream that another process may hold
// open (an agent's grandchild keeping its stdout).
//
// A pending Read is interrupted by a read deadline in the past when r
// supports one (os.File pipes, net.Conn), otherwise by closing r when it is
// an io.Closer; an r with neither stops once its Read returns. Bytes not yet
// read from r are not read; a line cut short is reported to OnViolation.
// Writing and running handlers go on until Close. StopReading does not wait;
// it is idempotent and safe to call concurrently with Close.
func (c *Conn) StopReading() {
	c.stopOnce.Do(func() {
		c.stopping.Store(true)
		if rd, ok := c.r.(interface{ SetReadDeadline(time.Time) error }); ok {
			if rd.SetReadDeadline(time.Unix(1, 0)) == nil {
				return
			}
		}
		if rc, ok := c.r.(io.Closer); ok {
			_ = closeQuietly(rc)
		}
	})
}

// Dropped returns how many incoming messages were read but never
// dispatched because Close came first: queued messages and whole lines the
// reader had read but not yet decoded. It is 0 when Close comes after Done.
// The count is final once Close has returned.
func (c *Conn) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// Close ends the connection now: it closes r and w if they are io.Closers,
// ends pending calls with an error wrapping ErrClosed, cancels the contexts
// of running handlers, drops the messages not yet dispatched (see Dropped)
// and waits for every goroutine the Conn started, including handlers. To
// handle everything already read first, wait for Done (after StopReading if
// the stream may not end). Close must not be called from a Handler. It is
// idempotent and safe to call concurrently; it returns the error of closing r
// or w.
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
			c.finishLocked(call, nil, c.readErr)
		}
		c.room.Broadcast() // a reader waiting for room stops
		c.mu.Unlock()
		c.signal()
		c.signalOrdered()
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
	call.params = nil
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

// signalOrdered wakes the ordered handling goroutine, if there is one.
func (c *Conn) signalOrdered() {
	if !c.ordered {
		return
	}
	select {
	case c.orderWake <- struct{}{}:
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
// interrupt is ever stuck behind a write. broken reports that part of buf
// may be out, so the stream can no longer be trusted.
func (c *Conn) write(ctx context.Context, buf []byte) (broken bool, err error) {
	d, ok := c.w.(deadliner)
	if !ok || ctx.Done() == nil {
		_, err = c.w.Write(buf)
		return err != nil, err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = d.SetWriteDeadline(time.Unix(1, 0))
	})
	n, err := c.w.Write(buf)
	if stop() {
		return err != nil, err // the deadline was never set
	}
	// The deadline is set, or about to be: wait for it, so that it cannot
	// land after this write and cut the next one short.
	<-fired
	if err == nil || n == 0 {
		// The line went out whole, or not at all, before the deadline bit:
		// the stream is sound and later writes may block again.
		_ = d.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		return n > 0, fmt.Errorf("%w (%w)", err, context.Cause(ctx))
	}
	return false, nil
}

// send writes one message as a line. Writes are serialised; after a write
// that failed part way every later write fails with its error, since part of
// a line went out.
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
	buf, err := c.line(m)
	if err != nil {
		return err
	}
	broken, err := c.write(ctx, buf)
	return c.wrote(buf, broken, err)
}

// line makes the line of m in the write buffer and shows it to the Tap.
// The caller owns the writer.
func (c *Conn) line(m *message) ([]byte, error) {
	buf, err := appendLine(c.wbuf[:0], *m)
	if err != nil {
		return nil, fmt.Errorf("acp: encode: %w", err)
	}
	if c.tap != nil {
		c.tap(Sent, buf[:len(buf)-1], time.Now())
	}
	return buf, nil
}

// wrote keeps the write buffer and turns the outcome of writing it into
// send's error. The caller owns the writer.
func (c *Conn) wrote(buf []byte, broken bool, err error) error {
	if cap(buf) <= keepBufBytes {
		c.wbuf = buf[:0]
	} else {
		c.wbuf = nil
	}
	if err != nil {
		if c.closing.Load() {
			return ErrClosed
		}
		err = fmt.Errorf("acp: write to %s: %w", c.peer, err)
		if broken {
			c.werr = err
		}
		return err
	}
	return nil
}

// trySend writes m without ever waiting: it takes the writer only when it
// is free, and writes only what the peer's input takes at once, leaving
// the rest of the line to a goroutine that keeps the writer until it is
// out, so that lines never interleave. It reports false, having done
// nothing, when the writer is busy or is not a file it can write without
// blocking; the caller then sends m as usual. As with send, a failed write
// is remembered for the later writes, and otherwise nobody is told.
func (c *Conn) trySend(m *message) bool {
	if c.raw == nil {
		return false
	}
	select {
	case c.wsem <- struct{}{}:
	default:
		return false
	}
	if c.closing.Load() || c.werr != nil {
		<-c.wsem // send would fail the same way, telling nobody
		return true
	}
	buf, err := c.line(m)
	if err != nil {
		<-c.wsem
		return true
	}
	n := writeOnce(c.raw, buf)
	if n == len(buf) {
		_ = c.wrote(buf, false, nil)
		<-c.wsem
		return true
	}
	// The pipe is full (or the write failed): the rest is written, and any
	// error made, as send would, without holding up the caller.
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() { <-c.wsem }()
		broken, err := c.write(c.handlerCtx, buf[n:])
		_ = c.wrote(buf, broken || n > 0 && err != nil, err)
	}()
	return true
}

// reader is the state of the reading goroutine.
type reader struct {
	c     *Conn
	lr    *lineReader
	batch []inMsg // decoded, not yet handed to the dispatcher
}

// read is the reading goroutine: it splits the stream into lines, decodes
// them and queues them for the dispatcher. It never waits for handlers.
// Messages are handed over in batches, at the latest before a Read that may
// block, so a message never waits for the next one.
func (c *Conn) read() {
	defer c.wg.Done()
	defer close(c.readerDone)
	rd := &reader{
		c:  c,
		lr: &lineReader{br: bufio.NewReaderSize(c.r, readBufBytes), max: c.maxLine},
	}
	for {
		whole := rd.lr.buffered()
		if !whole {
			rd.flush()
			if c.stopping.Load() {
				rd.cutShort()
				rd.end(errStopped)
				return
			}
		}
		line, size, last, over, err := rd.lr.next()
		if err == nil && c.closing.Load() {
			rd.drop(line)
			err = ErrClosed
		}
		if err != nil {
			rd.end(err)
			return
		}
		if last && c.stopping.Load() && !errors.Is(rd.lr.err, io.EOF) {
			c.violate("reading was stopped in the middle of a line; skipped", line, size)
			continue
		}
		if over {
			c.violate(fmt.Sprintf("line exceeds %d bytes; skipped", c.maxLine), line, size)
			continue
		}
		if !utf8.Valid(line) {
			line = c.repairUTF8(line, size)
		}
		if c.tap != nil {
			c.tap(Received, line, time.Now())
		}
		if isBlank(line) {
			continue
		}
		rd.receive(line)
		if len(rd.batch) >= flushEvery {
			rd.flush()
		}
	}
}

// errStopped is the read error after StopReading.
var errStopped = errors.New("reading was stopped")

// repairUTF8 returns line with each invalid UTF-8 sequence replaced by
// U+FFFD, and reports it.
func (c *Conn) repairUTF8(line []byte, size int) []byte {
	bad, first := 0, -1
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && n == 1 {
			if first < 0 {
				first = i
			}
			bad++
		}
		i += n
	}
	fixed := bytes.ToValidUTF8(line, []byte(string(utf8.RuneError)))
	c.report(fmt.Sprintf("invalid UTF-8 replaced with U+FFFD: %d bytes, the first at byte %d; line kept", bad, first), fixed, size, false)
	return fixed
}

// receive decodes one line and adds it to the batch.
func (rd *reader) receive(line []byte) {
	c := rd.c
	m, err := decode(line)
	if errors.Is(err, errInvalidRequest) {
		c.violate(err.Error(), line, len(line))
		req := &Request{ID: &ID{raw: m.ID}, Method: m.Method}
		rd.batch = append(rd.batch, inMsg{req: req, err: NewError(CodeInvalidRequest, "%v", err)})
		return
	}
	if err == nil && m.Method != "" {
		req := &Request{Method: m.Method, Params: m.Params}
		if m.ID != nil {
			req.ID = &ID{raw: m.ID}
		}
		rd.batch = append(rd.batch, inMsg{req: req})
		return
	}
	if m.ID == nil { // not even a response we can attribute
		c.violate("invalid JSON-RPC message: "+err.Error(), line, len(line))
		return
	}
	var call *Call
	n, ours := parseOurID(m.ID)
	c.mu.Lock()
	if ours {
		call = c.pending[n]
	}
	known := call != nil && !call.answered
	if known {
		call.answered = true
	}
	c.mu.Unlock()
	if !known {
		msg := "response to unknown id " + string(m.ID)
		if err != nil {
			msg = "invalid response to unknown id " + string(m.ID) + ": " + err.Error()
		}
		c.violate(msg, line, len(line))
		return
	}
	in := inMsg{call: call, result: m.Result}
	switch {
	case err != nil:
		in.err = fmt.Errorf("acp: %s: invalid response: %w", call.method, err)
	case m.Error != nil:
		in.err = m.Error
	}
	rd.batch = append(rd.batch, in)
	if err != nil {
		c.violate("invalid JSON-RPC response: "+err.Error(), line, len(line))
	}
}

// flush hands the batch to the dispatcher, once it has room for it: the
// dispatcher never waits for the stream (requests run in their own
// goroutines, ordered ones queue behind it), so it always makes room unless
// a notification handler blocks, which is already a deadlock.
func (rd *reader) flush() {
	if len(rd.batch) == 0 {
		return
	}
	c := rd.c
	c.mu.Lock()
	if !c.busy && len(c.queue) == 0 && c.quick(rd.batch) {
		// Everything before was dispatched and nothing in the batch runs a
		// handler here: dispatch it in place, in the same order, which
		// saves waking the dispatcher (most of the cost of a request and
		// its answer). Only the reader queues, so the dispatcher cannot
		// take anything meanwhile.
		c.mu.Unlock()
		c.dispatchBatch(rd.batch)
		clear(rd.batch)
		rd.batch = rd.batch[:0]
		return
	}
	for len(c.queue) >= maxQueued && !c.closing.Load() {
		c.room.Wait()
	}
	c.queue = append(c.queue, rd.batch...)
	c.mu.Unlock()
	clear(rd.batch)
	rd.batch = rd.batch[:0]
	c.signal()
}

// quick reports whether dispatching batch runs no handler on the
// dispatching goroutine: it holds requests (their handlers run in their own
// goroutines; Receiver.Received must return quickly) and answers to our
// calls, and notifications only when they are queued for the ordered
// handling goroutine.
func (c *Conn) quick(batch []inMsg) bool {
	if c.ordered || c.h == nil {
		return true
	}
	for i := range batch {
		if in := &batch[i]; in.call == nil && in.req.ID == nil {
			return false
		}
	}
	return true
}

// dispatchBatch dispatches messages in order; after Close began the rest
// are dropped.
func (c *Conn) dispatchBatch(batch []inMsg) {
	for i := range batch {
		if c.closing.Load() {
			c.mu.Lock()
			c.dropped += len(batch) - i
			c.mu.Unlock()
			return
		}
		c.handle(&batch[i])
	}
}

// drop counts a line read after Close began, and the whole lines still
// buffered, as dropped.
func (rd *reader) drop(line []byte) {
	n := rd.lr.bufferedLines()
	if !isBlank(line) {
		n++
	}
	rd.c.mu.Lock()
	rd.c.dropped += n
	rd.c.mu.Unlock()
}

// cutShort reports the start of a line that StopReading cut short.
func (rd *reader) cutShort() {
	rest := rd.lr.rest()
	if !isBlank(rest) {
		rd.c.violate("reading was stopped in the middle of a line; skipped", rest, len(rest))
	}
}

// end flushes the batch, then records why reading stopped. Pending calls are
// left to the dispatcher, which ends them once everything read before has
// been dispatched.
func (rd *reader) end(err error) {
	rd.flush()
	c := rd.c
	c.mu.Lock()
	if c.readErr == nil {
		switch {
		case errors.Is(err, io.EOF):
			c.readErr = &closedError{reason: c.peer + " closed its output (EOF)", cause: err}
		case c.stopping.Load():
			c.readErr = &closedError{reason: "reading from " + c.peer + " was stopped"}
		default:
			c.readErr = &closedError{reason: "read from " + c.peer + ": " + err.Error(), cause: err}
		}
	}
	c.readDone = true
	c.mu.Unlock()
	c.signal()
}

// dispatch is the dispatcher goroutine: it takes queued messages in batches
// and handles them in order (the reader dispatches a batch itself when the
// dispatcher is idle and the batch runs no handler, see flush).
// Notifications run here, one at a time; each request gets its own
// goroutine; answers complete their calls. Once reading has stopped and the
// queue is empty, it ends the calls still pending.
func (c *Conn) dispatch() {
	defer c.wg.Done()
	var batch []inMsg
	for !c.closing.Load() {
		clear(batch)
		c.mu.Lock()
		batch, c.queue = c.queue, batch[:0]
		readDone := c.readDone
		c.busy = len(batch) > 0
		c.room.Broadcast()
		c.mu.Unlock()
		c.dispatchBatch(batch)
		if len(batch) == 0 {
			if readDone {
				break
			}
			<-c.wake
		}
	}
	<-c.readerDone
	c.mu.Lock()
	if c.closing.Load() {
		c.dropped += len(c.queue)
	}
	c.queue = nil
	if !c.ordered {
		c.endCallsLocked()
		c.mu.Unlock()
		close(c.done)
		return
	}
	c.inOrderDone = true
	c.mu.Unlock()
	c.signalOrdered()
	<-c.orderDone
	c.mu.Lock()
	c.endCallsLocked() // after Close, which stopped the ordered goroutine early
	c.mu.Unlock()
	close(c.done)
}

// endCallsLocked ends the calls still pending, as reading has stopped and
// no answer read is left to complete them; later calls end at once. c.mu
// must be held.
func (c *Conn) endCallsLocked() {
	for id, call := range c.pending {
		delete(c.pending, id)
		c.finishLocked(call, nil, c.readErr)
	}
	c.ended = true
}

// completeLocked completes one of our calls with the answer in; c.mu must
// be held.
func (c *Conn) completeLocked(in *inMsg) {
	delete(c.pending, in.call.id)
	c.finishLocked(in.call, in.result, in.err)
}

func (c *Conn) handle(in *inMsg) {
	switch {
	case in.call != nil && c.ordered:
		c.queueInOrder(in)
	case in.call != nil:
		c.mu.Lock()
		c.completeLocked(in)
		c.mu.Unlock()
	case in.req.ID == nil && c.ordered:
		c.queueInOrder(in)
	case in.req.ID == nil:
		if c.h != nil {
			_, _ = c.h.Handle(c.handlerCtx, in.req)
		}
	case in.err != nil: // invalid: answered at once, in any mode
		c.start(job{ctx: c.handlerCtx, req: in.req, invalid: in.err})
	default:
		if c.recv != nil {
			c.recv.Received(in.req)
		}
		if c.ordered {
			c.queueInOrder(in)
			return
		}
		if c.qh != nil && c.answerQuick(in.req) {
			return
		}
		c.start(job{ctx: c.handlerCtx, req: in.req})
	}
}

// answerQuick asks the QuickHandler for the answer to req and, when it
// gives one, writes it without waiting, or has a goroutine write it. It
// reports whether the handler answered.
func (c *Conn) answerQuick(req *Request) bool {
	result, ok, err := c.qh.HandleQuick(req)
	if !ok {
		return false
	}
	resp := answer(req, result, err)
	if !c.trySend(&resp) {
		c.start(job{ctx: c.handlerCtx, req: req, resp: &resp})
	}
	return true
}

// queueInOrder hands a message to the ordered handling goroutine; after
// Close began it is dropped.
func (c *Conn) queueInOrder(in *inMsg) {
	c.mu.Lock()
	switch {
	case c.closing.Load():
		c.dropped++
	default:
		c.inOrder = append(c.inOrder, *in)
		if in.call != nil {
			c.answersQueued++
		}
	}
	c.mu.Unlock()
	c.signalOrdered()
}

// handleInOrder is the ordered handling goroutine (Options.Ordered): it
// takes the messages the dispatcher queued one at a time, in stream order.
// A notification is handled here and an answer completes its call here; a
// request runs in its own goroutine, and the next message waits until it
// was answered or called Async (see hold). Once reading has stopped and no
// answer is left in the queue, the calls still pending end.
func (c *Conn) handleInOrder() {
	defer c.wg.Done()
	defer close(c.orderDone)
	for {
		c.mu.Lock()
		c.settleLocked()
		if c.closing.Load() {
			c.dropped += len(c.inOrder)
			c.inOrder = nil
			c.mu.Unlock()
			return
		}
		if len(c.inOrder) == 0 {
			done := c.inOrderDone
			c.mu.Unlock()
			if done {
				return
			}
			<-c.orderWake
			continue
		}
		in := c.inOrder[0]
		c.inOrder[0] = inMsg{}
		c.inOrder = c.inOrder[1:]
		if in.call != nil {
			c.answersQueued--
			c.completeLocked(&in)
			c.mu.Unlock()
			continue
		}
		c.mu.Unlock()
		switch {
		case in.req.ID != nil:
			c.hold(in.req)
		case c.h != nil:
			_, _ = c.h.Handle(c.handlerCtx, in.req)
		}
	}
}

// hold starts the handler of req and returns when the next message may be
// handled: req was answered, its handler called Async, or Close began.
// Meanwhile the answers to our calls that arrive are completed at once,
// ahead of the messages queued before them, since the handler may be
// waiting for one.
func (c *Conn) hold(req *Request) {
	t := &turn{done: make(chan struct{})}
	c.start(job{ctx: context.WithValue(c.handlerCtx, turnKey{}, t), req: req, answered: t.end})
	for {
		select {
		case <-t.done:
			return
		case <-c.handlerCtx.Done():
			return
		case <-c.orderWake:
			c.mu.Lock()
			c.completeAnswersLocked()
			c.settleLocked()
			c.mu.Unlock()
		}
	}
}

// completeAnswersLocked takes every answer out of the ordered queue and
// completes its call. c.mu must be held.
func (c *Conn) completeAnswersLocked() {
	if c.answersQueued == 0 {
		return
	}
	rest := c.inOrder[:0]
	for i := range c.inOrder {
		if in := &c.inOrder[i]; in.call != nil {
			c.completeLocked(in)
		} else {
			rest = append(rest, *in)
		}
	}
	clear(c.inOrder[len(rest):])
	c.inOrder = rest
	c.answersQueued = 0
}

// settleLocked ends the pending calls of an ordered Conn once reading has
// stopped and every answer read has completed its call. c.mu must be held.
func (c *Conn) settleLocked() {
	if c.inOrderDone && c.answersQueued == 0 && !c.ended {
		c.endCallsLocked()
	}
}

// job is one request to serve: see serve.
type job struct {
	ctx      context.Context
	req      *Request
	invalid  error
	answered func()
	resp     *message // the answer, already made: only to be written
}

// start serves a request in its own goroutine: the spare one when it is
// idle, else a new one. Reusing it saves starting a goroutine and growing
// its stack again for each request of a stream of them.
func (c *Conn) start(j job) {
	select {
	case c.spare <- j:
		return
	default:
	}
	c.wg.Add(1)
	go c.server(j)
}

// server serves j, then stays as the spare serving goroutine, unless there
// is one already, until Close.
func (c *Conn) server(j job) {
	defer c.wg.Done()
	for {
		if j.resp != nil {
			_ = c.send(c.handlerCtx, j.resp)
		} else {
			c.serve(j.ctx, j.req, j.invalid, j.answered)
		}
		if !c.hasSpare.CompareAndSwap(false, true) {
			return
		}
		j = job{} // keep nothing of the request while idle
		select {
		case j = <-c.spare:
			c.hasSpare.Store(false)
		case <-c.handlerCtx.Done():
			return
		}
	}
}

// serve runs the handler for one request and sends its answer; a request
// that was invalid (invalid != nil) is answered with that error. answered,
// when set, is called once the answer was written (or failed to be).
func (c *Conn) serve(ctx context.Context, req *Request, invalid error, answered func()) {
	if answered != nil {
		defer answered()
	}
	var result any
	var err error
	switch {
	case invalid != nil:
		err = invalid
	case c.h == nil:
		err = MethodNotFound(req.Method)
	default:
		result, err = c.h.Handle(ctx, req)
	}
	resp := answer(req, result, err)
	// A failed write leaves nobody to tell; the reader sees the end.
	_ = c.send(c.handlerCtx, &resp)
}

// answer makes the answer to req from a handler's result and error: an
// *Error is sent as that error, any other error (or a result that does not
// marshal) as -32603 with its message.
func answer(req *Request, result any, err error) message {
	resp := message{ID: req.ID.raw}
	if err == nil {
		resp.Result, err = marshalValue(result)
		if err != nil {
			err = fmt.Errorf("marshal result: %w", err)
		} else if resp.Result == nil {
			resp.Result = json.RawMessage("null")
		}
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
	return resp
}

// violate reports a protocol violation with the start of the line quoted:
// line is the start of a line of size bytes.
func (c *Conn) violate(msg string, line []byte, size int) {
	c.report(msg, line, size, len(line) < size)
}

// report reports a protocol violation quoting the start of line; more says
// that the line went on after line.
func (c *Conn) report(msg string, line []byte, size int, more bool) {
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
		more = true
	}
	ex = bytes.ToValidUTF8(ex, []byte(string(utf8.RuneError))) // a copy
	q := strconv.Quote(string(ex))
	if more {
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
// without '\n' is returned first, with last set.
func (lr *lineReader) next() (line []byte, size int, last, over bool, err error) {
	if lr.err != nil {
		return nil, 0, false, false, lr.err
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
			return frag, size, false, false, nil // the common case: decoded in place
		default:
			lr.acc = append(lr.acc, frag...)
		}
		if complete {
			return lr.acc, size, false, over, nil
		}
		if rerr != bufio.ErrBufferFull {
			lr.err = rerr
			if size == 0 {
				return nil, 0, false, false, rerr
			}
			return lr.acc, size, true, over, nil
		}
	}
}

// buffered reports whether next can return without reading: a whole line
// (or the end of the stream) is already buffered.
func (lr *lineReader) buffered() bool {
	if lr.err != nil {
		return true
	}
	return bytes.IndexByte(lr.rest(), '\n') >= 0
}

// bufferedLines returns how many whole lines are buffered, blank ones
// excepted.
func (lr *lineReader) bufferedLines() int {
	n := 0
	for line := range bytes.Lines(lr.rest()) {
		if line[len(line)-1] == '\n' && !isBlank(line) {
			n++
		}
	}
	return n
}

// rest returns the bytes read from the stream but not yet returned by next.
func (lr *lineReader) rest() []byte {
	b, _ := lr.br.Peek(lr.br.Buffered())
	return b
}

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(line []byte) bool {
	return len(bytes.TrimLeft(line, " \t\r\n")) == 0
}
