package runner

import (
	"context"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
)

// RecordedSession rebuilds, from the transcript of a run (run
// --transcripts), the permission requests that run put to its policy, so
// that acprun explain sees what run saw. Given the transcript's messages
// in order (Message), it hands them to the session code run uses: the
// prompts start turns, the updates go to the turn's record of its tool
// calls, and each permission request's tool call is merged onto that
// record (askedCall) into the request the policy is given
// (policyRequest). It also notes which message gave each field of the
// tool call its value.
type RecordedSession struct {
	s       *session
	turn    int                    // the prompts so far
	prompt  string                 // the id of the last prompt while it is not answered, "" after
	pending map[string]pendingCall // the client's requests not yet answered, by id
	known   map[string]*knownCall  // the turns' tool calls, by id
	asked   []AskedPermission
	// awaiting maps the id of each permission request not yet answered
	// (acp.ID.String) to its index in asked.
	awaiting map[string]int
}

// pendingCall is a request of the client that opens a session, waiting for
// its answer.
type pendingCall struct {
	method    string
	sessionID string // session/load, session/resume: the session asked for
}

// knownCall is a tool call as the transcript told it so far, with the
// message that gave each of its fields its value.
type knownCall struct {
	values [len(callFields)]string
	from   [len(callFields)]FieldSource
}

// callFields are the fields of a tool call that the policy reads (see
// PermissionRequest), as FieldSource names them.
var callFields = [...]string{"title", "kind", "rawInput", "locations", "content", "name"}

// AskedPermission is a session/request_permission of a transcript and
// what the policy was asked for it.
type AskedPermission struct {
	Line       int // the request's line in the transcript
	Turn       int // the turn it came in, from 1; 0 before the first
	ToolCallID string
	// Request is what the policy was asked: the request's tool call merged
	// onto what the turn's earlier tool_call and tool_call_update of that
	// id said (before the first turn, the request alone), in the session's
	// cwd.
	Request approve.Request
	// Fields says, for each field of the tool call that has a value, which
	// message gave it that value.
	Fields []FieldSource
	// Answer is the answer run wrote to the request, nil when the
	// transcript holds none (the connection closed first).
	Answer *RecordedAnswer
}

// RecordedAnswer is the answer run wrote to a permission request, as the
// transcript recorded it.
type RecordedAnswer struct {
	Line int // the answer's line in the transcript
	// Outcome is selected or cancelled, as written; "error" for an error
	// answer (a request refused before the policy: bad params, a path
	// outside the roots, ...).
	Outcome  string
	OptionID string // the option selected
	// OptionKind is the kind of the request's option with that id, ""
	// when none of its options has it.
	OptionKind string
}

// Verdict is the decision run's answer gave: allow or deny for an option
// of an allow or a reject kind, "" for any other answer (cancelled, an
// error, an option the request did not offer).
func (a RecordedAnswer) Verdict() approve.Verdict { return approve.VerdictOf(a.OptionKind) }

// FieldSource names the message of a transcript that gave a field of a
// tool call the value the policy saw.
type FieldSource struct {
	Field   string // title, kind, rawInput, locations, content or name
	Line    int    // the message's line in the transcript
	Message string // tool_call, tool_call_update or session/request_permission
}

// NewRecordedSession returns a RecordedSession that has read nothing.
func NewRecordedSession() *RecordedSession {
	return &RecordedSession{s: &session{}, pending: map[string]pendingCall{}, known: map[string]*knownCall{}, awaiting: map[string]int{}}
}

// Permissions returns the valid permission requests read so far, in the
// order they came. (One whose params do not decode was answered with an
// error, not by the policy.)
func (r *RecordedSession) Permissions() []AskedPermission { return r.asked }

// Turn returns the turn that the messages read so far end in: the
// number of prompts, from 1 (0 before the first), and whether that turn's
// prompt is still unanswered (false between turns).
func (r *RecordedSession) Turn() (n int, open bool) { return r.turn, r.prompt != "" }

// Message reads the message on line line of the transcript: fromAgent for
// "dir": "a2c". What is not JSON-RPC is skipped, as run's connection
// skips it.
func (r *RecordedSession) Message(line int, fromAgent bool, msg json.RawMessage) {
	var w struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &w) != nil {
		return
	}
	// A message with a "method" member, even "" or null, is a request or
	// a notification, never an answer, as the connection reads it.
	var method string
	_ = json.Unmarshal(w.Method, &method) // not a string: no method of ours
	hasID, hasMethod := len(w.ID) > 0, len(w.Method) > 0
	switch {
	case !fromAgent && method != "" && hasID:
		r.clientRequest(string(w.ID), method, w.Params)
	case fromAgent && !hasMethod && hasID:
		r.answer(string(w.ID), w.Result)
	case !fromAgent && !hasMethod && hasID:
		r.permissionAnswer(line, w.ID, w.Result, len(w.Error) > 0)
	case fromAgent && method == acp.MethodSessionUpdate && !hasID:
		r.update(line, w.Params)
	case fromAgent && method == acp.MethodSessionRequestPermission && hasID:
		r.permission(line, w.ID, w.Params)
	case fromAgent && hasMethod && hasID:
		// Another request of the agent with a permission request's id:
		// the answer that follows may be its.
		var id acp.ID
		if json.Unmarshal(w.ID, &id) == nil {
			delete(r.awaiting, id.String())
		}
	}
}

// clientRequest reads a request of the client: the session it opens (and
// its cwd, the policy's), or the prompt that starts a turn.
func (r *RecordedSession) clientRequest(id, method string, params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	_ = json.Unmarshal(params, &p) // what does not decode opens nothing
	switch method {
	case acp.MethodSessionNew, acp.MethodSessionLoad, acp.MethodSessionResume:
		r.s.cwd = p.Cwd
		if method == acp.MethodSessionLoad {
			r.s.loading(p.SessionID)
		}
		r.pending[id] = pendingCall{method: method, sessionID: p.SessionID}
	case acp.MethodSessionPrompt:
		r.turn++
		r.prompt = id
		r.s.startTurn(r.turn, "", nil, true)
	}
}

// answer reads the agent's answer to a request of the client: the session
// it opened, as the handshake takes it.
func (r *RecordedSession) answer(id string, result json.RawMessage) {
	if id == r.prompt {
		r.prompt = "" // the turn has ended
	}
	c, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	ok = len(result) > 0 && string(result) != "null"
	switch c.method {
	case acp.MethodSessionNew:
		var ns acp.NewSessionResponse
		if ok && json.Unmarshal(result, &ns) == nil && ns.SessionID != "" {
			r.s.setSessionID(ns.SessionID)
		}
	case acp.MethodSessionLoad:
		r.s.loaded(ok)
		if ok {
			r.s.setSessionID(c.sessionID)
		}
	case acp.MethodSessionResume:
		if ok {
			r.s.setSessionID(c.sessionID)
		}
	}
}

// update reads a session/update, as the session handles it.
func (r *RecordedSession) update(line int, params json.RawMessage) {
	n, err := acp.DecodeSessionNotification(params)
	if err != nil {
		return
	}
	u := &n.Update
	var id string
	var carried [len(callFields)]bool
	switch {
	case u.ToolCall != nil:
		id = u.ToolCall.ToolCallID
		carried = [...]bool{true, true, true, true, true, true} // a full announcement replaces the call
	case u.ToolCallUpdate != nil:
		id = u.ToolCallUpdate.ToolCallID
		carried = carriedFields(u.ToolCallUpdate)
	default:
		r.s.update(n)
		return
	}
	t := r.s.update(n)
	if t == nil || id == "" {
		return // not a turn's (before the first, or another session's), or of no call a request can name
	}
	r.s.mu.Lock()
	c, _ := t.known(id) // the update made it, or updated an earlier turn's
	call := c.call
	r.s.mu.Unlock()
	r.note(id, call, line, u.Kind, carried)
}

// note records that the message on line line (of kind message), carrying
// the fields carried, left tool call id as call: each field it carried or
// changed got its value there.
func (r *RecordedSession) note(id string, call acp.ToolCall, line int, message string, carried [len(callFields)]bool) *knownCall {
	k := r.known[id]
	if k == nil {
		k = &knownCall{}
		r.known[id] = k
	}
	for i, v := range fieldValues(call) {
		if carried[i] || v != k.values[i] {
			k.values[i] = v
			k.from[i] = FieldSource{Field: callFields[i], Line: line, Message: message}
		}
	}
	return k
}

// carriedFields reports which callFields u carries (and so sets, see
// acp.ToolCall.Apply: a null rawInput is not carried).
func carriedFields(u *acp.ToolCallUpdate) [len(callFields)]bool {
	rawInput := len(u.RawInput) > 0 && string(u.RawInput) != "null"
	return [...]bool{u.Title != nil, u.Kind != nil, rawInput, u.Locations != nil, u.Content != nil, u.Name != nil}
}

// permission reads a session/request_permission as the session receives
// it, and keeps what the policy was asked.
func (r *RecordedSession) permission(line int, rawID, params json.RawMessage) {
	var id acp.ID
	if json.Unmarshal(rawID, &id) != nil {
		return
	}
	a := r.s.arrive(&acp.Request{ID: &id, Method: acp.MethodSessionRequestPermission, Params: params})
	a.answered(context.Background())
	delete(r.awaiting, id.String()) // an id used again: this request's answer is the next
	if a.params == nil {
		return
	}
	callID := a.params.ToolCall.ToolCallID
	turn := 0
	if a.turn != nil {
		turn = a.turn.rec.Index
	}
	// Before the first turn, or without an id, the request stands alone:
	// it is told to no tool call, and no later message is told to it.
	alone := a.turn == nil || callID == ""
	if alone {
		delete(r.known, callID)
	}
	k := r.note(callID, a.call, line, acp.MethodSessionRequestPermission, carriedFields(&a.params.ToolCall))
	if alone {
		delete(r.known, callID)
	}
	var fields []FieldSource
	for i, v := range k.values {
		if v != "" {
			fields = append(fields, k.from[i])
		}
	}
	r.awaiting[id.String()] = len(r.asked)
	r.asked = append(r.asked, AskedPermission{Line: line, Turn: turn, ToolCallID: callID, Request: r.s.policyRequest(a), Fields: fields})
}

// permissionAnswer reads an answer of the client to a request of the
// agent: for a permission request not yet answered, what run answered.
func (r *RecordedSession) permissionAnswer(line int, rawID, result json.RawMessage, isError bool) {
	var id acp.ID
	if json.Unmarshal(rawID, &id) != nil {
		return
	}
	i, ok := r.awaiting[id.String()]
	if !ok {
		return // no permission request's (a terminal's, a file's), or answered already
	}
	delete(r.awaiting, id.String())
	a := &RecordedAnswer{Line: line, Outcome: "error"}
	var res acp.RequestPermissionResponse
	if !isError && json.Unmarshal(result, &res) == nil {
		a.Outcome, a.OptionID = res.Outcome.Outcome, res.Outcome.OptionID
		for _, o := range r.asked[i].Request.Options {
			if a.OptionID != "" && o.ID == a.OptionID {
				a.OptionKind = o.Kind
				break
			}
		}
	}
	r.asked[i].Answer = a
}

// fieldValues returns the callFields of c as comparable text, "" for a
// field without a value.
func fieldValues(c acp.ToolCall) [len(callFields)]string {
	v := [len(callFields)]string{c.Title, string(c.Kind), string(c.RawInput), 5: c.Name}
	if len(c.Locations) > 0 {
		b, _ := json.Marshal(c.Locations) // marshals: it was decoded from JSON
		v[3] = string(b)
	}
	if len(c.Content) > 0 {
		b, _ := json.Marshal(c.Content)
		v[4] = string(b)
	}
	return v
}
