package runner

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/jsonpos"
)

// RecordedRequest is a recorded permission request as a run receives it.
type RecordedRequest struct {
	// Request is what the policy sees.
	Request approve.Request
	// Violations are the protocol violations a run records of the request
	// and goes on (a malformed optional field that took its default, an
	// invalid item of a list left out, options that share an id, no
	// toolCallId), as the run words them, each at the value it is about.
	Violations []RequestProblem
}

// RequestProblem is a problem of a recorded permission request: Msg,
// about the value at byte offset Off of the data it was read from.
type RequestProblem struct {
	Off int
	Msg string
}

// Error is Msg.
func (p *RequestProblem) Error() string { return p.Msg }

// notRequest is what the error of data that is no permission request
// says to give instead.
const notRequest = "; give the params of a session/request_permission as JSON, or its whole JSON-RPC message"

// RecordedPermissionRequest reads a recorded session/request_permission,
// its params object or the whole JSON-RPC message (as a transcript holds
// it), as a run reads it from an agent (the same lenient decoding and
// checks), into what the policy sees, with the protocol violations the
// run would record of it. cwd is the session's cwd. What the run would
// refuse (not JSON, a malformed required field) and a request without a
// tool call are a *RequestProblem at the byte they are about, as is
// another JSON-RPC message: another method's request or notification (at
// its method) or a response.
func RecordedPermissionRequest(data []byte, cwd string) (RecordedRequest, error) {
	var msg struct {
		ID     *json.RawMessage `json:"id"`
		Method *string          `json:"method"`
		Params json.RawMessage  `json:"params"`
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	params, in := data, ""
	if json.Unmarshal(data, &msg) == nil {
		switch {
		case msg.Method != nil && *msg.Method != acp.MethodSessionRequestPermission:
			off, _ := jsonpos.Offset(data, "method")
			kind := "notification"
			if msg.ID != nil {
				kind = "request"
			}
			return RecordedRequest{}, &RequestProblem{Off: int(off), Msg: fmt.Sprintf("a %q %s, not a session/request_permission", *msg.Method, kind) + notRequest}
		case msg.Method == nil && len(msg.Params) == 0 && (msg.Result != nil || msg.Error != nil):
			return RecordedRequest{}, &RequestProblem{Msg: "a JSON-RPC response, not a session/request_permission" + notRequest}
		case len(msg.Params) > 0:
			params, in = msg.Params, "params"
		}
	}
	at := func(path string) int {
		if in != "" {
			path = strings.Trim(in+"."+path, ".")
		}
		off, _ := jsonpos.Offset(data, path)
		return int(off)
	}
	var p acp.RequestPermissionRequest
	if err := (&acp.Request{Method: acp.MethodSessionRequestPermission, Params: params}).DecodeParams(&p); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return RecordedRequest{}, &RequestProblem{Off: max(int(se.Offset)-1, 0), Msg: "not JSON: " + se.Error() + notRequest}
		}
		path := acp.ErrorPath(err)
		var why string // the words about the value at path, else the innermost
		for e := err; e != nil && (why == "" || acp.ProblemPath(why) == ""); e = errors.Unwrap(e) {
			why = e.Error()
		}
		return RecordedRequest{}, &RequestProblem{Off: at(path),
			Msg: why + ": not a valid session/request_permission, which a run answers with an invalid-params error, no rule deciding it, and which fails the scenario (a protocol violation)" + notRequest}
	}
	var given struct {
		ToolCall json.RawMessage `json:"toolCall"`
	}
	_ = json.Unmarshal(params, &given) // it decoded into p just above
	if len(given.ToolCall) == 0 || string(given.ToolCall) == "null" {
		return RecordedRequest{}, &RequestProblem{Off: at(""), Msg: "no toolCall in the request" + notRequest}
	}
	rec := RecordedRequest{Request: PermissionRequest(p.ToolCall.ToolCall(), p.Options, cwd)}
	for _, v := range permissionViolations(&p) {
		rec.Violations = append(rec.Violations, RequestProblem{Off: at(v.path), Msg: v.msg})
	}
	return rec, nil
}

// ToolCallSketch describes a made-up tool call by what rules match on.
type ToolCallSketch struct {
	Kind    string   // the tool kind (read, edit, execute, ...); "" for none
	Tool    string   // the tool's name (ToolCall.name); "" for none
	Title   string   // the title; "" takes Command
	Command string   // a shell line, sent as rawInput.command
	Paths   []string // the paths the call touches, sent as its locations
}

// Empty reports whether the sketch describes nothing.
func (s ToolCallSketch) Empty() bool {
	return s.Kind == "" && s.Tool == "" && s.Title == "" && s.Command == "" && len(s.Paths) == 0
}

// SketchedPermissionRequest is the permission request of a made-up tool
// call, offered the four standard options (allow_once, allow_always,
// reject_once, reject_always), as the policy would see it. cwd is the
// session's cwd.
func SketchedPermissionRequest(s ToolCallSketch, cwd string) approve.Request {
	call := acp.ToolCall{ToolCallID: "explain", Title: cmp.Or(s.Title, s.Command), Kind: acp.ToolKind(s.Kind), Name: s.Tool}
	if s.Command != "" {
		raw, _ := json.Marshal(map[string]string{"command": s.Command}) // a map of strings always marshals
		call.RawInput = raw
	}
	call.Locations = mapped(s.Paths, func(p string) acp.ToolCallLocation { return acp.ToolCallLocation{Path: p} })
	options := []acp.PermissionOption{
		{OptionID: "allow_once", Name: "Allow", Kind: acp.AllowOnce},
		{OptionID: "allow_always", Name: "Always Allow", Kind: acp.AllowAlways},
		{OptionID: "reject_once", Name: "Reject", Kind: acp.RejectOnce},
		{OptionID: "reject_always", Name: "Always Reject", Kind: acp.RejectAlways},
	}
	return PermissionRequest(call, options, cwd)
}
