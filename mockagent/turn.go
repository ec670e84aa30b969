package mockagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acprun/acprun/acp"
)

// ending is how a list of steps ended early, or how a turn ends.
type ending struct {
	stop acp.StopReason
	err  *rpcError
	dead bool // exit, hang or connection gone: answer nothing
}

// player plays steps for one session, inside a turn (run != nil) or outside.
type player struct {
	a *agent
	// ctx is the context the client calls are sent with: the request
	// handler's that plays the steps, or the agent's.
	ctx  context.Context
	sess *session
	run  *turnRun
	mode cancelMode
	// inCancelBranch is set while a permission's cancelled: steps play;
	// the cancel that led there must not stop them.
	inCancelBranch bool
	// open lists this turn's tool calls and their last status, in order.
	openIDs []string
	status  map[string]acp.ToolCallStatus
	// reply, when set, collects the text of the agent_message_chunks sent:
	// the turn's reply, for the session's history.
	reply *strings.Builder
}

func (a *agent) player(ctx context.Context, sess *session, run *turnRun, mode cancelMode) *player {
	return &player{a: a, ctx: ctx, sess: sess, run: run, mode: mode, status: map[string]acp.ToolCallStatus{}}
}

// cancelled returns the turn's cancel channel when a cancel should stop
// steps, nil (never ready) when it should not.
func (pl *player) cancelled() <-chan struct{} {
	if pl.run == nil || pl.mode == cancelIgnore || pl.inCancelBranch {
		return nil
	}
	return pl.run.cancelled
}

func (pl *player) cancelRequested() bool {
	select {
	case <-pl.cancelled():
		return true
	default:
		return false
	}
}

// cancelEnding ends a cancelled turn: tool calls still pending or running
// are reported failed, then the turn answers per the cancel mode.
func (pl *player) cancelEnding() *ending {
	for _, id := range pl.openIDs {
		if st := pl.status[id]; st == acp.StatusPending || st == acp.StatusInProgress {
			failed := acp.StatusFailed
			pl.status[id] = failed
			if err := pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: &failed}}); err != nil {
				return &ending{dead: true}
			}
		}
	}
	if pl.mode == cancelEndTurn {
		return &ending{stop: acp.StopEndTurn}
	}
	return &ending{stop: acp.StopCancelled}
}

// track records a tool call's status for cancelEnding.
func (pl *player) track(id string, st *acp.ToolCallStatus, announce bool) {
	if _, ok := pl.status[id]; !ok {
		pl.openIDs = append(pl.openIDs, id)
		pl.status[id] = ""
		if announce {
			pl.status[id] = acp.StatusPending
		}
	}
	if st != nil {
		pl.status[id] = *st
	}
}

// play plays steps in order. It returns nil when they ran out, or how they
// ended early.
func (pl *player) play(steps []step) *ending {
	for _, st := range steps {
		if pl.a.ctx.Err() != nil {
			return &ending{dead: true}
		}
		if pl.cancelRequested() {
			return pl.cancelEnding()
		}
		if end := pl.step(st); end != nil {
			return end
		}
	}
	if pl.cancelRequested() {
		return pl.cancelEnding()
	}
	return nil
}

func (pl *player) notify(u acp.SessionUpdate) error {
	if pl.reply != nil && u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Type == acp.ContentText {
		pl.reply.WriteString(u.AgentMessageChunk.Content.Text)
	}
	return pl.a.conn.Notify(pl.a.ctx, acp.MethodSessionUpdate, acp.SessionNotification{SessionID: pl.sess.id, Update: u})
}

// rawNotification is a session/update with an update sent verbatim.
type rawNotification struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
}

// say sends an agent_message_chunk, used to report results of client calls.
func (pl *player) say(format string, args ...any) error {
	text := fmt.Sprintf(format, args...)
	return pl.notify(acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
}

// sayErr reports a failed client call as "error: method: message".
func (pl *player) sayErr(method string, err error) error {
	var rpcErr *acp.Error
	if errors.As(err, &rpcErr) {
		return pl.say("error: %s: %s (%d)", method, rpcErr.Message, rpcErr.Code)
	}
	return pl.say("error: %s: %v", method, err)
}

// call makes a request to the client and waits for its answer.
func (pl *player) call(ctx context.Context, method string, params, result any) error {
	return pl.a.conn.Call(pl.ctx, method, params).Await(ctx, result)
}

// resolve makes the paths of a tool call absolute against the session cwd.
func (pl *player) resolve(u acp.ToolCallUpdate) acp.ToolCallUpdate {
	if u.Content != nil {
		u.Content = append([]acp.ToolCallContent{}, u.Content...)
		for i := range u.Content {
			if u.Content[i].Type == acp.ToolContentDiff {
				u.Content[i].Path = abs(pl.sess.cwd, u.Content[i].Path)
			}
		}
	}
	if u.Locations != nil {
		u.Locations = append([]acp.ToolCallLocation{}, u.Locations...)
		for i := range u.Locations {
			u.Locations[i].Path = abs(pl.sess.cwd, u.Locations[i].Path)
		}
	}
	return u
}

// gone says whether Run has ended, so a call's error needs no report.
// After the end of stdin calls fail with acp.ErrClosed, which is reported
// like any other error.
func (pl *player) gone(error) bool {
	return pl.a.ctx.Err() != nil
}

// step plays one step; a non-nil ending stops the list.
func (pl *player) step(s step) *ending {
	dead := &ending{dead: true}
	// check turns a failed notification into the end of the turn.
	check := func(err error) *ending {
		if err != nil {
			return dead
		}
		return nil
	}
	switch s := s.(type) {
	case *showConfigStep:
		return check(pl.say("%s", pl.a.sessionSettings(pl.sess)))
	case *chunkStep:
		for i, c := range s.chunks {
			if i > 0 && pl.cancelRequested() {
				return pl.cancelEnding()
			}
			chunk := &acp.ContentChunk{Content: acp.TextBlock(c), MessageID: s.messageID}
			u := acp.SessionUpdate{Kind: s.kind}
			switch s.kind {
			case acp.UpdateAgentMessageChunk:
				u.AgentMessageChunk = chunk
			case acp.UpdateAgentThoughtChunk:
				u.AgentThoughtChunk = chunk
			default:
				u.UserMessageChunk = chunk
			}
			if err := pl.notify(u); err != nil {
				return dead
			}
		}
		return nil
	case *planStep:
		return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdatePlan, Plan: &acp.Plan{Entries: s.entries}}))
	case *toolCallStep:
		u := pl.resolve(s.call)
		pl.track(u.ToolCallID, u.Status, !s.update)
		if s.update {
			return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &u}))
		}
		tc := u.ToolCall()
		return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &tc}))
	case *permissionStep:
		return pl.permission(s)
	case *readStep:
		var res acp.ReadTextFileResponse
		err := pl.call(pl.a.ctx, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{
			SessionID: pl.sess.id, Path: abs(pl.sess.cwd, s.path), Line: s.line, Limit: s.limit,
		}, &res)
		switch {
		case pl.gone(err):
			return dead
		case err != nil:
			return check(pl.sayErr(acp.MethodFSReadTextFile, err))
		}
		return check(pl.say("read: %s", res.Content))
	case *writeStep:
		err := pl.call(pl.a.ctx, acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{
			SessionID: pl.sess.id, Path: abs(pl.sess.cwd, s.path), Content: s.content,
		}, nil)
		switch {
		case pl.gone(err):
			return dead
		case err != nil:
			return check(pl.sayErr(acp.MethodFSWriteTextFile, err))
		}
		return check(pl.say("write: ok"))
	case *terminalStep:
		return pl.terminal(s)
	case *sleepStep:
		t := time.NewTimer(s.d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-pl.cancelled():
			return pl.cancelEnding()
		case <-pl.a.ctx.Done():
			return dead
		}
	case *waitForCancelStep:
		if pl.run == nil {
			return nil
		}
		select {
		case <-pl.run.cancelled:
			return nil // play notices the cancel, unless the mode ignores it
		case <-pl.a.eof:
			pl.run.cancel() // no cancel can come any more: take the end of stdin as one
			return nil
		case <-pl.a.ctx.Done():
			return dead
		}
	case *rawUpdateStep:
		return check(pl.a.conn.Notify(pl.a.ctx, acp.MethodSessionUpdate, rawNotification{SessionID: pl.sess.id, Update: s.raw}))
	case *usageUpdateStep:
		u := s.update
		return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateUsageUpdate, UsageUpdate: &u}))
	case *stopStep:
		return &ending{stop: acp.StopReason(s.reason)}
	case *errorStep:
		e := s.err
		return &ending{err: &e}
	case *exitStep:
		pl.a.exit(s.code)
		return dead
	case *hangStep:
		pl.a.hang()
		_, _ = fmt.Fprintln(pl.a.stderr, "mock-agent: hanging (hang step)") // a log line; its failure changes nothing
		return dead
	case *garbageStep:
		return check(pl.a.out.writeLine(s.text))
	case *floodStep:
		for range s.count {
			if err := pl.notify(acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(s.text)}}); err != nil {
				return dead
			}
		}
		return nil
	case *stderrStep:
		text := s.text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		_, _ = pl.a.stderr.Write([]byte(text)) // stderr is a log; a failed write changes nothing
		return nil
	case *grandchildStep:
		pl.a.spawnGrandchild()
		return nil
	case *historyStep:
		return check(pl.say("%s", pl.a.historyText(pl.sess)))
	case *waitForStep:
		return pl.waitFor(s.path)
	}
	// Unreachable: the step set is closed and parse makes only the types above.
	return &ending{err: &rpcError{Code: acp.CodeInternalError, Message: fmt.Sprintf("mock agent: unknown step %T", s)}}
}

// permission asks the client and plays the branch for its answer.
func (pl *player) permission(s *permissionStep) *ending {
	opts := s.options
	if opts == nil {
		opts = pl.a.s.permissionOptions
	}
	u := pl.resolve(s.call)
	pl.track(u.ToolCallID, u.Status, false)
	var res acp.RequestPermissionResponse
	err := pl.call(pl.a.ctx, acp.MethodSessionRequestPermission, acp.RequestPermissionRequest{
		SessionID: pl.sess.id, ToolCall: u, Options: opts,
	}, &res)
	if pl.gone(err) {
		return &ending{dead: true}
	}
	branch := s.rejected
	switch {
	case err != nil:
		if pl.sayErr(acp.MethodSessionRequestPermission, err) != nil {
			return &ending{dead: true}
		}
	case res.Outcome.Outcome == acp.OutcomeCancelled:
		return pl.cancelledBranch(s)
	case res.Outcome.Outcome == acp.OutcomeSelected:
		kind, ok := acp.PermissionOptionKind(""), false
		for _, o := range opts {
			if o.OptionID == res.Outcome.OptionID {
				kind, ok = o.Kind, true
			}
		}
		if !ok {
			if pl.say("error: %s: unknown optionId %q", acp.MethodSessionRequestPermission, res.Outcome.OptionID) != nil {
				return &ending{dead: true}
			}
		} else if kind == acp.AllowOnce || kind == acp.AllowAlways {
			branch = s.allowed
		}
	default:
		if pl.say("error: %s: unknown outcome %q", acp.MethodSessionRequestPermission, res.Outcome.Outcome) != nil {
			return &ending{dead: true}
		}
	}
	return pl.play(branch)
}

// cancelledBranch plays the cancelled: steps of a permission answered
// "cancelled", then ends the turn per the cancel mode (ignore: go on).
func (pl *player) cancelledBranch(s *permissionStep) *ending {
	was := pl.inCancelBranch
	pl.inCancelBranch = true
	end := pl.play(s.cancelled)
	pl.inCancelBranch = was
	if end != nil || pl.mode == cancelIgnore {
		return end
	}
	if pl.run != nil {
		pl.run.cancel() // a cancelled answer means the turn is cancelled, even without session/cancel
	}
	return pl.cancelEnding()
}

// terminal plays a terminal step: create, then wait_for_exit, output, kill
// and release as asked. A cancel while waiting for the exit kills and
// releases the terminal.
func (pl *player) terminal(s *terminalStep) *ending {
	dead := &ending{dead: true}
	var created acp.CreateTerminalResponse
	cwd := ""
	if s.cwd != "" {
		cwd = abs(pl.sess.cwd, s.cwd)
	}
	err := pl.call(pl.a.ctx, acp.MethodTerminalCreate, acp.CreateTerminalRequest{
		SessionID: pl.sess.id, Command: s.command, Args: s.args, Env: s.env, Cwd: cwd, OutputByteLimit: s.outputByteLimit,
	}, &created)
	if pl.gone(err) {
		return dead
	}
	if err != nil {
		if pl.sayErr(acp.MethodTerminalCreate, err) != nil {
			return dead
		}
		return nil
	}
	id := created.TerminalID
	if pl.say("terminal: %s", id) != nil {
		return dead
	}
	if s.toolCallID != "" {
		running := acp.StatusInProgress
		pl.track(s.toolCallID, &running, false)
		if pl.notify(acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: s.toolCallID, Status: &running, Content: []acp.ToolCallContent{acp.TerminalToolContent(id)},
		}}) != nil {
			return dead
		}
	}
	ref := acp.TerminalOutputRequest{SessionID: pl.sess.id, TerminalID: id}
	// simple makes a call whose result is only reported as ok or an error.
	simple := func(method, label string) *ending {
		err := pl.call(pl.a.ctx, method, ref, nil) // kill and release take the same params as output
		switch {
		case pl.gone(err):
			return dead
		case err != nil:
			if pl.sayErr(method, err) != nil {
				return dead
			}
		default:
			if pl.say("%s: ok", label) != nil {
				return dead
			}
		}
		return nil
	}
	if s.waitForExit {
		ctx, stop := context.WithCancel(pl.a.ctx)
		defer stop()
		if ch := pl.cancelled(); ch != nil {
			go func() {
				select {
				case <-ch:
					stop()
				case <-ctx.Done():
				}
			}()
		}
		var res acp.WaitForTerminalExitResponse
		err := pl.call(ctx, acp.MethodTerminalWaitForExit, ref, &res)
		switch {
		case pl.gone(err):
			return dead
		case err == nil:
			if pl.say("exit: %s", exitText(res.ExitCode, res.Signal)) != nil {
				return dead
			}
		case ctx.Err() != nil:
			// Cancelled while the command runs: stop it, as a real agent would.
			if pl.say("error: %s: cancelled", acp.MethodTerminalWaitForExit) != nil {
				return dead
			}
			if end := simple(acp.MethodTerminalKill, "kill"); end != nil {
				return end
			}
			return simple(acp.MethodTerminalRelease, "release")
		default:
			if pl.sayErr(acp.MethodTerminalWaitForExit, err) != nil {
				return dead
			}
		}
	}
	if s.output {
		var res acp.TerminalOutputResponse
		err := pl.call(pl.a.ctx, acp.MethodTerminalOutput, ref, &res)
		switch {
		case pl.gone(err):
			return dead
		case err != nil:
			if pl.sayErr(acp.MethodTerminalOutput, err) != nil {
				return dead
			}
		default:
			label := "output"
			if res.Truncated {
				label = "output (truncated)"
			}
			if res.ExitStatus != nil {
				label += ", exit " + exitText(res.ExitStatus.ExitCode, res.ExitStatus.Signal)
			}
			if pl.say("%s: %s", label, res.Output) != nil {
				return dead
			}
		}
	}
	if s.kill {
		if end := simple(acp.MethodTerminalKill, "kill"); end != nil {
			return end
		}
	}
	if s.release {
		return simple(acp.MethodTerminalRelease, "release")
	}
	return nil
}

func exitText(code *int, signal *string) string {
	switch {
	case code != nil:
		return fmt.Sprint(*code)
	case signal != nil:
		return "signal " + *signal
	}
	return "unknown"
}
