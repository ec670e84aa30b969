package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/sandbox"
)

// This file connects a scenario to the agent process that serves it. A
// proc is one agent process: started for one scenario, or kept in a pool
// to serve several in turn (agent.reuse, see pool.go). Its binding routes
// what the process sends to the scenario it serves at the moment.

// proc is one agent process and what it answered to initialize.
type proc struct {
	agent *Agent
	bind  *binding
	// mark is in the process's environment: the scenario's, or its own
	// when the process may serve several scenarios.
	mark reap.Mark
	init handshakeResult // what initialize (and authenticate) answered
	// slot is set when the process holds one of the run's slots (see
	// pool.reserve), given back when it stops.
	slot bool
	// sandbox is what the process's sandbox applies, nil without one:
	// the terminals of the scenarios it serves run in it too.
	sandbox *sandbox.Applied
	// routes are its ways to the model gateway, one per gateway target,
	// bound to the attempt of the scenario it serves; nil without a
	// gateway.
	routes []*gateway.Route

	// For a pooled process (pool set): its key and name in the pool, the
	// scenarios it served, and the killGrace of the last one, for its
	// final stop.
	pool      *pool
	key, id   string
	sessions  int
	killGrace time.Duration
}

// offersClose reports whether the agent offers session/close.
func (p *proc) offersClose() bool {
	return p.init.initialized && p.init.init.AgentCapabilities.SessionCapabilities.Close != nil
}

// link is a scenario as a binding sees it: the session that handles the
// agent's messages, the tap that records them, and the transcript that
// starts with the process's initialize.
type link struct {
	sess *session
	tap  func(dir acp.Direction, line []byte, at time.Time)
	tr   *transcript // nil without one
	// closing is the scenario's session/close once sent (see
	// binding.closing); nil before.
	closing atomic.Pointer[sentClose]
}

// sentClose is a session/close acprun sent: the session is closed from
// its answer on, if that is not an error.
type sentClose struct {
	id   string
	call *acp.Call
}

// closed reports whether the session/close was answered without an
// error, by the time of the call: a message the connection handles after
// the answer (see acp.Handler) sees it closed.
func (c *sentClose) closed() bool {
	return isClosed(c.call.Done()) && c.call.Await(context.Background(), nil) == nil
}

// link returns what a binding routes the agent's messages to while it
// serves r.
func (r *scenarioRun) link() *link {
	return &link{sess: r.sess, tr: r.tr, tap: taps(r.tr, r.opts.tap)}
}

// taps is a tap that gives each line to tr, then to extra (nil for none
// of either).
func taps(tr *transcript, extra func(acp.Direction, []byte, time.Time)) func(acp.Direction, []byte, time.Time) {
	return func(dir acp.Direction, line []byte, at time.Time) {
		if tr != nil {
			tr.tap(dir, line, at)
		}
		if extra != nil {
			extra(dir, line, at)
		}
	}
}

// binding routes what an agent process sends to the scenario bound to it:
// the agent's requests and notifications to the scenario's session bound
// when they are handled (in stream order), every line to its tap, and
// protocol violations to its record. A request for the bound scenario's
// session once its session/close was answered is refused, as a protocol
// violation of that scenario; its updates then are still its (late).
// What no scenario takes is stray: a message while no scenario is bound
// (a notification other than session/update is ignored), or one for a
// session an earlier scenario closed on the process, whichever scenario
// is bound. A stray request is refused and a stray update dropped, and
// neither is any scenario's record: they make the process unfit for
// reuse (see strayProblem), as violations while none is bound do.
// It is the acp.Handler of the process's connection.
type binding struct {
	cur atomic.Pointer[link] // nil while no scenario is bound

	recording atomic.Bool // initialize is being recorded (prelude)
	// owed says that the prelude's last line of acprun's has no end of
	// its write yet (acp.Written or acp.Unsent): the prelude takes it even
	// once recording stopped, as every transcript that replays it needs it.
	owed atomic.Bool

	red *redact.Redactor // redacts the violations' cut lines

	mu      sync.Mutex
	prelude []tappedLine // the lines of initialize and authenticate
	stray   []string     // what the agent sent that no scenario took (see binding)
	closed  []string     // the sessions earlier scenarios opened and closed on the process
}

// tappedLine is one line of the connection, as its tap saw it.
type tappedLine struct {
	dir  acp.Direction
	line []byte
	at   time.Time
}

var _ acp.Handler = (*binding)(nil)

// newBinding returns a binding that records the lines of the connection as
// its prelude until endPrelude; red redacts its violations (see
// violationText).
func newBinding(red *redact.Redactor) *binding {
	b := &binding{red: red}
	b.recording.Store(true)
	return b
}

// endPrelude stops recording: initialize (and authenticate) are done.
func (b *binding) endPrelude() { b.recording.Store(false) }

// bind makes l the scenario the process serves. Its transcript gets the
// prelude first (initialize as the process answered it, at the
// transcript's start when that came earlier), so that every scenario's
// transcript is a whole session: acprun replay and explain read it.
func (b *binding) bind(l *link) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l.tr != nil {
		for _, tl := range b.prelude {
			l.tr.tap(tl.dir, tl.line, later(tl.at, l.tr.start))
		}
	}
	b.cur.Store(l)
}

// unbind leaves the process without a scenario.
func (b *binding) unbind() { b.cur.Store(nil) }

// closing records that session/close call was sent for session id of the
// bound scenario (see binding). It is called before the call is written,
// so that its answer is known to every message handled after it.
func (b *binding) closing(id string, call *acp.Call) {
	if l := b.cur.Load(); l != nil {
		l.closing.Store(&sentClose{id: id, call: call})
	}
}

// served records that a scenario's session id has ended on the process:
// what comes for it from now on is stray.
func (b *binding) served(id string) {
	if id == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = append(b.closed, id)
}

// earlier returns the id of the session req is for when an earlier
// scenario closed it on the process; "" otherwise.
func (b *binding) earlier(req *acp.Request) string {
	b.mu.Lock()
	none := len(b.closed) == 0
	b.mu.Unlock()
	if none {
		return "" // nothing to decode for
	}
	if id := sessionOf(req); b.hadSession(id) {
		return id
	}
	return ""
}

// hadSession reports whether session id is one an earlier scenario opened
// and closed on the process; "" is none's.
func (b *binding) hadSession(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return id != "" && slices.Contains(b.closed, id)
}

// sessionOf is the sessionId in req's params; "" when there is none.
func sessionOf(req *acp.Request) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = req.DecodeParams(&p) // params that do not decode are the session's to report
	return p.SessionID
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// tap is the connection's acp.Options.Tap.
func (b *binding) tap(dir acp.Direction, line []byte, at time.Time) {
	if b.recording.Load() || b.owed.Load() {
		b.mu.Lock()
		ends := dir == acp.Written || dir == acp.Unsent
		if b.recording.Load() || ends && b.owed.Load() {
			b.prelude = append(b.prelude, tappedLine{dir: dir, line: slices.Clone(line), at: at})
			if dir == acp.Sent || ends {
				b.owed.Store(dir == acp.Sent)
			}
		}
		b.mu.Unlock()
	}
	if l := b.cur.Load(); l != nil {
		l.tap(dir, line, at)
	}
}

// violation is the connection's acp.Options.OnViolation.
func (b *binding) violation(v acp.Violation) {
	if l := b.cur.Load(); l != nil {
		l.sess.violation(violationText(b.red, v))
		return
	}
	b.misbehaved(violationText(b.red, v))
}

// violationText is v's message with the start of the line it quotes
// redacted with red: as the start of a longer text (redact.Redactor.CutEnd)
// where the line went on, so that no part of a secret the cut goes
// through is shown.
func violationText(red *redact.Redactor, v acp.Violation) string {
	return v.Text(func(line string, cut bool) string {
		if cut {
			return red.CutEnd(line)
		}
		return red.String(line)
	})
}

// maxStray bounds what is kept of the stray messages of a process.
const maxStray = 3

// misbehaved records what the agent sent that no scenario took.
func (b *binding) misbehaved(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.stray) < maxStray {
		b.stray = append(b.stray, msg)
	}
}

// strayProblem says what the agent sent that no scenario took (see
// binding); "" when nothing.
func (b *binding) strayProblem() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.stray) == 0 {
		return ""
	}
	return b.stray[0]
}

// Handle implements acp.Handler for the session bound now (see binding).
func (b *binding) Handle(ctx context.Context, req *acp.Request) (any, error) {
	l := b.cur.Load()
	if l == nil {
		if req.IsNotification() && req.Method != acp.MethodSessionUpdate {
			return nil, nil
		}
		what := req.Method
		if id := sessionOf(req); id != "" {
			what += fmt.Sprintf(" for session %q", id)
		}
		b.misbehaved(what + " while no session was open")
		if req.IsNotification() {
			return nil, nil
		}
		return nil, acp.NewError(acp.CodeInvalidRequest, "%s: no session is open", req.Method)
	}
	if id := b.earlier(req); id != "" {
		b.misbehaved(fmt.Sprintf("%s for session %q, which an earlier scenario closed on this agent process", req.Method, id))
		if req.IsNotification() {
			return nil, nil
		}
		return nil, acp.NewError(acp.CodeInvalidParams, "invalid params: session %q is closed", id)
	}
	if c := l.closing.Load(); c != nil && !req.IsNotification() && c.closed() && sessionOf(req) == c.id {
		l.sess.violation(fmt.Sprintf("%s for session %q after its session/close was answered; refused", req.Method, c.id))
		return nil, acp.NewError(acp.CodeInvalidParams, "invalid params: session %q is closed", c.id)
	}
	return l.sess.Handle(ctx, req)
}
