package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/jail"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// session records what one agent session does and answers the agent's
// requests. It is the acp.Handler of the scenario's connection, which
// hands it the agent's messages one at a time in stream order: every
// request is attributed to a turn (or to the setup) in its place in the
// stream, so that where it is recorded never depends on how goroutines are
// scheduled (see Handle).
type session struct {
	// attached are the files the prompts have given the agent, which the
	// client serves (ClientConfig.Attached).
	attached *Attachments
	policy   *approve.Policy
	cwd      string
	obs      *jobObserver  // redacts what it passes on
	told     permTold      // the order the Observer is told of permission answers in
	client   *clientServer // serves fs/* and terminal/*; nil serves nothing
	act      *activity     // idle clock
	delay    time.Duration // wait before answering a permission request
	// strict makes a tool call that ran unasked, which the policy would
	// have denied, a failure of its turn (permissions.enforce: strict).
	strict bool
	// judge is set in a judge's session, whose policy is acprun's own
	// (every permission denied), not the user's rules: a tool call the
	// judge ran unasked is said so, and a read-only one (read, search,
	// think: the judge is asked to read the workspace) is no warning.
	judge bool
	// agent is the scenario's agent, which says the modes in which it
	// does not ask (see modeSwitched); nil for none.
	agent *scenario.Agent
	// spill is where the turns' long texts wait for their end (see
	// textBuf); "" keeps them in memory.
	spill string
	// red redacts a secret that goes on from the agent's message into its
	// thoughts or back (see turnState.writeText); nil: none.
	red *redact.Redactor
	// answers answer the agent's questions (see elicit); nil for none.
	answers *answerBook

	mu         sync.Mutex
	sessionID  string         // "" until session/new answered (or session/load is sent)
	history    *historyState  // session/load's replay; nil without one (see resume.go)
	early      []earlyMessage // what came before session/new answered, held until it did
	turns      []*turnState   // every turn so far; the last is the running one
	setup      setupState     // what came before the first turn
	violations []string
	// failing are the protocol violations that fail the scenario, as
	// results.md says of a malformed required field (see malformedLocked),
	// in arrival order; at most maxViolations.
	failing []string
	// lost counts what was received but not recorded: updates beyond the
	// early buffer, violations beyond the kept list.
	lostEarly, lostViolations int
	// mode is the session mode the agent last reported in an update;
	// "" before any (see modeSwitched).
	mode string
	// allowed and denied count the policy's decisions: on permission
	// requests (not those answered cancelled) and on the commands of
	// terminal/create.
	allowed int
	denied  int
	// lineTail is closed once the last fs/* or terminal/* request to
	// arrive is done (see line); nil before the first.
	lineTail <-chan struct{}
	// strays are the warnings of the replay's requests that matched no
	// recorded one and that no turn waited on (see gatewayEvent).
	strays []string
}

// setupState records what the agent did before the first turn.
type setupState struct {
	updates map[string]int // session/update notifications by kind
	notices []report.Notice
	// elicitations are the agent's questions, warnings about them.
	elicitations []report.Elicitation
	warnings     []string
	requestLog
}

// requestLog holds the records of the agent's requests, in arrival order:
// a turn's, or those before the first turn.
type requestLog struct {
	permissions []*slot[report.Permission]
	requests    []*slot[report.ClientRequest]
	// answerLine is the line of the answers to permission requests and
	// questions (elicitation/create), which are written in the order the
	// requests came: those that wait (an answer delay, a turn's cancel)
	// are made by goroutines that the same moment can wake in any order.
	// Each turn has its own line of answers: one cancelled or ended is not
	// held by a request of the setup's, whose answer delay nothing cuts
	// short.
	answerLine
}

// answerLine is a line of answers written in the order their requests
// took their places in it (answerPlace, then answerInPlace).
type answerLine struct {
	// tail is closed once the answer of the last place taken is out; nil
	// before the first.
	tail <-chan struct{}
}

// answerPlace takes the next place in the line l: prev is closed once the
// answer before is out; out is to be closed once this one's is.
func (l *answerLine) answerPlace() (prev <-chan struct{}, out chan struct{}) {
	out = make(chan struct{})
	prev, l.tail = l.tail, out
	if prev == nil {
		prev = closedChan
	}
	return prev, out
}

// answerInPlace has the answer of the request handler of ctx wait, when
// it must, for the answer before it in its line to be out (prev, see
// answerPlace), going on with acp.Async then, and has out closed once its
// own is.
func answerInPlace(ctx context.Context, prev <-chan struct{}, out chan struct{}) {
	if !isClosed(prev) {
		acp.Async(ctx)
		waitFor(ctx, prev)
	}
	if !acp.AfterAnswer(ctx, func(error) { close(out) }) {
		close(out) // no Conn's handler (a test's call): taken as written
	}
}

// arrival is a request from the agent as it arrived: where it is recorded
// and whether the end of its turn waits for it.
type arrival struct {
	turn    *turnState // nil: before the first turn
	late    bool       // it came after the turn's answer
	perm    *slot[report.Permission]
	request *slot[report.ClientRequest]
	params  *acp.RequestPermissionRequest // decoded on arrival; nil if invalid
	bad     error                         // why params did not decode
	waits   func()                        // ends the turn's wait for it (once); nil when the turn does not wait
	hold    <-chan struct{}               // what a client request waits for (see holdRequests); nil for nothing
	seq     int                           // a permission request's place among the answers told (permTold)
	prev    <-chan struct{}               // a client request's place in the line (see lineLocked): closed when the one before is done
	done    chan struct{}                 // closed when it is done
	// permPrev is closed once the answer to the permission request before
	// this one (of its turn, or of the setup) is out, permOut once this
	// one's is: the answers are written in the order of their requests
	// (see permission).
	permPrev <-chan struct{}
	permOut  chan struct{}
	// call is the tool call a permission request asks about, as known
	// when the request arrived (see askedCall): what the policy is asked.
	call acp.ToolCall
	// ask is the request as its tool call's record keeps it (see
	// askedCall); nil before the first turn.
	ask *callAsk
}

// slot holds the record of a request in arrival order; filled is set once
// the request has been answered.
type slot[T any] struct {
	rec    T
	filled bool
}

// turnState is the record of one turn while it runs. Everything the agent
// sends before the prompt's answer is the turn's own; what comes after it
// (late) is kept apart, so that the turn's expectations are checked on a
// record that no longer changes once the answer arrived.
type turnState struct {
	rec *report.TurnResult
	// calls are the tool calls first seen in this turn, by id; order has
	// them in the order they were first seen, with those that came
	// without an id (never in calls). prev is the turn before: a tool
	// call belongs to the turn it was first seen in, and what later turns
	// say about it goes to that record (ids are unique in the session).
	calls        map[string]*toolCallState
	order        []*toolCallState
	prev         *turnState
	text         textBuf
	lateText     textBuf
	thoughts     textBuf
	lateThoughts textBuf
	chunks       chunkCarry         // to text and thoughts
	lateChunks   chunkCarry         // to lateText and lateThoughts
	latePlan     []report.PlanEntry // nil without a late plan, [] for an empty one
	answered     bool               // the prompt's answer arrived: later updates are late
	prompt       *acp.Call          // the session/prompt call; done = answered
	conn         *acp.Conn          // the connection prompt went on
	cancelled    chan struct{}      // closed when acprun cancels the turn, just before session/cancel
	cancelOnce   sync.Once
	cancelSent   chan struct{} // closed once session/cancel was written (or could not be)
	sentOnce     sync.Once
	// killDone, once the cancel's kill took its place in the line (see
	// killInLineLocked), is closed when it is done; guarded by session.mu.
	killDone chan struct{}
	// answeredFirst: the prompt's answer had been read before
	// session/cancel was written (set before cancelSent is closed).
	answeredFirst bool
	ended         chan struct{} // closed when the turn's answer has been taken
	endOnce       sync.Once
	inflight      sync.WaitGroup // requests of the turn still being answered
	// hold is set while the runner checks the workspace the turn left
	// (its files, its judge), and closed when the checks end: the agent's
	// fs/* and terminal/* requests that come meanwhile wait for it, so
	// they never change what those checks see (see holdRequests).
	hold        chan struct{}
	usage       *report.Usage // from usage_update
	lateUsage   *report.Usage // from usage_update after the prompt's answer
	promptUsage *report.Usage // from the prompt's answer
	budget      *budgetWatch  // nil without a budget
	// stop cancels the turn for the gateway (a budget, a divergence); nil
	// without a gateway. gwStart is what the gateway had seen when the turn
	// started; gwFailure is the replay's divergence the turn was cancelled
	// for ("" for none; a refusal is a budget passed, in budget), its
	// failure if it waited on the request (see gatewayFailure).
	stop       context.CancelCauseFunc
	gwStart    gateway.Spent
	gwFailure  string
	warnings   []string          // about the prompt, set when the turn starts
	unknown    []json.RawMessage // updates of unknown kinds, as received
	requestLog                   // the turn's requests
	// notices and compactions are the agent's, in arrival order (see
	// notices.go).
	notices      []report.Notice
	compactions  []*report.Compaction
	elicitations []report.Elicitation // the agent's questions and their answers (see elicit)
}

// maxUnknown is how many updates of unknown kinds a turn keeps raw.
const maxUnknown = 20

type toolCallState struct {
	call      acp.ToolCall
	announced bool
	// ask is the last permission request about it, in any turn, in
	// arrival order; nil when none was.
	ask       *callAsk
	late      bool // first seen after the prompt's answer
	cancelled bool
	// atAnswer is the call as it stood when the prompt was answered, kept
	// once a late update changes it: the turn's own record.
	atAnswer *acp.ToolCall
}

// callAsk is a permission request about a tool call: the call as the
// policy was asked about it, and the answer the agent got.
type callAsk struct {
	call   acp.ToolCall
	answer askAnswer
}

// askAnswer is the answer the agent got to a permission request.
type askAnswer int

const (
	answerNone      askAnswer = iota // none written (yet): not decided, or its write failed
	answerAllowed                    // an allow option selected
	answerDenied                     // a reject option selected
	answerCancelled                  // the outcome cancelled
)

func newTurnState(rec *report.TurnResult) *turnState {
	return &turnState{rec: rec, calls: map[string]*toolCallState{}, cancelled: make(chan struct{}), cancelSent: make(chan struct{}), ended: make(chan struct{})}
}

// holdRequests holds the agent's fs/* and terminal/* requests that come
// from now on, until release is called: meanwhile the runner checks the
// workspace turn t left.
func (s *session) holdRequests(t *turnState) (release func()) {
	hold := make(chan struct{})
	s.mu.Lock()
	t.hold = hold
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		t.hold = nil
		s.mu.Unlock()
		close(hold)
	}
}

var _ acp.Handler = (*session)(nil)

// lineLocked takes the place of an fs/* or terminal/* request (or of a
// cancel's kill of the terminals, see killInLineLocked), in arrival order,
// in the line in which they are served: it returns prev, closed once the
// request before it is done, and done, to close once this one is (see
// served). The caller holds s.mu. Served one at a time, pipelined writes
// to a file end as the last one asked and a read reads a whole file, every
// run; and of the answers (up to 8 MiB each) only one is built and
// unwritten at a time.
func (s *session) lineLocked() (prev <-chan struct{}, done chan struct{}) {
	done = make(chan struct{})
	prev, s.lineTail = s.lineTail, done
	if prev == nil {
		prev = closedChan
	}
	return prev, done
}

// closedChan is a closed channel: nothing to wait for.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// served calls free, which ends the request's place in the line (see
// line), once its answer has been written, or could not be
// (acp.AfterAnswer): the next request is served after the agent could read
// this one's answer. It is called as the handler returns; without a Conn's
// handler (a test's call) free is called then.
func served(ctx context.Context, free func()) {
	if !acp.AfterAnswer(ctx, func(error) { free() }) {
		free()
	}
}

// lookedUpKey is the context key of a terminal/wait_for_exit's end of its
// place in the line (see lookedUp).
type lookedUpKey struct{}

// lookedUp, called by terminal/wait_for_exit's handler once it has found
// its terminal, ends its place in the line: the requests sent after it are
// served while it waits for the command. Without a place (ctx not
// Handle's) it does nothing; a wait_for_exit that found no terminal keeps
// its place until its answer is written, as any request does.
func lookedUp(ctx context.Context) {
	if free, ok := ctx.Value(lookedUpKey{}).(func()); ok {
		free()
	}
}

// arrive attributes a permission or client request to the running turn
// (or the setup) in arrival order, reserves its record and, for a request
// of the running turn, makes the turn's end wait for its answer; for
// terminal/wait_for_exit, which may last as long as the command, only
// until it has found its terminal (see pendingWaits).
func (s *session) arrive(req *acp.Request) *arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.arriveLocked(req)
}

// arriveLocked is arrive with s.mu held. It also takes the request's place
// among the permission answers told (seq) or in the line of client
// requests (prev, done: see lineLocked).
func (s *session) arriveLocked(req *acp.Request) *arrival {
	a := &arrival{turn: s.current()}
	log := &s.setup.requestLog
	if a.turn != nil {
		a.late = a.turn.late()
		a.hold = a.turn.hold
		log = &a.turn.requestLog
	}
	if req.Method == acp.MethodSessionRequestPermission {
		var p acp.RequestPermissionRequest
		if err := req.DecodeParams(&p); err != nil {
			// Answered -32602 (see Handle), decided by no rule.
			a.bad = err
			s.malformedLocked(fmt.Sprintf("session/request_permission: %s; refused", strings.TrimPrefix(err.Error(), "permission request: ")))
		} else {
			for _, v := range permissionViolations(&p) {
				s.violationLocked(v.msg)
			}
			a.params = &p
			a.perm = &slot[report.Permission]{}
			a.call, a.ask = askedCall(a.turn, &p, a.late)
			log.permissions = append(log.permissions, a.perm)
			a.seq = s.told.take()
			a.permPrev, a.permOut = log.answerPlace()
		}
	} else {
		a.request = &slot[report.ClientRequest]{}
		log.requests = append(log.requests, a.request)
		a.prev, a.done = s.lineLocked()
	}
	if a.turn != nil && !a.late {
		a.turn.inflight.Add(1)
		a.waits = sync.OnceFunc(a.turn.inflight.Done)
		if req.Method == acp.MethodTerminalWaitForExit {
			// Waited for until it has looked its terminal up (see
			// lookedUp): one still waiting for its command then is
			// recorded so at the turn's end (see pendingWaits).
			a.request.rec = report.ClientRequest{Method: req.Method, TerminalID: waitedTerminal(req)}
		}
	}
	return a
}

// waitedTerminal is the terminalId a terminal/wait_for_exit names; "" when
// its params do not decode (its handler refuses it then).
func waitedTerminal(req *acp.Request) string {
	var p acp.WaitForTerminalExitRequest
	if req.DecodeParams(&p) != nil {
		return ""
	}
	return p.TerminalID
}

// pendingWaits records the turn's terminal/wait_for_exit requests whose
// answers were not made by its end as they were then: with the exit status
// of a command that had ended (killed by the turn's cancel, say), which is
// the answer, else not answered. Their answers made later are not
// recorded: the turn's record does not depend on when the commands end
// after it. Called with s.mu held.
func (s *session) pendingWaits(t *turnState) {
	for _, sl := range t.requests {
		if sl.filled || sl.rec.Method != acp.MethodTerminalWaitForExit {
			continue
		}
		if st, ok := s.client.exitOf(sl.rec.TerminalID); ok {
			recordExit(&sl.rec, st)
		} else {
			sl.rec.Error = "not answered: the command was still running when the turn ended"
		}
		sl.filled = true
	}
}

// paramViolation is a protocol violation of a request's params: msg, as
// the run records it, about the value at path (in the params, in
// jsonpos's dotted form: "toolCall.kind"; "" for the params).
type paramViolation struct{ path, msg string }

// permissionViolations are the protocol violations of the permission
// request p, as it decoded, that a run records and goes on: each field
// the lenient decoding replaced or left out (p.Malformed), options that
// share an optionId, options of a kind ACP does not define (the policy
// never chooses them), and no toolCallId. explain --request says them too.
func permissionViolations(p *acp.RequestPermissionRequest) []paramViolation {
	var out []paramViolation
	for _, m := range p.Malformed {
		out = append(out, paramViolation{acp.ProblemPath(m), fmt.Sprintf("session/request_permission %s: %s", termtext.OneLine(p.ToolCall.ToolCallID), m)})
	}
	if i, m := sharedOptionID(p.Options); m != "" {
		out = append(out, paramViolation{"options." + strconv.Itoa(i), fmt.Sprintf("session/request_permission %s: %s", termtext.OneLine(p.ToolCall.ToolCallID), m)})
	}
	for i, o := range p.Options {
		if o.Kind.Known() {
			continue
		}
		path, kind := "options."+strconv.Itoa(i)+".kind", fmt.Sprintf("has kind %q, none of allow_once, allow_always, reject_once, reject_always", o.Kind)
		if o.Kind == "" {
			path, kind = "options."+strconv.Itoa(i), "has no kind, which is required"
		}
		out = append(out, paramViolation{path, fmt.Sprintf(
			"session/request_permission %s: option %q %s: it is never chosen", termtext.OneLine(p.ToolCall.ToolCallID), o.OptionID, kind)})
	}
	if p.ToolCall.ToolCallID == "" {
		out = append(out, paramViolation{"toolCall", fmt.Sprintf("session/request_permission %q: toolCall has no toolCallId, which is required; taken as a tool call of its own", p.ToolCall.ToolCall().Title)})
	}
	return out
}

// sharedOptionID says which options share an optionId, which the schema
// says is unique, and the index of the first option whose id an earlier
// one has; "" when none do. The policy selects no option whose id is
// shared with an option of another verdict (approve.Policy.Decide).
func sharedOptionID(opts []acp.PermissionOption) (int, string) {
	first := make(map[string]int, len(opts))
	for i, o := range opts {
		if j, ok := first[o.OptionID]; ok {
			return i, fmt.Sprintf("two options share optionId %q (of kinds %q and %q): each option needs an id of its own",
				o.OptionID, opts[j].Kind, o.Kind)
		}
		first[o.OptionID] = i
	}
	return 0, ""
}

// answered ends the turn's wait for the request, if it waits for it, once
// the request's answer has been written (acp.AfterAnswer): the turn ends
// only after the agent could read every answer it got during the turn,
// the cancelled ones of a cancel included. It is called as the handler
// returns; without a Conn's handler (a test's call) the wait ends then.
func (a *arrival) answered(ctx context.Context) {
	if a.waits != nil && !acp.AfterAnswer(ctx, func(error) { a.waits() }) {
		a.waits()
	}
}

// Handle implements acp.Handler. A notification is recorded in its place
// in the stream. A request is attributed there too, and a permission
// request the policy answers at once is decided, told to the Observer and
// answered there; a request that must wait goes on with acp.Async.
func (s *session) Handle(ctx context.Context, req *acp.Request) (any, error) {
	if req.IsNotification() {
		return s.notification(req)
	}
	if s.act != nil && req.Method != acp.MethodTerminalWaitForExit {
		defer s.act.serving()()
	}
	if req.Method != acp.MethodElicitationCreate && req.Method != acp.MethodSessionRequestPermission && (s.client == nil || !s.client.serves(req.Method)) {
		if req.Method == acp.MethodSessionUpdate || req.Method == acp.MethodElicitationComplete {
			// The agent's notification, sent with an id: what it says
			// is lost, which the results must say.
			s.violation(fmt.Sprintf("request %q (id %s): %s is a notification, to be sent without an id; answered %d, not handled",
				req.Method, req.ID, req.Method, acp.CodeMethodNotFound))
		}
		return nil, acp.MethodNotFound(req.Method)
	}
	a, err := s.checkSession(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.Method == acp.MethodElicitationCreate {
		return s.elicit(ctx, req)
	}
	if a == nil {
		a = s.arrive(req)
	}
	defer a.answered(ctx)
	if s.act != nil && req.Method == acp.MethodTerminalWaitForExit && a.turn != nil && !a.late {
		// It may last as long as its command: it holds the idle clock (and
		// the wait before a prompt) only until its turn ends. One sent
		// outside a turn, or after its answer, holds neither.
		defer s.act.servingWithin(a.turn.ended)()
	}
	if req.Method == acp.MethodSessionRequestPermission {
		if a.params == nil {
			return nil, acp.NewError(acp.CodeInvalidParams, "session/request_permission: %v", a.bad)
		}
		return s.permission(ctx, a), nil
	}
	// fs/* and terminal/*: served one at a time, in the order they came
	// (see line). terminal/wait_for_exit, which lasts as long as its
	// command, takes its place too, to find its terminal after every
	// request sent before it was served; the line goes on once it has
	// (lookedUp), while it waits for the command. A request waits for its
	// turn holding the Conn's line: those behind it wait in the Conn's
	// queue, which is bounded (an agent that floods requests fills its
	// pipe, not acprun's memory with a goroutine for each), and which the
	// Conn reads on without bound while the answer before is written to
	// an agent that does not read it yet.
	prev, done := a.prev, a.done
	free := sync.OnceFunc(func() { close(done) })
	defer served(ctx, free)
	if req.Method == acp.MethodTerminalWaitForExit {
		lookup := free
		if a.waits != nil {
			lookup = func() { free(); a.waits() } // the turn's end waits for its lookup alone
		}
		ctx = context.WithValue(ctx, lookedUpKey{}, lookup)
	}
	waitFor(ctx, prev)
	acp.Async(ctx)
	if a.hold != nil {
		waitFor(ctx, a.hold) // served after the checks of the workspace
	}
	result, rec, err := s.client.handle(ctx, req)
	rec.Late = a.late
	s.mu.Lock()
	if !a.request.filled { // else pending when its turn ended: recorded so (see pendingWaits)
		a.request.rec, a.request.filled = rec, true
	}
	if w := (*warnedError)(nil); errors.As(err, &w) {
		if a.turn != nil {
			a.turn.warnings = append(a.turn.warnings, w.warning)
		} else {
			s.setup.warnings = append(s.setup.warnings, w.warning)
		}
	}
	switch counted(&rec) { // a command the policy decided, as a permission request
	case approve.Allow:
		s.allowed++
	case approve.Deny:
		s.denied++
	}
	s.mu.Unlock()
	return result, err
}

// counted is what a client request adds to the allowed and denied counts:
// the policy's decision on its command, but nothing for a command the
// policy allowed and acprun refused for another reason (a cwd outside the
// roots), as for a permission request refused so; its record keeps the
// decision, which says how the policy answered.
func counted(rec *report.ClientRequest) approve.Verdict {
	if rec.Refused != "" && rec.Decision == string(approve.Allow) {
		return ""
	}
	return approve.Verdict(rec.Decision)
}

// notification handles a notification from the agent: a session/update is
// recorded, and streamed to the Observer that wants it; elicitation/complete
// marks its elicitation completed; others are ignored.
func (s *session) notification(req *acp.Request) (any, error) {
	if req.Method == acp.MethodElicitationComplete {
		s.elicitationComplete(req.Params)
		return nil, nil
	}
	if req.Method != acp.MethodSessionUpdate {
		return nil, nil
	}
	n, err := acp.DecodeSessionNotification(req.Params)
	if err != nil {
		s.mu.Lock()
		s.malformedLocked(fmt.Sprintf("session/update: %v", err))
		s.mu.Unlock()
		return nil, nil
	}
	for _, m := range n.Update.Malformed {
		s.violation(fmt.Sprintf("session/update %s: %s", n.Update.Kind, m))
	}
	s.update(n)
	s.obs.update(&n.Update, s) // -v: streamed as it arrives; nothing otherwise
	return nil, nil
}

// violated reports whether the agent broke the protocol.
func (s *session) violated() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.violations) > 0 || s.lostViolations > 0
}

func (s *session) violation(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violationLocked(msg)
}

// malformedLocked records msg, about a permission request or an update
// that did not decode (a malformed required field, params that are no
// object), as a protocol violation that fails the scenario: its failure
// is "protocol violation: " and msg. The caller holds s.mu.
func (s *session) malformedLocked(msg string) {
	s.violationLocked(msg)
	if len(s.failing) < maxViolations {
		s.failing = append(s.failing, "protocol violation: "+msg)
	}
}

// violationLocked records a protocol violation; the caller holds s.mu.
func (s *session) violationLocked(msg string) {
	if len(s.violations) < maxViolations {
		s.violations = append(s.violations, msg)
	} else {
		s.lostViolations++
	}
}

// Bounds on what is kept of a misbehaving agent's output; what goes beyond
// them is counted and reported.
const (
	maxViolations = 100
	maxEarly      = 10000
)

// checkSession refuses a request for a session other than the scenario's
// (an unknown one), or without the sessionId its method requires (all but
// elicitation/create), as invalid params, and records it as a protocol
// violation: it is neither served nor recorded as the scenario's. A
// request whose params do not decode is left to its method's checks. A
// request that names a session before the session's id is known (it came
// before session/new's answer, even before initialize's) waits until it
// is, off the line (acp.Async), and is then checked and attributed in its
// place in the stream, among the early updates (see setSessionID): its
// arrival is returned then (nil otherwise: the caller makes it). It
// returns ctx's cause if ctx ends first (the session never opened). (A
// message for a session an earlier scenario closed on the same agent
// process does not come here: see binding.)
func (s *session) checkSession(ctx context.Context, req *acp.Request) (*arrival, error) {
	var p struct {
		SessionID *string `json:"sessionId"`
	}
	if req.DecodeParams(&p) != nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.SessionID == nil {
		if req.Method == acp.MethodElicitationCreate { // scoped to a session or to a request
			return nil, nil
		}
		s.violationLocked(req.Method + " without a sessionId, which is required; refused")
		return nil, acp.NewError(acp.CodeInvalidParams, "invalid params: sessionId is required")
	}
	if s.sessionID == "" && len(s.early) < maxEarly {
		h := &heldRequest{req: req, session: *p.SessionID, released: make(chan struct{})}
		s.early = append(s.early, earlyMessage{req: h})
		s.mu.Unlock()
		acp.Async(ctx)
		select {
		case <-h.released:
		case <-ctx.Done():
		}
		s.mu.Lock()
		switch {
		case !isClosed(h.released): // the connection closed first: forget it
			s.early = slices.DeleteFunc(s.early, func(m earlyMessage) bool { return m.req == h })
			return nil, context.Cause(ctx)
		case h.why != "":
			return nil, acp.NewError(acp.CodeInvalidParams, "invalid params: unknown session %q", h.session)
		}
		return h.a, nil
	}
	why := s.foreignLocked(*p.SessionID)
	if why == "" {
		return nil, nil
	}
	s.violationLocked(fmt.Sprintf("%s for %s; refused", req.Method, why))
	return nil, acp.NewError(acp.CodeInvalidParams, "invalid params: unknown session %q", *p.SessionID)
}

// heldRequests says which requests of the agent wait for the session's id
// (see checkSession), for the error of a setup request it did not answer
// meanwhile: an agent that waits for such an answer before it answers
// session/new waits forever. "" when none does.
func (s *session) heldRequests() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var methods []string
	for _, m := range s.early {
		if m.req != nil {
			methods = append(methods, m.req.req.Method)
		}
	}
	if len(methods) == 0 {
		return ""
	}
	return fmt.Sprintf("meanwhile the agent's %s %s for the session's id (session/new's answer): acprun serves no request for a session it does not know yet, so an agent that waits for such an answer first is stuck",
		strings.Join(methods, ", "), pluralWord(len(methods), "waits", "wait"))
}

// foreignLocked says why a message for session id is not the scenario's
// ("unknown session ..."), or "" when it is, or may be: any id before the
// session's own is known. Updates and requests are checked by it alike.
// The caller holds s.mu.
func (s *session) foreignLocked(id string) string {
	if id == s.sessionID || s.sessionID == "" {
		return ""
	}
	return fmt.Sprintf("unknown session %q", id)
}

// earlyMessage is an update or a request that came before the session's
// id was known, held until it is (see setSessionID); one of the two is set.
type earlyMessage struct {
	update *acp.SessionNotification
	req    *heldRequest
}

// heldRequest is a request that named a session before the session's id
// was known: its handler waits until it is released (see checkSession).
type heldRequest struct {
	req      *acp.Request
	session  string        // the sessionId it named
	released chan struct{} // closed once it took its place in the stream: why and a are set
	why      string        // why it is not the scenario's (foreignLocked); "" when it is
	a        *arrival      // its arrival, when it is the scenario's and no elicitation
}

// setSessionID makes the session known and replays what came before its
// id, in stream order, before anything that comes after: each update is
// recorded, each request released in its place (a violation, when it is
// for another session). Updates for another session are violations.
func (s *session) setSessionID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessionID = id
	early := s.early
	s.early = nil
	for _, m := range early {
		if m.req == nil {
			s.updateLocked(*m.update)
			continue
		}
		h := m.req
		if h.why = s.foreignLocked(h.session); h.why != "" {
			s.violationLocked(fmt.Sprintf("%s for %s; refused", h.req.Method, h.why))
		} else if h.req.Method != acp.MethodElicitationCreate {
			h.a = s.arriveLocked(h.req)
		}
		close(h.released)
	}
}

// update records a session/update: as history during a session/load, as
// the setup's before the first turn, else as the running turn's (or, after
// its answer, the last turn's late one), which it returns (nil for none).
// Updates before the session's id is known wait for it; those of another
// session are violations.
func (s *session) update(n acp.SessionNotification) *turnState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateLocked(n)
}

// updateLocked is update; the caller holds s.mu.
func (s *session) updateLocked(n acp.SessionNotification) *turnState {
	switch {
	case s.sessionID == "" && len(s.early) < maxEarly:
		s.early = append(s.early, earlyMessage{update: &n})
		return nil
	case s.sessionID == "":
		s.lostEarly++
		return nil
	}
	if why := s.foreignLocked(n.SessionID); why != "" {
		s.violationLocked("session/update for " + why)
		return nil
	}
	if msg := idlessCall(&n.Update); msg != "" {
		s.violationLocked(msg)
	}
	t := s.current()
	switch {
	case t != nil:
		t.record(&n.Update, s.red)
		if isClosed(t.cancelled) { // by the update (a budget passed, see spend): in its place in the stream
			s.killInLineLocked(t)
		}
		if w := s.modeSwitched(&n.Update); w != "" {
			t.warnings = append(t.warnings, w)
		}
	case s.recordHistoryLocked(n): // replayed by session/load: history, not setup or a turn
	default:
		if w := s.modeSwitched(&n.Update); w != "" {
			s.setup.warnings = append(s.setup.warnings, w)
		}
		if s.setup.updates == nil {
			s.setup.updates = map[string]int{}
		}
		s.setup.updates[n.Update.Kind]++
		if u := n.Update.Notice; u != nil && len(s.setup.notices) < maxNotices {
			s.setup.notices = append(s.setup.notices, noticeRecord(u, false))
		}
	}
	return t
}

// modeSwitched is the warning when u reports a switch to a mode in which
// the agent, made to ask (permissions.enforce), does not ask — claude's
// bypassPermissions, which its ExitPlanMode offers — and "" otherwise. A
// mode the agent reported last is no switch: claude reports each switch
// twice (current_mode_update, then config_option_update), and every
// config_option_update repeats the mode. The switch is the agent's own,
// and not a failure: from then on it may act without asking, and the
// policy may not be consulted. The caller holds s.mu.
func (s *session) modeSwitched(u *acp.SessionUpdate) string {
	mode, how := reportedMode(u)
	if how == "" || mode == s.mode {
		return ""
	}
	s.mode = mode
	if s.agent == nil || !s.agent.AsksNot(mode) {
		return ""
	}
	return fmt.Sprintf("the agent switched to mode %q (%s), in which %s does not ask permission (it acts, or refuses, on its own): "+
		"the permission rules may not have been consulted after that point", mode, how, s.agent.Name)
}

// reportedMode is the session mode that u reports, and u's kind: a
// current_mode_update's mode, or the value of a config_option_update's
// option of category mode; how is "" when u reports none.
func reportedMode(u *acp.SessionUpdate) (mode, how string) {
	switch {
	case u.CurrentModeUpdate != nil:
		return u.CurrentModeUpdate.CurrentModeID, acp.UpdateCurrentModeUpdate
	case u.ConfigOptionUpdate != nil:
		o, ok := optionOfCategory(u.ConfigOptionUpdate.ConfigOptions, categoryMode)
		if v, isStr := o.CurrentValue.(string); ok && isStr {
			return v, acp.UpdateConfigOptionUpdate
		}
	}
	return "", ""
}

// idlessCall says how a tool_call or tool_call_update without a
// toolCallId (none, or ""), which the schema requires, is recorded; ""
// for any other update. Each such tool_call is a call of its own; such an
// update cannot be told to be about any call, and is ignored.
func idlessCall(u *acp.SessionUpdate) string {
	switch {
	case u.ToolCall != nil && u.ToolCall.ToolCallID == "":
		return fmt.Sprintf("session/update tool_call %q: no toolCallId, which is required; recorded as a tool call of its own", u.ToolCall.Title)
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallID == "":
		return "session/update tool_call_update: no toolCallId, which is required; ignored, as it updates no tool call that can be told"
	}
	return ""
}

// record records update u in the turn, its text redacted with red where
// a secret goes on from the message into the thoughts or back (see
// writeText); the caller holds the session's lock.
func (t *turnState) record(u *acp.SessionUpdate, red *redact.Redactor) {
	late := t.late()
	if late {
		t.rec.LateUpdates++
	}
	if t.rec.Updates == nil {
		t.rec.Updates = map[string]int{}
	}
	t.rec.Updates[u.Kind]++
	if !u.Known() && len(t.unknown) < maxUnknown {
		t.unknown = append(t.unknown, slices.Clone(u.Raw))
	}
	switch {
	case t.rec.TextOmitted && (u.AgentMessageChunk != nil || u.AgentThoughtChunk != nil):
		// --no-text: counted in Updates only.
	case u.AgentMessageChunk != nil:
		t.writeText(red, u.AgentMessageChunk, false, late)
	case u.AgentThoughtChunk != nil:
		t.writeText(red, u.AgentThoughtChunk, true, late)
	case u.Plan != nil:
		entries := make([]report.PlanEntry, 0, len(u.Plan.Entries))
		for _, e := range u.Plan.Entries {
			entries = append(entries, report.PlanEntry{Content: e.Content, Priority: string(e.Priority), Status: string(e.Status)})
		}
		if late {
			t.latePlan = entries
		} else {
			t.rec.Plan = entries
		}
	case u.ToolCall != nil:
		// A tool_call is a full announcement: it replaces what updates of
		// a not yet announced id said. One with the id of an earlier
		// turn's call starts a call of this turn: agents number their
		// calls per turn (call_1 in every turn), and updates and requests
		// then name the newest call of that id.
		var c *toolCallState
		if _, earlier := t.known(u.ToolCall.ToolCallID); earlier {
			c = t.newCall(u.ToolCall.ToolCallID)
		} else {
			c = t.updatedCall(u.ToolCall.ToolCallID, late)
		}
		c.call = *u.ToolCall
		c.announced = true
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallID == "":
		// It can be told to no call: a protocol violation (see
		// idlessCall), ignored.
	case u.ToolCallUpdate != nil:
		t.updatedCall(u.ToolCallUpdate.ToolCallID, late).call.Apply(u.ToolCallUpdate)
	case u.Notice != nil:
		t.recordNotice(u.Notice, late)
	case u.CompactionUpdate != nil:
		t.recordCompaction(u.CompactionUpdate, late)
	case u.CompactionSummaryChunk != nil:
		t.recordCompactionChunk(u.CompactionSummaryChunk, late)
	case u.UsageUpdate != nil && late:
		t.lateUsage = usageUpdated(t.lateUsage, u.UsageUpdate) // the session's, not the turn's
	case u.UsageUpdate != nil:
		t.usage = usageUpdated(t.usage, u.UsageUpdate)
		t.spend(u.UsageUpdate)
	}
}

// usageUpdated is usage (nil for none yet) with what usage_update u
// reports: the context, and the cost when u has one.
func usageUpdated(usage *report.Usage, u *acp.UsageUpdate) *report.Usage {
	if usage == nil {
		usage = &report.Usage{}
	}
	usage.ContextUsed, usage.ContextSize = u.Used, u.Size
	if u.Cost != nil {
		usage.Cost, usage.Currency = u.Cost.Amount, u.Cost.Currency
	}
	return usage
}

// writeText appends the text of chunk c, of the agent's thoughts with
// thought, to the turn's text or thoughts, or to their late ones after the
// prompt's answer, through the carry that redacts both with red as one
// text (chunkCarry); other content is not kept.
func (t *turnState) writeText(red *redact.Redactor, c *acp.ContentChunk, thought, late bool) {
	if c.Content.Type != acp.ContentText {
		return
	}
	carry, text, thoughts := &t.chunks, &t.text, &t.thoughts
	if late {
		carry, text, thoughts = &t.lateChunks, &t.lateText, &t.lateThoughts
	}
	for _, c := range carry.add(red, agentChunk{thought: thought, id: c.MessageID, text: c.Content.Text}) {
		c.write(text, thoughts)
	}
}

// updatedCall is call for an update about tool call id, which keeps the
// call as it stood at its turn's answer when the update is late: it came
// after this turn's answer, or the call is an earlier turn's.
func (t *turnState) updatedCall(id string, late bool) *toolCallState {
	c, earlier := t.known(id)
	if c == nil {
		c = t.newCall(id)
	}
	if late || earlier {
		c.keepAtAnswer()
	}
	return c
}

// keepAtAnswer remembers the call as it was when the prompt was answered,
// before a late update changes it. Updates replace a field's value, never
// change it in place, so a copy of the struct keeps it.
func (c *toolCallState) keepAtAnswer() {
	if c.late || c.atAnswer != nil {
		return
	}
	at := c.call
	c.atAnswer = &at
}

// newCall records a tool call first seen now, in this turn: one with id
// "" (none) is a call of its own, which nothing later finds. A call first
// seen after session/cancel is cancelled too. The caller holds s.mu.
func (t *turnState) newCall(id string) *toolCallState {
	c := &toolCallState{call: acp.ToolCall{ToolCallID: id}, late: t.late(), cancelled: isClosed(t.cancelled)}
	if id != "" {
		t.calls[id] = c
	}
	t.order = append(t.order, c)
	return c
}

// known returns the record of tool call id in the turn it was first seen
// in, this one or an earlier one (earlier), or nil when no turn has seen
// it; "" is no call's id. The caller holds s.mu.
func (t *turnState) known(id string) (c *toolCallState, earlier bool) {
	if id == "" {
		return nil, false
	}
	for turn := t; turn != nil; turn = turn.prev {
		if c := turn.calls[id]; c != nil {
			return c, turn != t
		}
	}
	return nil, false
}

// waitFor waits until ch is closed or ctx ends.
func waitFor(ctx context.Context, ch <-chan struct{}) {
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// permission answers one session/request_permission by the policy: before
// the first turn and in a running turn alike. Only a cancelled turn (or the
// end of the connection) answers it cancelled. It decides in the request's
// place in the stream, and goes on with acp.Async only when the answer
// waits: for the answer delay, for session/cancel to be written, or for
// the answer to the permission request of its turn before it to be
// written. The answer is recorded, counted and told to the Observer once
// it has been written (see answerWritten).
func (s *session) permission(ctx context.Context, a *arrival) acp.RequestPermissionResponse {
	seq := a.seq
	req := s.policyRequest(a)
	d := s.policy.Decide(req)
	d.Commands, d.Paths, d.Reason = splitRedacted(s.red, req, d)
	cancelled := !s.wait(ctx, a.turn)
	if cancelled && a.turn != nil {
		// The protocol's order, every time: session/cancel goes out
		// first, then the pending requests' cancelled answers (an agent
		// that reads the answer first may take it for a user's refusal
		// and end its turn end_turn).
		acp.Async(ctx)
		waitFor(ctx, a.turn.cancelSent)
	}
	resp, rec := permissionAnswer(a, d, cancelled)
	if a.permOut != nil {
		answerInPlace(ctx, a.permPrev, a.permOut)
	}
	if !acp.AfterAnswer(ctx, func(err error) { s.answerWritten(a, rec, err, seq) }) {
		s.answerWritten(a, rec, nil, seq) // no Conn's handler (a test's call): taken as written
	}
	return resp
}

// policyRequest is what the policy is asked about a permission request:
// its tool call as known when it arrived, and the options it offers, of
// which none that switches the agent into a mode in which it does not ask
// is chosen.
func (s *session) policyRequest(a *arrival) approve.Request {
	req := PermissionRequest(a.call, a.params.Options, s.cwd)
	req.Excerpt = policyExcerpt(s.red)
	if s.agent != nil {
		req.UnaskedModes, req.ModeOptions = s.agent.UnaskedModes(), s.agent.ModeOptions()
	}
	return req
}

// splitRedacted returns the commands, paths and reason of d, the policy's
// decision on req, redacted of the parts of the secrets that req's texts
// hold (redact.Redactor.Parted): a secret written unquoted in a shell line
// is split by the policy between commands or paths, none of which holds it
// whole.
func splitRedacted(red *redact.Redactor, req approve.Request, d approve.Decision) (commands, paths []string, reason string) {
	p := red.Parted(req.Texts()...)
	if p == red {
		return d.Commands, d.Paths, d.Reason
	}
	return mapped(d.Commands, p.String), mapped(d.Paths, p.String), p.String(d.Reason)
}

// askedCall merges the tool call of permission request p into the record
// of its turn t, in stream order with the updates about it, and returns
// the merged call, and the request as the call's record now keeps it (its
// last): the request's own fields over what the turn's earlier tool_call
// and tool_call_update of that id said. A request after the prompt's
// answer (late) is a late update of the call. Before the first turn (t
// nil) nothing is recorded of tool calls: the request stands alone, and
// ask is nil. The caller holds s.mu.
func askedCall(t *turnState, p *acp.RequestPermissionRequest, late bool) (call acp.ToolCall, ask *callAsk) {
	if t == nil {
		return p.ToolCall.ToolCall(), nil
	}
	c := t.updatedCall(p.ToolCall.ToolCallID, late)
	c.call.Apply(&p.ToolCall)
	c.ask = &callAsk{call: c.call}
	return c.call, c.ask
}

// permissionAnswer is the answer to a permission request and its record:
// the policy's decision d on the request's tool call (a.call), or
// cancelled.
func permissionAnswer(a *arrival, d approve.Decision, cancelled bool) (acp.RequestPermissionResponse, report.Permission) {
	call := a.call
	rec := report.Permission{ToolCallID: call.ToolCallID, Title: call.Title, Kind: string(call.Kind), Name: call.Name, Late: a.late}
	var resp acp.RequestPermissionResponse
	rec.Commands, rec.Paths, rec.Rule, rec.Reason = d.Commands, d.Paths, d.Rule, d.Reason
	switch {
	case cancelled:
		rec.Decision, rec.Outcome = "cancelled", acp.OutcomeCancelled
		rec.Reason = "the turn was being cancelled"
		if a.turn == nil {
			rec.Reason = reasonUnsent
		}
		rec.Rule = ""
		resp = acp.Cancelled()
	case d.Cancelled:
		rec.Decision, rec.Outcome = string(d.Verdict), acp.OutcomeCancelled
		resp = acp.Cancelled()
	default:
		rec.Decision, rec.Outcome, rec.OptionID = string(d.Verdict), acp.OutcomeSelected, d.OptionID
		resp = acp.Selected(d.OptionID)
	}
	return resp, rec
}

// reasonUnsent is the reason of a permission request's record whose
// answer was never written: acprun had closed the connection, or the
// agent's input, first (at the end of the scenario).
const reasonUnsent = "the connection closed before the answer"

// answerWritten records the answer rec to a permission request, once its
// write has ended with err, counts the policy's decision, and tells the
// Observer. An answer acprun could not write because it had closed the
// agent's input or the connection itself (unsent) is recorded as a request
// the connection closed on (cancelled, with reasonUnsent) and counts in
// neither allowed nor denied. An answer whose write failed because the
// agent had gone (it exited, or closed its input) is recorded and counted
// as given: whether the pipe took the line before the agent went is a
// race, which the same agent output must not decide.
func (s *session) answerWritten(a *arrival, rec report.Permission, err error, seq int) {
	got := answerNone
	switch {
	case unsent(err):
		rec.Decision, rec.Outcome, rec.Reason, rec.Rule, rec.OptionID = "cancelled", acp.OutcomeCancelled, reasonUnsent, "", ""
	case rec.Outcome == acp.OutcomeCancelled:
		got = answerCancelled
	case rec.Decision == string(approve.Allow):
		got = answerAllowed
	default:
		got = answerDenied
	}
	s.mu.Lock()
	if rec.Decision == string(approve.Allow) {
		s.allowed++
	} else if rec.Decision == string(approve.Deny) {
		s.denied++
	}
	if a.ask != nil {
		a.ask.answer = got
	}
	a.perm.rec, a.perm.filled = rec, true
	s.mu.Unlock()
	s.told.tell(seq, rec, s.obs.permission)
}

// unsent reports whether a write failed with err because acprun had
// closed the connection, or the agent's input (an *os.File, or an
// io.PipeWriter), before it: its own doing, in its own order, unlike a
// pipe the agent's exit broke (EPIPE).
func unsent(err error) bool {
	return errors.Is(err, acp.ErrClosed) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}

// permTold tells the Observer of the permission answers in the order of
// their requests, each once it has been written: an answer that waited
// (an answer delay, a cancel) is written by a goroutine of its own, after
// the answer before it (see permission); -v and the events file tell them
// in the stream's order all the same.
type permTold struct {
	taken atomic.Int64 // the sequence numbers given out (take)
	mu    sync.Mutex   // held while telling: tellings do not interleave
	next  int          // the sequence number of the next answer to tell
	ready map[int]report.Permission
}

// take returns the sequence number of the next permission request; its
// handler calls it in the request's place in the stream.
func (p *permTold) take() int { return int(p.taken.Add(1) - 1) }

// tell has f told rec, the answer of request seq, once every answer before
// it has been, and then those after it that were waiting for it.
func (p *permTold) tell(seq int, rec report.Permission, f func(report.Permission)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready == nil {
		p.ready = map[int]report.Permission{}
	}
	p.ready[seq] = rec
	for r, ok := p.ready[p.next]; ok; r, ok = p.ready[p.next] {
		delete(p.ready, p.next)
		p.next++
		f(r)
	}
}

// wait waits the answer delay before a permission answer. It returns false
// at once when the turn is (or gets) cancelled, or the connection closes:
// pending requests are then answered cancelled. The end of the turn cuts the
// delay short: the answer is the policy's. t is nil before the first turn.
func (s *session) wait(ctx context.Context, t *turnState) bool {
	var cancelled, ended <-chan struct{}
	if t != nil {
		cancelled, ended = t.cancelled, t.ended
	}
	if isClosed(cancelled) {
		return false
	}
	if s.delay <= 0 {
		return true
	}
	acp.Async(ctx)
	timer := time.NewTimer(s.delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ended:
		return true
	case <-cancelled:
		return false
	case <-ctx.Done():
		return false
	}
}

// PermissionRequest turns a tool call and the options offered for it into
// what the policy sees. cwd is the session's cwd. Path rules see each
// path also as the OS resolves it now (jail.ResolvePath), so that a
// symbolic link cannot lead around a deny rule.
func PermissionRequest(call acp.ToolCall, options []acp.PermissionOption, cwd string) approve.Request {
	req := approve.Request{
		ToolCallID: call.ToolCallID,
		Title:      call.Title,
		Kind:       string(call.Kind),
		Tool:       call.Name,
		RawInput:   call.RawInput,
		Cwd:        cwd,
		Resolve:    jail.ResolvePath,
	}
	req.Locations = locationPaths(call.Locations)
	for _, c := range call.Content {
		if c.Type == acp.ToolContentDiff {
			req.DiffPaths = append(req.DiffPaths, c.Path)
		}
	}
	req.Options = mapped(options, func(o acp.PermissionOption) approve.Option {
		return approve.Option{ID: o.OptionID, Name: o.Name, Kind: string(o.Kind)}
	})
	return req
}

// startTurn makes a new turn the running one. With dropText its text and
// thoughts are not kept.
func (s *session) startTurn(index int, prompt string, warnings []string, dropText bool) *turnState {
	t := newTurnState(&report.TurnResult{Index: index, Prompt: prompt, TextOmitted: dropText})
	t.warnings = warnings
	for _, b := range t.texts() {
		b.dir = s.spill
	}
	s.mu.Lock()
	if n := len(s.turns); n > 0 {
		t.prev = s.turns[n-1]
	}
	s.turns = append(s.turns, t)
	s.mu.Unlock()
	return t
}

// sendPrompt sends the turn's session/prompt on conn. The call is made
// known to the turn before a byte of it is written, so that an answer that
// comes at once, and the late updates right behind it, are told apart; the
// write itself runs without the session's lock, so an agent that stops
// reading holds up no handler. ctx bounds the write.
func (s *session) sendPrompt(ctx context.Context, t *turnState, conn *acp.Conn, req acp.PromptRequest) *acp.Call {
	call := conn.NewCall(acp.MethodSessionPrompt, req)
	s.mu.Lock()
	t.prompt, t.conn = call, conn
	s.mu.Unlock()
	conn.Send(ctx, call)
	return call
}

// late reports whether an update handled now comes after the prompt's
// answer. Answers are delivered in order with notifications, so once the
// call is done every later update is late. The caller holds s.mu.
func (t *turnState) late() bool {
	return t.answered || t.prompt != nil && isClosed(t.prompt.Done())
}

// current returns the running turn, or the last one (which takes late
// updates); nil before the first. The caller holds s.mu.
func (s *session) current() *turnState {
	if len(s.turns) == 0 {
		return nil
	}
	return s.turns[len(s.turns)-1]
}

// turnState returns the state of the turn with this index (from 1).
func (s *session) turnState(index int) *turnState {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.turns {
		if t.rec.Index == index {
			return t
		}
	}
	return nil
}

// cancelTurn marks the turn cancelled: permission requests from now on are
// answered cancelled, and unfinished tool calls are marked cancelled. The
// terminals are killed once session/cancel is out (see killInLineLocked).
func (s *session) cancelTurn(t *turnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.markCancelled()
	s.killInLineLocked(t)
}

// killInLineLocked takes, once for the turn t that was just marked
// cancelled, the place in the line of the agent's fs/* and terminal/*
// requests (see lineLocked) of the kill of the running terminals that the
// cancel brings: the requests that came before are served first; the
// terminals are killed once session/cancel is out (sentCancel); and the
// requests that come after are served once the killed commands have
// ended. So a request the agent sends once it has read the cancel (a
// terminal/output) finds its commands ended, every run, not still dying.
// A turn that ends first (a request before still unanswered, its answer
// not read) kills them then, and its end (finish) waits for the kill. The
// caller holds s.mu.
func (s *session) killInLineLocked(t *turnState) {
	if s.client == nil || t.killDone != nil {
		return
	}
	killDone := make(chan struct{})
	t.killDone = killDone
	prev, done := s.lineLocked()
	go func() {
		defer close(done)
		select {
		case <-prev:
		case <-t.ended:
		}
		select {
		case <-t.cancelSent:
		case <-t.ended: // a cancel written is so before the end
		}
		if isClosed(t.cancelSent) {
			s.client.killAllEnded()
		}
		close(killDone)
		<-prev
	}()
}

// markCancelled marks the turn cancelled, once: the requests handled from
// now on are answered cancelled and its unfinished tool calls are
// cancelled (those it announces later are too, see call). The caller holds
// the session's lock.
func (t *turnState) markCancelled() {
	t.cancelOnce.Do(func() {
		close(t.cancelled)
		for _, c := range t.order {
			switch c.call.Status {
			case acp.StatusCompleted, acp.StatusFailed:
			default:
				c.cancelled = true
			}
		}
	})
}

// sentCancel records that session/cancel was written (or could not be):
// the turn's pending permission requests may now be answered cancelled,
// and its terminals are killed (see killInLineLocked). Both come after the
// cancel, every time: an agent waiting for a command's exit that read the
// exit first would take it for the command's own end and could finish its
// turn end_turn, so the verdict would hang on which line won the race to
// the pipe. answeredFirst says that the prompt's answer had been read
// before the cancel was written: the agent answered without it.
func (s *session) sentCancel(t *turnState, answeredFirst bool) {
	t.sentOnce.Do(func() {
		s.mu.Lock()
		t.answeredFirst = answeredFirst
		s.mu.Unlock()
		close(t.cancelSent)
	})
}

// finish records how the turn ended and returns its record. It first waits
// for the requests that came during the turn to be answered and their
// answers written (a permission request still in its answer delay is
// answered at once, a cancelled turn's with outcome cancelled), so the
// record it returns is the turn's whole own record, and the agent could
// read every answer it holds before the scenario goes on: later updates
// are late and kept apart. ctx bounds that wait (the cancel grace): an
// agent that does not read its input gets a warning instead.
func (s *session) finish(ctx context.Context, t *turnState, out turnOutcome) report.TurnResult {
	t.endOnce.Do(func() { close(t.ended) })
	// From now on a request is late, and arrive adds nothing to the turn's
	// wait: every Add happened before this, so Wait is safe.
	s.mu.Lock()
	t.answered = true
	killDone := t.killDone
	s.mu.Unlock()
	if killDone != nil {
		<-killDone // a cancel's kill of the terminals: done by the turn's end, as it was sent
	}
	answered := make(chan struct{})
	go func() {
		t.inflight.Wait()
		close(answered)
	}()
	waitFor(ctx, answered)
	s.mu.Lock()
	s.pendingWaits(t)
	if !isClosed(answered) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.warnings = append(t.warnings, "the answers to the agent's requests of the turn were not all written within cancelGrace of its end: the agent may not have received them (it does not read its input)")
	}
	t.rec.StopReason = out.stopReason
	t.rec.CancelCause = out.cancelCause
	t.rec.CancelIgnored = out.cancelIgnored
	t.rec.Error = out.err
	t.rec.ErrorData = out.errData
	t.rec.Duration = out.duration
	t.rec.DurationMs = out.duration.Milliseconds()
	t.promptUsage = out.usage
	if out.cancelIgnored {
		t.warnings = append(t.warnings, fmt.Sprintf("the agent answered session/cancel (%s) with stopReason %q, not \"cancelled\" (cancelIgnored)", out.cancelCause, out.stopReason))
	}
	s.mu.Unlock()
	return s.snapshot(t)
}

// checked records what checks of the turn found: the expectations it did
// not meet, after those recorded before, and the verdict of its judge (nil
// for none).
func (s *session) checked(t *turnState, failures []string, j *report.JudgeResult) {
	s.mu.Lock()
	t.rec.Failures = append(t.rec.Failures, failures...)
	if j != nil {
		t.rec.Judge = j
	}
	s.mu.Unlock()
}

// snapshot returns a deep copy of the turn's record with everything
// recorded so far: the handlers may go on writing to the live one.
func (s *session) snapshot(t *turnState) report.TurnResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := *t.rec
	r.Text, r.Thoughts = t.chunks.texts(s.red, &t.text, &t.thoughts, t.late()) // answered: the rest is late
	r.LateText, r.LateThoughts = t.lateChunks.texts(s.red, &t.lateText, &t.lateThoughts, false)
	for _, b := range t.texts() {
		if b.lost != nil {
			t.warnings = append(t.warnings, b.lost.Error())
			b.lost = nil
		}
	}
	r.Plan = slices.Clone(t.rec.Plan)
	r.LatePlan = slices.Clone(t.latePlan) // nil stays nil, empty stays empty
	r.Updates = maps.Clone(t.rec.Updates)
	r.UnknownUpdates = mapped(t.unknown, slices.Clone[json.RawMessage])
	r.Notices = slices.Clone(t.notices)
	r.Compactions = t.compactionRecords(s.red)
	r.Elicitations = cloneElicitations(t.elicitations)
	r.Failures = slices.Clone(t.rec.Failures)
	if t.rec.Judge != nil {
		j := *t.rec.Judge
		r.Judge = &j
	}
	r.ClientRequests = filled(t.requests, nil)
	r.Permissions = filled(t.permissions, clonePermission)
	r.Warnings = slices.Clone(t.warnings)
	r.ToolCalls = nil
	if len(t.order) > 0 {
		r.ToolCalls = make([]report.ToolCall, 0, len(t.order))
	}
	for _, c := range t.order {
		r.ToolCalls = append(r.ToolCalls, c.record())
		if msg := s.unpermitted(c); msg == "" {
		} else if s.strict {
			r.Failures = append(r.Failures, msg)
		} else {
			r.Warnings = append(r.Warnings, msg)
		}
	}
	r.Usage = t.usageRecord()
	if t.lateUsage != nil {
		u := *t.lateUsage
		r.LateUsage = &u
	}
	return r
}

// record is the tool call's record: the call as it was at the
// prompt's answer, and what late updates changed apart (LateStatus,
// LateTitle, …).
func (c *toolCallState) record() report.ToolCall {
	own := &c.call
	if c.atAnswer != nil {
		own = c.atAnswer
	}
	tc := report.ToolCall{
		ID:        c.call.ToolCallID,
		Title:     own.Title,
		Name:      own.Name,
		Kind:      string(own.Kind),
		Status:    shownStatus(own.Status, c.cancelled),
		Locations: locationPaths(own.Locations),
		RawInput:  slices.Clone(own.RawInput),
		RawOutput: slices.Clone(own.RawOutput),
		Content:   contentJSON(own.Content),
		Announced: c.announced,
		Late:      c.late,
	}
	if c.atAnswer == nil {
		return tc
	}
	final := &c.call
	if st := shownStatus(final.Status, c.cancelled); st != tc.Status {
		tc.LateStatus = st
	}
	if final.Title != own.Title {
		tc.LateTitle = final.Title
	}
	if final.Name != own.Name {
		tc.LateName = final.Name
	}
	if final.Kind != own.Kind {
		tc.LateKind = string(final.Kind)
	}
	if l := locationPaths(final.Locations); !slices.Equal(l, tc.Locations) {
		tc.LateLocations = l
	}
	if !bytes.Equal(final.RawInput, own.RawInput) {
		tc.LateRawInput = slices.Clone(final.RawInput)
	}
	if !bytes.Equal(final.RawOutput, own.RawOutput) {
		tc.LateRawOutput = slices.Clone(final.RawOutput)
	}
	if b := contentJSON(final.Content); !bytes.Equal(b, tc.Content) {
		tc.LateContent = b
	}
	return tc
}

// locationPaths are the paths of a tool call's locations; nil for none.
func locationPaths(ls []acp.ToolCallLocation) []string {
	return mapped(ls, func(l acp.ToolCallLocation) string { return l.Path })
}

// contentJSON is a tool call's content as the results give it; nil for
// none.
func contentJSON(c []acp.ToolCallContent) json.RawMessage {
	if len(c) == 0 {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	return b
}

// usageRecord is the turn's usage: the prompt's answer's tokens (or the
// gateway's, see gatewayUsage) with the last usage_update's context, and
// its cost unless the gateway priced the turn; nil when none came.
func (t *turnState) usageRecord() *report.Usage {
	if t.promptUsage == nil && t.usage == nil {
		return nil
	}
	u := report.Usage{}
	if t.promptUsage != nil {
		u = *t.promptUsage
	}
	if t.usage != nil {
		u.ContextUsed, u.ContextSize = t.usage.ContextUsed, t.usage.ContextSize
		if u.Cost == 0 && u.Currency == "" {
			u.Cost, u.Currency = t.usage.Cost, t.usage.Currency
		}
	}
	return &u
}

// shownStatus is how a tool call's status is recorded: pending when the
// agent gave none, cancelled when acprun cancelled the turn before the call
// finished.
func shownStatus(st acp.ToolCallStatus, cancelled bool) string {
	switch {
	case st == acp.StatusCompleted || st == acp.StatusFailed:
		return string(st)
	case cancelled:
		return "cancelled"
	case st == "":
		return string(acp.StatusPending)
	}
	return string(st)
}

// filled copies the answered records of slots, in arrival order, each
// deep-copied by clone (nil: the record is copied as it is). The caller
// holds s.mu.
func filled[T any](slots []*slot[T], clone func(T) T) []T {
	var out []T
	for _, sl := range slots {
		switch {
		case !sl.filled:
		case clone != nil:
			out = append(out, clone(sl.rec))
		default:
			out = append(out, sl.rec)
		}
	}
	return out
}

// clonePermission deep-copies a permission record.
func clonePermission(p report.Permission) report.Permission {
	p.Commands, p.Paths = slices.Clone(p.Commands), slices.Clone(p.Paths)
	return p
}

// promptUsage records the usage reported on the prompt's answer.
func promptUsage(u *acp.Usage) *report.Usage {
	if u == nil {
		return nil
	}
	out := &report.Usage{TotalTokens: u.TotalTokens, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if u.ThoughtTokens != nil {
		out.ThoughtTokens = *u.ThoughtTokens
	}
	if u.CachedReadTokens != nil {
		out.CachedReadTokens = *u.CachedReadTokens
	}
	if u.CachedWriteTokens != nil {
		out.CachedWriteTokens = *u.CachedWriteTokens
	}
	return out
}

// ran reports whether a tool call with this status has run (or started to).
func ran(st acp.ToolCallStatus) bool {
	return st == acp.StatusInProgress || st == acp.StatusCompleted || st == acp.StatusFailed
}

// unpermitted returns a message when the agent ran (or tried to run) tool
// call c, as it last stands, without the policy's permission, and the
// policy would have denied it: the policy had no effect on it. That is a
// call it ran without asking; or although the answer to its last
// permission request was a denial, cancelled, or never written (see
// ranAnyway); or in another form (kind, tool, title, input, paths: what
// the policy reads) than the one the policy allowed. A warning, or with
// permissions.enforce: strict a failure of the turn; "" for none. In a
// judge's session every call the judge ran unasked is said so (acprun
// denies a judge every permission), but a read-only one.
func (s *session) unpermitted(c *toolCallState) string {
	call := &c.call
	if !ran(call.Status) || c.ask != nil && c.ask.answer != answerAllowed && !ranAnyway(c.ask, call.Status) {
		return ""
	}
	req := PermissionRequest(*call, nil, s.cwd)
	how := ""
	switch ask := c.ask; {
	case ask == nil:
		how = "without a permission request"
	case ask.answer == answerDenied:
		how = "although its permission request was denied"
	case ask.answer == answerCancelled:
		how = "although its permission request was answered cancelled"
	case ask.answer == answerNone:
		how = "although its permission request was never answered"
	case sameForm(PermissionRequest(ask.call, nil, s.cwd), req):
		return "" // what the policy allowed
	default:
		how = fmt.Sprintf("otherwise than its permission request asked (%s), which was allowed", askedForm(s.red, &ask.call))
	}
	what := "ran " + how
	if call.Status == acp.StatusFailed { // it may have failed before it did anything
		what = "was tried " + how + " (it failed, so it may not have run)"
	}
	if s.judge {
		if readOnlyKind(call.Kind) {
			return ""
		}
		return fmt.Sprintf("tool call %s (%q) %s; acprun denies a judge every permission: the denial had no effect on it", termtext.OneLine(call.ToolCallID), call.Title, what)
	}
	d := s.policy.Evaluate(req)
	if d.Verdict != approve.Deny {
		return ""
	}
	by := "the default"
	if d.Rule != "" {
		by = d.RuleList + " rule " + d.Rule
	}
	return fmt.Sprintf("tool call %s (%q) %s; the policy would have denied it (%s): the policy had no effect on it", termtext.OneLine(call.ToolCallID), call.Title, what, by)
}

// readOnlyKind reports whether a tool call of kind k only reads: what a
// judge is asked to do in the workspace.
func readOnlyKind(k acp.ToolKind) bool {
	return k == acp.KindRead || k == acp.KindSearch || k == acp.KindThink
}

// ranAnyway reports whether a call whose permission request ask was not
// allowed, now of status st, ran all the same: it completed, or it is in
// progress and was not when it asked. A call that failed is how agents
// report the refusal (it did not run), and one that was in progress
// already when it asked may have stopped there.
func ranAnyway(ask *callAsk, st acp.ToolCallStatus) bool {
	return st == acp.StatusCompleted || st == acp.StatusInProgress && ask.call.Status != acp.StatusInProgress
}

// sameForm reports whether the policy reads a and b alike: the same kind,
// tool, title, input and paths.
func sameForm(a, b approve.Request) bool {
	return a.Kind == b.Kind && a.Tool == b.Tool && a.Title == b.Title && bytes.Equal(a.RawInput, b.RawInput) &&
		slices.Equal(a.Locations, b.Locations) && slices.Equal(a.DiffPaths, b.DiffPaths)
}

// askedForm says what a permission request asked about a tool call: its
// title and the beginning of its input, as the results have them.
func askedForm(red *redact.Redactor, call *acp.ToolCall) string {
	form := fmt.Sprintf("%q", call.Title)
	if in := string(call.RawInput); len(in) > maxAskedInput {
		form += ", input " + red.Excerpt(in, 0, termtext.Boundary(in, maxAskedInput), false) + "…" // a secret the cut goes through, redacted
	} else if in != "" {
		form += ", input " + in
	}
	return form
}

// maxAskedInput bounds the input askedForm gives, in bytes: an edit's
// input may hold a whole file.
const maxAskedInput = 120
