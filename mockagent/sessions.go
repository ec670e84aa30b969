package mockagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
)

// This file holds what lets a mock session outlive its process: the
// sessions: directory that keeps every session's history, session/load
// (which replays it) and session/resume (which does not), the loadError
// that refuses both, and the history and waitFor steps.

// message is one message of a session's history.
type message struct {
	Role string `json:"role"` // user | agent
	Text string `json:"text"`
}

// savedSession is a session's file in the sessions: directory.
type savedSession struct {
	SessionID string    `json:"sessionId"`
	Cwd       string    `json:"cwd"`
	History   []message `json:"history"`
}

// sessionFile is the file of session id in the sessions: directory; "" for
// an id that cannot name a file there (such a session is never found).
func (s *Script) sessionFile(id string) string {
	if s.sessionsDir == "" || id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return ""
	}
	return filepath.Join(s.sessionsDir, id+".json")
}

// checkSessions makes the sessions: directory and checks that files can
// be made in it, before the agent reads anything: in a directory it
// cannot write, every session would be lost, and a later session/load
// would not find it. The error is at the script's sessions:.
func (s *Script) checkSessions() error {
	if s.sessionsDir == "" {
		return nil
	}
	if err := outfile.CheckDir(context.Background(), s.sessionsDir); err != nil {
		e := *s.sessionsAt
		e.Msg = termtext.Printable(fmt.Sprintf("sessions: %v: the agent could not keep its sessions there; give a directory it can write", err))
		return &e
	}
	return nil
}

// readSession reads session id's file: a -32002 error when there is none.
func (s *Script) readSession(method, id string) (savedSession, error) {
	var saved savedSession
	f := s.sessionFile(id)
	data, err := os.ReadFile(f)
	if f == "" || errors.Is(err, fs.ErrNotExist) {
		return saved, acp.NewError(acp.CodeResourceNotFound, "%s: session %q not found", method, id)
	}
	if err == nil {
		err = json.Unmarshal(data, &saved)
	}
	if err != nil {
		return saved, acp.NewError(acp.CodeInternalError, "%s: session %q: %v", method, id, err)
	}
	return saved, nil
}

// save writes the session's file, when the script keeps sessions. The
// caller holds a.mu.
func (a *agent) saveLocked(sess *session) error {
	f := a.s.sessionFile(sess.id)
	if f == "" {
		return nil
	}
	data, err := json.MarshalIndent(savedSession{SessionID: sess.id, Cwd: sess.cwd, History: sess.history}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return err
	}
	tmp := f + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, f)
}

// remember adds a prompt and the agent's reply to the session's history
// and saves it, before the prompt is answered: a client that has the answer
// finds the session saved.
func (a *agent) remember(sess *session, prompt, reply string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sess.history = append(sess.history, message{Role: "user", Text: prompt}, message{Role: "agent", Text: reply})
	if err := a.saveLocked(sess); err != nil {
		_, _ = fmt.Fprintf(a.stderr, "mock-agent: save session %s: %v\n", sess.id, err) // a log line
	}
}

// newSessionIDLocked is the id of the next session/new: the script's
// sessionId (or mock-session-N), skipping those the sessions: directory
// already has. With a sessions: directory the id is claimed there at once
// (its file created, O_EXCL), so that agents running side by side on one
// directory never share an id. The caller holds a.mu.
func (a *agent) newSessionIDLocked(cwd string) string {
	for {
		a.created++
		id := fmt.Sprintf("mock-session-%d", a.created)
		if a.s.sessionID != "" {
			id = a.s.sessionID
			if a.created > 1 {
				id = fmt.Sprintf("%s-%d", a.s.sessionID, a.created)
			}
		}
		if a.claim(id, cwd) {
			return id
		}
	}
}

// claim creates session id's file in the sessions: directory, reporting
// false when it exists already. Without the directory every id is free;
// when the file cannot be made the id is used anyway (saving it will
// report the problem).
func (a *agent) claim(id, cwd string) bool {
	f := a.s.sessionFile(id)
	if f == "" {
		return a.s.sessionsDir == ""
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return true
	}
	w, err := os.OpenFile(f, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer w.Close()
	data, _ := json.Marshal(savedSession{SessionID: id, Cwd: cwd, History: []message{}})
	_, _ = w.Write(append(data, '\n')) // a session with no history yet
	return true
}

// loadSession answers session/load: the session's history (from the
// sessions: directory) is replayed as user_message_chunk and
// agent_message_chunk updates, then the load: steps play.
func (a *agent) loadSession(ctx context.Context, req *acp.Request, p acp.LoadSessionRequest) (any, error) {
	sess, err := a.reopen(req, p)
	if err != nil {
		return nil, err
	}
	pl := a.player(ctx, sess, nil, cancelIgnore)
	for _, m := range sess.history {
		kind := acp.UpdateAgentMessageChunk
		if m.Role == "user" {
			kind = acp.UpdateUserMessageChunk
		}
		if pl.notify(textChunk(kind, m.Text, "")) != nil {
			return a.neverAnswer(ctx, req)
		}
	}
	if end := pl.play(a.s.load); end != nil && end.dead {
		return a.neverAnswer(ctx, req)
	}
	modes, opts, models := a.settings(sess)
	return acp.LoadSessionResponse{Modes: modes, ConfigOptions: opts, Models: models}, nil
}

// resumeSession answers session/resume: the session comes back without a
// replay.
func (a *agent) resumeSession(_ context.Context, req *acp.Request, p acp.ResumeSessionRequest) (any, error) {
	sess, err := a.reopen(req, acp.LoadSessionRequest(p)) // the same members
	if err != nil {
		return nil, err
	}
	modes, opts, models := a.settings(sess)
	return acp.ResumeSessionResponse{Modes: modes, ConfigOptions: opts, Models: models}, nil
}

// reopen checks what session/load and session/resume have in common and
// makes the session known again, with its history when the script keeps
// sessions (which also makes an unknown id -32002).
func (a *agent) reopen(req *acp.Request, p acp.LoadSessionRequest) (*session, error) {
	id, cwd := p.SessionID, p.Cwd
	if id == "" {
		return nil, acp.NewError(acp.CodeInvalidParams, "%s: sessionId is required", req.Method)
	}
	if err := a.sessionParams(req, cwd, p.AdditionalDirectories); err != nil {
		return nil, err
	}
	if e := a.s.loadError; e != nil {
		return nil, &acp.Error{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	sess := &session{id: id, cwd: cwd, dirs: p.AdditionalDirectories}
	if a.s.sessionsDir != "" {
		saved, err := a.s.readSession(req.Method, id)
		if err != nil {
			return nil, err
		}
		if saved.Cwd != "" && saved.Cwd != cwd {
			return nil, acp.NewError(acp.CodeInvalidParams, "%s: session %q has cwd %s, not %s", req.Method, id, saved.Cwd, cwd)
		}
		sess.history = saved.History
	}
	a.initSettings(sess)
	a.mu.Lock()
	a.sessions[id] = sess
	a.mu.Unlock()
	return sess, nil
}

// historyStep says the session's earlier prompts and replies.
type historyStep struct{ onlyTrue }

func (st *historyStep) play(pl *player) *ending {
	return check(pl.say("%s", pl.a.historyText(pl.sess)))
}

// historyText is what a history step says: the session's earlier
// messages, one "user: …" or "agent: …" line each, or "(no history)".
func (a *agent) historyText(sess *session) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(sess.history) == 0 {
		return "(no history)"
	}
	var b strings.Builder
	for i, m := range sess.history {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(m.Role + ": " + m.Text)
	}
	return b.String()
}

// waitForStep reads the file at path arg to its end. A FIFO blocks until a
// writer has opened it and closed it again, which lets a test hold the
// agent at this point. $NAME and ${NAME} in path are expanded from the
// agent's environment, and a path that expands to "" skips the step, so
// that one script holds one run and not the next. A cancel (as the turn's
// onCancel says) or the end of Run stops the wait; a file that cannot be
// read is reported as an "error: waitFor: …" text chunk.
type waitForStep struct{ nonEmptyArg }

func (st *waitForStep) play(pl *player) *ending {
	path := os.ExpandEnv(st.arg)
	if path == "" {
		return nil
	}
	path = abs(pl.sess.cwd, path)
	done := make(chan error, 1)
	go func() {
		f, err := os.Open(path)
		if err == nil {
			_, err = io.Copy(io.Discard, f)
			f.Close()
		}
		done <- err
	}()
	// unblock ends an open of a FIFO still waiting for a writer.
	unblock := func() {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	select {
	case err := <-done:
		if err != nil {
			return check(pl.say("error: waitFor: %v", err))
		}
		return nil
	case <-pl.cancelled():
		unblock()
		return pl.cancelEnding()
	case <-pl.a.ctx.Done():
		unblock()
		return died()
	}
}

// scriptRelative resolves dir against the directory of the script file,
// and makes it absolute: the agent's cwd may change nothing.
func scriptRelative(script, dir string) string {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(script), dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
