package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
)

// DefaultMaxLineBytes is the longest line a Conn accepts unless
// Options.MaxLineBytes says otherwise.
const DefaultMaxLineBytes = 64 << 20

const (
	excerptBytes = 200 // how much of a bad line a Violation keeps
	flushEvery   = 256 // the reader hands over its messages at least this often
	// maxQueued and maxQueuedBytes bound the messages read and not yet
	// dispatched, in number and in the bytes of their lines: past either
	// the reader waits, so that a peer that floods a slow handler fills
	// the pipe, not memory. The bytes bound is that of 4096 messages of
	// 4 KiB, more than most updates are, so it binds only for large ones
	// (a plan, a tool's whole output): some of those still wait, enough
	// to keep the handler busy, not all the peer sends. A message is
	// queued while fewer bytes wait, however large, so that one larger
	// than the bound still goes through.
	maxQueued      = 4096
	maxQueuedBytes = 16 << 20
)

// Direction says which way a line travelled.
type Direction string

// Directions passed to Options.Tap.
const (
	// Sent is an outgoing line, about to be written.
	Sent Direction = "sent"
	// Received is an incoming line.
	Received Direction = "received"
	// Written says that the line tapped Sent just before went out whole.
	Written Direction = "written"
	// Unsent says that the write of the line tapped Sent just before
	// failed: the peer did not get it whole (it had closed its input or
	// exited, or the write's context ended first).
	Unsent Direction = "unsent"
)

// Options configures a Conn. The zero value (or a nil *Options) gives the
// defaults.
type Options struct {
	// MaxLineBytes is the longest incoming line accepted, without its
	// newline; 0 means DefaultMaxLineBytes. A longer line is reported to
	// OnViolation and skipped, without being held: a request in it (with
	// an id) is answered -32600 and an answer in it to one of our calls
	// fails the call (with an *InvalidAnswerError), both at once, when the
	// line says so before any value longer than 64 KiB.
	MaxLineBytes int

	// Peer names the other side in errors, e.g. "agent" gives
	// "acp: connection closed: agent closed its output (EOF)". Default "peer".
	Peer string

	// Tap, when set, sees every line both ways (without the trailing
	// newline) with a timestamp. It is called synchronously, from the
	// reading goroutine or while writing, and must not retain line, nor
	// call the Conn's methods (the Conn holds a lock while it runs). An
	// outgoing line is tapped Sent just before it is written, so that a
	// transcript keeps requests ahead of their answers, then, with the
	// same line, Written once the whole line went out or Unsent when the
	// write failed; the next line is tapped Sent only after that. An
	// incoming line is tapped after invalid UTF-8 in it was replaced, so
	// Tap always sees valid UTF-8. A line over MaxLineBytes is not tapped
	// (OnViolation reports it).
	Tap func(dir Direction, line []byte, at time.Time)

	// OnViolation, when set, is told about protocol violations: a line that
	// is not JSON-RPC, a line over MaxLineBytes, a line with invalid UTF-8
	// (which is then replaced and the line used), a response to an unknown
	// id, a request that reuses the id of one of the peer's requests whose
	// answer was not tapped Sent before it was tapped Received (it is
	// handled and answered all the same), a line cut short by StopReading.
	// It is called in stream order, as a notification is handled (see
	// Handler): after every message before the line has been handled,
	// before the line's own message, if any. A line that Close drops is not
	// reported (see Dropped).
	OnViolation func(v Violation)

	// AnswerMalformed answers, as a JSON-RPC 2.0 server does, a line that
	// is no message at all, with id null: -32700 (parse error) when it is
	// not JSON, -32600 (invalid request) when it is JSON but neither a
	// request nor a response (a batch, which ACP has not, is answered
	// once). The line is still reported to OnViolation. Off, such a line
	// is only reported: acprun's client leaves it off, as an agent's
	// stray line on stdout (a log) asked nothing; the mock agent sets it.
	AnswerMalformed bool
}

// Violation describes an incoming line that broke the protocol. Unless Msg
// says otherwise the line is skipped, and the connection goes on.
type Violation struct {
	Msg  string // what is wrong, with the quoted (truncated) line and its size: Text(nil)
	Line []byte // the start of the line (at most about 200 bytes, valid UTF-8), a copy
	Size int    // the length of the whole line in bytes

	problem string // what is wrong, without the line
	cut     bool   // Line is only the start of the line
}

// Text is the violation's message, Msg, with the start of the line quoted
// as quote returns it; quote is told whether the line went on after it
// (Line was cut there). A nil quote quotes it as it is. acp knows no
// secrets: a caller that does redacts the line's start with quote, and
// only it, told of the cut, can take out what is left of a secret cut
// through there. The message has no other part of the line that is cut.
func (v Violation) Text(quote func(line string, cut bool) string) string {
	line := string(v.Line)
	if quote != nil {
		line = quote(line, v.cut)
	}
	q := strconv.Quote(line)
	if v.cut {
		q += "…"
	}
	return fmt.Sprintf("%s: %s (%d bytes)", v.problem, q, v.Size)
}

// Conn is a JSON-RPC 2.0 connection over newline-delimited JSON. It is
// symmetric: both sides send requests and notifications. Its methods are safe
// for concurrent use.
//
// Three kinds of goroutine work for it: the reader, which splits the
// stream into lines, decodes them and queues them; the dispatcher, which
// handles them one at a time (see Handler); and the callers that write.
type Conn struct {
	r           io.Reader
	src         *stream // r, counted (see CatchUp)
	w           io.Writer
	h           Handler
	maxLine     int
	peer        string
	tap         func(Direction, []byte, time.Time)
	onViolation func(Violation)
	answerBad   bool // Options.AnswerMalformed

	// ctx is the lifetime of the connection, passed to handlers and ended
	// by Close.
	ctx    context.Context
	cancel context.CancelCauseFunc

	writer chan *writer // 1-buffered: holds the writer while nobody writes

	mu      sync.Mutex
	changed sync.Cond // on mu: broadcast by update
	st      state     // guarded by mu, changed only by update and wait

	readDone chan struct{} // closed when the reader has handed over its last message
	done     chan struct{} // closed by the last dispatcher
	wg       sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
	stopOnce  sync.Once

	// taps orders the tapping of incoming lines and of our answers with
	// open, which it guards: a request is checked for a reused id against
	// the answers tapped before it, as a transcript made by Tap has them.
	// It is never held with mu.
	taps sync.Mutex
	// open counts, by id (see idKey), the peer's requests read whose
	// answer has not been tapped Sent yet.
	open map[string]int
}

// state is everything about a Conn that changes: its calls, what was read
// and not yet dispatched, and how reading ended.
type state struct {
	nextID  int64
	pending map[int64]*Call // our calls still waiting for their answer
	queue   []inMsg         // read, not yet dispatched, in stream order
	queued  int             // the bytes of the queue's lines (see inMsg.size)
	// holder is the request whose handler holds the line: it runs and has
	// neither returned nor called Async. Nil when none.
	holder *turn
	// answering counts the answers to requests being written, by the
	// dispatcher or from off the line (see Conn.reply).
	answering int
	stopping  bool  // StopReading was called
	unheld    bool  // ReadToEnd was called: the reader no longer waits for the dispatcher
	readErr   error // why reading stopped (or Close); nil while reading
	readDone  bool  // the reader has queued its last message
	ended     bool  // the pending calls were ended: no answer can come any more
	dropped   int   // lines read but not dispatched because of Close
	lag       lag   // how far handling is behind reading (see Lag)
}

// lag follows how far the handling of the messages read is behind their
// reading (see Conn.Lag and Conn.WaitHandled).
type lag struct {
	received int64 // messages queued, in all
	handled  int64 // of them, those handled (see Handler)
	// holding says that the reader holds lines it read and has not queued
	// yet; it ends when the reader drains: everything it read is queued.
	holding bool
	drains  int64 // how many times the reader drained
	drained int64 // received as of the last drain
	waiters int   // callers of WaitHandled and CatchUp waiting
	// through is where in the stream (a count of its bytes) the reader
	// has queued every line that ends there or before (see CatchUp).
	through int64

	behind bool          // holding, or handled < received
	since  time.Time     // when behind last changed
	total  time.Duration // time spent behind before since, in all
}

// track updates whether handling is behind reading, and since when.
func (l *lag) track() {
	behind := l.holding || l.handled < l.received
	if behind == l.behind {
		return
	}
	now := time.Now()
	if l.behind {
		l.total += now.Sub(l.since)
	}
	l.behind, l.since = behind, now
}

// update runs f on the state under the lock, then wakes whoever waits
// for it to change.
func (c *Conn) update(f func(s *state)) {
	c.mu.Lock()
	f(&c.st)
	c.mu.Unlock()
	c.changed.Broadcast()
}

// wait waits until ready(s) holds, then runs f on the state as update
// does.
func (c *Conn) wait(ready func(s *state) bool, f func(s *state)) {
	c.mu.Lock()
	for !ready(&c.st) {
		c.changed.Wait()
	}
	f(&c.st)
	c.mu.Unlock()
	c.changed.Broadcast()
}

// closing reports whether Close has begun.
func (c *Conn) closing() bool { return c.ctx.Err() != nil }

// inMsg is an incoming line on its way to the dispatcher: a request or
// notification (req), an answer to one of our calls (call), or neither,
// and the protocol violations the line made (reported before the message
// is handled).
type inMsg struct {
	req        *Request
	call       *Call
	result     json.RawMessage
	err        error // the answer's error, or why a request is invalid
	violations []Violation
	// size is the length of the line the request or answer came in, about
	// what it holds (its params or result); 0 when it holds little.
	size int
}

// writer is the state of the writing end of a Conn. Whoever holds it (see
// Conn.writer) writes.
type writer struct {
	buf bytes.Buffer
	enc *json.Encoder // into buf, without HTML escaping
	err error         // sticky: part of a line went out, the stream is broken
	// rest is the end of a line whose write its context cut short, to be
	// written before any other line; cutLine is that whole line, without
	// its newline, for the tap. Both are nil when no line is cut.
	rest, cutLine []byte
}

func newWriter() *writer {
	w := &writer{}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	return w
}

// line encodes m as one line in the buffer. An answer whose result does
// not marshal is encoded as the -32603 error that says so.
func (w *writer) line(m *outgoing) ([]byte, error) {
	m.JSONRPC = jsonrpc2
	if w.buf.Cap() > keepBufBytes {
		w.buf = bytes.Buffer{}
	}
	w.buf.Reset()
	err := w.enc.Encode(m)
	if err != nil && m.Result != nil {
		*m = outgoing{JSONRPC: jsonrpc2, ID: m.ID, Error: &Error{Code: CodeInternalError, Message: "marshal result: " + err.Error()}}
		err = w.enc.Encode(m)
	}
	if err != nil {
		return nil, fmt.Errorf("acp: encode: %w", err)
	}
	return w.buf.Bytes(), nil
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
		src:         newStream(r),
		w:           w,
		h:           h,
		maxLine:     opts.MaxLineBytes,
		peer:        opts.Peer,
		tap:         opts.Tap,
		onViolation: opts.OnViolation,
		answerBad:   opts.AnswerMalformed,
		writer:      make(chan *writer, 1),
		readDone:    make(chan struct{}),
		done:        make(chan struct{}),
	}
	c.writer <- newWriter()
	c.changed.L = &c.mu
	c.st.pending = map[int64]*Call{}
	c.open = map[string]int{}
	c.st.lag.since = time.Now()
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLineBytes
	}
	if c.peer == "" {
		c.peer = "peer"
	}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
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
	owner    *turn           // the request whose handler sent it, if any (see Send)
	sent     bool            // Send was called
	answered bool            // the reader has read the answer
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
	case <-ctx.Done():
		select {
		case <-c.done:
		default:
			return context.Cause(ctx)
		}
	}
	if c.err != nil {
		return c.err
	}
	if result != nil {
		if err := json.Unmarshal(c.result, result); err != nil {
			return &InvalidAnswerError{Method: c.method, Problem: problem(err, c.result), Err: err}
		}
	}
	return nil
}

// finish ends call once with its answer or error. The caller holds c.mu,
// in update.
func (call *Call) finish(result json.RawMessage, err error) {
	if call.finished {
		return
	}
	call.finished = true
	call.params = nil
	call.result, call.err = result, err
	close(call.done)
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
	var call *Call
	c.update(func(s *state) {
		s.nextID++
		call = &Call{conn: c, id: s.nextID, method: method, params: raw, done: make(chan struct{})}
		switch {
		case merr != nil:
			call.finish(nil, fmt.Errorf("acp: %s params: %w", method, merr))
		case s.ended || c.closing():
			err := s.readErr
			if err == nil { // Close has begun but not yet recorded it
				err = ErrClosed
			}
			call.finish(nil, err)
		default: // after the end of stream the dispatcher ends it, in order
			s.pending[call.id] = call
		}
	})
	return call
}

// Send writes a call made by NewCall. ctx bounds only the writing (and the
// wait for the writer): once the line is out, the call waits for its answer
// whatever ctx does. A failure to write ends the call at once with that
// error, but for a write ctx cut short after part of the line went out: the
// rest of the line is written by the next write (Notify, Send, an answer)
// within that write's context, and the call waits for its answer. Send returns when the line is written or the write failed; the
// answer can be dispatched, and Await return, as soon as Send starts writing,
// even before Send returns. A call that already ended, or whose answer can no
// longer be read because reading stopped, is not written. Calling Send again
// for the same call does nothing.
//
// A call sent with the context of a request handler that holds the line
// (see Handler) belongs to it: its answer completes it as soon as it is
// read, ahead of the messages queued before it, and when reading stops it
// ends at once.
func (c *Conn) Send(ctx context.Context, call *Call) {
	if call.conn != c {
		panic("acp: Send of a call made by another Conn")
	}
	owner, _ := ctx.Value(turnKey{}).(*turn)
	var params json.RawMessage
	skip := false
	c.update(func(s *state) {
		skip = call.sent || call.finished || s.readErr != nil
		call.sent = true
		call.owner = owner
		params, call.params = call.params, nil
		if s.readErr != nil && s.holds(call) {
			delete(s.pending, call.id)
			call.finish(nil, s.readErr)
		}
	})
	if skip {
		return
	}
	if err := c.send(ctx, &outgoing{ID: call.ID().raw, Method: call.method, Params: params}); err != nil && !errors.Is(err, errWriteCut) {
		c.update(func(s *state) {
			if s.pending[call.id] == call {
				delete(s.pending, call.id)
			}
			call.finish(nil, err)
		})
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
	return c.send(ctx, &outgoing{Method: method, Params: raw})
}

// send writes one message as a line. Writes are serialised. A write that its
// context cut short part way leaves the rest of its line to be written
// first by the next send, within that send's context: the peer gets every
// line whole, however late. After a write that failed part way for another
// reason (the peer closed its input) every later write fails with its
// error, since part of a line went out.
func (c *Conn) send(ctx context.Context, m *outgoing) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var w *writer
	select {
	case w = <-c.writer:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { c.writer <- w }()
	if c.closing() {
		c.dropRest(w)
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if w.rest != nil {
		if err := c.writeRest(ctx, w); err != nil {
			return err
		}
	}
	buf, err := w.line(m)
	if err != nil {
		return err
	}
	c.tapSent(m, buf[:len(buf)-1])
	n, cut, err := writeLine(ctx, c.w, buf)
	if err != nil && n > 0 && cut && !c.closing() {
		// The rest goes out with the next line: the line is tapped
		// Written or Unsent then.
		w.rest, w.cutLine = slices.Clone(buf[n:]), slices.Clone(buf[:len(buf)-1])
		return fmt.Errorf("acp: write to %s: %w: %w", c.peer, errWriteCut, err)
	}
	if c.tap != nil {
		how := Written
		if err != nil {
			how = Unsent
		}
		c.tap(how, buf[:len(buf)-1], time.Now())
	}
	switch {
	case err == nil:
		return nil
	case c.closing():
		return ErrClosed
	}
	err = fmt.Errorf("acp: write to %s: %w", c.peer, err)
	if n > 0 {
		w.err = err
	}
	return err
}

// tapSent taps line, m encoded, Sent; when m is an answer, its request
// is answered from then on (see Conn.open).
func (c *Conn) tapSent(m *outgoing, line []byte) {
	c.taps.Lock()
	defer c.taps.Unlock()
	if c.tap != nil {
		c.tap(Sent, line, time.Now())
	}
	if m.Method != "" {
		return // a request or a notification
	}
	if key, ok := idKey(m.ID); ok {
		if c.open[key]--; c.open[key] <= 0 {
			delete(c.open, key)
		}
	}
}

// tapReceived taps line, an incoming line read at at (nil: a line too
// long, not tapped), and when it is a request with id id (nil for none),
// counts it open until its answer is tapped Sent. It reports whether a
// request with that id was open already: the peer reuses the id of a
// request not answered yet.
func (c *Conn) tapReceived(line []byte, at time.Time, id json.RawMessage) (reused bool) {
	c.taps.Lock()
	defer c.taps.Unlock()
	if c.tap != nil && line != nil {
		c.tap(Received, line, at)
	}
	if key, ok := idKey(id); ok {
		reused = c.open[key] > 0
		c.open[key]++
	}
	return reused
}

// errWriteCut says that a line's write was cut short by its context after
// part of it went out: the rest is written before the next line (see send).
var errWriteCut = errors.New("the rest of the line waits for the next write")

// writeRest writes the rest of the line whose write was cut short, within
// ctx, and taps it Written; a write ctx cuts short again keeps what is left
// for the next. Any other failure breaks the stream.
func (c *Conn) writeRest(ctx context.Context, w *writer) error {
	n, cut, err := writeLine(ctx, c.w, w.rest)
	switch {
	case err == nil:
		if c.tap != nil {
			c.tap(Written, w.cutLine, time.Now())
		}
		w.rest, w.cutLine = nil, nil
		return nil
	case c.closing():
		c.dropRest(w)
		return ErrClosed
	case cut:
		w.rest = w.rest[n:]
		return fmt.Errorf("acp: write to %s: the rest of a line cut short: %w", c.peer, err)
	}
	c.dropRest(w)
	w.err = fmt.Errorf("acp: write to %s: %w", c.peer, err)
	return w.err
}

// dropRest gives up the rest of a line cut short (the connection closes,
// or the stream broke): the line is tapped Unsent.
func (c *Conn) dropRest(w *writer) {
	if w.rest != nil && c.tap != nil {
		c.tap(Unsent, w.cutLine, time.Now())
	}
	w.rest, w.cutLine = nil, nil
}

// ReadDone is closed when the reader has stopped (end of stream, read error,
// StopReading or Close) and has queued every message it read. The messages
// may still be waiting to be dispatched: Done tells when they were.
func (c *Conn) ReadDone() <-chan struct{} { return c.readDone }

// Done is closed when reading has stopped (end of stream, read error,
// StopReading or Close), every message read before has been dispatched
// (except those Close dropped, see Dropped): every notification was
// handled and every request's handler returned or called Async; and the
// pending calls were ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why reading stopped, or nil while the connection runs. It
// wraps ErrClosed.
func (c *Conn) Err() error {
	var err error
	c.update(func(s *state) { err = s.readErr })
	return err
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
		c.update(func(s *state) { s.stopping = true })
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

// ReadToEnd lets the reader read on to the end of the stream without
// waiting for the dispatcher, however many messages wait: the peer has
// exited, so what is left in the pipe is what it wrote before, and it must
// be read before whoever bounds the wait for the end calls StopReading. Use
// it once the peer is gone (internal/proc does, when the process exits).
func (c *Conn) ReadToEnd() {
	c.update(func(s *state) { s.unheld = true })
}

// Lag says how far the handling of incoming messages (see Handler) is
// behind their reading.
type Lag struct {
	// Behind says that messages read wait to be handled: queued, being
	// handled, or read and not yet queued.
	Behind bool
	// Since is when Behind last changed: while not behind, when the last
	// message read was handled (the Conn's start before any).
	Since time.Time
	// Total is how long handling has been behind, in all, up to now.
	Total time.Duration
}

// Lag returns how far the handling of incoming messages is behind their
// reading now. A peer looks quiet while the reader waits for the
// dispatcher: whoever measures the peer's silence must not count the time
// the Conn was behind.
func (c *Conn) Lag() Lag {
	var l Lag
	c.update(func(s *state) {
		l = Lag{Behind: s.lag.behind, Since: s.lag.since, Total: s.lag.total}
		if l.Behind {
			l.Total += time.Since(s.lag.since)
		}
	})
	return l
}

// WaitHandled waits until every message read before the call has been
// handled (see Handler: a notification's Handle returned, a request's
// handler returned or called Async, an answer completed its call), or
// the Conn is closed; it returns context.Cause(ctx) if ctx ends first.
// Lines the reader had taken from the stream and not yet queued count as
// read. It must not be called from a Handler, which would wait for itself.
func (c *Conn) WaitHandled(ctx context.Context) error {
	return c.waitHandled(ctx, func(l *lag, over func() bool) int64 {
		if !l.holding {
			return l.received
		}
		// What it holds is queued by its next drain.
		for d := l.drains; l.drains == d && !over(); {
			c.changed.Wait()
		}
		return l.drained
	})
}

// waitHandled waits until the messages received up to target have been
// handled, or the Conn is closed, or ctx ends (then it returns
// context.Cause(ctx)). target, called with c.mu held and l counted among
// the waiters, says how many that is; it may wait on c.changed first,
// until over says the wait is over, and returns math.MaxInt64 when that
// cut its own wait short.
func (c *Conn) waitHandled(ctx context.Context, target func(l *lag, over func() bool) int64) error {
	stop := context.AfterFunc(ctx, func() { c.update(func(*state) {}) })
	defer stop()
	over := func() bool { return c.closing() || ctx.Err() != nil }
	c.mu.Lock()
	l := &c.st.lag
	l.waiters++
	n := target(l, over)
	for l.handled < n && !over() {
		c.changed.Wait()
	}
	l.waiters--
	short := l.handled < n && !c.closing()
	c.mu.Unlock()
	if short {
		return context.Cause(ctx)
	}
	return nil
}

// CatchUp waits until every message the peer had written before the call
// has been handled (as WaitHandled says), or the Conn is closed; it returns
// context.Cause(ctx) if ctx ends first. What the peer had written is every
// line it had finished writing to the stream: those the Conn has read,
// those in its buffer, and those still waiting in a pipe, which are read
// first. A line the peer finishes later is not waited for (it may be
// handled by then all the same): what it writes after the call comes after
// it. The wait ends however fast the peer writes on, once the lines it had
// written are handled; only a handler that does not return, or an answer
// the peer does not read, holds it.
//
// What waits in a pipe is known when the stream is an *os.File that is
// read without blocking (os.Pipe's are) and says how many bytes wait in
// it (FIONREAD): on Linux. Otherwise (an io.Reader, a net.Conn, another
// system) it is not, and CatchUp waits for what the Conn has read, as
// WaitHandled does, its buffer included. It must not be called from a
// Handler, which would wait for itself.
func (c *Conn) CatchUp(ctx context.Context) error {
	written := c.src.written()
	return c.waitHandled(ctx, func(l *lag, over func() bool) int64 {
		unread := func() bool { return l.through < written && !c.st.readDone }
		for unread() && !over() {
			c.changed.Wait()
		}
		if unread() {
			return math.MaxInt64 // cut short: not yet read
		}
		return l.received
	})
}

// Dropped returns how many incoming lines were read but never dispatched
// because Close came first: queued messages (and lines that only broke
// the protocol, not reported) and whole lines the reader had read but not
// yet decoded. It is 0 when Close comes after Done.
// The count is final once Close has returned.
func (c *Conn) Dropped() int {
	var n int
	c.update(func(s *state) { n = s.dropped })
	return n
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
		c.cancel(ErrClosed)
		c.update(func(s *state) {
			if s.readErr == nil {
				s.readErr = ErrClosed
			}
			s.endCalls()
		})
		var errs []error
		if wc, ok := c.w.(io.Closer); ok {
			errs = append(errs, closeQuietly(wc))
		}
		// A line cut short is given up (a write under way does so
		// itself, once the closed writer fails it).
		select {
		case w := <-c.writer:
			c.dropRest(w)
			c.writer <- w
		default:
		}
		if rc, ok := c.r.(io.Closer); ok {
			errs = append(errs, closeQuietly(rc))
		}
		c.closeErr = errors.Join(errs...)
	})
	c.wg.Wait()
	return c.closeErr
}

// endCalls ends the calls still pending, as no answer read is left to
// complete them; later calls end at once.
func (s *state) endCalls() {
	for id, call := range s.pending {
		delete(s.pending, id)
		call.finish(nil, s.readErr)
	}
	s.ended = true
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

// reader is the state of the reading goroutine.
type reader struct {
	c          *Conn
	lr         *lineReader
	batch      []inMsg     // decoded, not yet handed to the dispatcher
	batchBytes int         // the sizes of the batch's messages
	violations []Violation // the line's so far, for its inMsg
	// head is what the line, when too long, says of its message (see
	// decodeHead); headOK that it said it.
	head   head
	headOK bool
}

// read is the reading goroutine: it splits the stream into lines, decodes
// them and queues them for the dispatcher. It waits for the dispatcher
// only when maxQueued messages, or maxQueuedBytes of lines, wait. Messages are handed over in batches,
// at the latest before a Read that may block, so a message never waits
// for the next one.
func (c *Conn) read() {
	defer c.wg.Done()
	defer close(c.readDone)
	rd := &reader{c: c, lr: newLineReader(c.src, c.maxLine)}
	for {
		drained := false
		if !rd.lr.buffered() {
			if rd.flush(true) {
				rd.cutShort()
				rd.end(errStopped)
				return
			}
			drained = true
		}
		line, size, last, over, err := rd.lr.next(rd.readHead)
		if err == nil && c.closing() {
			rd.drop(line)
			err = ErrClosed
		}
		if err != nil {
			rd.end(err)
			return
		}
		if drained { // it holds what it read until it drains again
			c.update(func(s *state) {
				s.lag.holding = true
				s.lag.track()
			})
		}
		rd.line(line, size, last, over)
		if len(rd.batch) >= flushEvery || rd.batchBytes >= maxQueuedBytes {
			rd.flush(false)
		}
	}
}

// readHead reads the head of a line too long to decode (see decodeHead).
func (rd *reader) readHead(line io.Reader) { rd.head, rd.headOK = decodeHead(line) }

// line decodes one line read (the start of a line of size bytes; over:
// too long; last: the stream's last bytes) and adds it to the batch, with
// its violations.
func (rd *reader) line(line []byte, size int, last, over bool) {
	c := rd.c
	defer rd.endLine()
	h, ok := rd.head, rd.headOK
	rd.head, rd.headOK = head{}, false
	if last && !errors.Is(rd.lr.err, io.EOF) && rd.stopping() {
		rd.violate("reading was stopped in the middle of a line; skipped", line, size)
		return
	}
	if over {
		rd.tooLong(line, size, h, ok)
		return
	}
	if !utf8.Valid(line) {
		line = rd.repairUTF8(line, size)
	}
	if rest, ok := bytes.CutPrefix(line, byteOrderMark); ok {
		// JSON texts must not start with one, and parsers may ignore it
		// (RFC 8259): some runtimes write one before their first output.
		rd.report("a byte order mark (U+FEFF) before the message, which JSON does not allow; ignored", line, size, false)
		line = rest
	}
	if isBlank(line) {
		c.tapReceived(line, time.Now(), nil)
		return
	}
	rd.receive(line, time.Now(), last)
}

// tooLong skips a line too long to decode, of size bytes, whose start is
// line, as a protocol violation, or answers what its head h said (ok: it
// said it), as answerHead does, with -32600.
func (rd *reader) tooLong(line []byte, size int, h head, ok bool) {
	c := rd.c
	problem := fmt.Sprintf("line exceeds %d bytes", c.maxLine)
	tooLong := fmt.Errorf("its line of %d bytes exceeds the limit of %d bytes", size, c.maxLine)
	if !ok || !rd.answerHead(line, size, h, problem, NewError(CodeInvalidRequest, "invalid request: %v", tooLong), tooLong) {
		rd.violate(problem+"; skipped", line, size)
	}
}

// answerHead answers a line that cannot be decoded, of size bytes, whose
// start is line, by what its head h says, as a protocol violation, problem:
// a request is refused with refusal, its handler not called, and an answer
// to one of our calls fails it, with cause, both at once, so that neither
// side waits for what cannot come. It reports false, and does nothing,
// when h says neither.
func (rd *reader) answerHead(line []byte, size int, h head, problem string, refusal *Error, cause error) bool {
	c := rd.c
	switch {
	case h.method != nil:
		var method string
		_ = json.Unmarshal(h.method, &method) // "" when not a string
		id := h.id
		if !validID(id) {
			id = nullID
		}
		if c.tapReceived(nil, time.Time{}, id) {
			rd.violate(reuseProblem(method, id), line, size)
		}
		rd.violate(fmt.Sprintf("%s; request %q (id %s) answered %d, not handled", problem, method, id, refusal.Code), line, size)
		rd.add(inMsg{req: &Request{ID: &ID{raw: id}, Method: method}, err: refusal})
	case h.answer:
		method, in := rd.attribute(h.id, nil, cause, nil, 0)
		if method == "" {
			return false
		}
		rd.violate(fmt.Sprintf("%s; the answer to %s (id %s) fails it", problem, method, h.id), line, size)
		if in.call != nil {
			rd.add(in)
		}
	default:
		return false
	}
	return true
}

// add adds the line's message to the batch, with its violations.
func (rd *reader) add(in inMsg) {
	in.violations, rd.violations = rd.violations, nil
	rd.batch = append(rd.batch, in)
	rd.batchBytes += in.size
}

// endLine adds the line's violations to the batch when no message of the
// line took them.
func (rd *reader) endLine() {
	if len(rd.violations) > 0 {
		rd.add(inMsg{})
	}
}

// byteOrderMark is U+FEFF in UTF-8.
var byteOrderMark = []byte("\uFEFF")

// errStopped is the read error after StopReading.
var errStopped = errors.New("reading was stopped")

// repairUTF8 returns line with each invalid UTF-8 sequence replaced by
// U+FFFD, and reports it.
func (rd *reader) repairUTF8(line []byte, size int) []byte {
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
	rd.report(fmt.Sprintf("invalid UTF-8 replaced with U+FFFD: %d bytes, the first at byte %d; line kept", bad, first), fixed, size, false)
	return fixed
}

// receive decodes one line, read at at, taps it and adds it to the
// batch; cut says that it is the stream's last, without its '\n'. An
// answer to a call of the request handler that holds the line completes it
// at once: the handler may be waiting for it, and what is queued waits for
// the handler.
func (rd *reader) receive(line []byte, at time.Time, cut bool) {
	c := rd.c
	m, err := decode(line)
	request := errors.Is(err, errInvalidRequest) || err == nil && m.isRequest()
	var id json.RawMessage
	if request {
		id = m.ID
	}
	if c.tapReceived(line, at, id) {
		rd.violate(reuseProblem(m.Method, m.ID), line, len(line))
	}
	if err != nil && !cut && !json.Valid(line) {
		// Its head may still say what it is: a request to refuse, an
		// answer that fails its call. A line the stream's end cut short
		// is not answered: the end says why it is.
		h, ok := decodeHead(bytes.NewReader(line))
		if ok && rd.answerHead(line, len(line), h, "invalid JSON-RPC message: "+err.Error(), NewError(CodeParseError, "parse error: %v", err), err) {
			return
		}
	}
	if errors.Is(err, errInvalidRequest) {
		rd.violate(err.Error(), line, len(line))
		req := &Request{ID: &ID{raw: m.ID}, Method: m.Method}
		rd.add(inMsg{req: req, err: NewError(CodeInvalidRequest, "%v", err)})
		return
	}
	if err == nil && m.isRequest() {
		if m.stray != "" {
			kind := "notification"
			if m.ID != nil {
				kind = "request"
			}
			rd.violate(fmt.Sprintf("%s %q with a %s member, which only a response has: handled as a %s, its %s ignored",
				kind, m.Method, m.stray, kind, m.stray), line, len(line))
		}
		req := &Request{Method: m.Method, Params: m.Params}
		if m.ID != nil {
			req.ID = &ID{raw: m.ID}
		}
		rd.add(inMsg{req: req, size: len(line)})
		return
	}
	if m.ID == nil { // not even a response we can attribute
		rd.violate("invalid JSON-RPC message: "+err.Error(), line, len(line))
		if c.answerBad {
			rd.add(inMsg{req: &Request{ID: &ID{raw: nullID}}, err: malformed(line, err)})
		}
		return
	}
	method, in := rd.attribute(m.ID, m.Result, err, m.Error, len(line))
	switch {
	case method == "" && err != nil:
		rd.violate("invalid response to unknown id "+string(m.ID)+": "+err.Error(), line, len(line))
	case method == "":
		rd.violate("response to unknown id "+string(m.ID), line, len(line))
	case err != nil:
		rd.violate("invalid JSON-RPC response: "+err.Error(), line, len(line))
	}
	if in.call != nil {
		rd.add(in)
	}
}

// reuseProblem is the violation of a request, method with id, that reuses
// the id of one of the peer's requests not answered yet.
func reuseProblem(method string, id json.RawMessage) string {
	return fmt.Sprintf("request %q reuses id %s, that of a request not answered yet: both are answered, in the order they came, but a transcript of them cannot be replayed",
		method, id)
}

// attribute takes an answer with id to one of our calls, with its result,
// or the error aerr it answered, or err, why it cannot be taken; size is
// its line's (see inMsg). It returns the call's method, "" when id answers
// none of our calls pending, and the answer's message, to be queued once
// the line's violations are made (a nil call when none is, see receive).
func (rd *reader) attribute(id, result json.RawMessage, err error, aerr *Error, size int) (method string, queued inMsg) {
	n, ours := parseOurID(id)
	rd.c.update(func(s *state) {
		call := s.pending[n]
		if !ours || call == nil || call.answered {
			return
		}
		method, call.answered = call.method, true
		in := inMsg{call: call, result: result, size: size}
		switch {
		case err != nil:
			in.err = &InvalidAnswerError{Method: call.method, Problem: strings.TrimPrefix(err.Error(), "json: "), Err: err}
		case aerr != nil:
			in.err = aerr
		}
		if s.holds(call) {
			delete(s.pending, n)
			call.finish(in.result, in.err)
			return
		}
		queued = in
	})
	return method, queued
}

// malformed is the error a line that is no message is answered with
// (Options.AnswerMalformed); err is why decode refused it.
func malformed(line []byte, err error) *Error {
	if !json.Valid(line) {
		return NewError(CodeParseError, "parse error: the line is not JSON")
	}
	return NewError(CodeInvalidRequest, "invalid request: %v", err)
}

// flush hands the batch to the dispatcher once the queue has room for it
// (fewer than maxQueued messages and maxQueuedBytes wait, so that a
// message larger than that is queued once the queue is empty), and reports whether StopReading was called. The queue takes any number
// of messages while the request handler that holds the line waits for the
// answer to one of its calls (the answer may be behind them), and while an
// answer is being written, by the dispatcher or from off the line (the
// peer may not read until it has written what it is writing, and the
// handler that holds the line may wait for that answer). drain says that the batch is all the reader holds:
// every line it read is then queued.
func (rd *reader) flush(drain bool) (stopping bool) {
	c := rd.c
	through := rd.lr.taken()
	if drain { // what is left in the buffer is no whole line
		through = c.src.read()
	}
	c.wait(func(s *state) bool {
		room := len(s.queue) < maxQueued && s.queued < maxQueuedBytes
		return len(rd.batch) == 0 || room || c.closing() || s.answering > 0 || s.holderWaits() || s.unheld
	}, func(s *state) {
		if c.closing() {
			s.dropped += len(rd.batch)
		} else {
			s.queue = append(s.queue, rd.batch...)
			s.queued += rd.batchBytes
			s.lag.received += int64(len(rd.batch))
		}
		if drain {
			s.lag.holding = false
			s.lag.drains++
			s.lag.drained = s.lag.received
		}
		s.lag.through = max(s.lag.through, through)
		s.lag.track()
		stopping = s.stopping
	})
	clear(rd.batch)
	rd.batch, rd.batchBytes = rd.batch[:0], 0
	return stopping
}

// holderWaits reports whether the request handler that holds the line has
// a call pending, whose answer it may be waiting for.
func (s *state) holderWaits() bool {
	for _, call := range s.pending {
		if s.holds(call) {
			return true
		}
	}
	return false
}

// holds reports whether call was sent by the request handler that holds
// the line.
func (s *state) holds(call *Call) bool { return call.owner != nil && call.owner == s.holder }

// stopping reports whether StopReading was called.
func (rd *reader) stopping() bool {
	stopping := false
	rd.c.update(func(s *state) { stopping = s.stopping })
	return stopping
}

// drop counts a line read after Close began, the messages of the batch and
// the whole lines still buffered, as dropped.
func (rd *reader) drop(line []byte) {
	n := len(rd.batch) + rd.lr.bufferedLines()
	if !isBlank(line) {
		n++
	}
	rd.batch, rd.batchBytes = rd.batch[:0], 0
	rd.c.update(func(s *state) { s.dropped += n })
}

// cutShort reports the start of a line that StopReading cut short.
func (rd *reader) cutShort() {
	rest := rd.lr.rest()
	if !isBlank(rest) {
		rd.violate("reading was stopped in the middle of a line; skipped", rest, len(rest))
		rd.endLine()
	}
}

// end hands over the batch, then records why reading stopped. The pending
// calls are left to the dispatcher, which ends them once everything read
// before has been dispatched, except those of the request handler that
// holds the line: nothing can answer them any more, and nothing behind
// the handler is dispatched before it goes on.
func (rd *reader) end(err error) {
	rd.flush(true)
	c := rd.c
	c.update(func(s *state) {
		if s.readErr == nil {
			switch {
			case errors.Is(err, io.EOF):
				s.readErr = &closedError{reason: c.peer + " closed its output (EOF)", cause: err}
			case s.stopping:
				s.readErr = &closedError{reason: "reading from " + c.peer + " was stopped"}
			default:
				s.readErr = &closedError{reason: "read from " + c.peer + ": " + err.Error(), cause: err}
			}
		}
		s.readDone = true
		for id, call := range s.pending {
			if s.holds(call) {
				delete(s.pending, id)
				call.finish(nil, s.readErr)
			}
		}
	})
}

// violate records a protocol violation of the line with its start
// quoted: line is the start of a line of size bytes.
func (rd *reader) violate(msg string, line []byte, size int) {
	rd.report(msg, line, size, len(line) < size)
}

// report records a protocol violation of the line quoting the start of
// line; more says that the line went on after line. It is reported in the
// line's place in the stream (see Options.OnViolation).
func (rd *reader) report(msg string, line []byte, size int, more bool) {
	if rd.c.onViolation == nil {
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
	v := Violation{Line: ex, Size: size, problem: msg, cut: more}
	v.Msg = v.Text(nil)
	rd.violations = append(rd.violations, v)
}
