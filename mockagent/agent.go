package mockagent

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// Run plays s as an ACP agent: it reads the client's messages from stdin and
// writes its own to stdout, one JSON object per line; stderr gets the
// script's stderr steps and notes. Requests are handled in arrival order.
//
// Run returns nil once stdin has ended and everything read has been
// answered (turns play on, but client calls fail and waitForCancel ends as
// if cancelled), or ctx's error when ctx ends. An exit step ends the
// process (os.Exit). After a hang step, and with the script's ignoreEOF, it ignores the
// end of stdin and returns only when ctx ends. The script's startDelay
// passes before anything is read.
//
// Run never changes signal handling: see Script.IgnoreSigterm.
func Run(ctx context.Context, s *Script, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := s.checkSessions(); err != nil {
		return err
	}
	if d := s.startDelay; d > 0 { // a real agent's start-up: nothing is read meanwhile
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	// Handlers see the end of Run only once nothing more can be written:
	// a handler woken by ctx must not answer the client.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	a := &agent{
		s:               s,
		ctx:             runCtx,
		out:             &output{w: stdout, failed: make(chan struct{})},
		stderr:          &lockedWriter{w: stderr},
		sessions:        map[string]*session{},
		ready:           make(chan struct{}),
		responseWatch:   map[string]chan struct{}{},
		inflight:        map[string]int{},
		delayed:         map[string]chan struct{}{},
		inflightChanged: make(chan struct{}, 1),
		eof:             make(chan struct{}),
	}
	a.out.written = a.wrote
	a.conn = acp.NewConn(stdin, a.out, a, &acp.Options{Peer: "client", AnswerMalformed: true})
	close(a.ready)

	var err error
	select {
	case <-a.conn.Done():
		err = a.finish(ctx)
	case <-ctx.Done():
		err = ctx.Err()
	}
	a.out.kill() // a dying agent answers nothing more, not even with an error
	cancel()
	a.conn.Close()
	a.bg.Wait()
	a.reapChildren()
	return err
}

// finish handles the end of stdin: the turns already asked for play on
// (client calls fail, waitForCancel ends as if cancelled), and every request
// read gets its answer and every after: step is played before Run returns,
// unless a hang step or ignoreEOF keeps the agent alive until ctx ends.
func (a *agent) finish(ctx context.Context) error {
	close(a.eof)
	for {
		a.mu.Lock()
		pending := len(a.inflight)
		a.mu.Unlock()
		if pending == 0 || a.hung.Load() {
			break
		}
		select {
		case <-a.inflightChanged:
		case <-a.out.failed:
			return nil // answers cannot be written any more
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if !a.hung.Load() { // let after: steps play out
		bgDone := make(chan struct{})
		go func() {
			a.bg.Wait()
			close(bgDone)
		}()
		select {
		case <-bgDone:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if a.hung.Load() || a.s.ignoreEOF {
		<-ctx.Done()
		return ctx.Err()
	}
	if err := a.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mock agent: %w", err)
	}
	return nil
}

// arrived counts a request in inflight until it is answered. The Conn is
// ordered, so by the time its Done closes every request read has arrived.
func (a *agent) arrived(id *acp.ID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight[id.String()]++
}

// answered forgets a request whose response was written or will never be.
func (a *agent) answered(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inflight[id] <= 1 {
		delete(a.inflight, id)
	} else {
		a.inflight[id]--
	}
	select {
	case a.inflightChanged <- struct{}{}:
	default:
	}
}

// agent is the state of one Run.
type agent struct {
	s      *Script
	ctx    context.Context // ends when Run ends
	conn   *acp.Conn       // set before ready closes
	ready  chan struct{}   // Handle waits for it, as the Conn may call it before NewConn returns
	out    *output
	stderr *lockedWriter

	hung atomic.Bool

	bg sync.WaitGroup // goroutines playing after: steps

	mu            sync.Mutex
	initialized   bool
	client        acp.ClientCapabilities // what initialize said the client offers
	authenticated bool
	sessions      map[string]*session
	created       int // sessions created by session/new
	children      []*exec.Cmd
	responseWatch map[string]chan struct{} // request id → closed when its response is written
	inflight      map[string]int           // request id → requests handled and not yet answered
	delayed       map[string]chan struct{} // request id → closed by its $/cancel_request (see delay)

	inflightChanged chan struct{} // 1-buffered: inflight shrank
	eof             chan struct{} // closed when stdin has ended
}

type session struct {
	id, cwd string
	dirs    []string // its additionalDirectories
	// Guarded by agent.mu:
	mode    string
	config  []acp.SessionConfigOption // current values of the script's configOptions
	model   string                    // the current model of the script's models
	turns   int                       // prompt turns started
	active  *turnRun                  // the running turn, or nil
	history []message                 // earlier prompts and replies (see sessions.go)
	// after counts the session's after: steps still playing; session/close
	// waits for them, so that nothing of the session follows its answer.
	after sync.WaitGroup
	// next, guarded by agent.mu, closes when the client sends the
	// session's next session/prompt or session/close (see nextLocked).
	next chan struct{}
}

// nextLocked returns a channel that closes when the client sends the
// session's next session/prompt or session/close: by then it has read
// every answer before. agent.mu is held.
func (s *session) nextLocked() <-chan struct{} {
	if s.next == nil {
		s.next = make(chan struct{})
	}
	return s.next
}

// spokeLocked says that the client sent the session a session/prompt or
// session/close (see nextLocked). agent.mu is held.
func (s *session) spokeLocked() {
	if s.next != nil {
		close(s.next)
		s.next = nil
	}
}

// turnRun is a running prompt turn; cancelled closes on session/cancel.
type turnRun struct {
	once      sync.Once
	cancelled chan struct{}
}

func (r *turnRun) cancel() { r.once.Do(func() { close(r.cancelled) }) }

// Handle answers the client's requests and notifications.
//
// The Conn handles messages one at a time in arrival order, so that the
// agent behaves the same when a client sends requests without waiting for
// answers: a request holds the ones behind it until it is answered. A
// prompt holds them only until its turn is registered, then plays on with
// acp.Async: a session/cancel read after the prompt therefore always finds
// the turn it cancels. Steps played while a request holds the line (before
// session/new answers, on session/load) send their client calls with the
// request's ctx, so that their answers reach them ahead of the queue.
func (a *agent) Handle(ctx context.Context, req *acp.Request) (any, error) {
	<-a.ready
	if req.ID == nil {
		switch {
		case a.hung.Load():
		case req.Method == acp.MethodSessionCancel:
			a.cancel(req)
		case req.Method == acp.MethodCancelRequest:
			a.cancelRequest(req)
		}
		return nil, nil // other notifications are ignored
	}
	a.arrived(req.ID)
	if a.hung.Load() {
		return a.neverAnswer(ctx, req)
	}
	if d, ok := a.s.delays[req.Method]; ok {
		if err := a.delay(ctx, req, d); err != nil {
			return nil, err
		}
	}
	switch req.Method {
	case acp.MethodInitialize:
		return handle(ctx, req, a.initialize)
	}
	a.mu.Lock()
	initialized := a.initialized
	a.mu.Unlock()
	if !initialized {
		return nil, acp.NewError(acp.CodeInvalidRequest, "%s before initialize", req.Method)
	}
	switch req.Method {
	case acp.MethodAuthenticate:
		return handle(ctx, req, a.authenticate)
	case acp.MethodSessionNew:
		return handle(ctx, req, a.newSession)
	case acp.MethodSessionSetMode:
		return handle(ctx, req, a.setMode)
	case acp.MethodSessionSetConfigOption:
		return handle(ctx, req, a.setConfigOption)
	case acp.MethodSessionPrompt:
		return handle(ctx, req, a.prompt)
	}
	// The methods of what a script may leave out: unknown unless offered.
	switch caps := a.s.capabilities; {
	case req.Method == acp.MethodSessionLoad && caps.LoadSession:
		return handle(ctx, req, a.loadSession)
	case req.Method == acp.MethodSessionResume && caps.SessionCapabilities.Resume != nil:
		return handle(ctx, req, a.resumeSession)
	case req.Method == acp.MethodSessionClose && caps.SessionCapabilities.Close != nil:
		return handle(ctx, req, a.closeSession)
	case req.Method == acp.MethodSessionSetModel && a.s.models != nil:
		return handle(ctx, req, a.setModel)
	}
	return nil, acp.MethodNotFound(req.Method)
}

// handle answers req with h, given its params as P; params that do not
// fit are answered -32602.
func handle[P any](ctx context.Context, req *acp.Request, h func(context.Context, *acp.Request, P) (any, error)) (any, error) {
	var p P
	if len(req.Params) == 0 {
		return nil, acp.NewError(acp.CodeInvalidParams, "%s: missing params", req.Method)
	}
	if err := req.DecodeParams(&p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "%s: %v", req.Method, err)
	}
	return h(ctx, req, p)
}

func (a *agent) initialize(_ context.Context, _ *acp.Request, p acp.InitializeRequest) (any, error) {
	a.mu.Lock()
	a.initialized = true
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	info := a.s.agentInfo
	return acp.InitializeResponse{
		ProtocolVersion:   a.s.protocolVersion,
		AgentCapabilities: a.s.capabilities,
		AuthMethods:       a.s.authMethods,
		AgentInfo:         &info,
	}, nil
}

// clientCaps returns what the client advertised in initialize.
func (a *agent) clientCaps() acp.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

func (a *agent) authenticate(_ context.Context, _ *acp.Request, p acp.AuthenticateRequest) (any, error) {
	for _, m := range a.s.authMethods {
		if m.ID == p.MethodID && m.Type != acp.AuthTypeTerminal {
			if e := a.s.authError; e != nil {
				return nil, &acp.Error{Code: e.Code, Message: e.Message, Data: e.Data}
			}
			a.mu.Lock()
			a.authenticated = true
			a.mu.Unlock()
			return acp.AuthenticateResponse{}, nil
		}
	}
	return nil, acp.NewError(acp.CodeInvalidParams, "unknown auth method %q", p.MethodID)
}

// sessionParams checks what session/new, session/load and session/resume
// have in common (mcpServers is optional for session/resume).
func (a *agent) sessionParams(req *acp.Request, cwd string, dirs []string) error {
	if a.needsAuth() {
		return acp.NewError(acp.CodeAuthRequired, "Authentication required")
	}
	if err := a.checkDirs(req, dirs); err != nil {
		return err
	}
	var raw struct {
		McpServers *json.RawMessage `json:"mcpServers"`
	}
	if err := req.DecodeParams(&raw); req.Method != acp.MethodSessionResume && (err != nil || raw.McpServers == nil) {
		return acp.NewError(acp.CodeInvalidParams, "%s: mcpServers must be an array", req.Method)
	}
	if !filepath.IsAbs(cwd) {
		return acp.NewError(acp.CodeInvalidParams, "%s: cwd must be an absolute path, got %q", req.Method, cwd)
	}
	return nil
}

func (a *agent) newSession(ctx context.Context, req *acp.Request, p acp.NewSessionRequest) (any, error) {
	if err := a.sessionParams(req, p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, err
	}
	a.mu.Lock()
	id := a.newSessionIDLocked(p.Cwd)
	sess := &session{id: id, cwd: p.Cwd, dirs: p.AdditionalDirectories}
	a.initSettings(sess)
	a.mu.Unlock()

	pl := a.player(ctx, sess, nil, cancelIgnore)
	if end := pl.play(a.s.beforeSessionNew); end != nil && end.dead {
		return a.neverAnswer(ctx, req)
	}
	a.mu.Lock()
	a.sessions[id] = sess
	a.mu.Unlock()
	modes, opts, models := a.settings(sess)
	return acp.NewSessionResponse{SessionID: id, Modes: modes, ConfigOptions: opts, Models: models}, nil
}

func (a *agent) session(id string) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sess, ok := a.sessions[id]
	if !ok {
		return nil, acp.NewError(acp.CodeResourceNotFound, "unknown session %q", id)
	}
	return sess, nil
}

func (a *agent) setMode(_ context.Context, _ *acp.Request, p acp.SetSessionModeRequest) (any, error) {
	sess, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if a.s.modes != nil {
		for _, m := range a.s.modes.AvailableModes {
			if m.ID == p.ModeID {
				a.mu.Lock()
				sess.mode = p.ModeID
				a.mu.Unlock()
				return acp.SetSessionModeResponse{}, nil
			}
		}
	}
	return nil, acp.NewError(acp.CodeInvalidParams, "unknown mode %q", p.ModeID)
}

func (a *agent) cancel(req *acp.Request) {
	var p acp.CancelNotification
	if req.DecodeParams(&p) != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// Messages are handled in order: a prompt read before this cancel has
	// registered its turn.
	if sess, ok := a.sessions[p.SessionID]; ok && sess.active != nil {
		sess.active.cancel()
	}
}

// closeSession answers session/close: the session's running turn is
// cancelled (as session/cancel would, by its onCancel), its after: steps
// are played out, and the session is forgotten, so that later requests
// for it are -32002 and nothing of it follows the answer.
func (a *agent) closeSession(ctx context.Context, _ *acp.Request, p acp.CloseSessionRequest) (any, error) {
	a.mu.Lock()
	sess, ok := a.sessions[p.SessionID]
	if ok {
		if sess.active != nil {
			sess.active.cancel()
		}
		sess.spokeLocked()
		delete(a.sessions, p.SessionID)
	}
	a.mu.Unlock()
	if !ok {
		return nil, acp.NewError(acp.CodeResourceNotFound, "unknown session %q", p.SessionID)
	}
	acp.Async(ctx) // the after: steps may wait for later messages
	sess.after.Wait()
	return acp.CloseSessionResponse{}, nil
}

// promptText joins the prompt's text blocks, for match: regexps.
func promptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case acp.ContentText:
			parts = append(parts, b.Text)
		case acp.ContentResource:
			if b.Resource != nil {
				parts = append(parts, b.Resource.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// pick chooses the turn for the n-th prompt (1-based) of a session: the
// first match: entry whose regexp matches the prompt's text, else the n-th
// entry without match:, else default:.
func (s *Script) pick(n int, text string) *turn {
	for _, t := range s.turns {
		if t.match != nil && t.match.MatchString(text) {
			return t
		}
	}
	i := 0
	for _, t := range s.turns {
		if t.match != nil {
			continue
		}
		if i++; i == n {
			return t
		}
	}
	return s.fallback
}

func (a *agent) prompt(ctx context.Context, req *acp.Request, p acp.PromptRequest) (any, error) {
	sess, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	run := &turnRun{cancelled: make(chan struct{})}
	a.mu.Lock()
	if sess.active != nil {
		a.mu.Unlock()
		return nil, acp.NewError(acp.CodeInvalidRequest, "session %q already has a prompt turn running", sess.id)
	}
	sess.active = run
	sess.turns++
	sess.spokeLocked()
	n := sess.turns
	a.mu.Unlock()
	acp.Async(ctx) // registered: later messages may go on while the turn plays
	defer func() {
		a.mu.Lock()
		sess.active = nil
		a.mu.Unlock()
	}()

	text := promptText(p.Prompt)
	tr := a.s.pick(n, text)
	if tr == nil {
		a.remember(sess, text, "")
		return acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
	}
	pl := a.player(ctx, sess, run, cmp.Or(tr.onCancel, a.s.onCancel))
	pl.prompt, pl.reply = text, &strings.Builder{}
	end := pl.play(tr.steps)
	a.remember(sess, text, pl.reply.String())
	if end == nil {
		end = &ending{stop: cmp.Or(acp.StopReason(tr.stopReason), acp.StopEndTurn)}
		if tr.err != nil {
			end = &ending{err: tr.err}
		}
	}
	if end.dead {
		return a.neverAnswer(ctx, req)
	}
	if len(tr.after) > 0 {
		written := a.watchResponse(req.ID)
		a.mu.Lock()
		next := sess.nextLocked()
		a.mu.Unlock()
		sess.after.Add(1)
		a.bg.Go(func() {
			defer sess.after.Done()
			select {
			case <-written:
			case <-a.ctx.Done():
				return
			}
			pl := a.player(a.ctx, sess, nil, cancelIgnore)
			pl.prompt = text // for a model step's {{prompt}}
			pl.next = next
			pl.play(tr.after) // an ending (a model step's error answer) ends them: no turn to fail
		})
	}
	if end.err != nil {
		return nil, &acp.Error{Code: end.err.Code, Message: end.err.Message, Data: end.err.Data}
	}
	return acp.PromptResponse{StopReason: end.stop, Usage: tr.usage}, nil
}

// neverAnswer blocks until Run ends: the agent died or hung. Later
// messages go on meanwhile.
func (a *agent) neverAnswer(ctx context.Context, req *acp.Request) (any, error) {
	acp.Async(ctx)
	a.answered(req.ID.String()) // nothing will be written for it

	<-a.ctx.Done()
	return nil, a.ctx.Err()
}

// abs resolves a script path against the session's cwd.
func abs(cwd, p string) string {
	if p == "" || filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// wrote is called by output after each message written: a response means
// its request is answered, and its after: steps may start.
func (a *agent) wrote(line []byte) {
	a.mu.Lock()
	watching := len(a.responseWatch) > 0 || len(a.inflight) > 0
	a.mu.Unlock()
	if !watching {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil || len(m.ID) == 0 {
		return
	}
	key := string(bytes.TrimSpace(m.ID))
	a.answered(key)
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.responseWatch[key]; ok {
		close(ch)
		delete(a.responseWatch, key)
	}
}

// watchResponse returns a channel closed when the response to id is
// written.
func (a *agent) watchResponse(id *acp.ID) <-chan struct{} {
	ch := make(chan struct{})
	a.mu.Lock()
	defer a.mu.Unlock()
	a.responseWatch[id.String()] = ch
	return ch
}
