package runner

import (
	"cmp"
	"errors"
	"fmt"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
)

// RecordedPermissionRequest reads a recorded session/request_permission,
// its params object or the whole JSON-RPC message (as a transcript holds
// it), into what the policy sees, as a run would see it. cwd is the
// session's cwd. It fails on anything that is not such a request or has
// no tool call.
func RecordedPermissionRequest(data []byte, cwd string) (approve.Request, error) {
	var msg struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &msg) == nil && len(msg.Params) > 0 {
		data = msg.Params
	}
	var p acp.RequestPermissionRequest
	if err := json.Unmarshal(data, &p); err != nil {
		return approve.Request{}, fmt.Errorf("not a session/request_permission params object: %w", err)
	}
	if p.ToolCall.ToolCallID == "" && p.ToolCall.Title == nil && len(p.ToolCall.RawInput) == 0 {
		return approve.Request{}, errors.New("no toolCall in the request")
	}
	return PermissionRequest(p.ToolCall.ToolCall(), p.Options, cwd), nil
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
