package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
)

// Options changes how Run plays a recording.
type Options struct {
	// Timing honours the recorded gaps: each message the agent sent waits
	// until as long after the request it belongs to as it did in the
	// recording. By default a replay is instant, but for a turn that a
	// deadline cancelled (see Recording.paceDeadlines).
	Timing bool
	// Redact holds the secrets of the replaying run: what the client
	// sends is compared with the recording once both are redacted with
	// it, so a recorded redact.Marker matches a secret it redacts there,
	// and nothing else. Nil redacts nothing: a recorded marker then
	// matches only itself.
	Redact *redact.Redactor
}

// Divergence is the data of the JSON-RPC error a diverging request is
// answered with: where the client parted from the recording.
type Divergence struct {
	// Turn is the prompt's number (from 1); 0 outside a turn.
	Turn int `json:"turn,omitempty"`
	// Request is the request that diverged: the agent's (recorded) or the
	// client's.
	Request string `json:"request"`
	// Line is the transcript line of what was recorded; 0 when nothing was.
	Line int `json:"line,omitempty"`
	// Recorded and Got are what the recording holds and what came instead.
	Recorded string `json:"recorded"`
	Got      string `json:"got"`
}

// DivergedPrefix starts the message of the JSON-RPC error of a divergence.
const DivergedPrefix = "replay diverged: "

// Run plays rec as an ACP agent: it reads the client's messages from stdin
// and writes the recorded agent's to stdout; stderr gets a line for each
// divergence. Requests are handled one at a time in arrival order.
//
// Run returns nil once stdin has ended and every request read has been
// answered (the agent's requests then fail, which ends their turn), or
// ctx's cause when ctx ends, or the error of writing to stdout. Before it
// returns it closes stdin if it is an io.Closer, so that the goroutine
// reading it ends; otherwise that goroutine ends only with stdin.
func Run(ctx context.Context, rec *Recording, stdin io.Reader, stdout, stderr io.Writer, opts Options) error {
	p := &player{
		rec:     rec,
		opts:    opts,
		ctx:     ctx,
		stdout:  stdout,
		log:     log.New(stderr, "acprun replay: ", 0), // one Write a line, under its lock
		calls:   map[string]int{},
		titles:  map[string]string{},
		sent:    map[*item]sentRequest{},
		waiting: map[string]chan reply{},
		pending: map[string]*signal{},
		queued:  make(chan struct{}, 1),
		eof:     make(chan struct{}),
		start:   time.Now(),
	}
	p.rw.recCwd = rec.cwd
	go p.read(stdin)
	err := p.serve()
	if c, ok := stdin.(io.Closer); ok {
		c.Close() // ends the reading goroutine, if it still runs
	}
	if !errors.Is(err, errStdout) && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// errStdout wraps the failure to write to the client.
var errStdout = errors.New("write to the client")

// player is the state of one Run.
type player struct {
	rec    *Recording
	opts   Options
	ctx    context.Context
	stdout io.Writer
	log    *log.Logger // stderr, written by the reading and the serving goroutines
	start  time.Time

	rw     rewriter          // used by the serving goroutine only
	titles map[string]string // tool call id → title, from the updates played
	sent   map[*item]sentRequest
	calls  map[string]int
	turns  int
	nextID int64

	mu      sync.Mutex
	nread   int64 // the client's messages read so far (see signal)
	queue   []*incoming
	waiting map[string]chan reply // our requests' ids → where the answer goes
	cancel  *signal               // of the latest session/prompt
	pending map[string]*signal    // the client's other requests not answered, by idKey: their $/cancel_request
	queued  chan struct{}         // signalled when queue grows
	eof     chan struct{}         // closed when stdin has ended
}

// signal is a message of the client that a turn waits for (its
// session/cancel): done is closed when it has been read, and at is then its
// place among the client's messages (from 1, in the order read). When the
// replay finds that several things it waits for have come (an answer and a
// cancel), it takes them in that order: what the client sent decides what
// happens, not how far the replay had got when they came.
type signal struct {
	done chan struct{}
	at   int64
}

// C is the channel closed when s comes; nil (never ready) for a nil s.
func (s *signal) C() chan struct{} {
	if s == nil {
		return nil
	}
	return s.done
}

// came reports whether s has come; a nil s never does.
func (s *signal) came() bool {
	select {
	case <-s.C():
		return true
	default:
		return false
	}
}

// incoming is a request of the client.
type incoming struct {
	id     json.RawMessage
	method string
	params json.RawMessage
	// cancel comes with a later session/cancel, for a session/prompt,
	// or $/cancel_request of this request, for the others.
	cancel *signal
}

// reply is the client's answer to one of our requests.
type reply struct {
	result, err json.RawMessage
	at          int64 // its place among the client's messages (see signal)
}

// read reads the client's messages until stdin ends. Requests are queued
// for serve; answers go to the requests waiting for them; session/cancel
// signals the latest prompt's cancel.
func (p *player) read(stdin io.Reader) {
	defer close(p.eof)
	br := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			p.received(line)
		}
		if err != nil {
			return
		}
	}
}

func (p *player) received(line []byte) {
	var w wire
	if err := json.Unmarshal(line, &w); err != nil {
		p.log.Print(termtext.Printable("ignoring a line from the client that is not JSON-RPC: " + excerpt(p.opts.Redact, string(bytes.TrimSpace(line)), 120)))
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nread++
	switch {
	case w.Method != nil && len(w.ID) > 0:
		in := &incoming{id: w.ID, method: w.name(), params: w.Params}
		in.cancel = &signal{done: make(chan struct{})}
		if in.method == "session/prompt" {
			p.cancel = in.cancel
		} else if k := idKey(w.ID); k != "" {
			p.pending[k] = in.cancel
		}
		p.queue = append(p.queue, in)
		select {
		case p.queued <- struct{}{}:
		default:
		}
	case w.name() == "session/cancel":
		if c := p.cancel; c != nil {
			p.cancel = nil
			c.at = p.nread
			close(c.done)
		}
	case w.name() == acp.MethodCancelRequest:
		k := requestKey(w.Params)
		if c := p.pending[k]; c != nil {
			delete(p.pending, k)
			c.at = p.nread
			close(c.done)
		}
	case w.Method == nil && len(w.ID) > 0:
		if ch, ok := p.waiting[string(w.ID)]; ok {
			delete(p.waiting, string(w.ID))
			ch <- reply{result: w.Result, err: w.Error, at: p.nread}
		}
	}
}

// next returns the next request of the client, or nil once stdin has
// ended and every request was served, or ctx ended.
func (p *player) next() *incoming {
	for {
		p.mu.Lock()
		if len(p.queue) > 0 {
			in := p.queue[0]
			p.queue = p.queue[1:]
			p.mu.Unlock()
			return in
		}
		p.mu.Unlock()
		select {
		case <-p.queued:
		case <-p.eof:
			p.mu.Lock()
			empty := len(p.queue) == 0
			p.mu.Unlock()
			if empty {
				return nil
			}
		case <-p.ctx.Done():
			return nil
		}
	}
}

// serve plays the prelude, then serves the client's requests in order.
func (p *player) serve() error {
	if err := p.playAside(p.rec.prelude, playState{base: p.start, paced: p.opts.Timing || p.rec.pacedAll}); err != nil {
		return err
	}
	for {
		in := p.next()
		if in == nil {
			return p.ctx.Err()
		}
		if err := p.handle(in); err != nil {
			return err
		}
	}
}

// handle answers one request of the client, playing what the recorded
// agent sent around it.
func (p *player) handle(in *incoming) error {
	start := time.Now()
	var ex *exchange
	var div *Divergence
	turn := 0
	if in.method == "session/prompt" {
		p.turns++
		turn = p.turns
		if turn > len(p.rec.prompts) {
			div = &Divergence{Turn: turn, Request: in.method,
				Recorded: countPrompts(len(p.rec.prompts)), Got: fmt.Sprintf("prompt %d", turn)}
		} else {
			ex = p.rec.prompts[turn-1]
			div = p.checkSettingsMade(turn, ex)
			if div == nil {
				div = p.checkPrompt(turn, ex, in)
			}
		}
	} else {
		defer p.answered(in)
		p.calls[in.method]++
		k := p.calls[in.method]
		list := p.rec.calls[in.method]
		switch {
		case len(list) == 0 && in.method == acp.MethodSessionClose:
			// Recorded before acprun closed its sessions: the session
			// ends here all the same.
			return p.answer(in.id, json.RawMessage(`{}`), nil)
		case len(list) == 0:
			div = &Divergence{Request: in.method, Recorded: "no " + in.method + " request", Got: "a " + in.method + " request"}
		case k > len(list):
			div = &Divergence{Request: in.method,
				Recorded: fmt.Sprintf("%d %s request(s)", len(list), in.method), Got: fmt.Sprintf("request %d", k)}
		default:
			ex = list[k-1]
			div = p.checkCall(in, ex)
		}
		if in.method == "session/new" || in.method == "session/load" {
			p.rw.liveCwd = sessionCwd(in.params)
		}
	}
	if div != nil { // (the checks give the line of what was recorded)
		return p.answerDiverged(in, div)
	}

	st := playState{turn: turn, base: start, t0: ex.t, cancel: in.cancel,
		paced: p.opts.Timing || p.rec.pacedAll || ex.paced}
	end, err := p.play(ex.during, st)
	if err != nil {
		return err
	}
	if p.ctx.Err() != nil {
		return context.Cause(p.ctx) // stopping: nothing more is written
	}
	switch {
	case end.div != nil:
		return p.answerDiverged(in, end.div)
	case end.cancelled && turn == 0:
		// The client's $/cancel_request came before the recorded one:
		// the request is cancelled, as the protocol answers it.
		e, _ := json.Marshal(errorObject{Code: acp.CodeRequestCancelled, Message: "Request cancelled"})
		return p.answer(in.id, nil, e)
	case end.cancelled:
		return p.answer(in.id, json.RawMessage(`{"stopReason":"cancelled"}`), nil)
	case end.cut != nil:
		return p.failNoted(in.id, end.cut.line, cutMessage(turn, end.cut.cause), nil)
	case end.eof:
		return p.fail(in.id, "replay: the client closed its input before the turn ended", nil)
	case ex.answer == nil && end.cancelPassed:
		// The recorded agent never answered the cancelled request: stay
		// as silent as it did, until the client gives up.
		cancelled := in.method
		if turn > 0 {
			cancelled = fmt.Sprintf("prompt (turn %d)", turn)
		}
		p.note(ex.line, "the recorded agent never answered the cancelled %s: neither does the replay", cancelled)
		select {
		case <-p.eof:
		case <-p.ctx.Done():
		}
		return p.ctx.Err()
	case ex.answer == nil && ex == p.rec.final && !p.rec.cut:
		// The recording ends in this request, which acprun neither had
		// answered nor cancelled: the recorded agent exited, or closed
		// its output, there (acprun records no more of a session whose
		// agent has gone), as its exit line says when there is one. So
		// does the replay.
		where := what(in.method, turn)
		if turn > 0 {
			where = fmt.Sprintf("turn %d, session/prompt", turn)
		}
		how := "exited (or closed its output)"
		if e, _ := p.rec.Exit(); e != nil {
			how = e.how() // the transcript's last line says how
		}
		p.note(ex.line, "the recording ends in %s not answered nor cancelled: the recorded agent %s there, and so does the replay", where, how)
		return p.ended()
	case ex.answer == nil:
		what := what(in.method, turn)
		if err := p.failNoted(in.id, ex.line, fmt.Sprintf("replay: the recording ends before the agent answered %s: the transcript stops at line %d (cut short, or the agent never answered)", what, p.rec.last), nil); err != nil {
			return err
		}
	default:
		if err := p.answer(in.id, p.rw.out(ex.answer.result), p.rw.out(ex.answer.err)); err != nil {
			return err
		}
	}
	// What the recorded agent sent after its answer comes before the
	// client's next request is read, as it did.
	st.cancel = nil
	if err := p.playAside(ex.after, st); err != nil {
		return err
	}
	if e, line := p.rec.Exit(); e != nil && ex == p.rec.final && !p.rec.cut {
		// The recorded agent exited after it, before acprun asked it
		// anything more (acprun records the requests the agent got).
		p.note(line, "the recorded agent %s here, after answering the last request it got: so does the replay", e.how())
		return e
	}
	return nil
}

// ended is Run's error where the recording ends as the recorded agent
// did: an *AgentExit when the transcript records its exit, else
// ErrRecordingEnded.
func (p *player) ended() error {
	if e, _ := p.rec.Exit(); e != nil {
		return e
	}
	return ErrRecordingEnded
}

// AgentExit is Run's error when the recording ends where the recorded
// agent exited on its own, which the transcript records as its last line
// ({"exit": {"code": 3}}): in a request it never answered, or after the
// last request it got, before acprun asked it anything more. It wraps
// ErrRecordingEnded; acprun replay exits with Code.
type AgentExit struct {
	// Code is the recorded exit code; nil when a signal ended the agent.
	Code *int
	// Signal is the signal that ended the recorded agent, "" for none.
	Signal string
}

func (e *AgentExit) Error() string { return "the recorded agent " + e.how() }

// Unwrap makes an *AgentExit an ErrRecordingEnded.
func (e *AgentExit) Unwrap() error { return ErrRecordingEnded }

// how says how the recorded agent ended: "exited with code 3".
func (e *AgentExit) how() string {
	switch {
	case e.Code != nil:
		return fmt.Sprintf("exited with code %d", *e.Code)
	case e.Signal != "":
		return "was killed by " + e.Signal
	}
	return "exited"
}

// ErrRecordingEnded is Run's error when the recording ends in a request
// of the client that the recorded agent neither answered nor was
// cancelled in: it exited, or closed its output, there, and Run returns
// (acprun replay exits) as it did. A transcript whose last line is cut
// short (the recorder was killed) does not say the agent went: the
// request is answered with an error saying the recording ends there.
var ErrRecordingEnded = errors.New("the recording ends where the recorded agent exited")

// what names the client's request for a message: its method, or
// "session/prompt (turn 2)".
func what(method string, turn int) string {
	if turn > 0 {
		return fmt.Sprintf("session/prompt (turn %d)", turn)
	}
	return method
}

// answered forgets the $/cancel_request the client may send for in, a
// request other than session/prompt, once it is served.
func (p *player) answered(in *incoming) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := idKey(in.id); p.pending[k] == in.cancel {
		delete(p.pending, k)
	}
}

// cutAt reports whether a recorded cancel acprun sent for cause stops the
// replay: one whose cause the replayed client has no reason to meet again
// (report.ExternalCause), nor has a gateway divergence, which came of a
// model request the replayed agent does not make. (A budget passed over
// the agent's reported usage is met again: the usage is replayed; one the
// gateway found passed is played past, see passGatewayCancel.)
func cutAt(cause string) bool {
	return report.ExternalCause(cause) || cause == report.CauseDivergence
}

// passGatewayCancel says on stderr that the replay plays on past it, the
// recorded cancel of turn whose cause acprun's model gateway found (a
// budget passed by the agent's model requests), without waiting for the
// client's cancel: the replayed agent makes no model requests, so no
// replaying client meets that cause again, and the turn ends as recorded.
func (p *player) passGatewayCancel(it *item, turn int) {
	p.note(it.line, "turn %d was cancelled for a cause acprun's model gateway found (cancelCause %s), which the replayed agent makes no model requests to meet: the replay plays on as recorded, without waiting for a cancel", turn, it.cause)
}

// cutMessage says why the replay stops at a recorded cancel of turn that
// acprun sent for cause, outside the scenario.
func cutMessage(turn int, cause string) string {
	what := "the recorded run was interrupted"
	switch cause {
	case report.CauseRunTimeout:
		what = "the recorded run's --timeout passed"
	case report.CauseFailFast:
		what = "the recorded run stopped for --fail-fast"
	case report.CauseDivergence:
		what = "the recorded agent's model request matched none of the gateway's cassette"
	}
	return fmt.Sprintf("replay: %s during turn %d (cancelCause %s): the recording cannot be replayed past that point; %s", what, turn, cause, recordAgain)
}

// playAside plays items outside a request's turn: before the first request
// or after an answer. A divergence there (the client answered a request of
// the agent otherwise) has no request to answer: it is reported on stderr,
// and the rest of those items is not played.
func (p *player) playAside(items []*item, st playState) error {
	end, err := p.play(items, st)
	if err != nil || end.div == nil {
		return err
	}
	p.note(end.div.Line, "%s%s", DivergedPrefix, end.div.message())
	return nil
}

// checkPrompt compares a prompt with the recorded one.
func (p *player) checkPrompt(turn int, ex *exchange, in *incoming) *Divergence {
	var rec, got struct {
		Prompt json.RawMessage `json:"prompt"`
	}
	_ = json.Unmarshal(ex.params, &rec)
	_ = json.Unmarshal(in.params, &got)
	gotPrompt := p.rw.in(got.Prompt)
	if sameJSON(p.opts.Redact, withoutURIs(rec.Prompt), withoutURIs(gotPrompt)) {
		return nil
	}
	gotPrompt = p.opts.Redact.JSON(gotPrompt) // shown as compared
	rt, gt := promptText(rec.Prompt), promptText(gotPrompt)
	if rt == gt { // the difference is in files or images
		rt, gt = string(rec.Prompt), string(gotPrompt)
	}
	return &Divergence{Turn: turn, Request: "session/prompt", Line: ex.line,
		Recorded: strconv.Quote(excerpt(p.opts.Redact, rt, 200)), Got: strconv.Quote(excerpt(p.opts.Redact, gt, 200))}
}

// answerDiverged reports a divergence on stderr and answers the request
// with its error.
func (p *player) answerDiverged(in *incoming, d *Divergence) error {
	data, _ := json.Marshal(d)
	return p.failNoted(in.id, d.Line, DivergedPrefix+d.message(), data)
}

// note writes a line about line n of the recording (0: the whole file) to
// stderr: "acprun replay: rec.jsonl:12: text", with control characters and
// "##[" escaped (termtext.Printable): it may quote what the client sent.
func (p *player) note(n int, format string, args ...any) {
	where := p.rec.File
	if n > 0 {
		where = fmt.Sprintf("%s:%d", p.rec.File, n)
	}
	p.log.Print(termtext.Printable(where + ": " + fmt.Sprintf(format, args...)))
}

// message says what diverged: "turn 2: session/request_permission for
// "Edit x" (tool call t1): recorded selected "allow" (allow_once), got
// selected "reject" (reject_once)".
func (d *Divergence) message() string {
	s := ""
	if d.Turn > 0 {
		s = fmt.Sprintf("turn %d: ", d.Turn)
	}
	return s + fmt.Sprintf("%s: recorded %s, got %s", d.Request, d.Recorded, d.Got)
}

// playState is what play needs to know about the request being served.
type playState struct {
	turn   int
	base   time.Time // when the request was received
	t0     int64     // the recorded time of the request
	cancel *signal   // the client's session/cancel; nil outside a prompt
	// paced honours the recorded gaps: Options.Timing, or a deadline
	// cancelled the turn (see Recording.paceDeadlines).
	paced bool
}

// ending says why play stopped before the end of its items, or that it
// played them all past a recorded cancel.
type ending struct {
	div          *Divergence
	cancelled    bool // the client cancelled where the recording did not
	eof          bool // stdin ended while an answer or a cancel was awaited
	cancelPassed bool // every item was played, a recorded cancel among them
	// cut is the recorded cancel reached, that acprun sent for a cause a
	// replay does not meet (cutAt): past it the recording cannot be
	// played.
	cut *item
}

// play sends items in order. It stops at a divergence, at the client's
// cancel where it waits (for an answer, or paced; unless the recording
// holds that cancel: then it waits for it at its place and goes on; what
// the agent sent without waiting is played past a cancel the recording
// lacks), at a recorded cancel whose cause a replay does
// not meet (an interrupt, the run's --timeout, --fail-fast, a gateway
// divergence: the client has no reason to cancel there; cutAt), or at the
// end of stdin while waiting. A recorded cancel for a budget the gateway
// found passed is not waited for: the replayed agent makes no model
// requests, so the client has no reason to cancel there either, but what
// the recorded agent did after it answered the scenario's own limit, and
// is played on (see passGatewayCancel). The error is that of writing.
func (p *player) play(items []*item, st playState) (ending, error) {
	cancel := st.cancel
	passed := false
	for _, it := range items {
		if it.kind == itemCancel && cutAt(it.cause) {
			if cancel.came() {
				return ending{cancelled: true}, nil
			}
			// What the recorded agent did after this cancel answered
			// acprun's stopping, which no replay does: stop here.
			return ending{cut: it}, nil
		}
		if it.kind == itemCancel && it.atGateway {
			p.passGatewayCancel(it, st.turn)
			cancel = nil // from here on the recording was cancelled too
			passed = true
			continue
		}
		if it.kind == itemCancel {
			select {
			case <-cancel.C():
			case <-p.eof: // the end of input counts as a cancel
			case <-p.ctx.Done():
				return ending{eof: true}, nil
			}
			cancel = nil // from here on the recording was cancelled too
			passed = true
			continue
		}
		// A cancel the recording lacks does not cut what the recorded
		// agent sent without waiting: it never saw that cancel, and
		// whether the client's came before this line or after it is a
		// matter of speed. It ends the turn where the replay waits: for
		// the client's answer (await takes what came first) or, paced,
		// for the recorded time.
		if st.paced && it.kind != itemAwait {
			if end, stop := p.wait(it, st, cancel); stop {
				return end, nil
			}
		}
		switch it.kind {
		case itemRaw:
			if err := p.write([]byte(it.raw)); err != nil {
				return ending{}, err
			}
		case itemMessage:
			if it.method == "session/update" {
				noteToolCall(p.titles, it.msg)
			}
			if err := p.write(p.rw.out(it.msg)); err != nil {
				return ending{}, err
			}
		case itemRequest:
			if err := p.request(it); err != nil {
				return ending{}, err
			}
		case itemAwait:
			if end := p.await(it.req, st.turn, cancel); end != (ending{}) {
				return end, nil
			}
		}
	}
	return ending{cancelPassed: passed}, nil
}

// wait sleeps until the item's recorded time after the request; stop is
// set when a cancel or the end of input came first.
func (p *player) wait(it *item, st playState, cancel *signal) (ending, bool) {
	d := time.Until(st.base.Add(time.Duration(it.t-st.t0) * time.Millisecond))
	if d <= 0 {
		return ending{}, false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return ending{}, false
	case <-cancel.C():
		return ending{cancelled: true}, true
	case <-p.ctx.Done():
		return ending{eof: true}, true
	}
}

// request makes one of the recorded agent's requests, with a fresh id. Its
// answer is awaited by the itemAwait that follows it.
func (p *player) request(it *item) error {
	p.nextID++
	id := strconv.FormatInt(p.nextID, 10)
	ch := make(chan reply, 1)
	p.mu.Lock()
	p.waiting[id] = ch
	p.mu.Unlock()
	p.sent[it] = sentRequest{id: id, ch: ch}
	if err := p.send(wire{ID: json.RawMessage(id), Method: it.rawMethod, Params: p.rw.out(it.params)}); err != nil {
		return fmt.Errorf("replay: %s at line %d: %w", it.method, it.line, err)
	}
	return nil
}

// sentRequest is one of our requests waiting for its answer.
type sentRequest struct {
	id string
	ch chan reply
}

// await waits for the client's answer to the recorded request it, and
// compares it with the recorded answer. When the client has also cancelled
// (or its input has ended), what it sent first is taken: the same messages
// of the client give the same ending, however fast the replay went.
func (p *player) await(it *item, turn int, cancel *signal) ending {
	s, ok := p.sent[it]
	if !ok {
		return ending{} // not sent: nothing to wait for
	}
	delete(p.sent, it)
	defer func() {
		p.mu.Lock()
		delete(p.waiting, s.id)
		p.mu.Unlock()
	}()
	var r reply
	got := false
	select {
	case r = <-s.ch:
		got = true
	case <-cancel.C():
	case <-p.eof:
	case <-p.ctx.Done():
		return ending{eof: true}
	}
	if !got {
		// The answer may have come too, before what woke us: the reading
		// goroutine passes on the client's messages in order.
		select {
		case r = <-s.ch:
			got = true
		default:
		}
	}
	switch {
	case got && (!cancel.came() || r.at < cancel.at):
		// Answered before any cancel: compared below.
	case cancel.came():
		// The client answers its permission requests "cancelled" itself;
		// a well-behaved agent stops at once.
		return ending{cancelled: true}
	default:
		return ending{eof: true}
	}
	if it.method == "terminal/create" {
		var rec, got struct {
			TerminalID string `json:"terminalId"`
		}
		_ = json.Unmarshal(it.answer.result, &rec)
		_ = json.Unmarshal(r.result, &got)
		p.rw.mapTerminal(rec.TerminalID, got.TerminalID)
	}
	result, errObj := p.rw.in(r.result), p.rw.in(r.err)
	if d := compareAnswer(p.opts.Redact, it, result, errObj, p.titles); d != nil {
		d.Turn = turn
		return ending{div: d}
	}
	return ending{}
}

// compareAnswer compares the client's answer to a recorded request with the
// recorded one: for a permission its outcome and option, for the others
// the result or error.
func compareAnswer(red *redact.Redactor, it *item, result, errObj json.RawMessage, titles map[string]string) *Divergence {
	d := &Divergence{Request: describeRequest(red, it.method, it.params, titles), Line: it.line}
	if it.method == "session/request_permission" {
		rc, rok := permissionOutcome(it.answer.result, it.answer.err)
		gc, gok := permissionOutcome(result, errObj)
		if rok && gok {
			if rc == gc {
				return nil
			}
			d.Recorded, d.Got = describeChoice(rc, it.params), describeChoice(gc, it.params)
			return d
		}
	}
	if sameAnswer(red, it.answer, result, errObj) {
		return nil
	}
	d.Recorded, d.Got = describeAnswer(red, it.answer.result, it.answer.err), describeAnswer(red, result, errObj)
	return d
}

// answer writes the response to a request of the client.
func (p *player) answer(id, result, errObj json.RawMessage) error {
	switch {
	case errObj != nil:
		result = nil
	case len(result) == 0:
		result = json.RawMessage("null")
	}
	if err := p.send(wire{ID: id, Result: result, Error: errObj}); err != nil {
		return fmt.Errorf("replay: answer: %w", err)
	}
	return nil
}

// send writes the JSON-RPC message w (a "jsonrpc": "2.0" one) to the
// client; the error of writing is wrapped in errStdout, that of encoding
// is not.
func (p *player) send(w wire) error {
	w.JSONRPC = "2.0"
	msg, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return p.write(msg)
}

// write writes one line to the client.
func (p *player) write(line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	if _, err := p.stdout.Write(buf); err != nil {
		return fmt.Errorf("%w: %w", errStdout, err)
	}
	return nil
}

// failNoted is fail with msg also on stderr, about line n of the recording.
func (p *player) failNoted(id json.RawMessage, n int, msg string, data json.RawMessage) error {
	p.note(n, "%s", msg)
	return p.fail(id, msg, data)
}

// fail answers a request of the client with an internal error.
func (p *player) fail(id json.RawMessage, msg string, data json.RawMessage) error {
	e, _ := json.Marshal(errorObject{Code: acp.CodeInternalError, Message: msg, Data: data})
	return p.answer(id, nil, e)
}

// countPrompts is "1 prompt" or "N prompts".
func countPrompts(n int) string {
	if n == 1 {
		return "1 prompt"
	}
	return fmt.Sprintf("%d prompts", n)
}
