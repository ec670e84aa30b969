package mockagent

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	// prompt is the text of the turn's prompt ("" outside a turn), for
	// the model step's {{prompt}}.
	prompt string
	// reply, when set, collects the text of the agent_message_chunks sent:
	// the turn's reply, for the session's history.
	reply *strings.Builder
	// next, in a turn's after: steps, closes when the client sends the
	// session's next message (see session.nextLocked): a model step waits
	// for it. nil in a turn.
	next <-chan struct{}
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
		if end := st.play(pl); end != nil {
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

// say sends an agent_message_chunk, used to report results of client calls.
func (pl *player) say(format string, args ...any) error {
	text := fmt.Sprintf(format, args...)
	return pl.notify(textChunk(acp.UpdateAgentMessageChunk, text, ""))
}

// textChunk is an update of kind agent_message_chunk, agent_thought_chunk
// or user_message_chunk with text.
func textChunk(kind, text, messageID string) acp.SessionUpdate {
	c := &acp.ContentChunk{Content: acp.TextBlock(text), MessageID: messageID}
	u := acp.SessionUpdate{Kind: kind}
	switch kind {
	case acp.UpdateAgentMessageChunk:
		u.AgentMessageChunk = c
	case acp.UpdateAgentThoughtChunk:
		u.AgentThoughtChunk = c
	default:
		u.UserMessageChunk = c
	}
	return u
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
func (pl *player) gone() bool {
	return pl.a.ctx.Err() != nil
}

// outcome reports how a client call went: the steps die when Run has
// ended; else the call's error is said ("error: method: message"), or on
// success what ok says. A failed report ends the steps too.
func (pl *player) outcome(method string, err error, ok func() error) *ending {
	switch {
	case pl.gone():
		return died()
	case err != nil:
		return check(pl.sayErr(method, err))
	}
	return check(ok())
}
