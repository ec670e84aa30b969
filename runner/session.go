package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
)

// session records what one agent session does and answers the agent's
// requests. It is the acp.Handler of the scenario's connection: notifications
// arrive on one goroutine in order, requests each on their own.
type session struct {
	policy *approve.Policy
	cwd    string
	obs    *observer
	job    Job           // the scenario run, for observers
	client *clientServer // serves fs/* and terminal/*; nil serves nothing
	act    *activity     // idle clock
	delay  time.Duration // wait before answering a permission request
	// secrets are redacted from what observers see.
	secrets []string

	mu              sync.Mutex
	sessionID       string              // "" until session/new answered
	early           []acp.SessionUpdate // updates for a session not known yet
	turns           []*turnState        // every turn so far; the last is the running one
	setup           map[string]int      // updates seen before the first turn, by kind
	violations      []string
	allowed, denied int
}

// turnState is the record of one turn while it runs.
type turnState struct {
	rec         *TurnResult
	calls       map[string]*toolCallState
	order       []string
	text        strings.Builder
	thoughts    strings.Builder
	answered    bool          // the prompt's answer arrived: later updates are late
	prompt      *acp.Call     // the session/prompt call; done = answered
	cancelled   chan struct{} // closed when acprun sent session/cancel
	cancelOnce  sync.Once
	usage       *Usage   // from usage_update
	promptUsage *Usage   // from the prompt's answer
	warnings    []string // about the prompt, set when the turn starts
}

type toolCallState struct {
	call      acp.ToolCall
	announced bool
	late      bool
	cancelled bool
}

func newTurnState(rec *TurnResult) *turnState {
	return &turnState{rec: rec, calls: map[string]*toolCallState{}, cancelled: make(chan struct{})}
}

// Handle implements acp.Handler.
func (s *session) Handle(ctx context.Context, req *acp.Request) (any, error) {
	if !req.IsNotification() && s.act != nil {
		defer s.act.serving()()
	}
	switch req.Method {
	case acp.MethodSessionUpdate:
		var n acp.SessionNotification
		if err := json.Unmarshal(req.Params, &n); err != nil {
			s.violation(fmt.Sprintf("session/update: %v", err))
			return nil, nil
		}
		s.update(n)
		return nil, nil
	case acp.MethodSessionRequestPermission:
		if req.IsNotification() {
			return nil, nil
		}
		var p acp.RequestPermissionRequest
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, acp.NewError(acp.CodeInvalidParams, "session/request_permission: %v", err)
		}
		return s.permission(ctx, p), nil
	}
	if req.IsNotification() {
		return nil, nil // unknown notifications are ignored
	}
	if s.client != nil && s.client.serves(req.Method) {
		result, rec, err := s.client.handle(ctx, req)
		s.mu.Lock()
		if t := s.current(); t != nil {
			t.rec.ClientRequests = append(t.rec.ClientRequests, rec)
		}
		s.mu.Unlock()
		return result, err
	}
	return nil, acp.MethodNotFound(req.Method)
}

func (s *session) violation(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.violations) < 100 {
		s.violations = append(s.violations, msg)
	}
}

// setSessionID makes the session known and replays the updates that came
// before its id.
func (s *session) setSessionID(id string) {
	s.mu.Lock()
	s.sessionID = id
	early := s.early
	s.early = nil
	s.mu.Unlock()
	for _, u := range early {
		s.update(acp.SessionNotification{SessionID: id, Update: u})
	}
}

func (s *session) update(n acp.SessionNotification) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessionID == "" {
		if len(s.early) < 10000 {
			s.early = append(s.early, n.Update)
		}
		return
	}
	if n.SessionID != s.sessionID {
		if len(s.violations) < 100 {
			s.violations = append(s.violations, fmt.Sprintf("session/update for unknown session %q", n.SessionID))
		}
		return
	}
	t := s.current()
	if t == nil {
		if s.setup == nil {
			s.setup = map[string]int{}
		}
		s.setup[n.Update.Kind]++
		return
	}
	if t.late() {
		t.rec.LateUpdates++
	}
	if t.rec.Updates == nil {
		t.rec.Updates = map[string]int{}
	}
	t.rec.Updates[n.Update.Kind]++
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if u.AgentMessageChunk.Content.Type == acp.ContentText {
			t.text.WriteString(u.AgentMessageChunk.Content.Text)
		}
	case u.AgentThoughtChunk != nil:
		if u.AgentThoughtChunk.Content.Type == acp.ContentText {
			t.thoughts.WriteString(u.AgentThoughtChunk.Content.Text)
		}
	case u.Plan != nil:
		t.rec.Plan = t.rec.Plan[:0]
		for _, e := range u.Plan.Entries {
			t.rec.Plan = append(t.rec.Plan, PlanEntry{Content: e.Content, Priority: string(e.Priority), Status: string(e.Status)})
		}
	case u.ToolCall != nil:
		// A tool_call is a full announcement: it replaces what updates of
		// a not yet announced id said.
		c := t.call(u.ToolCall.ToolCallID)
		c.call = *u.ToolCall
		c.announced = true
	case u.ToolCallUpdate != nil:
		c := t.call(u.ToolCallUpdate.ToolCallID)
		c.call.Apply(u.ToolCallUpdate)
	case u.UsageUpdate != nil:
		if t.usage == nil {
			t.usage = &Usage{}
		}
		t.usage.ContextUsed = u.UsageUpdate.Used
		t.usage.ContextSize = u.UsageUpdate.Size
		if u.UsageUpdate.Cost != nil {
			t.usage.Cost = u.UsageUpdate.Cost.Amount
			t.usage.Currency = u.UsageUpdate.Cost.Currency
		}
	}
}

// call returns the record of a tool call, creating it for an id never
// announced. The caller holds s.mu.
func (t *turnState) call(id string) *toolCallState {
	c, ok := t.calls[id]
	if !ok {
		c = &toolCallState{call: acp.ToolCall{ToolCallID: id}, late: t.late()}
		t.calls[id] = c
		t.order = append(t.order, id)
	}
	return c
}

// permission answers one session/request_permission by the policy.
func (s *session) permission(ctx context.Context, p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	s.mu.Lock()
	t := s.current()
	var call acp.ToolCall
	if t != nil {
		c := t.call(p.ToolCall.ToolCallID)
		c.call.Apply(&p.ToolCall)
		call = c.call
	} else {
		call = p.ToolCall.ToolCall()
	}
	s.mu.Unlock()

	req := PermissionRequest(call, p.Options, s.cwd)
	rec := Permission{ToolCallID: call.ToolCallID, Title: call.Title, Kind: string(call.Kind)}
	var resp acp.RequestPermissionResponse
	d := s.policy.Decide(req)
	cancelled := t == nil || !s.wait(ctx, t)
	rec.Commands, rec.Paths, rec.Rule, rec.Reason = d.Commands, d.Paths, d.Rule, d.Reason
	switch {
	case cancelled:
		rec.Decision, rec.Outcome = "cancelled", acp.OutcomeCancelled
		rec.Reason = "the turn was being cancelled"
		rec.Rule = ""
		resp = acp.Cancelled()
	case d.Cancelled:
		rec.Decision, rec.Outcome = string(d.Verdict), acp.OutcomeCancelled
		resp = acp.Cancelled()
	default:
		rec.Decision, rec.Outcome, rec.OptionID = string(d.Verdict), acp.OutcomeSelected, d.OptionID
		resp = acp.Selected(d.OptionID)
	}

	s.mu.Lock()
	if !cancelled {
		if d.Verdict == approve.Allow {
			s.allowed++
		} else {
			s.denied++
		}
	}
	if t != nil {
		t.rec.Permissions = append(t.rec.Permissions, rec)
	}
	s.mu.Unlock()
	s.obs.permission(s.job, redactPermission(rec, s.secrets))
	return resp
}

// wait waits the answer delay before a permission answer. It returns false
// at once when the turn is (or gets) cancelled: pending requests are then
// answered cancelled.
func (s *session) wait(ctx context.Context, t *turnState) bool {
	select {
	case <-t.cancelled:
		return false
	default:
	}
	if s.delay <= 0 {
		return true
	}
	timer := time.NewTimer(s.delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.cancelled:
		return false
	case <-ctx.Done():
		return false
	}
}

// PermissionRequest turns a tool call and the options offered for it into
// what the policy sees. cwd is the session's cwd.
func PermissionRequest(call acp.ToolCall, options []acp.PermissionOption, cwd string) approve.Request {
	req := approve.Request{
		ToolCallID: call.ToolCallID,
		Title:      call.Title,
		Kind:       string(call.Kind),
		RawInput:   call.RawInput,
		Cwd:        cwd,
	}
	for _, l := range call.Locations {
		req.Locations = append(req.Locations, l.Path)
	}
	for _, c := range call.Content {
		if c.Type == acp.ToolContentDiff {
			req.DiffPaths = append(req.DiffPaths, c.Path)
		}
	}
	for _, o := range options {
		req.Options = append(req.Options, approve.Option{ID: o.OptionID, Name: o.Name, Kind: string(o.Kind)})
	}
	return req
}

// startTurn makes a new turn the running one.
func (s *session) startTurn(index int, prompt string, warnings []string) *turnState {
	t := newTurnState(&TurnResult{Index: index, Prompt: prompt})
	t.warnings = warnings
	s.mu.Lock()
	s.turns = append(s.turns, t)
	s.mu.Unlock()
	return t
}

// sendPrompt sends the turn's session/prompt with send and records the
// call. It holds the session's lock while sending, so that no update is
// handled before the call is known: an answer that comes at once, and the
// late updates right behind it, are then told apart correctly.
func (s *session) sendPrompt(t *turnState, send func() *acp.Call) *acp.Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.prompt = send()
	return t.prompt
}

// late reports whether an update handled now comes after the prompt's
// answer. Answers are delivered in order with notifications, so once the
// call is done every later update is late. The caller holds s.mu.
func (t *turnState) late() bool {
	if t.answered {
		return true
	}
	if t.prompt == nil {
		return false
	}
	select {
	case <-t.prompt.Done():
		return true
	default:
		return false
	}
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
// answered cancelled, and unfinished tool calls are marked cancelled.
func (s *session) cancelTurn(t *turnState) {
	t.cancelOnce.Do(func() { close(t.cancelled) })
	if s.client != nil {
		s.client.killAll()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range t.calls {
		switch c.call.Status {
		case acp.StatusCompleted, acp.StatusFailed:
		default:
			c.cancelled = true
		}
	}
}

// finish records how the turn ended and returns its record.
func (s *session) finish(t *turnState, out turnOutcome) TurnResult {
	s.mu.Lock()
	t.answered = true
	t.rec.StopReason = out.stopReason
	t.rec.CancelCause = out.cancelCause
	t.rec.CancelIgnored = out.cancelIgnored
	t.rec.Error = out.err
	t.rec.Duration = out.duration
	t.rec.DurationMs = out.duration.Milliseconds()
	t.promptUsage = out.usage
	s.mu.Unlock()
	return s.snapshot(t)
}

// setFailures records the expectations the turn did not meet.
func (s *session) setFailures(t *turnState, failures []string) {
	s.mu.Lock()
	t.rec.Failures = failures
	s.mu.Unlock()
}

// snapshot returns a deep copy of the turn's record with everything
// recorded so far: the handlers may go on writing to the live one.
func (s *session) snapshot(t *turnState) TurnResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := *t.rec
	r.Text = t.text.String()
	r.Thoughts = t.thoughts.String()
	r.Plan = slices.Clone(t.rec.Plan)
	r.Updates = maps.Clone(t.rec.Updates)
	r.Failures = slices.Clone(t.rec.Failures)
	r.ClientRequests = slices.Clone(t.rec.ClientRequests)
	r.Permissions = make([]Permission, len(t.rec.Permissions))
	asked := map[string]bool{}
	for i, p := range t.rec.Permissions {
		p.Commands, p.Paths = slices.Clone(p.Commands), slices.Clone(p.Paths)
		r.Permissions[i] = p
		asked[p.ToolCallID] = true
	}
	r.Warnings = slices.Clone(t.warnings)
	r.ToolCalls = nil
	for _, id := range t.order {
		c := t.calls[id]
		tc := ToolCall{
			ID:        id,
			Title:     c.call.Title,
			Kind:      string(c.call.Kind),
			Status:    string(c.call.Status),
			RawInput:  slices.Clone(c.call.RawInput),
			RawOutput: slices.Clone(c.call.RawOutput),
			Announced: c.announced,
			Late:      c.late,
		}
		if tc.Status == "" {
			tc.Status = string(acp.StatusPending)
		}
		if c.cancelled && c.call.Status != acp.StatusCompleted && c.call.Status != acp.StatusFailed {
			tc.Status = "cancelled"
		}
		for _, l := range c.call.Locations {
			tc.Locations = append(tc.Locations, l.Path)
		}
		if len(c.call.Content) > 0 {
			if b, err := json.Marshal(c.call.Content); err == nil {
				tc.Content = b
			}
		}
		r.ToolCalls = append(r.ToolCalls, tc)
		if !asked[id] && ran(c.call.Status) {
			if w := s.unasked(c.call); w != "" {
				r.Warnings = append(r.Warnings, w)
			}
		}
	}
	r.Usage = nil
	if t.promptUsage != nil || t.usage != nil {
		u := Usage{}
		if t.promptUsage != nil {
			u = *t.promptUsage
		}
		if t.usage != nil {
			u.ContextUsed, u.ContextSize = t.usage.ContextUsed, t.usage.ContextSize
			u.Cost, u.Currency = t.usage.Cost, t.usage.Currency
		}
		r.Usage = &u
	}
	return r
}

// promptUsage records the usage reported on the prompt's answer.
func promptUsage(u *acp.Usage) *Usage {
	if u == nil {
		return nil
	}
	out := &Usage{TotalTokens: u.TotalTokens, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
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

// unasked returns a warning when the policy would have denied a tool call
// that the agent ran without asking: the policy had no effect on it.
func (s *session) unasked(call acp.ToolCall) string {
	d := s.policy.Evaluate(PermissionRequest(call, nil, s.cwd))
	if d.Verdict != approve.Deny {
		return ""
	}
	by := "the default"
	if d.Rule != "" {
		by = d.RuleList + " rule " + d.Rule
	}
	return fmt.Sprintf("tool call %s (%q) ran without a permission request; the policy would have denied it (%s): the policy had no effect on it", call.ToolCallID, call.Title, by)
}

// redactPermission returns p without secrets, for observers.
func redactPermission(p Permission, secrets []string) Permission {
	p.Commands, p.Paths = slices.Clone(p.Commands), slices.Clone(p.Paths)
	t := TurnResult{Permissions: []Permission{p}}
	redactTurn(&t, secrets)
	return t.Permissions[0]
}
