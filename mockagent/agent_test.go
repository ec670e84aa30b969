package mockagent_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/mockagent"
)

func TestInitialize(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   acp.InitializeResponse
	}{
		{
			name:   "defaults",
			script: "",
			want: acp.InitializeResponse{
				ProtocolVersion: 1,
				AgentInfo:       &acp.Implementation{Name: "acprun-mock-agent", Version: "1.0.0"},
			},
		},
		{
			name: "configured",
			script: `protocolVersion: 2
agentInfo: {name: fake, title: Fake, version: "9"}
agentCapabilities:
  loadSession: true
  promptCapabilities: {image: true, audio: true, embeddedContext: true}
  mcpCapabilities: {http: true}
  sessionCapabilities: {list: {}, close: true}
  auth: {logout: {}}
authMethods:
  - {id: key, name: API key, description: Set KEY}
  - {id: tui, name: Login, type: terminal, args: [login], env: {MODE: tui}}
  - {id: openai, name: OpenAI, _meta: {type: terminal, args: [--auth-type=openai]}}
`,
			want: acp.InitializeResponse{
				ProtocolVersion: 2,
				AgentCapabilities: acp.AgentCapabilities{
					LoadSession:         true,
					PromptCapabilities:  acp.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
					McpCapabilities:     acp.McpCapabilities{HTTP: true},
					SessionCapabilities: acp.SessionCapabilities{List: &acp.Capability{}, Close: &acp.Capability{}},
					Auth:                acp.AgentAuthCapabilities{Logout: &acp.Capability{}},
				},
				AuthMethods: []acp.AuthMethod{
					{ID: "key", Name: "API key", Description: "Set KEY"},
					{ID: "tui", Name: "Login", Type: "terminal", Args: []string{"login"}, Env: map[string]string{"MODE": "tui"}},
					{ID: "openai", Name: "OpenAI", Meta: json.RawMessage(`{"type":"terminal","args":["--auth-type=openai"]}`)},
				},
				AgentInfo: &acp.Implementation{Name: "fake", Title: "Fake", Version: "9"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := runMock(t, tt.script, nil)
			got := c.initialize()
			if diff := cmp.Diff(got, tt.want, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("initialize (-got +want):\n%s", diff)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	c, _ := runMock(t, "modes: {availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}\n", nil)
	check := func(what, method string, params any, want int) {
		t.Helper()
		err := c.call(method, params, nil)
		if got := codeOf(err); got != want {
			t.Errorf("%s: %s error = %v; want code %d", what, method, err, want)
		}
	}
	check("before initialize", acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, acp.CodeInvalidRequest)
	c.initialize()
	check("unknown method", "x/frobnicate", map[string]any{}, acp.CodeMethodNotFound)
	check("load without loadSession", acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: "s", Cwd: "/w"}, acp.CodeMethodNotFound)
	check("no mcpServers", acp.MethodSessionNew, json.RawMessage(`{"cwd":"/w"}`), acp.CodeInvalidParams)
	check("null mcpServers", acp.MethodSessionNew, json.RawMessage(`{"cwd":"/w","mcpServers":null}`), acp.CodeInvalidParams)
	check("relative cwd", acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "w"}, acp.CodeInvalidParams)
	check("params not an object", acp.MethodSessionPrompt, json.RawMessage(`[1]`), acp.CodeInvalidParams)
	check("unknown session", acp.MethodSessionPrompt, promptReq("nope", "hi"), acp.CodeResourceNotFound)
	sid := c.newSession("/w")
	check("unknown mode", acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sid, ModeID: "yolo"}, acp.CodeInvalidParams)
	check("mode of unknown session", acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: "nope", ModeID: "ask"}, acp.CodeResourceNotFound)
	if err := c.call(acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sid, ModeID: "code"}, nil); err != nil {
		t.Errorf("set_mode code: %v", err)
	}
}

func TestSessionIDsAndModes(t *testing.T) {
	c, _ := runMock(t, "sessionId: fixed\nmodes: {currentModeId: code, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}\n", nil)
	c.initialize()
	var res acp.NewSessionResponse
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, &res); err != nil {
		t.Fatal(err)
	}
	want := acp.NewSessionResponse{SessionID: "fixed", Modes: &acp.SessionModeState{
		CurrentModeID:  "code",
		AvailableModes: []acp.SessionMode{{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code"}},
	}}
	if diff := cmp.Diff(res, want); diff != "" {
		t.Errorf("session/new (-got +want):\n%s", diff)
	}
	if got := c.newSession("/w"); got != "fixed-2" {
		t.Errorf("second session id = %q; want fixed-2", got)
	}
}

func TestAuthRequired(t *testing.T) {
	c, _ := runMock(t, `authRequired: true
authMethods:
  - {id: tui, name: Login, type: terminal}
  - {id: api-key, name: API key}
`, nil)
	c.initialize()
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, nil); codeOf(err) != acp.CodeAuthRequired {
		t.Errorf("session/new before authenticate: %v; want code %d", err, acp.CodeAuthRequired)
	}
	for _, id := range []string{"nope", "tui"} {
		if err := c.call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: id}, nil); codeOf(err) != acp.CodeInvalidParams {
			t.Errorf("authenticate %q: %v; want code %d", id, err, acp.CodeInvalidParams)
		}
	}
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, nil); codeOf(err) != acp.CodeAuthRequired {
		t.Errorf("session/new after failed authenticate: %v; want code %d", err, acp.CodeAuthRequired)
	}
	if err := c.call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "api-key"}, nil); err != nil {
		t.Fatalf("authenticate api-key: %v", err)
	}
	c.newSession("/w")
}

// TestAuthError: authError refuses an authenticate the agent would
// accept, with its error, and sessions still require authentication; an
// unknown method is refused as before.
func TestAuthError(t *testing.T) {
	c, _ := runMock(t, `authRequired: true
authMethods: [{id: api-key, name: API key}]
authError: {code: -32603, message: Internal error, data: {details: Missing API key}}
`, nil)
	c.initialize()
	err := c.call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "api-key"}, nil)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInternalError || ae.Message != "Internal error" || string(ae.Data) != `{"details":"Missing API key"}` {
		t.Errorf("authenticate api-key: %v; want the authError", err)
	}
	if err := c.call(acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "nope"}, nil); codeOf(err) != acp.CodeInvalidParams {
		t.Errorf("authenticate nope: %v; want code %d", err, acp.CodeInvalidParams)
	}
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, nil); codeOf(err) != acp.CodeAuthRequired {
		t.Errorf("session/new after the refused authenticate: %v; want code %d", err, acp.CodeAuthRequired)
	}
}

func TestTurnSelection(t *testing.T) {
	const script = `turns:
  - steps: [{text: one}]
  - match: '(?i)deploy'
    steps: [{text: deploying}]
  - steps: [{text: two}]
  - match: 'deploy|release'
    steps: [{text: releasing}]
  - steps: [{text: three}]
default:
  steps: [{text: fallback}]
`
	tests := []struct {
		name    string
		script  string
		prompts []string
		want    []string // the text of each turn
	}{
		{"positional", script, []string{"a", "b", "c", "d"}, []string{"one", "two", "three", "fallback"}},
		{"first match wins", script, []string{"deploy or release", "b", "Release", "release", "e"}, []string{"deploying", "two", "three", "releasing", "fallback"}},
		{"a match still counts as a turn", script, []string{"a", "deploy", "c"}, []string{"one", "deploying", "three"}},
		{"no default", "turns: [{steps: [{text: only}]}]\n", []string{"a", "b"}, []string{"only", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := runMock(t, tt.script, nil)
			sid := c.start()
			var got []string
			for _, p := range tt.prompts {
				res, err := c.prompt(sid, p)
				if err != nil || res.StopReason != acp.StopEndTurn {
					t.Fatalf("prompt %q = %+v, %v; want end_turn", p, res, err)
				}
				got = append(got, strings.TrimPrefix(strings.Join(describeAll(c.drain()), ","), "text:"))
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("texts per prompt (-got +want):\n%s", diff)
			}
		})
	}
}

func TestTurnEnds(t *testing.T) {
	var thought int64 = 7
	tests := []struct {
		name    string
		turn    string
		want    acp.PromptResponse
		wantErr *acp.Error
	}{
		{"default end_turn", "steps: [{text: hi}]", acp.PromptResponse{StopReason: acp.StopEndTurn}, nil},
		{"max_tokens", "stopReason: max_tokens", acp.PromptResponse{StopReason: acp.StopMaxTokens}, nil},
		{"max_turn_requests", "stopReason: max_turn_requests", acp.PromptResponse{StopReason: acp.StopMaxTurnRequests}, nil},
		{"refusal", "stopReason: refusal", acp.PromptResponse{StopReason: acp.StopRefusal}, nil},
		{"unknown verbatim", "stopReason: out_of_coffee", acp.PromptResponse{StopReason: "out_of_coffee"}, nil},
		{"stop step ends early", "steps: [{stop: refusal}, {text: unreachable}]\n    stopReason: max_tokens", acp.PromptResponse{StopReason: acp.StopRefusal}, nil},
		{
			"usage", "usage: {inputTokens: 10, outputTokens: 5, thoughtTokens: 7}",
			acp.PromptResponse{StopReason: acp.StopEndTurn, Usage: &acp.Usage{TotalTokens: 22, InputTokens: 10, OutputTokens: 5, ThoughtTokens: &thought}}, nil,
		},
		{"error", "error: {code: -32099, message: backend down, data: {retry: true}}", acp.PromptResponse{}, &acp.Error{Code: -32099, Message: "backend down", Data: json.RawMessage(`{"retry":true}`)}},
		{"error step", "steps: [{error: {code: -32603, message: boom}}, {text: unreachable}]", acp.PromptResponse{}, &acp.Error{Code: -32603, Message: "boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := runMock(t, "turns:\n  - "+tt.turn+"\n", nil)
			sid := c.start()
			got, err := c.prompt(sid, "go")
			if tt.wantErr != nil {
				var e *acp.Error
				if !errors.As(err, &e) {
					t.Fatalf("prompt = %+v, %v; want error %v", got, err, tt.wantErr)
				}
				if diff := cmp.Diff(e, tt.wantErr); diff != "" {
					t.Errorf("prompt error (-got +want):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("prompt: %v", err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("prompt response (-got +want):\n%s", diff)
			}
			for _, u := range describeAll(c.drain()) {
				if u == "text:unreachable" {
					t.Errorf("a step after the end was played")
				}
			}
		})
	}
}

func TestCancel(t *testing.T) {
	const steps = `
    steps:
      - tool_call: {toolCallId: t1, title: make test, kind: execute, status: in_progress}
      - tool_call: {toolCallId: t2, title: done already, status: completed}
      - text: waiting
      - waitForCancel: true
      - text: after`
	tests := []struct {
		name        string
		script      string
		wantStop    acp.StopReason
		wantUpdates []string
	}{
		{
			name:        "cancelled (the spec)",
			script:      "turns:\n  -" + steps,
			wantStop:    acp.StopCancelled,
			wantUpdates: []string{"tool_call:t1:in_progress", "tool_call:t2:completed", "text:waiting", "tool_call_update:t1:failed"},
		},
		{
			name:        "end_turn",
			script:      "onCancel: end_turn\nturns:\n  -" + steps,
			wantStop:    acp.StopEndTurn,
			wantUpdates: []string{"tool_call:t1:in_progress", "tool_call:t2:completed", "text:waiting", "tool_call_update:t1:failed"},
		},
		{
			name:        "ignore",
			script:      "onCancel: ignore\nturns:\n  -" + steps,
			wantStop:    acp.StopEndTurn,
			wantUpdates: []string{"tool_call:t1:in_progress", "tool_call:t2:completed", "text:waiting", "text:after"},
		},
		{
			name:        "per turn override",
			script:      "onCancel: ignore\nturns:\n  - onCancel: cancelled" + steps,
			wantStop:    acp.StopCancelled,
			wantUpdates: []string{"tool_call:t1:in_progress", "tool_call:t2:completed", "text:waiting", "tool_call_update:t1:failed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := runMock(t, tt.script, nil)
			sid := c.start()
			ctx := testCtx(t)
			call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "go"))
			var got []string
			for len(got) == 0 || got[len(got)-1] != "text:waiting" {
				got = append(got, describe(c.next().Update))
			}
			if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
				t.Fatal(err)
			}
			var res acp.PromptResponse
			if err := call.Await(ctx, &res); err != nil {
				t.Fatalf("prompt: %v", err)
			}
			got = append(got, describeAll(c.drain())...)
			if res.StopReason != tt.wantStop {
				t.Errorf("stopReason = %q; want %q", res.StopReason, tt.wantStop)
			}
			if diff := cmp.Diff(got, tt.wantUpdates); diff != "" {
				t.Errorf("updates (-got +want):\n%s", diff)
			}
		})
	}
}

// TestCancelRightAfterPrompt sends session/cancel right behind the prompt,
// so it is often handled before the prompt's handler starts. The turn must
// still end cancelled instead of waiting forever.
func TestCancelRightAfterPrompt(t *testing.T) {
	c, _ := runMock(t, "turns: [{match: quick, steps: [{text: q}]}]\ndefault: {steps: [{waitForCancel: true}]}\n", nil)
	sid := c.start()
	ctx := testCtx(t)
	for i := range 50 {
		call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "go"))
		if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		var res acp.PromptResponse
		if err := call.Await(ctx, &res); err != nil || res.StopReason != acp.StopCancelled {
			t.Fatalf("prompt %d = %+v, %v; want cancelled", i, res, err)
		}
	}
	// A cancel between turns must not cancel the next turn.
	if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	res, err := c.prompt(sid, "quick")
	if err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt after an idle cancel = %+v, %v; want end_turn", res, err)
	}
	if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:q"}) {
		t.Errorf("updates = %q; want text:q", got)
	}
}

func TestCancelInterruptsSleep(t *testing.T) {
	c, _ := runMock(t, "turns: [{steps: [{text: sleeping}, {sleep: 1h}, {text: woke}]}]\n", nil)
	sid := c.start()
	ctx := testCtx(t)
	call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "go"))
	c.waitText("sleeping")
	if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	var res acp.PromptResponse
	if err := call.Await(ctx, &res); err != nil || res.StopReason != acp.StopCancelled {
		t.Fatalf("prompt = %+v, %v; want cancelled", res, err)
	}
	if got := describeAll(c.drain()); len(got) != 0 {
		t.Errorf("updates after the cancel: %q; want none", got)
	}
}

// permissionScript asks once and says which branch ran.
const permissionScript = `turns:
  - steps:
      - tool_call:
          toolCallId: t1
          title: Edit src/a.go
          kind: edit
          content: [{diff: {path: src/a.go, oldText: a, newText: b}}]
          locations: [{path: src/a.go, line: 3}]
      - permission: {toolCallId: t1, title: Edit src/a.go, kind: edit, content: [{diff: {path: src/a.go, newText: b}}]}
        allowed: [{text: allowed}]
        rejected: [{text: rejected}]
        cancelled: [{text: cancelled branch}]
      - text: rest
`

func TestPermission(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		answer   func(c *client, sid string) (any, error)
		wantStop acp.StopReason
		want     []string
	}{
		{
			name:     "allow_once",
			answer:   func(*client, string) (any, error) { return acp.Selected("allow"), nil },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", "text:allowed", "text:rest"},
		},
		{
			name:     "allow_always",
			answer:   func(*client, string) (any, error) { return acp.Selected("allow_always"), nil },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", "text:allowed", "text:rest"},
		},
		{
			name:     "reject",
			answer:   func(*client, string) (any, error) { return acp.Selected("reject"), nil },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", "text:rejected", "text:rest"},
		},
		{
			name:     "unknown option",
			answer:   func(*client, string) (any, error) { return acp.Selected("maybe"), nil },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", `text:error: session/request_permission: unknown optionId "maybe"`, "text:rejected", "text:rest"},
		},
		{
			name:     "error answer",
			answer:   func(*client, string) (any, error) { return nil, acp.NewError(-32603, "no rules") },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", "text:error: session/request_permission: no rules (-32603)", "text:rejected", "text:rest"},
		},
		{
			name: "cancelled after session/cancel",
			answer: func(c *client, sid string) (any, error) {
				if err := c.conn.Notify(context.Background(), acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
					return nil, err
				}
				return acp.Cancelled(), nil
			},
			wantStop: acp.StopCancelled,
			want:     []string{"tool_call:t1:", "text:cancelled branch", "tool_call_update:t1:failed"},
		},
		{
			// The cancel is read before the answer, so the turn sees it
			// before it plays the allowed branch: the answer is in order.
			name: "allowed after session/cancel",
			answer: func(c *client, sid string) (any, error) {
				if err := c.conn.Notify(context.Background(), acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
					return nil, err
				}
				return acp.Selected("allow"), nil
			},
			wantStop: acp.StopCancelled,
			want:     []string{"tool_call:t1:", "tool_call_update:t1:failed"},
		},
		{
			name:     "cancelled without a branch",
			script:   strings.Replace(permissionScript, "        cancelled: [{text: cancelled branch}]\n", "", 1),
			answer:   func(*client, string) (any, error) { return acp.Cancelled(), nil },
			wantStop: acp.StopCancelled,
			want:     []string{"tool_call:t1:", "tool_call_update:t1:failed"},
		},
		{
			name:     "cancelled, onCancel end_turn",
			script:   "onCancel: end_turn\n" + permissionScript,
			answer:   func(*client, string) (any, error) { return acp.Cancelled(), nil },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", "text:cancelled branch", "tool_call_update:t1:failed"},
		},
		{
			name:     "cancelled, onCancel ignore goes on",
			script:   "onCancel: ignore\n" + permissionScript,
			answer:   func(*client, string) (any, error) { return acp.Cancelled(), nil },
			wantStop: acp.StopEndTurn,
			want:     []string{"tool_call:t1:", "text:cancelled branch", "text:rest"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.script == "" {
				tt.script = permissionScript
			}
			var (
				mu   sync.Mutex
				reqs []acp.RequestPermissionRequest
				c    *client
				sid  string
			)
			ready := make(chan struct{})
			c, _ = runMock(t, tt.script, func(ctx context.Context, req *acp.Request) (any, error) {
				if req.Method != acp.MethodSessionRequestPermission {
					return nil, acp.MethodNotFound(req.Method)
				}
				var p acp.RequestPermissionRequest
				if err := json.Unmarshal(req.Params, &p); err != nil {
					return nil, err
				}
				mu.Lock()
				reqs = append(reqs, p)
				mu.Unlock()
				<-ready
				return tt.answer(c, sid)
			})
			sid = c.start()
			close(ready)
			res, err := c.prompt(sid, "edit")
			if err != nil || res.StopReason != tt.wantStop {
				t.Fatalf("prompt = %+v, %v; want %s", res, err, tt.wantStop)
			}
			if diff := cmp.Diff(describeAll(c.drain()), tt.want); diff != "" {
				t.Errorf("updates (-got +want):\n%s", diff)
			}
			title, kind := "Edit src/a.go", acp.KindEdit
			want := []acp.RequestPermissionRequest{{
				SessionID: sid,
				ToolCall: acp.ToolCallUpdate{
					ToolCallID: "t1", Title: &title, Kind: &kind,
					Content: []acp.ToolCallContent{acp.DiffToolContent("/work/src/a.go", nil, "b")},
				},
				Options: []acp.PermissionOption{
					{OptionID: "allow_always", Name: "Always Allow", Kind: acp.AllowAlways},
					{OptionID: "allow", Name: "Allow", Kind: acp.AllowOnce},
					{OptionID: "reject", Name: "Reject", Kind: acp.RejectOnce},
				},
			}}
			if diff := cmp.Diff(reqs, want); diff != "" {
				t.Errorf("permission requests (-got +want):\n%s", diff)
			}
		})
	}
}

func TestPermissionOptions(t *testing.T) {
	const script = `permissionOptions:
  - {optionId: yes, name: "Yes", kind: allow_once}
turns:
  - steps:
      - permission: {toolCallId: t1}
      - permission: {toolCallId: t2}
        options: [{optionId: go, kind: allow_always}, {optionId: no, kind: reject_always}]
`
	got := make(chan []acp.PermissionOption, 2)
	c, _ := runMock(t, script, func(ctx context.Context, req *acp.Request) (any, error) {
		var p acp.RequestPermissionRequest
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		got <- p.Options
		return acp.Selected(p.Options[0].OptionID), nil
	})
	sid := c.start()
	if _, err := c.prompt(sid, "x"); err != nil {
		t.Fatal(err)
	}
	want := [][]acp.PermissionOption{
		{{OptionID: "yes", Name: "Yes", Kind: acp.AllowOnce}},
		{{OptionID: "go", Name: "go", Kind: acp.AllowAlways}, {OptionID: "no", Name: "no", Kind: acp.RejectAlways}},
	}
	for i, w := range want {
		if diff := cmp.Diff(<-got, w); diff != "" {
			t.Errorf("request %d options (-got +want):\n%s", i+1, diff)
		}
	}
}

// fakeFS serves fs/* and terminal/* and records the calls.
type fakeFS struct {
	mu      sync.Mutex
	calls   []string
	block   chan struct{} // when set, wait_for_exit waits for it (closed by terminal/kill)
	waiting chan struct{} // closed when a blocking wait_for_exit has started
}

func (f *fakeFS) serve(ctx context.Context, req *acp.Request) (any, error) {
	var p struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.calls = append(f.calls, req.Method+" "+string(req.Params))
	block := f.block
	f.mu.Unlock()
	switch req.Method {
	case acp.MethodFSReadTextFile:
		if strings.HasSuffix(p.Path, "missing.txt") {
			return nil, acp.NewError(acp.CodeResourceNotFound, "Resource not found: %s", p.Path)
		}
		return acp.ReadTextFileResponse{Content: "contents of " + p.Path}, nil
	case acp.MethodFSWriteTextFile:
		return acp.WriteTextFileResponse{}, nil
	case acp.MethodTerminalCreate:
		return acp.CreateTerminalResponse{TerminalID: "term_1"}, nil
	case acp.MethodTerminalWaitForExit:
		if block != nil {
			close(f.waiting)
			select {
			case <-block:
			case <-ctx.Done():
			}
			sig := "SIGKILL"
			return acp.WaitForTerminalExitResponse{Signal: &sig}, nil
		}
		code := 0
		return acp.WaitForTerminalExitResponse{ExitCode: &code}, nil
	case acp.MethodTerminalOutput:
		code := 0
		return acp.TerminalOutputResponse{Output: "ok\n", Truncated: true, ExitStatus: &acp.TerminalExitStatus{ExitCode: &code}}, nil
	case acp.MethodTerminalKill:
		if block != nil {
			f.mu.Lock()
			close(f.block)
			f.block = nil
			f.mu.Unlock()
		}
		return acp.KillTerminalResponse{}, nil
	case acp.MethodTerminalRelease:
		return acp.ReleaseTerminalResponse{}, nil
	}
	return nil, acp.MethodNotFound(req.Method)
}

func TestFSAndTerminal(t *testing.T) {
	const script = `turns:
  - steps:
      - read: {path: notes/a.txt, line: 1, limit: 2000}
      - read: {path: /abs/missing.txt}
      - write: {path: out.txt, content: hi}
      - terminal:
          command: go test ./...
          args: [-v]
          env: {CLAUDECODE: "1"}
          cwd: sub
          outputByteLimit: 32000
          toolCallId: t1
          waitForExit: true
          output: true
          kill: true
          release: true
`
	f := &fakeFS{}
	c, _ := runMock(t, script, f.serve)
	sid := c.start()
	if _, err := c.prompt(sid, "x"); err != nil {
		t.Fatal(err)
	}
	wantUpdates := []string{
		"text:read: contents of /work/notes/a.txt",
		"text:error: fs/read_text_file: Resource not found: /abs/missing.txt (-32002)",
		"text:write: ok",
		"text:terminal: term_1",
		"tool_call_update:t1:in_progress",
		"text:exit: 0",
		"text:output (truncated), exit 0: ok\n",
		"text:kill: ok",
		"text:release: ok",
	}
	if diff := cmp.Diff(describeAll(c.drain()), wantUpdates); diff != "" {
		t.Errorf("updates (-got +want):\n%s", diff)
	}
	const ref = `{"sessionId":"mock-session-1","terminalId":"term_1"}`
	wantCalls := []string{
		`fs/read_text_file {"sessionId":"mock-session-1","path":"/work/notes/a.txt","line":1,"limit":2000}`,
		`fs/read_text_file {"sessionId":"mock-session-1","path":"/abs/missing.txt"}`,
		`fs/write_text_file {"sessionId":"mock-session-1","path":"/work/out.txt","content":"hi"}`,
		`terminal/create {"sessionId":"mock-session-1","command":"go test ./...","args":["-v"],"env":[{"name":"CLAUDECODE","value":"1"}],"cwd":"/work/sub","outputByteLimit":32000}`,
		`terminal/wait_for_exit ` + ref,
		`terminal/output ` + ref,
		`terminal/kill ` + ref,
		`terminal/release ` + ref,
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if diff := cmp.Diff(f.calls, wantCalls); diff != "" {
		t.Errorf("client calls (-got +want):\n%s", diff)
	}
}

// TestTerminalCancel cancels while the agent waits for a command: the agent
// kills and releases the terminal, then answers cancelled.
func TestTerminalCancel(t *testing.T) {
	f := &fakeFS{block: make(chan struct{}), waiting: make(chan struct{})}
	c, _ := runMock(t, "turns: [{steps: [{terminal: {command: sleep 100, waitForExit: true, output: true}}, {text: unreachable}]}]\n", f.serve)
	sid := c.start()
	ctx := testCtx(t)
	call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "x"))
	c.waitText("terminal: term_1")
	<-f.waiting
	if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	var res acp.PromptResponse
	if err := call.Await(ctx, &res); err != nil || res.StopReason != acp.StopCancelled {
		t.Fatalf("prompt = %+v, %v; want cancelled", res, err)
	}
	want := []string{"text:error: terminal/wait_for_exit: cancelled", "text:kill: ok", "text:release: ok"}
	if diff := cmp.Diff(describeAll(c.drain()), want); diff != "" {
		t.Errorf("updates (-got +want):\n%s", diff)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var methods []string
	for _, call := range f.calls {
		methods = append(methods, strings.Fields(call)[0])
	}
	if diff := cmp.Diff(methods, []string{"terminal/create", "terminal/wait_for_exit", "terminal/kill", "terminal/release"}); diff != "" {
		t.Errorf("client calls (-got +want):\n%s", diff)
	}
}

// TestWireOrder checks updatesBeforeSessionNew and after: against the order
// of lines on the wire.
func TestWireOrder(t *testing.T) {
	const script = `sessionId: s1
updatesBeforeSessionNew:
  - update: {sessionUpdate: available_commands_update, availableCommands: []}
  - text: early
turns:
  - steps: [{text: during}]
    after:
      - text: late
      - usage_update: {used: 5, size: 100}
`
	c, _ := runMock(t, script, nil)
	c.initialize()
	if sid := c.newSession("/w"); sid != "s1" {
		t.Fatalf("session id %q; want s1", sid)
	}
	if _, err := c.prompt("s1", "go"); err != nil {
		t.Fatal(err)
	}
	for range 5 { // early ×2, during, late, usage
		c.next()
	}
	var got []string
	for _, l := range c.wire() {
		switch {
		case strings.HasPrefix(l, "< ") && strings.Contains(l, `"sessionUpdate"`):
			var m struct {
				Params acp.SessionNotification `json:"params"`
			}
			if err := json.Unmarshal([]byte(l[2:]), &m); err != nil {
				t.Fatal(err)
			}
			if m.Params.SessionID != "s1" {
				t.Errorf("update for session %q; want s1", m.Params.SessionID)
			}
			got = append(got, describe(m.Params.Update))
		case strings.HasPrefix(l, "< ") && strings.Contains(l, `"sessionId":"s1"`):
			got = append(got, "session/new response")
		case strings.HasPrefix(l, "< ") && strings.Contains(l, `"stopReason"`):
			got = append(got, "prompt response")
		}
	}
	want := []string{"update:available_commands_update", "text:early", "session/new response", "text:during", "prompt response", "text:late", "usage_update"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("wire order (-got +want):\n%s", diff)
	}
}

func TestLoadSession(t *testing.T) {
	const script = `agentCapabilities: {loadSession: true}
load:
  - user: hello
  - text: hi there
turns: [{steps: [{text: resumed}]}]
`
	c, _ := runMock(t, script, nil)
	c.initialize()
	if err := c.call(acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: "old-1", Cwd: "/w"}, nil); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	got := describeAll(c.drain())
	if _, err := c.prompt("old-1", "go on"); err != nil {
		t.Fatal(err)
	}
	got = append(got, describeAll(c.drain())...)
	if diff := cmp.Diff(got, []string{"user:hello", "text:hi there", "text:resumed"}); diff != "" {
		t.Errorf("updates (-got +want):\n%s", diff)
	}
}

func TestUpdates(t *testing.T) {
	const script = `turns:
  - steps:
      - thought: [a, b]
      - text: abcd
        chunks: 2
        messageId: m1
      - plan: [{content: one, priority: high, status: completed}, {content: two}]
      - tool_call:
          toolCallId: t1
          title: Edit a.go
          kind: edit
          rawInput: {file_path: a.go, n: [1, 2]}
          content: [{diff: {path: a.go, oldText: x, newText: y}}, {text: note}, {terminal: term_9}]
          locations: [{path: /abs/b.go, line: 2}]
      - tool_call_update: {toolCallId: ghost, status: completed, rawOutput: {ok: true}}
      - update: {sessionUpdate: agent_error, error: {message: overloaded}}
      - usage_update: {used: 10, size: 100, cost: {amount: 0.5, currency: USD}}
`
	c, _ := runMock(t, script, nil)
	sid := c.start()
	if _, err := c.prompt(sid, "x"); err != nil {
		t.Fatal(err)
	}
	var got []acp.SessionUpdate
	for _, n := range c.drain() {
		got = append(got, n.Update)
	}
	line, title, kind, completed, old := 2, "Edit a.go", acp.KindEdit, acp.StatusCompleted, "x"
	want := []acp.SessionUpdate{
		{Kind: acp.UpdateAgentThoughtChunk, AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock("a")}},
		{Kind: acp.UpdateAgentThoughtChunk, AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock("b")}},
		{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("ab"), MessageID: "m1"}},
		{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("cd"), MessageID: "m1"}},
		{Kind: acp.UpdatePlan, Plan: &acp.Plan{Entries: []acp.PlanEntry{
			{Content: "one", Priority: acp.PriorityHigh, Status: acp.PlanCompleted},
			{Content: "two", Priority: acp.PriorityMedium, Status: acp.PlanPending},
		}}},
		{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{
			ToolCallID: "t1", Title: title, Kind: kind,
			RawInput: json.RawMessage(`{"file_path":"a.go","n":[1,2]}`),
			Content: []acp.ToolCallContent{
				acp.DiffToolContent("/work/a.go", &old, "y"),
				acp.BlockToolContent(acp.TextBlock("note")),
				acp.TerminalToolContent("term_9"),
			},
			Locations: []acp.ToolCallLocation{{Path: "/abs/b.go", Line: &line}},
		}},
		{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "ghost", Status: &completed, RawOutput: json.RawMessage(`{"ok":true}`)}},
		{Kind: "agent_error", Raw: json.RawMessage(`{"sessionUpdate":"agent_error","error":{"message":"overloaded"}}`)},
		{Kind: acp.UpdateUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: 10, Size: 100, Cost: &acp.Cost{Amount: 0.5, Currency: "USD"}}},
	}
	if diff := cmp.Diff(got, want, cmpopts.IgnoreFields(acp.SessionUpdate{}, "Raw")); diff != "" {
		t.Errorf("updates (-got +want):\n%s", diff)
	}
	if len(got) == len(want) {
		if g, w := string(got[7].Raw), string(want[7].Raw); g != w {
			t.Errorf("raw update = %s; want %s", g, w)
		}
	}
}

func TestHang(t *testing.T) {
	// In a synctest bubble, synctest.Wait lets the agent react to the end
	// of its stdin before checking that Run did not return.
	synctest.Test(t, func(t *testing.T) {
		c, m := runMock(t, "turns: [{steps: [{text: hanging}, {hang: true}, {text: never}]}]\n", nil)
		sid := c.start()
		ctx := testCtx(t)
		call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "x"))
		c.waitText("hanging")
		m.stderr.waitFor(t, "mock-agent: hanging")
		if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		other := c.conn.Call(ctx, acp.MethodInitialize, acp.InitializeRequest{ProtocolVersion: 1})
		synctest.Wait()
		select {
		case <-call.Done():
			t.Error("the prompt was answered after a hang step")
		case <-other.Done():
			t.Error("a request was answered after a hang step")
		default:
		}
		c.conn.Close() // the agent sees the end of its stdin, and stays
		synctest.Wait()
		select {
		case <-m.done:
			t.Fatal("Run returned at the end of stdin after a hang step")
		default:
		}
		m.cancel()
		if err := m.wait(t); !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v; want context.Canceled", err)
		}
		if got := describeAll(c.drain()); len(got) != 0 {
			t.Errorf("updates after the hang: %q", got)
		}
	})
}

func TestGarbageFloodStderr(t *testing.T) {
	c, m := runMock(t, `turns:
  - steps:
      - garbage: "this is not json"
      - flood: {count: 500, text: x}
      - stderr: "warning: something odd"
`, nil)
	sid := c.start()
	if _, err := c.prompt(sid, "x"); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-c.violations:
		if !strings.Contains(v.Msg, `"this is not json"`) {
			t.Errorf("violation %q does not quote the garbage line", v.Msg)
		}
	default:
		t.Error("no violation reported for the garbage line")
	}
	if got := len(c.drain()); got != 500 {
		t.Errorf("got %d updates; want 500", got)
	}
	if got := m.stderr.String(); got != "warning: something odd\n" {
		t.Errorf("stderr = %q", got)
	}
}

// TestGrandchildInProcess checks that an in-process run reaps the
// grandchild it started (the process tests check what it holds).
func TestGrandchildInProcess(t *testing.T) {
	c, m := runMock(t, "turns: [{steps: [{spawnGrandchild: true}, {text: spawned}]}]\n", nil)
	sid := c.start()
	if _, err := c.prompt(sid, "go"); err != nil {
		t.Fatal(err)
	}
	m.stderr.waitFor(t, "mock-agent: grandchild pid ")
	if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:spawned"}) {
		t.Errorf("updates = %q", got)
	}
	c.conn.Close()
	if err := m.wait(t); err != nil {
		t.Errorf("Run = %v; want nil at the end of stdin", err)
	}
}

// TestEndOfStdin writes requests and closes stdin at once, as `printf … |
// acprun mock-agent` does: every request read still gets its answer, turns
// play on, and waitForCancel ends as if cancelled.
func TestEndOfStdin(t *testing.T) {
	s, err := mockagent.Parse("eof.yaml", []byte(`turns:
  - steps: [{text: a}, {read: {path: x.txt}}, {waitForCancel: true}, {text: never}]
`))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mockagent.Run(t.Context(), s, inR, outW, io.Discard) }()
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"mock-session-1","prompt":[{"type":"text","text":"hi"}]}}`,
	} {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Run = %v; want nil", err)
	}
	outW.Close()
	// Answers may come in any order; the turn's updates come before its answer.
	var updates []string
	answers := map[string]string{}
	for _, l := range <-lines {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Params struct {
				Update struct {
					Content struct{ Text string } `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		switch {
		case m.Method == acp.MethodSessionUpdate:
			if _, done := answers["3"]; done {
				t.Errorf("update %q after the prompt's answer", l)
			}
			updates = append(updates, m.Params.Update.Content.Text)
		case m.Method != "":
			// The read request goes out only if the agent makes it before
			// it has read the end of stdin; either way it fails.
		default:
			answers[string(m.ID)] = string(m.Result)
		}
	}
	wantUpdates := []string{"a", "error: fs/read_text_file: acp: connection closed: client closed its output (EOF)"}
	if diff := cmp.Diff(updates, wantUpdates); diff != "" {
		t.Errorf("updates (-got +want):\n%s", diff)
	}
	if len(answers) != 3 || answers["2"] != `{"sessionId":"mock-session-1"}` || answers["3"] != `{"stopReason":"cancelled"}` {
		t.Errorf("answers = %q; want initialize, session/new and a cancelled prompt", answers)
	}
}

// TestMalformedLinesAnswered: a line that is not JSON is answered -32700
// and a batch (ACP has none) -32600, each once and with id null, as a
// JSON-RPC server answers them; the requests after them are answered as
// ever.
func TestMalformedLinesAnswered(t *testing.T) {
	s, err := mockagent.Parse("m.yaml", []byte("turns: [{steps: [{text: hi}]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`not json`,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := mockagent.Run(t.Context(), s, strings.NewReader(in), &out, io.Discard); err != nil {
		t.Fatalf("Run = %v; want nil", err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *acp.Error      `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		a := "id " + string(m.ID)
		if m.Error != nil {
			a += fmt.Sprintf(": %d %s", m.Error.Code, m.Error.Message)
		}
		got = append(got, a)
	}
	want := []string{
		"id null: -32700 parse error: the line is not JSON",
		"id null: -32600 invalid request: JSON-RPC batches are not supported",
		"id 2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// TestOwnSystemCalls: writeFile, readFile, spawn, connect and listen act with the
// agent's own system calls, in the session cwd, and say how it went.
func TestOwnSystemCalls(t *testing.T) {
	dir := t.TempDir()
	open, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	t.Setenv("MOCK_OPEN", open.Addr().String())
	script := `turns:
  - steps:
      - writeFile: {path: out.txt, content: hi}
      - readFile: ${MOCK_DIR}/out.txt
      - writeFile: {path: missing/x.txt, content: hi}
      - readFile: nope.txt
      - spawn: "cat out.txt; echo; echo err >&2; exit 3"
      - spawn: "kill -KILL $$"
      - connect: $MOCK_OPEN
      - connect: ` + closed.Addr().String() + `
      - listen: 127.0.0.1:0
      - listen: $MOCK_OPEN
`
	t.Setenv("MOCK_DIR", dir)
	c, _ := runMock(t, script, nil)
	c.initialize()
	sid := c.newSession(dir)
	if _, err := c.prompt(sid, "x"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"text:writeFile: ok",
		"text:readFile: hi",
		"text:writeFile: error: open " + filepath.Join(dir, "missing/x.txt") + ": no such file or directory",
		"text:readFile: error: open " + filepath.Join(dir, "nope.txt") + ": no such file or directory",
		"text:spawn: exit 3: hi\nerr",
		"text:spawn: signal: killed: ",
		"text:connect: ok",
		"text:connect: error: dial tcp " + closed.Addr().String() + ": connect: connection refused",
		"text:listen: ok",
		"text:listen: error: listen tcp " + open.Addr().String() + ": bind: address already in use",
	}
	if diff := cmp.Diff(describeAll(c.drain()), want); diff != "" {
		t.Errorf("updates (-got +want):\n%s", diff)
	}
}

// TestTerminalCancelBeforeExitAnswer: a client that writes session/cancel,
// then the answer to terminal/wait_for_exit (the command killed on the
// cancel, as acprun does), gets the cancelled branch every time: the
// agent decides by the order of the stream, not by whether its watch of
// the cancel stopped the wait before the answer completed it.
func TestTerminalCancelBeforeExitAnswer(t *testing.T) {
	for i := range 30 {
		f := &fakeFS{block: make(chan struct{}), waiting: make(chan struct{})}
		serve := func(ctx context.Context, req *acp.Request) (any, error) {
			if req.Method == acp.MethodTerminalKill {
				return acp.KillTerminalResponse{}, nil // the wait was answered already
			}
			return f.serve(ctx, req)
		}
		c, _ := runMock(t, "turns: [{steps: [{terminal: {command: sleep 100, waitForExit: true, output: true}}, {text: unreachable}]}]\n", serve)
		sid := c.start()
		ctx := testCtx(t)
		call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "x"))
		c.waitText("terminal: term_1")
		<-f.waiting
		if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		close(f.block) // the exit's answer goes out after the cancel
		var res acp.PromptResponse
		if err := call.Await(ctx, &res); err != nil || res.StopReason != acp.StopCancelled {
			t.Fatalf("run %d: prompt = %+v, %v; want cancelled", i, res, err)
		}
		want := []string{"text:error: terminal/wait_for_exit: cancelled", "text:kill: ok", "text:release: ok"}
		if diff := cmp.Diff(describeAll(c.drain()), want); diff != "" {
			t.Fatalf("run %d: updates (-got +want):\n%s", i, diff)
		}
	}
}
