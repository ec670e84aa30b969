package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/sessionstate"
	"github.com/acprun/acprun/internal/shellquote"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file continues sessions across runs (a scenario's session.resume,
// run --resume): the state files, session/load or session/resume in the
// handshake, the replayed history, and the session id saved at the end.

// maxHistoryMessages bounds the replayed messages kept in a result.
const maxHistoryMessages = 200

// historyState records a session/load's replay. It is guarded by
// session.mu.
type historyState struct {
	loading   bool // session/load is not answered yet: updates are history
	rec       report.History
	lastID    string // the messageId of the last message's chunks
	lastChunk string // the kind of the last chunk
}

// recordHistoryLocked records n as history when a session/load is being
// answered, and reports whether it did. The caller holds s.mu.
func (s *session) recordHistoryLocked(n acp.SessionNotification) bool {
	h := s.history
	if h == nil || !h.loading {
		return false
	}
	u := n.Update
	if h.rec.Updates == nil {
		h.rec.Updates = map[string]int{}
	}
	h.rec.Updates[u.Kind]++
	var role string
	var chunk *acp.ContentChunk
	switch {
	case u.UserMessageChunk != nil:
		role, chunk = "user", u.UserMessageChunk
	case u.AgentMessageChunk != nil:
		role, chunk = "agent", u.AgentMessageChunk
	default:
		h.lastChunk = u.Kind
		return true
	}
	if chunk.Content.Type != acp.ContentText {
		return true
	}
	msgs := h.rec.Messages
	// A chunk continues the last message seen when it is of its kind and
	// messageId; once messages are dropped, the last one seen is dropped.
	same := h.lastChunk == u.Kind && chunk.MessageID == h.lastID && (len(msgs) > 0 || h.rec.MessagesDropped > 0)
	h.lastChunk, h.lastID = u.Kind, chunk.MessageID
	switch {
	case same && h.rec.MessagesDropped == 0:
		msgs[len(msgs)-1].Text += chunk.Content.Text
	case same:
	case len(msgs) < maxHistoryMessages:
		h.rec.Messages = append(msgs, report.HistoryMessage{Role: role, Text: chunk.Content.Text})
	default:
		h.rec.MessagesDropped++
	}
	return true
}

// loading makes id the session's before session/load is sent, so that the
// replay is attributed to it, and records what comes as history.
func (s *session) loading(id string) {
	s.mu.Lock()
	s.history = &historyState{loading: true}
	s.mu.Unlock()
	s.setSessionID(id)
}

// loaded ends the replay: session/load was answered (ok: with success).
// Every update that came before the answer has been handled (acp's
// order). A refused load forgets the session id, so that the updates a
// new session sends before session/new answers are kept for it (§17).
func (s *session) loaded(ok bool) *report.History {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		s.sessionID = ""
	}
	if s.history == nil {
		return nil
	}
	s.history.loading = false
	h := s.history.rec
	if h.Updates == nil {
		h.Updates = map[string]int{}
	}
	return &h
}

// currentSessionID is the session's id; "" before one was opened.
func (s *session) currentSessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// resumeSpec asks the handshake to continue a recorded session.
type resumeSpec struct {
	sessionID string
	// loading is called before session/load is sent, loaded once it has
	// been answered (whatever the answer).
	loading func(id string)
	loaded  func(ok bool)
}

// continueSession opens the recorded session with session/load (when the
// agent advertises loadSession) or session/resume (sessionCapabilities.
// resume), and sets res.session as session/new would. It reports false
// when the agent offers neither or refuses (a JSON-RPC error): the
// handshake then opens a new session, and a warning says why. Any other
// failure is an error. dirs are the session's additionalDirectories: the
// whole list, as load and resume take it.
func (h *handshake) continueSession(call func(method string, params, result any) error, res *handshakeResult, servers []acp.McpServer, dirs []string) (bool, error) {
	r := h.resume
	if r == nil || r.sessionID == "" {
		return false, nil
	}
	caps := res.init.AgentCapabilities
	fallback := func(why string) (bool, error) {
		res.fallback = why
		res.warnings = append(res.warnings, fmt.Sprintf("session: %s; started a new session instead of continuing session %q", why, r.sessionID))
		return false, nil
	}
	var err error
	var got acp.LoadSessionResponse
	switch {
	case caps.LoadSession:
		res.method = acp.MethodSessionLoad
		if r.loading != nil {
			r.loading(r.sessionID)
		}
		err = call(acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: r.sessionID, Cwd: h.cwd, AdditionalDirectories: dirs, McpServers: servers}, &got)
		if r.loaded != nil {
			r.loaded(err == nil)
		}
	case caps.SessionCapabilities.Resume != nil:
		res.method = acp.MethodSessionResume
		err = call(acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: r.sessionID, Cwd: h.cwd, AdditionalDirectories: dirs, McpServers: servers}, &got) // its answer has load's shape
	default:
		return fallback("the agent advertises neither loadSession nor sessionCapabilities.resume")
	}
	if err != nil {
		var ae *acp.Error
		if !errors.As(err, &ae) {
			return false, fmt.Errorf("%s: %w", res.method, err)
		}
		method := res.method
		res.method = ""
		if ae.Code == acp.CodeResourceNotFound {
			return fallback(fmt.Sprintf("the recorded session is gone (%s: %s, code %d)", method, ae.Message, ae.Code))
		}
		return fallback(fmt.Sprintf("the agent refused %s (%s, code %d)", method, ae.Message, ae.Code))
	}
	res.resumed = true
	res.session = acp.NewSessionResponse{SessionID: r.sessionID, Modes: got.Modes, ConfigOptions: got.ConfigOptions, Models: got.Models, Meta: got.Meta, Malformed: got.Malformed}
	return true, nil
}

// resumes reports whether sc continues its session in this run.
func resumes(opts *Options, sc *scenario.Scenario) bool {
	return opts.Resume || sc.Session.Resume
}

// sessionKey is sc's key in its state file: its name and its agent (the
// named agent, else its command line, with the secrets red knows
// redacted: the state file is an output too, and a rotated key then keeps
// its session).
func sessionKey(sc *scenario.Scenario, red *redact.Redactor) (key, agent string) {
	agent = sc.Agent.Name
	if agent == "" {
		agent = red.String(shellquote.Join(sc.Agent.Command))
	}
	return sessionstate.Key(sc.Name, agent), agent
}

// stateFile is one state file a run uses: its paths as the scenarios
// name it, sorted (they differ by symlinks of its directory's ancestors;
// the first names it in messages), and its sessionstate.Identity.
type stateFile struct {
	id    string
	paths []string
}

// stateFiles lists the state files the scenarios use in a run with opts
// (those that resume, or all with opts.Resume), each once whatever its
// spellings, in the order of their identities: the files to lock before
// the run, the ones two runs share in the same order.
func stateFiles(opts Options, scs []*scenario.Scenario) []stateFile {
	byID := map[string]*stateFile{}
	for _, sc := range scs {
		if !resumes(&opts, sc) {
			continue
		}
		path := sc.StateFile()
		id := sessionstate.Identity(path)
		f := byID[id]
		if f == nil {
			f = &stateFile{id: id}
			byID[id] = f
		}
		if !slices.Contains(f.paths, path) {
			f.paths = append(f.paths, path)
		}
	}
	out := make([]stateFile, 0, len(byID))
	for _, f := range byID {
		slices.Sort(f.paths)
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b stateFile) int { return strings.Compare(a.id, b.id) })
	return out
}

// OpenStates opens and locks the state files the scenarios use (see
// stateFiles): each once, however many paths name it (a second lock on it
// would wait for this run itself), and in the order of their identities
// so that two runs never wait for each other in a circle; it is the one
// place where they are opened. The map holds each file under every path
// that names it. mode says what to do about a lock another process holds;
// waiting, when not nil, is told before each wait, with the file's first
// path. On an error the files opened so far are closed: a
// *sessionstate.BusyError (mode Fail), an *srcerr.Error (a state file
// that is not one), or ctx's end while waiting. The caller passes the map
// in Options.States and closes every file once Run returned.
func OpenStates(ctx context.Context, opts Options, scs []*scenario.Scenario, mode sessionstate.Mode, waiting func(path string, pid int)) (map[string]*sessionstate.File, error) {
	states := map[string]*sessionstate.File{}
	for _, sf := range stateFiles(opts, scs) {
		path := sf.paths[0]
		var w func(int)
		if waiting != nil {
			w = func(pid int) { waiting(path, pid) }
		}
		f, err := sessionstate.Open(ctx, path, mode, w)
		if err != nil {
			for _, g := range states {
				g.Close()
			}
			return nil, err
		}
		for _, p := range sf.paths {
			states[p] = f
		}
	}
	return states, nil
}

// prepareResume looks up the scenario's recorded session before the
// agent starts, and holds its key until releaseSession, so that attempts
// of the same scenario take turns. It returns what the handshake needs
// (nil: a new session); an error means the state file is not open or the
// wait for the key ended with ctx.
func (r *scenarioRun) prepareResume(ctx context.Context) (*resumeSpec, error) {
	sc := r.sc
	if !resumes(r.opts, sc) {
		return nil, nil
	}
	path := sc.StateFile()
	key, _ := sessionKey(sc, r.red)
	r.res.Session = &report.SessionResult{StateFile: path, Key: key}
	f := r.opts.States[path]
	if f == nil {
		return nil, fmt.Errorf("session: state file %s is not open (runner.OpenStates)", path)
	}
	release, err := f.Hold(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("session: waiting for another attempt of %q to finish: %w", key, err)
	}
	r.state, r.releaseHold = f, release
	e, ok := f.Get(key)
	if !ok {
		// A first run, or the runs before did not continue theirs (a
		// one-shot run without --resume records none): said by
		// noteOpened, once a session is opened.
		r.noneRecorded = true
		return nil, nil
	}
	r.res.Session.Recorded = e.SessionID
	if e.Cwd != "" && e.Cwd != sc.Agent.Cwd { // a hand-written entry may leave it out
		why := fmt.Sprintf("the recorded session's cwd %s is not this run's %s", e.Cwd, sc.Agent.Cwd)
		r.res.Session.Fallback = why
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("session: %s; started a new session instead of continuing session %q", why, e.SessionID))
		return nil, nil
	}
	return &resumeSpec{
		sessionID: e.SessionID,
		loading:   r.sess.loading,
		loaded:    func(ok bool) { r.res.Session.History = r.sess.loaded(ok) },
	}, nil
}

// releaseSession lets the next attempt of the same session in.
func (r *scenarioRun) releaseSession() {
	if r.releaseHold != nil {
		r.releaseHold()
		r.releaseHold = nil
	}
}

// noteOpened records in the result how the handshake opened the session.
func (r *scenarioRun) noteOpened(got handshakeResult) {
	s := r.res.Session
	if s == nil {
		return
	}
	if got.fallback != "" {
		s.Fallback = got.fallback
	}
	s.Resumed = got.resumed
	if !got.resumed {
		s.History = nil // a refused load replays nothing that counts
	}
	switch {
	case got.resumed:
		s.Method = got.method
	case got.session.SessionID != "":
		s.Method = acp.MethodSessionNew
	}
	if r.noneRecorded && s.Method != "" {
		// Said lest a run seem to have continued a conversation it did
		// not; whether the new session is saved, saveSession says.
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("session: no session is recorded for %q in %s yet; started a new session", s.Key, s.StateFile))
	}
}

// errSecretSessionID says why a session id holding a secret is not saved.
var errSecretSessionID = errors.New("the agent's session id holds a secret, so it is not recorded in the state file (an output, redacted as the others)")

// saveSession writes the scenario's session id to the state file once the
// agent has stopped, whenever a session was opened: the next run
// continues it, whatever became of this one.
//
// A session id that holds a secret (the agent chose it) cannot be
// redacted without making it useless, so it is not written: the entry is
// written without a session id, which makes the next run start a new
// session rather than continue an older one, and a warning says so.
// A state file that cannot be written is an output lost (LostOutputs):
// the run exits 4, whatever the scenario's verdict.
func (r *scenarioRun) saveSession() {
	s := r.res.Session
	if s == nil || r.state == nil || r.sess == nil {
		return
	}
	id := r.sess.currentSessionID()
	if id == "" || s.Method == "" {
		return
	}
	s.SessionID = id
	saved := id
	if r.red.String(id) != id {
		saved = ""
	}
	_, agent := sessionKey(r.sc, r.red)
	err := r.state.Put(r.runCtx, s.Key, sessionstate.Entry{
		SessionID: saved, Scenario: r.sc.Name, Agent: agent, File: r.sc.File,
		Cwd: r.sc.Agent.Cwd, Method: s.Method, UpdatedAt: time.Now().UTC(),
	})
	switch {
	case err != nil:
		// The state file is an output: one that cannot be written is
		// lost, as a transcript is (the run exits 4).
		s.SaveError = err.Error()
		msg := fmt.Sprintf("session: %v; the session id was not saved: the next run will start a new session", err)
		r.res.Warnings = append(r.res.Warnings, msg)
		r.res.LostOutputs = append(r.res.LostOutputs, msg)
	case saved == "":
		s.SaveError = errSecretSessionID.Error()
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("session: %v; the next run will start a new session", errSecretSessionID))
	default:
		s.Saved = true
	}
}
