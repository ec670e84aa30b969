package acp_test

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/acpschema"
)

// schemaCase is one Go value that must marshal to a valid instance of a schema definition.
type schemaCase struct {
	name string
	def  string
	v    any
}

// clientSends lists every message shape the client (acprun) sends.
func clientSends() []schemaCase {
	blocks := []acp.ContentBlock{
		acp.TextBlock("Hello"),
		acp.TextBlock(""),
		acp.ImageBlock("image/png", "iVBORw0KGgo="),
		{Type: acp.ContentImage, MimeType: "image/png", Data: "iVBORw0KGgo=", URI: "file:///p/a.png"},
		acp.AudioBlock("audio/wav", "UklGRg=="),
		acp.ResourceLinkBlock("file:///p/main.go", "main.go"),
		{Type: acp.ContentResourceLink, URI: "file:///p/a", Name: "a", Title: "A", Description: "d", MimeType: "text/plain", Size: ptr(int64(12)),
			Annotations: &acp.Annotations{Audience: []acp.Role{acp.RoleUser, acp.RoleAssistant}, LastModified: "2026-12-01T00:00:00Z", Priority: ptr(0.7)}},
		acp.ResourceBlock("file:///p/main.go", "text/x-go", "package main\n"),
		acp.ResourceBlock("file:///p/notes", "", ""),
		{Type: acp.ContentResource, Resource: &acp.EmbeddedResourceResource{URI: "file:///p/a.bin", MimeType: "application/octet-stream", Blob: "AAEC"}},
		acp.BlobResourceBlock("file:///p/logo.png", "image/png", "iVBORw0KGgo="),
		acp.BlobResourceBlock("file:///p/data.bin", "", "AAEC"),
		acp.BlobResourceBlock("file:///p/empty.bin", "application/octet-stream", ""),
		{Type: acp.ContentResource},
	}
	var cases []schemaCase
	add := func(name, def string, v any) { cases = append(cases, schemaCase{name, def, v}) }

	add("initialize minimal", "InitializeRequest", acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion})
	add("initialize full", "InitializeRequest", acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersion,
		ClientCapabilities: acp.ClientCapabilities{
			FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true,
			Auth: &acp.AuthCapabilities{Terminal: false},
			Session: &acp.ClientSessionCapabilities{
				ConfigOptions: &acp.SessionConfigOptionsCapabilities{Boolean: &acp.Capability{}},
				Notices:       &acp.Capability{}, Compaction: &acp.Capability{}},
			Meta: json.RawMessage(`{"acprun":{"headless":true}}`),
		},
		ClientInfo: &acp.Implementation{Name: "acprun", Title: "acprun", Version: "0.1.0"},
		Meta:       json.RawMessage(`{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`),
	})
	add("initialize with elicitation", "InitializeRequest", acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Capability{}}},
	})
	add("authenticate", "AuthenticateRequest", acp.AuthenticateRequest{MethodID: "openai-api-key"})
	add("session/new no servers", "NewSessionRequest", acp.NewSessionRequest{Cwd: "/home/user/project"})
	add("session/new empty servers", "NewSessionRequest", acp.NewSessionRequest{Cwd: "/p", McpServers: []acp.McpServer{}})
	add("session/new servers", "NewSessionRequest", acp.NewSessionRequest{Cwd: "/p", AdditionalDirectories: []string{"/q"}, McpServers: []acp.McpServer{
		{Name: "fs", Command: "/usr/local/bin/mcp-fs"},
		{Name: "db", Command: "/usr/bin/db-mcp", Args: []string{"--ro"}, Env: []acp.EnvVariable{{Name: "DB", Value: "x"}}},
		{Type: acp.McpHTTP, Name: "web", URL: "https://mcp.example/mcp"},
		{Type: acp.McpSSE, Name: "old", URL: "https://sse.example/", Headers: []acp.HttpHeader{{Name: "X-Key", Value: "k"}}},
	}})
	add("session/load", "LoadSessionRequest", acp.LoadSessionRequest{SessionID: "s1", Cwd: "/p"})
	add("session/set_mode", "SetSessionModeRequest", acp.SetSessionModeRequest{SessionID: "s1", ModeID: "code"})
	add("session/set_config_option select", "SetSessionConfigOptionRequest", acp.SetSessionConfigOptionRequest{SessionID: "s1", ConfigID: "model", Value: "smart"})
	add("session/set_config_option boolean", "SetSessionConfigOptionRequest", acp.SetSessionConfigOptionRequest{SessionID: "s1", ConfigID: "auto", Type: acp.ConfigBoolean, Value: true})
	add("session/close", "CloseSessionRequest", acp.CloseSessionRequest{SessionID: "s1"})
	add("session/prompt empty", "PromptRequest", acp.PromptRequest{SessionID: "s1"})
	add("session/prompt all blocks", "PromptRequest", acp.PromptRequest{SessionID: "s1", Prompt: blocks})
	for _, b := range blocks {
		add("content block "+b.Type, "ContentBlock", b)
	}
	add("session/cancel", "CancelNotification", acp.CancelNotification{SessionID: "s1"})
	add("permission selected", "RequestPermissionResponse", acp.Selected("allow"))
	add("permission cancelled", "RequestPermissionResponse", acp.Cancelled())
	add("elicitation accepted", "CreateElicitationResponse", acp.CreateElicitationResponse{Action: acp.ElicitationAccept,
		Content: map[string]any{"branch": "main", "count": int64(3), "ratio": 0.5, "force": true, "labels": []string{"bug", "ci"}}})
	add("elicitation declined", "CreateElicitationResponse", acp.CreateElicitationResponse{Action: acp.ElicitationDecline})
	add("elicitation cancelled", "CreateElicitationResponse", acp.CreateElicitationResponse{Action: acp.ElicitationCancel})
	add("fs/read_text_file", "ReadTextFileResponse", acp.ReadTextFileResponse{Content: "line one\n"})
	add("fs/read_text_file empty", "ReadTextFileResponse", acp.ReadTextFileResponse{})
	add("fs/write_text_file", "WriteTextFileResponse", acp.WriteTextFileResponse{})
	add("terminal/create", "CreateTerminalResponse", acp.CreateTerminalResponse{TerminalID: "term_1"})
	add("terminal/output running", "TerminalOutputResponse", acp.TerminalOutputResponse{Output: "partial"})
	add("terminal/output exited", "TerminalOutputResponse", acp.TerminalOutputResponse{Output: "bash-ok\n", Truncated: true, ExitStatus: &acp.TerminalExitStatus{ExitCode: ptr(0)}})
	add("terminal/output signalled", "TerminalOutputResponse", acp.TerminalOutputResponse{ExitStatus: &acp.TerminalExitStatus{Signal: ptr("SIGTERM")}})
	add("terminal/wait_for_exit code", "WaitForTerminalExitResponse", acp.WaitForTerminalExitResponse{ExitCode: ptr(2)})
	add("terminal/wait_for_exit signal", "WaitForTerminalExitResponse", acp.WaitForTerminalExitResponse{Signal: ptr("SIGKILL")})
	add("terminal/kill", "KillTerminalResponse", acp.KillTerminalResponse{})
	add("terminal/release", "ReleaseTerminalResponse", acp.ReleaseTerminalResponse{})
	return cases
}

// agentSends lists the message shapes the mock agent sends.
func agentSends() []schemaCase {
	var cases []schemaCase
	add := func(name, def string, v any) { cases = append(cases, schemaCase{name, def, v}) }

	add("initialize minimal", "InitializeResponse", acp.InitializeResponse{ProtocolVersion: 1})
	add("initialize full", "InitializeResponse", acp.InitializeResponse{
		ProtocolVersion: 1,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  acp.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
			McpCapabilities:     acp.McpCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: acp.SessionCapabilities{List: &acp.Capability{}, Delete: &acp.Capability{}, AdditionalDirectories: &acp.Capability{}, Resume: &acp.Capability{}, Close: &acp.Capability{}},
			Auth:                acp.AgentAuthCapabilities{Logout: &acp.Capability{}},
		},
		AuthMethods: []acp.AuthMethod{
			{ID: "login", Name: "Log in", Description: "Browser login"},
			{ID: "tui", Name: "Terminal login", Type: acp.AuthTypeTerminal, Args: []string{"--login"}, Env: map[string]string{"MODE": "tui"}},
		},
		AgentInfo: &acp.Implementation{Name: "acprun-mock", Version: "0.1.0"},
	})
	add("authenticate", "AuthenticateResponse", acp.AuthenticateResponse{})
	add("elicitation form", "CreateElicitationRequest", acp.CreateElicitationRequest{Message: "Which branch?", Mode: acp.ElicitationForm, SessionID: "s1", ToolCallID: "t1",
		RequestedSchema: &acp.ElicitationSchema{Type: "object", Required: []string{"branch"}, Properties: map[string]acp.ElicitationProperty{
			"branch": {Type: acp.PropertyString, Title: "Branch"},
			"env":    {Type: acp.PropertyString, Enum: []string{"dev", "prod"}},
			"tier":   {Type: acp.PropertyString, OneOf: []acp.EnumOption{{Const: "a", Title: "A"}}},
			"count":  {Type: acp.PropertyInteger},
			"ratio":  {Type: acp.PropertyNumber},
			"force":  {Type: acp.PropertyBoolean, Default: json.RawMessage(`false`)},
			"labels": {Type: acp.PropertyArray, Items: &acp.ElicitationItems{Type: acp.PropertyString, Enum: []string{"bug", "ci"}}},
			"owners": {Type: acp.PropertyArray, Items: &acp.ElicitationItems{AnyOf: []acp.EnumOption{{Const: "me", Title: "Me"}}}},
		}}})
	add("elicitation form, request scope", "CreateElicitationRequest", acp.CreateElicitationRequest{Message: "Token?", Mode: acp.ElicitationForm, RequestID: &acp.ID{},
		RequestedSchema: &acp.ElicitationSchema{Properties: map[string]acp.ElicitationProperty{"token": {Type: acp.PropertyString}}}})
	add("elicitation url", "CreateElicitationRequest", acp.CreateElicitationRequest{Message: "Log in", Mode: acp.ElicitationURL, SessionID: "s1",
		ElicitationID: "e1", URL: "https://example.com/login"})
	add("elicitation complete", "CompleteElicitationNotification", acp.CompleteElicitationNotification{ElicitationID: "e1"})
	add("session/new minimal", "NewSessionResponse", acp.NewSessionResponse{SessionID: "s1"})
	add("session/new full", "NewSessionResponse", acp.NewSessionResponse{
		SessionID: "s1",
		Modes:     &acp.SessionModeState{CurrentModeID: "ask", AvailableModes: []acp.SessionMode{{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code", Description: "Edits files"}}},
		ConfigOptions: []acp.SessionConfigOption{
			{ID: "model", Name: "Model", Category: "model", Type: acp.ConfigSelect, CurrentValue: "fast",
				Options: &acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "fast", Name: "Fast"}, {Value: "smart", Name: "Smart", Description: "Slow"}}}},
			{ID: "effort", Name: "Effort", Type: acp.ConfigSelect, CurrentValue: "low",
				Options: &acp.SessionConfigSelectOptions{Groups: []acp.SessionConfigSelectGroup{{Group: "g", Name: "Levels", Options: []acp.SessionConfigSelectOption{{Value: "low", Name: "Low"}}}}}},
			{ID: "auto", Name: "Auto-approve", Type: acp.ConfigBoolean, CurrentValue: false},
			{ID: "empty", Name: "Empty", Type: acp.ConfigSelect, CurrentValue: "x", Options: &acp.SessionConfigSelectOptions{}},
		},
	})
	add("session/new modes without list", "NewSessionResponse", acp.NewSessionResponse{SessionID: "s1", Modes: &acp.SessionModeState{CurrentModeID: "ask"}})
	add("session/load", "LoadSessionResponse", acp.LoadSessionResponse{})
	add("session/set_mode", "SetSessionModeResponse", acp.SetSessionModeResponse{})
	add("session/set_config_option", "SetSessionConfigOptionResponse", acp.SetSessionConfigOptionResponse{})
	add("session/close", "CloseSessionResponse", acp.CloseSessionResponse{})
	for _, r := range []acp.StopReason{acp.StopEndTurn, acp.StopMaxTokens, acp.StopMaxTurnRequests, acp.StopRefusal, acp.StopCancelled} {
		add("session/prompt "+string(r), "PromptResponse", acp.PromptResponse{StopReason: r})
	}
	add("session/prompt with usage", "PromptResponse", acp.PromptResponse{StopReason: acp.StopEndTurn,
		Usage: &acp.Usage{TotalTokens: 720, InputTokens: 600, OutputTokens: 120, CachedReadTokens: ptr(int64(0)), CachedWriteTokens: ptr(int64(0))}})

	for _, u := range everyUpdate() {
		add("session/update "+u.Kind, "SessionNotification", acp.SessionNotification{SessionID: "s1", Update: u})
	}

	add("session/request_permission", "RequestPermissionRequest", acp.RequestPermissionRequest{
		SessionID: "s1",
		ToolCall: acp.ToolCallUpdate{ToolCallID: "toolu_1", Title: ptr("Write hello.txt"), Kind: ptr(acp.KindEdit),
			Content:   []acp.ToolCallContent{acp.DiffToolContent("/p/hello.txt", nil, "line one\n")},
			Locations: []acp.ToolCallLocation{{Path: "/p/hello.txt"}}, RawInput: json.RawMessage(`{"file_path":"/p/hello.txt"}`)},
		Options: []acp.PermissionOption{
			{OptionID: "allow_always", Name: "Always Allow", Kind: acp.AllowAlways},
			{OptionID: "allow", Name: "Allow", Kind: acp.AllowOnce},
			{OptionID: "reject", Name: "Reject", Kind: acp.RejectOnce},
			{OptionID: "never", Name: "Never", Kind: acp.RejectAlways},
		},
	})
	add("session/request_permission minimal", "RequestPermissionRequest", acp.RequestPermissionRequest{SessionID: "s1", ToolCall: acp.ToolCallUpdate{ToolCallID: "t"}})
	add("fs/read_text_file", "ReadTextFileRequest", acp.ReadTextFileRequest{SessionID: "s1", Path: "/p/a", Line: ptr(1), Limit: ptr(2000)})
	add("fs/read_text_file minimal", "ReadTextFileRequest", acp.ReadTextFileRequest{SessionID: "s1", Path: "/p/a"})
	add("fs/write_text_file", "WriteTextFileRequest", acp.WriteTextFileRequest{SessionID: "s1", Path: "/p/a", Content: ""})
	add("terminal/create", "CreateTerminalRequest", acp.CreateTerminalRequest{SessionID: "s1", Command: "touch x && echo ok",
		Env: []acp.EnvVariable{{Name: "CLAUDECODE", Value: "1"}}, OutputByteLimit: ptr(int64(32000))})
	add("terminal/create argv", "CreateTerminalRequest", acp.CreateTerminalRequest{SessionID: "s1", Command: "/bin/ls", Args: []string{"-l"}, Cwd: "/p"})
	add("terminal/output", "TerminalOutputRequest", acp.TerminalOutputRequest{SessionID: "s1", TerminalID: "term_1"})
	add("terminal/wait_for_exit", "WaitForTerminalExitRequest", acp.WaitForTerminalExitRequest{SessionID: "s1", TerminalID: "term_1"})
	add("terminal/kill", "KillTerminalRequest", acp.KillTerminalRequest{SessionID: "s1", TerminalID: "term_1"})
	add("terminal/release", "ReleaseTerminalRequest", acp.ReleaseTerminalRequest{SessionID: "s1", TerminalID: "term_1"})
	return cases
}

// everyUpdate returns one update of every known kind, built from Go values.
func everyUpdate() []acp.SessionUpdate {
	chunk := &acp.ContentChunk{Content: acp.TextBlock("hi"), MessageID: "m1"}
	return []acp.SessionUpdate{
		{Kind: acp.UpdateUserMessageChunk, UserMessageChunk: chunk},
		{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.ImageBlock("image/png", "iVBORw0KGgo=")}},
		{Kind: acp.UpdateAgentThoughtChunk, AgentThoughtChunk: chunk},
		{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t1", Title: "Terminal"}},
		{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t2", Title: "Run tests", Name: "bash", Kind: acp.KindExecute, Status: acp.StatusInProgress,
			Content: []acp.ToolCallContent{
				acp.TerminalToolContent("term_1"),
				acp.BlockToolContent(acp.TextBlock("running")),
				acp.DiffToolContent("/p/a", ptr("old"), "new"),
			},
			Locations: []acp.ToolCallLocation{{Path: "/p/a", Line: ptr(3)}}, RawInput: json.RawMessage(`{"command":"go test"}`), RawOutput: json.RawMessage(`null`)}},
		{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t1"}},
		{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t1", Status: ptr(acp.StatusCompleted), Title: ptr("done"),
			Name: ptr("bash"), Kind: ptr(acp.KindOther), Content: []acp.ToolCallContent{}, Locations: []acp.ToolCallLocation{}, RawOutput: json.RawMessage(`"ok"`)}},
		{Kind: acp.UpdatePlan, Plan: &acp.Plan{}},
		{Kind: acp.UpdatePlan, Plan: &acp.Plan{Entries: []acp.PlanEntry{{Content: "Write", Priority: acp.PriorityHigh, Status: acp.PlanInProgress},
			{Content: "Test", Priority: acp.PriorityLow, Status: acp.PlanPending}, {Content: "Read", Priority: acp.PriorityMedium, Status: acp.PlanCompleted}}}},
		{Kind: acp.UpdateAvailableCommandsUpdate, AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{}},
		{Kind: acp.UpdateAvailableCommandsUpdate, AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{
			{Name: "web", Description: "Search the web", Input: &acp.AvailableCommandInput{Hint: "query"}}, {Name: "init", Description: "Init"}}}},
		{Kind: acp.UpdateCurrentModeUpdate, CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: "code"}},
		{Kind: acp.UpdateConfigOptionUpdate, ConfigOptionUpdate: &acp.ConfigOptionUpdate{}},
		{Kind: acp.UpdateConfigOptionUpdate, ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: []acp.SessionConfigOption{
			{ID: "auto", Name: "Auto", Type: acp.ConfigBoolean, CurrentValue: true}}}},
		{Kind: acp.UpdateSessionInfoUpdate, SessionInfoUpdate: &acp.SessionInfoUpdate{}},
		{Kind: acp.UpdateSessionInfoUpdate, SessionInfoUpdate: &acp.SessionInfoUpdate{Title: ptr("Fix build"), UpdatedAt: ptr("2026-12-01T10:00:00Z")}},
		{Kind: acp.UpdateUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: 120, Size: 258400}},
		{Kind: acp.UpdateUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: 101, Size: 200000, Cost: &acp.Cost{Amount: 0.0036, Currency: "USD"}}},
		{Kind: acp.UpdateNotice, Notice: &acp.Notice{Severity: acp.SeverityInfo, Title: "Indexed", Description: "42 files"}},
		{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &acp.CompactionUpdate{CompactionID: "c1", Status: acp.CompactionInProgress}},
		{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &acp.CompactionUpdate{CompactionID: "c1", Status: acp.CompactionFailed, Error: "too long",
			Summary: []acp.ContentBlock{acp.TextBlock("partial")}}},
		{Kind: acp.UpdateCompactionSummaryChunk, CompactionSummaryChunk: &acp.CompactionSummaryChunk{CompactionID: "c1", Content: acp.TextBlock("We")}},
	}
}

func TestSchemaValidatesWhatWeSend(t *testing.T) {
	v := acpschema.Load(t)
	for _, group := range []struct {
		name  string
		cases []schemaCase
	}{
		{"client", clientSends()},
		{"agent", agentSends()},
	} {
		t.Run(group.name, func(t *testing.T) {
			for _, tt := range group.cases {
				t.Run(tt.name, func(t *testing.T) {
					out, err := json.Marshal(tt.v)
					if err != nil {
						t.Fatalf("Marshal: %v", err)
					}
					if err := v.Validate(tt.def, out); err != nil {
						t.Errorf("%s does not validate: %s\n%v", tt.def, out, err)
					}
				})
			}
		})
	}
}

// TestSchemaCoversEveryUpdateKind checks that the update table used for schema
// validation holds every kind of the schema's SessionUpdate.
func TestSchemaCoversEveryUpdateKind(t *testing.T) {
	kinds := map[string]bool{}
	for _, u := range everyUpdate() {
		kinds[u.Kind] = true
	}
	var defs struct {
		Defs struct {
			SessionUpdate struct {
				OneOf []struct {
					Properties struct {
						SessionUpdate struct {
							Const string `json:"const"`
						} `json:"sessionUpdate"`
					} `json:"properties"`
				} `json:"oneOf"`
			} `json:"SessionUpdate"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(acpschema.SchemaJSON(), &defs); err != nil {
		t.Fatal(err)
	}
	if len(defs.Defs.SessionUpdate.OneOf) == 0 {
		t.Fatal("schema has no SessionUpdate variants")
	}
	for _, variant := range defs.Defs.SessionUpdate.OneOf {
		kind := variant.Properties.SessionUpdate.Const
		if !kinds[kind] {
			t.Errorf("schema kind %q has no case in everyUpdate", kind)
		}
		u := acp.SessionUpdate{Kind: kind}
		if !u.Known() {
			t.Errorf("schema kind %q is not Known() to SessionUpdate", kind)
		}
	}
}

// TestSchemaRejectsBadShapes shows that the validation can fail: hand-written
// violations of the kind a careless marshaller would produce.
func TestSchemaRejectsBadShapes(t *testing.T) {
	v := acpschema.Load(t)
	tests := []struct {
		def, msg string
	}{
		{"NewSessionRequest", `{"cwd":"/p","mcpServers":null}`},
		{"NewSessionRequest", `{"cwd":"/p"}`},
		{"NewSessionRequest", `{"cwd":"/p","mcpServers":[{"name":"x","command":"y"}]}`},
		{"PromptRequest", `{"sessionId":"s","prompt":[{"type":"text"}]}`},
		{"PromptRequest", `{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"file:///a"}}]}`},
		{"RequestPermissionResponse", `{"outcome":{"outcome":"selected"}}`},
		{"RequestPermissionResponse", `{"outcome":"cancelled"}`},
		{"TerminalOutputResponse", `{"output":"x"}`},
		{"WaitForTerminalExitResponse", `{"exitCode":-1}`},
		{"SessionNotification", `{"sessionId":"s","update":{"sessionUpdate":"plan"}}`},
		{"SessionNotification", `{"sessionId":"s","update":{"sessionUpdate":"agent_error"}}`},
		{"PromptResponse", `{"stopReason":"error"}`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s", tt.def, tt.msg), func(t *testing.T) {
			if err := v.Validate(tt.def, []byte(tt.msg)); err == nil {
				t.Errorf("Validate(%s, %s) = nil; want a violation", tt.def, tt.msg)
			}
		})
	}
}

// TestSchemaUnsignedCovered checks that every integer member the schema
// bounds at minimum 0 (format uint16 to uint64), in what the agent sends
// (the params of its requests and notifications, its answers to the
// client's), is checked as token counts are when acprun decodes it: its
// type (the Go type of the schema definition's name, among those reachable
// from agentSends) lists it among its unsigned members, and the type's own
// decoding checks them. One acprun does not decode, or checks otherwise,
// must be in notChecked with the reason, so that a member the schema adds
// cannot be forgotten. Conversely, every unsigned member is one the schema
// bounds (Usage is of the unstable schema, which the vendored one is not).
func TestSchemaUnsignedCovered(t *testing.T) {
	notChecked := map[string]string{
		"InitializeResponse.protocolVersion": "any version but acprun's own fails the handshake (errorCause protocolVersion)",
		"StringPropertySchema.minLength":     "acp.ElicitationProperty does not decode it",
		"StringPropertySchema.maxLength":     "acp.ElicitationProperty does not decode it",
		"MultiSelectPropertySchema.minItems": "acp.ElicitationProperty does not decode it",
		"MultiSelectPropertySchema.maxItems": "acp.ElicitationProperty does not decode it",
	}
	var schema struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(acpschema.SchemaJSON(), &schema); err != nil {
		t.Fatal(err)
	}
	resolve := func(s map[string]any) (string, map[string]any) {
		ref, _ := s["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return "", nil
		}
		return name, schema.Defs[name]
	}
	isUnsigned := func(s map[string]any) bool {
		alts := []map[string]any{s}
		if _, d := resolve(s); d != nil {
			alts = append(alts, d)
		}
		for _, key := range []string{"anyOf", "allOf"} {
			list, _ := s[key].([]any)
			for _, a := range list {
				if m, ok := a.(map[string]any); ok {
					alts = append(alts, m)
					if _, d := resolve(m); d != nil {
						alts = append(alts, d)
					}
				}
			}
		}
		for _, a := range alts {
			typ := fmt.Sprint(a["type"])
			if min, ok := a["minimum"].(float64); ok && min == 0 && strings.Contains(typ, "integer") {
				return true
			}
		}
		return false
	}
	// bounded holds "Def.member" for every unsigned member reachable from
	// what the agent sends.
	bounded := map[string]bool{}
	seen := map[string]bool{}
	var walk func(def string, s map[string]any)
	walk = func(def string, s map[string]any) {
		if name, d := resolve(s); d != nil {
			if !seen[name] {
				seen[name] = true
				walk(name, d)
			}
			return
		}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			p, _ := p.(map[string]any)
			if isUnsigned(p) {
				bounded[def+"."+name] = true
			}
			walk(def, p)
		}
		for _, key := range []string{"items", "additionalProperties"} {
			if m, ok := s[key].(map[string]any); ok {
				walk(def, m)
			}
		}
		for _, key := range []string{"anyOf", "oneOf", "allOf"} {
			list, _ := s[key].([]any)
			for _, m := range list {
				if m, ok := m.(map[string]any); ok {
					walk(def, m)
				}
			}
		}
	}
	for name, d := range schema.Defs {
		side, _ := d["x-side"].(string)
		if _, ok := d["x-method"]; !ok {
			continue
		}
		agentSent := side == "client" && (strings.HasSuffix(name, "Request") || strings.HasSuffix(name, "Notification")) ||
			side == "agent" && strings.HasSuffix(name, "Response")
		if agentSent && !seen[name] {
			seen[name] = true
			walk(name, d)
		}
	}
	if len(bounded) == 0 {
		t.Fatal("the schema bounds no member at minimum 0")
	}

	// The Go types acprun decodes what the agent sends into, by name.
	types := map[string]reflect.Type{}
	var goWalk func(reflect.Type)
	goWalk = func(rt reflect.Type) {
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			goWalk(rt.Elem())
		case reflect.Struct:
			if _, ok := types[rt.Name()]; ok || rt.PkgPath() != reflect.TypeFor[acp.SessionUpdate]().PkgPath() {
				return
			}
			types[rt.Name()] = rt
			for i := range rt.NumField() {
				if rt.Field(i).IsExported() {
					goWalk(rt.Field(i).Type)
				}
			}
		}
	}
	for _, c := range agentSends() {
		goWalk(reflect.TypeOf(c.v))
	}
	members := func(rt reflect.Type) map[string]bool {
		out := map[string]bool{}
		for i := range rt.NumField() {
			f := rt.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && name != "-" {
				out[cmp.Or(name, f.Name)] = true
			}
		}
		return out
	}

	for key := range bounded {
		def, name, _ := strings.Cut(key, ".")
		rt, decoded := types[def]
		decoded = decoded && members(rt)[name]
		_, exempt := notChecked[key]
		switch {
		case exempt:
		case !decoded:
			t.Errorf("the schema bounds %s at minimum 0, and acprun decodes no member of that name: list it in notChecked, saying why", key)
		case !acp.Unsigned(rt)[name]:
			t.Errorf("the schema bounds %s at minimum 0: acp.%s's %s must be among its unsigned members (lenient.go)", key, def, name)
		}
	}
	for key := range notChecked {
		if !bounded[key] {
			t.Errorf("notChecked lists %s, which the schema does not bound at minimum 0 in what the agent sends", key)
		}
	}
	for _, rt := range acp.UnsignedTypes() {
		if _, ok := reflect.New(rt).Interface().(json.Unmarshaler); !ok {
			t.Errorf("acp.%s has unsigned members and no UnmarshalJSON that checks them", rt.Name())
		}
		if _, inSchema := schema.Defs[rt.Name()]; !inSchema {
			continue // Usage: of the unstable schema
		}
		for name := range acp.Unsigned(rt) {
			if !bounded[rt.Name()+"."+name] {
				t.Errorf("acp.%s's %s is among its unsigned members, and the schema does not bound it at minimum 0", rt.Name(), name)
			}
		}
	}
}
