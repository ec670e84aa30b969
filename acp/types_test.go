package acp_test

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/acpschema"
)

func ptr[T any](v T) *T { return &v }

// ignoreRaw ignores the Raw fields kept for diagnostics and pass-through.
var ignoreRaw = cmpopts.IgnoreFields(acp.SessionUpdate{}, "Raw")

// setPayloads returns the names of the non-nil payload pointer fields of u.
func setPayloads(u acp.SessionUpdate) []string {
	var names []string
	v := reflect.ValueOf(u)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			names = append(names, v.Type().Field(i).Name)
		}
	}
	return names
}

func TestSessionUpdateDecodesEveryKind(t *testing.T) {
	tests := []struct {
		kind  string
		line  string // a whole session/update params object
		field string // the payload field that must be set
		want  acp.SessionUpdate
	}{
		{
			kind:  acp.UpdateUserMessageChunk,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hello"},"messageId":"m1"}}`,
			field: "UserMessageChunk",
			want: acp.SessionUpdate{Kind: acp.UpdateUserMessageChunk, UserMessageChunk: &acp.ContentChunk{
				Content: acp.TextBlock("hello"), MessageID: "m1"}},
		},
		{
			kind:  acp.UpdateAgentMessageChunk,
			line:  `{"sessionId":"s1","update":{"content":{"text":"ACP Go Example Agent — demo only (no AI model).","type":"text"},"sessionUpdate":"agent_message_chunk"}}`,
			field: "AgentMessageChunk",
			want: acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{
				Content: acp.TextBlock("ACP Go Example Agent — demo only (no AI model).")}},
		},
		{
			kind:  acp.UpdateAgentThoughtChunk,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"Let me think."}}}`,
			field: "AgentThoughtChunk",
			want: acp.SessionUpdate{Kind: acp.UpdateAgentThoughtChunk, AgentThoughtChunk: &acp.ContentChunk{
				Content: acp.TextBlock("Let me think.")}},
		},
		{
			kind:  acp.UpdateToolCall,
			line:  `{"sessionId":"s1","update":{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Write","kind":"edit","content":[],"locations":[]}}`,
			field: "ToolCall",
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{
				ToolCallID: "toolu_1", Title: "Write", Kind: acp.KindEdit, Status: acp.StatusPending,
				Content: []acp.ToolCallContent{}, Locations: []acp.ToolCallLocation{},
				RawInput: json.RawMessage(`{}`), Meta: json.RawMessage(`{"claudeCode":{"toolName":"Write"}}`)}},
		},
		{
			kind:  acp.UpdateToolCallUpdate,
			line:  `{"sessionId":"s1","update":{"toolCallId":"toolu_1","sessionUpdate":"tool_call_update","rawInput":{"file_path":"/p/hello.txt"},"title":"Write hello.txt","kind":"edit","content":[{"type":"diff","path":"/p/hello.txt","oldText":null,"newText":"line one\n"}],"locations":[{"path":"/p/hello.txt"}]}}`,
			field: "ToolCallUpdate",
			want: acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{
				ToolCallID: "toolu_1", Title: ptr("Write hello.txt"), Kind: ptr(acp.KindEdit),
				Content:   []acp.ToolCallContent{acp.DiffToolContent("/p/hello.txt", nil, "line one\n")},
				Locations: []acp.ToolCallLocation{{Path: "/p/hello.txt"}},
				RawInput:  json.RawMessage(`{"file_path":"/p/hello.txt"}`)}},
		},
		{
			kind:  acp.UpdatePlan,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"Inspect","priority":"medium","status":"completed"},{"content":"Test","priority":"high","status":"pending"}]}}`,
			field: "Plan",
			want: acp.SessionUpdate{Kind: acp.UpdatePlan, Plan: &acp.Plan{Entries: []acp.PlanEntry{
				{Content: "Inspect", Priority: acp.PriorityMedium, Status: acp.PlanCompleted},
				{Content: "Test", Priority: acp.PriorityHigh, Status: acp.PlanPending}}}},
		},
		{
			kind:  acp.UpdateAvailableCommandsUpdate,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"debug","description":"Debug your session","input":{"hint":"[issue description]"}},{"name":"context","description":"Show current context usage","input":null}]}}`,
			field: "AvailableCommandsUpdate",
			want: acp.SessionUpdate{Kind: acp.UpdateAvailableCommandsUpdate, AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{
				AvailableCommands: []acp.AvailableCommand{
					{Name: "debug", Description: "Debug your session", Input: &acp.AvailableCommandInput{Hint: "[issue description]"}},
					{Name: "context", Description: "Show current context usage"}}}},
		},
		{
			kind:  acp.UpdateCurrentModeUpdate,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}`,
			field: "CurrentModeUpdate",
			want:  acp.SessionUpdate{Kind: acp.UpdateCurrentModeUpdate, CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: "plan"}},
		},
		{
			kind:  acp.UpdateConfigOptionUpdate,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"config_option_update","configOptions":[{"id":"model","name":"Model","category":"model","type":"select","currentValue":"fast","options":[{"value":"fast","name":"Fast"},{"value":"smart","name":"Smart","description":"Slower"}]}]}}`,
			field: "ConfigOptionUpdate",
			want: acp.SessionUpdate{Kind: acp.UpdateConfigOptionUpdate, ConfigOptionUpdate: &acp.ConfigOptionUpdate{
				ConfigOptions: []acp.SessionConfigOption{{
					ID: "model", Name: "Model", Category: "model", Type: acp.ConfigSelect, CurrentValue: "fast",
					Options: &acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{
						{Value: "fast", Name: "Fast"}, {Value: "smart", Name: "Smart", Description: "Slower"}}}}}}},
		},
		{
			kind:  acp.UpdateSessionInfoUpdate,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"session_info_update","title":"Fix the build","updatedAt":"2026-12-01T10:00:00Z"}}`,
			field: "SessionInfoUpdate",
			want: acp.SessionUpdate{Kind: acp.UpdateSessionInfoUpdate, SessionInfoUpdate: &acp.SessionInfoUpdate{
				Title: ptr("Fix the build"), UpdatedAt: ptr("2026-12-01T10:00:00Z")}},
		},
		{
			kind:  acp.UpdateUsageUpdate,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":101,"size":200000,"cost":{"amount":0.0036,"currency":"USD"}}}`,
			field: "UsageUpdate",
			want: acp.SessionUpdate{Kind: acp.UpdateUsageUpdate, UsageUpdate: &acp.UsageUpdate{
				Used: 101, Size: 200000, Cost: &acp.Cost{Amount: 0.0036, Currency: "USD"}}},
		},
		{
			kind:  acp.UpdateNotice,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"Rate limited","description":"Retrying in 5s"}}`,
			field: "Notice",
			want: acp.SessionUpdate{Kind: acp.UpdateNotice, Notice: &acp.Notice{
				Severity: acp.SeverityWarning, Title: "Rate limited", Description: "Retrying in 5s"}},
		},
		{
			kind:  acp.UpdateCompactionUpdate,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"compaction_update","compactionId":"c1","status":"completed","summary":[{"type":"text","text":"We fixed the build."}]}}`,
			field: "CompactionUpdate",
			want: acp.SessionUpdate{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &acp.CompactionUpdate{
				CompactionID: "c1", Status: acp.CompactionCompleted, Summary: []acp.ContentBlock{acp.TextBlock("We fixed the build.")}}},
		},
		{
			kind:  acp.UpdateCompactionSummaryChunk,
			line:  `{"sessionId":"s1","update":{"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"We fixed"}}}`,
			field: "CompactionSummaryChunk",
			want: acp.SessionUpdate{Kind: acp.UpdateCompactionSummaryChunk, CompactionSummaryChunk: &acp.CompactionSummaryChunk{
				CompactionID: "c1", Content: acp.TextBlock("We fixed")}},
		},
	}
	if got, want := len(tests), 14; got != want {
		t.Fatalf("table covers %d kinds; want %d (every SessionUpdate variant)", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			var n acp.SessionNotification
			if err := json.Unmarshal([]byte(tt.line), &n); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if n.SessionID != "s1" {
				t.Errorf("SessionID = %q; want %q", n.SessionID, "s1")
			}
			if got := setPayloads(n.Update); !slices.Equal(got, []string{tt.field}) {
				t.Errorf("payload fields set = %v; want only [%s]", got, tt.field)
			}
			if !n.Update.Known() {
				t.Errorf("Known() = false; want true")
			}
			if diff := cmp.Diff(n.Update, tt.want, ignoreRaw); diff != "" {
				t.Errorf("update mismatch (-got +want):\n%s", diff)
			}
			var whole struct {
				Update json.RawMessage `json:"update"`
			}
			if err := json.Unmarshal([]byte(tt.line), &whole); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(n.Update.Raw, whole.Update) {
				t.Errorf("Raw = %s; want %s", n.Update.Raw, whole.Update)
			}

			// Marshal back: the discriminator is kept and decoding again gives the same update.
			out, err := json.Marshal(tt.want)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if prefix := `{"sessionUpdate":"` + tt.kind + `"`; !strings.HasPrefix(string(out), prefix) {
				t.Errorf("Marshal = %s; want prefix %s", out, prefix)
			}
			var again acp.SessionUpdate
			if err := json.Unmarshal(out, &again); err != nil {
				t.Fatalf("Unmarshal(Marshal) of %s: %v", out, err)
			}
			if diff := cmp.Diff(again, tt.want, ignoreRaw); diff != "" {
				t.Errorf("round trip mismatch (-got +want):\n%s", diff)
			}
		})
	}
}

func TestSessionUpdateUnknownKindKeptRaw(t *testing.T) {
	tests := []struct {
		name string
		raw  string
	}{
		{"agent_error", `{"sessionUpdate":"agent_error","error":{"message":"model overloaded"},"content":{"type":"text","text":"x"}}`},
		{"plan_update", `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[]},"entries":[]}`},
		{"plan_removed", `{"sessionUpdate":"plan_removed","planId":"p1"}`},
		{"subagent_update", `{"sessionUpdate":"subagent_update","sessionId":"child","toolCallId":"t1","title":"helper"}`},
		{"session_message_chunk", `{"sessionUpdate":"session_message_chunk","messageId":"m","content":{"type":"text","text":"hi"}}`},
		{"empty kind", `{"sessionUpdate":"","content":{"type":"text","text":"hi"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u acp.SessionUpdate
			if err := json.Unmarshal([]byte(tt.raw), &u); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			var head struct {
				SessionUpdate string `json:"sessionUpdate"`
			}
			if err := json.Unmarshal([]byte(tt.raw), &head); err != nil {
				t.Fatal(err)
			}
			if u.Kind != head.SessionUpdate {
				t.Errorf("Kind = %q; want %q", u.Kind, head.SessionUpdate)
			}
			if got := setPayloads(u); len(got) != 0 {
				t.Errorf("payload fields set = %v; want none (unknown kind must not be misclassified)", got)
			}
			if u.Known() {
				t.Errorf("Known() = true; want false")
			}
			if string(u.Raw) != tt.raw {
				t.Errorf("Raw = %s; want %s", u.Raw, tt.raw)
			}
			out, err := json.Marshal(u)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(out) != tt.raw {
				t.Errorf("Marshal = %s; want the raw update %s", out, tt.raw)
			}
		})
	}
}

func TestSessionUpdateErrors(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantSub string // the error must mention this
	}{
		{"missing discriminator", `{"content":{"type":"text","text":"x"}}`, "missing sessionUpdate"},
		{"discriminator not a string", `{"sessionUpdate":7}`, "session update"},
		{"not an object", `["agent_message_chunk"]`, "session update"},
		{"chunk content not an object", `{"sessionUpdate":"agent_message_chunk","content":"hi"}`, `"agent_message_chunk"`},
		{"chunk content without type", `{"sessionUpdate":"agent_message_chunk","content":{"text":"hi"}}`, `"agent_message_chunk"`},
		{"usage used is a string", `{"sessionUpdate":"usage_update","used":"many","size":1}`, `"usage_update": used: want a non-negative integer, got string "many"`},
		{"tool call title is a number", `{"sessionUpdate":"tool_call","toolCallId":"t","title":5}`, `"tool_call": title: want a string, got number 5`},
		{"tool call id is a number", `{"sessionUpdate":"tool_call_update","toolCallId":7}`, `toolCallId: want a string, got number 7`},
		{"chunk text is a number", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":1}}`, `content.text: want a string, got number 1`},
		{"resource without a resource", `{"sessionUpdate":"agent_message_chunk","content":{"type":"resource","resource":"x"}}`, `content.resource: want an object, got string "x"`},
		{"compaction chunk content without type", `{"sessionUpdate":"compaction_summary_chunk","compactionId":"c","content":{}}`, `content: missing type`},
		{"notice title is a number", `{"sessionUpdate":"notice","severity":"info","title":2}`, `title: want a string, got number 2`},
		{"mode id is an object", `{"sessionUpdate":"current_mode_update","currentModeId":{}}`, `currentModeId: want a string, got an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u acp.SessionUpdate
			err := json.Unmarshal([]byte(tt.raw), &u)
			if err == nil {
				t.Fatalf("Unmarshal(%s) = nil error; want an error", tt.raw)
			}
			if !strings.Contains(err.Error(), tt.wantSub) {
				t.Errorf("Unmarshal(%s) = %v; want it to mention %s", tt.raw, err, tt.wantSub)
			}
		})
	}
}

func TestSessionUpdateMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		u    acp.SessionUpdate
	}{
		{"known kind without payload", acp.SessionUpdate{Kind: acp.UpdatePlan}},
		{"known kind with another kind's payload", acp.SessionUpdate{Kind: acp.UpdatePlan, Notice: &acp.Notice{Title: "x"}}},
		{"unknown kind without raw", acp.SessionUpdate{Kind: "agent_error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if out, err := json.Marshal(tt.u); err == nil {
				t.Errorf("Marshal = %s, nil error; want an error", out)
			}
		})
	}
}

func TestUnknownFieldsIgnored(t *testing.T) {
	var n acp.SessionNotification
	line := `{"sessionId":"s1","futureTop":1,"update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","kind":"execute","futureField":{"a":[1,2]},` +
		`"content":[{"type":"content","content":{"type":"text","text":"out","futureBlockField":true},"extra":1}],"locations":[{"path":"/a","line":3,"col":9}]}}`
	if err := json.Unmarshal([]byte(line), &n); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	want := &acp.ToolCall{ToolCallID: "t1", Title: "ls", Kind: acp.KindExecute,
		Content:   []acp.ToolCallContent{acp.BlockToolContent(acp.TextBlock("out"))},
		Locations: []acp.ToolCallLocation{{Path: "/a", Line: ptr(3)}}}
	if diff := cmp.Diff(n.Update.ToolCall, want); diff != "" {
		t.Errorf("tool call mismatch (-got +want):\n%s", diff)
	}

	var resp acp.InitializeResponse
	in := `{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"video":true},"mcpCapabilities":{"http":true,"acp":true},` +
		`"sessionCapabilities":{"close":{},"fork":{},"list":null},"auth":{"logout":{}},"providers":{}},` +
		`"authMethods":[{"id":"login","name":"Log in"},{"id":"term","name":"Terminal","type":"terminal","args":["--login"],"env":{"A":"1"}},{"id":"key","name":"Key","type":"env_var","varName":"KEY"}],` +
		`"agentInfo":{"name":"agent","title":"Agent","version":"1.0"},"newTopLevel":[]}`
	if err := json.Unmarshal([]byte(in), &resp); err != nil {
		t.Fatalf("Unmarshal InitializeResponse: %v", err)
	}
	wantResp := acp.InitializeResponse{
		ProtocolVersion: 1,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  acp.PromptCapabilities{Image: true},
			McpCapabilities:     acp.McpCapabilities{HTTP: true},
			SessionCapabilities: acp.SessionCapabilities{Close: &acp.Capability{}},
			Auth:                acp.AgentAuthCapabilities{Logout: &acp.Capability{}},
		},
		AuthMethods: []acp.AuthMethod{
			{ID: "login", Name: "Log in"},
			{ID: "term", Name: "Terminal", Type: acp.AuthTypeTerminal, Args: []string{"--login"}, Env: map[string]string{"A": "1"}},
			{ID: "key", Name: "Key", Type: "env_var"},
		},
		AgentInfo: &acp.Implementation{Name: "agent", Title: "Agent", Version: "1.0"},
	}
	if diff := cmp.Diff(resp, wantResp); diff != "" {
		t.Errorf("InitializeResponse mismatch (-got +want):\n%s", diff)
	}
}

func TestUnknownEnumValuesKeptVerbatim(t *testing.T) {
	var resp acp.PromptResponse
	if err := json.Unmarshal([]byte(`{"stopReason":"error_budget_exceeded","usage":{"totalTokens":720,"inputTokens":600,"outputTokens":120,"cachedReadTokens":0}}`), &resp); err != nil {
		t.Fatalf("Unmarshal PromptResponse: %v", err)
	}
	wantResp := acp.PromptResponse{StopReason: "error_budget_exceeded", Usage: &acp.Usage{
		TotalTokens: 720, InputTokens: 600, OutputTokens: 120, CachedReadTokens: ptr(int64(0))}}
	if diff := cmp.Diff(resp, wantResp); diff != "" {
		t.Errorf("PromptResponse mismatch (-got +want):\n%s", diff)
	}
	if resp.StopReason.Known() {
		t.Errorf("StopReason(%q).Known() = true; want false", resp.StopReason)
	}
	if !acp.StopCancelled.Known() {
		t.Errorf("StopCancelled.Known() = false; want true")
	}

	var u acp.SessionUpdate
	if err := json.Unmarshal([]byte(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","kind":"browse","status":"cancelled"}`), &u); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if got, want := u.ToolCall.Kind, acp.ToolKind("browse"); got != want {
		t.Errorf("Kind = %q; want %q", got, want)
	}
	if got, want := u.ToolCall.Status, acp.ToolCallStatus("cancelled"); got != want {
		t.Errorf("Status = %q; want %q", got, want)
	}
	if u.ToolCall.Kind.Known() || u.ToolCall.Status.Known() {
		t.Errorf("Known() = true for unknown kind/status")
	}
	if !acp.KindSwitchMode.Known() || !acp.StatusFailed.Known() || !acp.RejectAlways.Known() {
		t.Errorf("Known() = false for a v1 value")
	}

	var req acp.RequestPermissionRequest
	if err := json.Unmarshal([]byte(`{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"o","name":"Maybe","kind":"allow_sometimes"}]}`), &req); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if got, want := req.Options[0].Kind, acp.PermissionOptionKind("allow_sometimes"); got != want {
		t.Errorf("option kind = %q; want %q", got, want)
	}
}

func TestToolCallApply(t *testing.T) {
	base := func() acp.ToolCall {
		return acp.ToolCall{
			ToolCallID: "t1", Title: "Write", Kind: acp.KindEdit, Status: acp.StatusPending,
			Content:   []acp.ToolCallContent{acp.TerminalToolContent("term1")},
			Locations: []acp.ToolCallLocation{{Path: "/a"}},
			RawInput:  json.RawMessage(`{}`),
		}
	}
	tests := []struct {
		name   string
		update string
		want   func() acp.ToolCall
	}{
		{
			name:   "only id changes nothing",
			update: `{"toolCallId":"t1"}`,
			want:   base,
		},
		{
			name:   "scalars replace",
			update: `{"toolCallId":"t1","title":"Write hello.txt","status":"in_progress","kind":"delete","name":"write_file"}`,
			want: func() acp.ToolCall {
				tc := base()
				tc.Title, tc.Status, tc.Kind, tc.Name = "Write hello.txt", acp.StatusInProgress, acp.KindDelete, "write_file"
				return tc
			},
		},
		{
			name:   "null fields leave the record unchanged",
			update: `{"toolCallId":"t1","title":null,"kind":null,"status":null,"name":null,"content":null,"locations":null}`,
			want:   base,
		},
		{
			name:   "content and locations replace whole collections",
			update: `{"toolCallId":"t1","content":[{"type":"content","content":{"type":"text","text":"done"}}],"locations":[{"path":"/b","line":2},{"path":"/c"}]}`,
			want: func() acp.ToolCall {
				tc := base()
				tc.Content = []acp.ToolCallContent{acp.BlockToolContent(acp.TextBlock("done"))}
				tc.Locations = []acp.ToolCallLocation{{Path: "/b", Line: ptr(2)}, {Path: "/c"}}
				return tc
			},
		},
		{
			name:   "empty collections clear",
			update: `{"toolCallId":"t1","content":[],"locations":[]}`,
			want: func() acp.ToolCall {
				tc := base()
				tc.Content, tc.Locations = []acp.ToolCallContent{}, []acp.ToolCallLocation{}
				return tc
			},
		},
		{
			// An agent that writes every absent optional member as null must not
			// erase the input that permission rules match on.
			name:   "null raw input, output and meta leave the record unchanged",
			update: `{"toolCallId":"t1","rawInput":null,"rawOutput":null,"_meta":null}`,
			want:   base,
		},
		{
			name:   "raw input and output replace when present",
			update: `{"toolCallId":"t1","rawInput":{"command":"ls"},"rawOutput":"a\nb"}`,
			want: func() acp.ToolCall {
				tc := base()
				tc.RawInput, tc.RawOutput = json.RawMessage(`{"command":"ls"}`), json.RawMessage(`"a\nb"`)
				return tc
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u acp.ToolCallUpdate
			if err := json.Unmarshal([]byte(tt.update), &u); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			got := base()
			got.Apply(&u)
			if diff := cmp.Diff(got, tt.want()); diff != "" {
				t.Errorf("Apply mismatch (-got +want):\n%s", diff)
			}
		})
	}

	t.Run("record does not alias the update", func(t *testing.T) {
		u := acp.ToolCallUpdate{ToolCallID: "t1", Content: []acp.ToolCallContent{acp.TerminalToolContent("x")}}
		got := base()
		got.Apply(&u)
		u.Content[0].TerminalID = "changed"
		if got.Content[0].TerminalID != "x" {
			t.Errorf("record content changed with the update: %q", got.Content[0].TerminalID)
		}
	})
}

func TestToolCallUpdateToolCall(t *testing.T) {
	u := acp.ToolCallUpdate{ToolCallID: "t9", Title: ptr("rm -rf build"), Kind: ptr(acp.KindExecute),
		RawInput: json.RawMessage(`{"command":"rm -rf build"}`), Locations: []acp.ToolCallLocation{}}
	got := u.ToolCall()
	want := acp.ToolCall{ToolCallID: "t9", Title: "rm -rf build", Kind: acp.KindExecute,
		RawInput: json.RawMessage(`{"command":"rm -rf build"}`), Locations: []acp.ToolCallLocation{}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("ToolCall() mismatch (-got +want):\n%s", diff)
	}
}

func TestToolCallUpdateKeepsEmptyVersusAbsent(t *testing.T) {
	tests := []struct {
		name          string
		in            string
		wantContent   []acp.ToolCallContent
		wantLocations []acp.ToolCallLocation
	}{
		{"absent", `{"toolCallId":"t"}`, nil, nil},
		{"null", `{"toolCallId":"t","content":null,"locations":null}`, nil, nil},
		{"empty", `{"toolCallId":"t","content":[],"locations":[]}`, []acp.ToolCallContent{}, []acp.ToolCallLocation{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u acp.ToolCallUpdate
			if err := json.Unmarshal([]byte(tt.in), &u); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if (u.Content == nil) != (tt.wantContent == nil) || (u.Locations == nil) != (tt.wantLocations == nil) {
				t.Fatalf("decoded Content nil=%v Locations nil=%v; want nil=%v nil=%v",
					u.Content == nil, u.Locations == nil, tt.wantContent == nil, tt.wantLocations == nil)
			}
			out, err := json.Marshal(u)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			keys := objectKeys(t, out)
			wantKeys := []string{"toolCallId"}
			if tt.wantContent != nil {
				wantKeys = []string{"content", "locations", "toolCallId"}
			}
			if diff := cmp.Diff(keys, wantKeys); diff != "" {
				t.Errorf("Marshal = %s; keys mismatch (-got +want):\n%s", out, diff)
			}
		})
	}
}

// objectKeys returns the sorted keys of the JSON object data.
func objectKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not a JSON object: %s: %v", data, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestMcpServersNeverNull(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"NewSessionRequest nil", acp.NewSessionRequest{Cwd: "/p"}},
		{"NewSessionRequest pointer", &acp.NewSessionRequest{Cwd: "/p"}},
		{"LoadSessionRequest nil", acp.LoadSessionRequest{SessionID: "s", Cwd: "/p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatal(err)
			}
			servers, ok := m["mcpServers"].([]any)
			if !ok || len(servers) != 0 {
				t.Errorf("Marshal = %s; want \"mcpServers\":[]", out)
			}
		})
	}

	t.Run("servers marshal in their schema shapes", func(t *testing.T) {
		req := acp.NewSessionRequest{Cwd: "/p", McpServers: []acp.McpServer{
			{Name: "fs", Command: "/usr/bin/mcp-fs"},
			{Type: acp.McpHTTP, Name: "web", URL: "https://mcp.example/", Headers: []acp.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}},
			{Type: acp.McpSSE, Name: "old", URL: "https://sse.example/"},
		}}
		out, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var got struct {
			McpServers []map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		want := []map[string]any{
			{"name": "fs", "command": "/usr/bin/mcp-fs", "args": []any{}, "env": []any{}},
			{"type": "http", "name": "web", "url": "https://mcp.example/", "headers": []any{map[string]any{"name": "Authorization", "value": "Bearer x"}}},
			{"type": "sse", "name": "old", "url": "https://sse.example/", "headers": []any{}},
		}
		if diff := cmp.Diff(got.McpServers, want); diff != "" {
			t.Errorf("mcpServers mismatch (-got +want):\n%s", diff)
		}
	})

	t.Run("unknown server type passes through", func(t *testing.T) {
		raw := `{"type":"acp","name":"inproc","serverId":"srv-1"}`
		var s acp.McpServer
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if string(out) != raw {
			t.Errorf("Marshal = %s; want %s", out, raw)
		}
	})
}

func TestContentBlockMarshalsOnlyItsFields(t *testing.T) {
	// every is a block with every field set; only Type varies.
	every := acp.ContentBlock{
		Text: "t", Data: "ZGF0YQ==", MimeType: "image/png", URI: "file:///a", Name: "a", Title: "A",
		Description: "d", Size: ptr(int64(4)), Resource: &acp.EmbeddedResourceResource{URI: "file:///r", Text: "r"},
		Annotations: &acp.Annotations{Audience: []acp.Role{acp.RoleUser}, Priority: ptr(0.5)},
		Meta:        json.RawMessage(`{"k":1}`),
	}
	tests := []struct {
		typ  string
		want []string
	}{
		{acp.ContentText, []string{"_meta", "annotations", "text", "type"}},
		{acp.ContentImage, []string{"_meta", "annotations", "data", "mimeType", "type", "uri"}},
		{acp.ContentAudio, []string{"_meta", "annotations", "data", "mimeType", "type"}},
		{acp.ContentResourceLink, []string{"_meta", "annotations", "description", "mimeType", "name", "size", "title", "type", "uri"}},
		{acp.ContentResource, []string{"_meta", "annotations", "resource", "type"}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			b := every
			b.Type = tt.typ
			out, err := json.Marshal(b)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if diff := cmp.Diff(objectKeys(t, out), tt.want); diff != "" {
				t.Errorf("Marshal = %s; keys mismatch (-got +want):\n%s", out, diff)
			}
		})
	}

	minimal := []struct {
		name string
		b    acp.ContentBlock
		want string
	}{
		{"empty text keeps required text", acp.TextBlock(""), `{"type":"text","text":""}`},
		{"image", acp.ImageBlock("image/png", "iVBORw0KGgo="), `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`},
		{"audio", acp.AudioBlock("audio/wav", "UklGRg=="), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`},
		{"resource link", acp.ResourceLinkBlock("file:///a.go", "a.go"), `{"type":"resource_link","uri":"file:///a.go","name":"a.go"}`},
		{"text resource", acp.ResourceBlock("file:///a.go", "text/x-go", "package a"), `{"type":"resource","resource":{"uri":"file:///a.go","mimeType":"text/x-go","text":"package a"}}`},
		{"empty text resource keeps text", acp.ResourceBlock("file:///e", "", ""), `{"type":"resource","resource":{"uri":"file:///e","text":""}}`},
		{"blob resource", acp.ContentBlock{Type: acp.ContentResource, Resource: &acp.EmbeddedResourceResource{URI: "file:///b", Blob: "AAE="}}, `{"type":"resource","resource":{"uri":"file:///b","blob":"AAE="}}`},
		{"blob resource constructor", acp.BlobResourceBlock("file:///b.png", "image/png", "AAE="), `{"type":"resource","resource":{"uri":"file:///b.png","mimeType":"image/png","blob":"AAE="}}`},
		{"empty blob resource is an empty text", acp.BlobResourceBlock("file:///e.bin", "", ""), `{"type":"resource","resource":{"uri":"file:///e.bin","text":""}}`},
	}
	for _, tt := range minimal {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.b)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			assertSameJSON(t, out, tt.want)
			var back acp.ContentBlock
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(back, tt.b); diff != "" {
				t.Errorf("round trip mismatch (-got +want):\n%s", diff)
			}
		})
	}

	t.Run("unknown type passes through", func(t *testing.T) {
		raw := `{"type":"video","url":"https://v.example/1.mp4","text":"caption"}`
		var b acp.ContentBlock
		if err := json.Unmarshal([]byte(raw), &b); err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		if b.Type != "video" {
			t.Errorf("Type = %q; want %q", b.Type, "video")
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if string(out) != raw {
			t.Errorf("Marshal = %s; want %s", out, raw)
		}
	})
}

// assertSameJSON compares two JSON documents after decoding.
func assertSameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %s: %v", want, err)
	}
	if diff := cmp.Diff(g, w); diff != "" {
		t.Errorf("JSON %s mismatch (-got +want):\n%s", got, diff)
	}
}

func TestToolCallContentMarshalsOnlyItsFields(t *testing.T) {
	tests := []struct {
		name string
		c    acp.ToolCallContent
		want string
	}{
		{"content", acp.ToolCallContent{Type: acp.ToolContentBlock, Content: ptr(acp.TextBlock("hi")), Path: "/x", TerminalID: "t"}, `{"type":"content","content":{"type":"text","text":"hi"}}`},
		{"diff new file", acp.ToolCallContent{Type: acp.ToolContentDiff, Path: "/p/a", NewText: "x\n", TerminalID: "t"}, `{"type":"diff","path":"/p/a","newText":"x\n"}`},
		{"diff edit", acp.DiffToolContent("/p/a", ptr("old"), ""), `{"type":"diff","path":"/p/a","oldText":"old","newText":""}`},
		{"terminal", acp.ToolCallContent{Type: acp.ToolContentTerminal, TerminalID: "term_1", Path: "/x"}, `{"type":"terminal","terminalId":"term_1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			assertSameJSON(t, out, tt.want)
		})
	}
	t.Run("unknown type passes through", func(t *testing.T) {
		raw := `{"type":"image_preview","url":"x"}`
		var c acp.ToolCallContent
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if string(out) != raw {
			t.Errorf("Marshal = %s; want %s", out, raw)
		}
	})
	t.Run("content item without block is an error", func(t *testing.T) {
		if out, err := json.Marshal(acp.ToolCallContent{Type: acp.ToolContentBlock}); err == nil {
			t.Errorf("Marshal = %s, nil error; want an error", out)
		}
	})
}

func TestPermissionOutcome(t *testing.T) {
	tests := []struct {
		name string
		resp acp.RequestPermissionResponse
		want string
	}{
		{"selected", acp.Selected("allow"), `{"outcome":{"outcome":"selected","optionId":"allow"}}`},
		{"cancelled", acp.Cancelled(), `{"outcome":{"outcome":"cancelled"}}`},
		{"cancelled drops a stray option id", acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Outcome: acp.OutcomeCancelled, OptionID: "x"}}, `{"outcome":{"outcome":"cancelled"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.resp)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			assertSameJSON(t, out, tt.want)
		})
	}
	var back acp.RequestPermissionResponse
	if err := json.Unmarshal([]byte(`{"outcome":{"outcome":"selected","optionId":"proceed_once"}}`), &back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if diff := cmp.Diff(back, acp.Selected("proceed_once")); diff != "" {
		t.Errorf("Unmarshal mismatch (-got +want):\n%s", diff)
	}
}

func TestSessionInfoUpdateNull(t *testing.T) {
	tests := []struct {
		in   string
		want acp.SessionInfoUpdate
	}{
		{`{}`, acp.SessionInfoUpdate{}},
		{`{"title":null}`, acp.SessionInfoUpdate{Title: ptr("")}},
		{`{"title":"T","updatedAt":null}`, acp.SessionInfoUpdate{Title: ptr("T"), UpdatedAt: ptr("")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got acp.SessionInfoUpdate
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("mismatch (-got +want):\n%s", diff)
			}
		})
	}
	var got acp.SessionInfoUpdate
	if err := json.Unmarshal([]byte(`{"title":3}`), &got); err == nil {
		t.Errorf("Unmarshal of a numeric title = nil error; want an error")
	}
}

func TestConfigSelectOptions(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    acp.SessionConfigSelectOptions
		wantAll []acp.SessionConfigSelectOption
	}{
		{
			name:    "flat",
			in:      `[{"value":"a","name":"A"},{"value":"b","name":"B"}]`,
			want:    acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "a", Name: "A"}, {Value: "b", Name: "B"}}},
			wantAll: []acp.SessionConfigSelectOption{{Value: "a", Name: "A"}, {Value: "b", Name: "B"}},
		},
		{
			name: "grouped",
			in:   `[{"group":"g1","name":"Fast","options":[{"value":"a","name":"A"}]},{"group":"g2","name":"Smart","options":[{"value":"b","name":"B"}]}]`,
			want: acp.SessionConfigSelectOptions{Groups: []acp.SessionConfigSelectGroup{
				{Group: "g1", Name: "Fast", Options: []acp.SessionConfigSelectOption{{Value: "a", Name: "A"}}},
				{Group: "g2", Name: "Smart", Options: []acp.SessionConfigSelectOption{{Value: "b", Name: "B"}}}}},
			wantAll: []acp.SessionConfigSelectOption{{Value: "a", Name: "A"}, {Value: "b", Name: "B"}},
		},
		{
			name:    "empty",
			in:      `[]`,
			want:    acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{}},
			wantAll: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got acp.SessionConfigSelectOptions
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("mismatch (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(got.All(), tt.wantAll, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("All() mismatch (-got +want):\n%s", diff)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			assertSameJSON(t, out, tt.in)
		})
	}
	var bad acp.SessionConfigSelectOptions
	if err := json.Unmarshal([]byte(`{"value":"a"}`), &bad); err == nil {
		t.Errorf("Unmarshal of an object = nil error; want an error")
	}
}

// TestRoundTrips marshals values and decodes them again; the result must be equal.
func TestRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"InitializeRequest", &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion,
			ClientCapabilities: acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true,
				Session: &acp.ClientSessionCapabilities{ConfigOptions: &acp.SessionConfigOptionsCapabilities{Boolean: &acp.Capability{}}}},
			ClientInfo: &acp.Implementation{Name: "acprun", Title: "acprun", Version: "0.1.0"}}},
		{"InitializeResponse", &acp.InitializeResponse{ProtocolVersion: 1, AgentCapabilities: acp.AgentCapabilities{LoadSession: true,
			SessionCapabilities: acp.SessionCapabilities{List: &acp.Capability{}, Resume: &acp.Capability{Meta: json.RawMessage(`{"x":1}`)}}},
			AuthMethods: []acp.AuthMethod{{ID: "k", Name: "Key", Description: "API key"}}, AgentInfo: &acp.Implementation{Name: "mock", Version: "1"}}},
		{"AuthenticateRequest", &acp.AuthenticateRequest{MethodID: "openai-api-key"}},
		{"NewSessionRequest", &acp.NewSessionRequest{Cwd: "/p", AdditionalDirectories: []string{"/q"}, McpServers: []acp.McpServer{
			{Name: "fs", Command: "/bin/fs", Args: []string{"-v"}, Env: []acp.EnvVariable{{Name: "A", Value: "1"}}}}}},
		{"NewSessionResponse", &acp.NewSessionResponse{SessionID: "s",
			Modes: &acp.SessionModeState{CurrentModeID: "ask", AvailableModes: []acp.SessionMode{{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code", Description: "Writes code"}}},
			ConfigOptions: []acp.SessionConfigOption{
				{ID: "auto", Name: "Auto", Type: acp.ConfigBoolean, CurrentValue: true},
				{ID: "model", Name: "Model", Category: "model", Type: acp.ConfigSelect, CurrentValue: "m1",
					Options: &acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "m1", Name: "M1"}}}}},
			Models: &acp.SessionModelState{CurrentModelID: "m1", AvailableModels: []acp.ModelInfo{{ModelID: "m1", Name: "M1"}}}}},
		{"LoadSessionRequest", &acp.LoadSessionRequest{SessionID: "s", Cwd: "/p", McpServers: []acp.McpServer{}}},
		{"SetSessionModeRequest", &acp.SetSessionModeRequest{SessionID: "s", ModeID: "code"}},
		{"SetSessionConfigOptionRequest select", &acp.SetSessionConfigOptionRequest{SessionID: "s", ConfigID: "model", Value: "m2"}},
		{"SetSessionConfigOptionRequest boolean", &acp.SetSessionConfigOptionRequest{SessionID: "s", ConfigID: "auto", Type: acp.ConfigBoolean, Value: false}},
		{"PromptRequest", &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.TextBlock("hi"),
			acp.ResourceLinkBlock("file:///a", "a"), acp.ResourceBlock("file:///b", "text/plain", "b")}}},
		{"PromptResponse", &acp.PromptResponse{StopReason: acp.StopEndTurn, Usage: &acp.Usage{TotalTokens: 3, InputTokens: 2, OutputTokens: 1, ThoughtTokens: ptr(int64(1))},
			Meta: json.RawMessage(`{"quota":{"left":1}}`)}},
		{"CancelNotification", &acp.CancelNotification{SessionID: "s"}},
		{"RequestPermissionRequest", &acp.RequestPermissionRequest{SessionID: "s",
			ToolCall: acp.ToolCallUpdate{ToolCallID: "t", Title: ptr("rm x"), Kind: ptr(acp.KindExecute), RawInput: json.RawMessage(`{"command":["/bin/bash","-lc","rm x"]}`)},
			Options:  []acp.PermissionOption{{OptionID: "approved", Name: "Yes", Kind: acp.AllowOnce}, {OptionID: "abort", Name: "No", Kind: acp.RejectOnce}}}},
		{"RequestPermissionResponse", ptr(acp.Selected("allow"))},
		{"ReadTextFileRequest", &acp.ReadTextFileRequest{SessionID: "s", Path: "/p/a", Line: ptr(1), Limit: ptr(2000)}},
		{"ReadTextFileResponse", &acp.ReadTextFileResponse{Content: "x\n"}},
		{"WriteTextFileRequest", &acp.WriteTextFileRequest{SessionID: "s", Path: "/p/a", Content: ""}},
		{"CreateTerminalRequest", &acp.CreateTerminalRequest{SessionID: "s", Command: "echo hi", Env: []acp.EnvVariable{{Name: "A", Value: "1"}}, Cwd: "/p", OutputByteLimit: ptr(int64(32000))}},
		{"CreateTerminalResponse", &acp.CreateTerminalResponse{TerminalID: "term_1"}},
		{"TerminalOutputResponse", &acp.TerminalOutputResponse{Output: "hi\n", Truncated: true, ExitStatus: &acp.TerminalExitStatus{ExitCode: ptr(0)}}},
		{"WaitForTerminalExitResponse", &acp.WaitForTerminalExitResponse{Signal: ptr("SIGKILL")}},
		{"SessionNotification", &acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate,
			ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t", Status: ptr(acp.StatusCompleted), Content: []acp.ToolCallContent{}, RawOutput: json.RawMessage(`"ok"`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if bytes.ContainsAny(out, "\n") {
				t.Errorf("Marshal = %s; contains a raw newline", out)
			}
			back := reflect.New(reflect.TypeOf(tt.v).Elem()).Interface()
			if err := json.Unmarshal(out, back); err != nil {
				t.Fatalf("Unmarshal(%s): %v", out, err)
			}
			if diff := cmp.Diff(back, tt.v, ignoreRaw); diff != "" {
				t.Errorf("round trip of %s mismatch (-got +want):\n%s", out, diff)
			}
		})
	}
}

func TestMalformedMessagesReturnErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		v    any
	}{
		{"content block without type", `{"text":"x"}`, &acp.ContentBlock{}},
		{"content block not an object", `"x"`, &acp.ContentBlock{}},
		{"resource not an object", `{"type":"resource","resource":[]}`, &acp.ContentBlock{}},
		{"tool content not an object", `3`, &acp.ToolCallContent{}},
		{"diff path is a number", `{"type":"diff","path":1,"newText":""}`, &acp.ToolCallContent{}},
		{"mcp server args not an array", `{"name":"x","command":"y","args":"z","env":[]}`, &acp.McpServer{}},
		{"outcome not an object", `{"outcome":"selected"}`, &acp.RequestPermissionResponse{}},
		{"prompt response stopReason wrong type", `{"stopReason":5,"usage":{"totalTokens":"x"}}`, &acp.PromptResponse{}}, // a malformed usage alone is dropped: TestPromptResponseLenient
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(tt.in), tt.v); err == nil {
				t.Errorf("Unmarshal(%s) = nil error; want an error", tt.in)
			}
		})
	}
}

// transcriptLine is one line of a recorded wire log.
type transcriptLine struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

// readTranscripts returns every message of the recorded transcripts (vendored
// with the schema: see internal/acpschema/testdata/SOURCE).
func readTranscripts(t *testing.T) map[string][]transcriptLine {
	t.Helper()
	dir := acpschema.Transcripts()
	files, err := fs.Glob(dir, "*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded transcripts")
	}
	all := map[string][]transcriptLine{}
	for _, f := range files {
		data, err := fs.ReadFile(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var l transcriptLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if l.Msg != nil {
				all[f] = append(all[f], l)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return all
}

func TestTranscriptsDecode(t *testing.T) {
	transcripts := readTranscripts(t)
	kinds := map[string]int{}
	for name, lines := range transcripts {
		t.Run(name, func(t *testing.T) {
			// methods of our own requests by id, to decode the agent's results.
			pending := map[string]string{}
			for i, l := range lines {
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(l.Msg, &m); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				var target any
				switch {
				case l.Dir == "c2a" && m.Method != "":
					pending[string(m.ID)] = m.Method
				case l.Dir == "a2c" && m.Method == acp.MethodSessionUpdate:
					var n acp.SessionNotification
					if err := json.Unmarshal(m.Params, &n); err != nil {
						t.Errorf("line %d: session/update: %v", i+1, err)
						continue
					}
					if !n.Update.Known() || len(setPayloads(n.Update)) != 1 {
						t.Errorf("line %d: update %q decoded with payloads %v", i+1, n.Update.Kind, setPayloads(n.Update))
					}
					if n.Update.Malformed != nil {
						t.Errorf("line %d: update %q has malformed fields %q", i+1, n.Update.Kind, n.Update.Malformed)
					}
					kinds[n.Update.Kind]++
				case l.Dir == "a2c" && m.Method == acp.MethodSessionRequestPermission:
					target = &acp.RequestPermissionRequest{}
				case l.Dir == "a2c" && m.Method == acp.MethodTerminalCreate:
					target = &acp.CreateTerminalRequest{}
				case l.Dir == "a2c" && m.Method == acp.MethodFSReadTextFile:
					target = &acp.ReadTextFileRequest{}
				case l.Dir == "a2c" && m.Method == acp.MethodFSWriteTextFile:
					target = &acp.WriteTextFileRequest{}
				case l.Dir == "a2c" && m.Method == "" && m.Result != nil:
					switch pending[string(m.ID)] {
					case acp.MethodInitialize:
						target = &acp.InitializeResponse{}
					case acp.MethodSessionNew:
						target = &acp.NewSessionResponse{}
					case acp.MethodSessionPrompt:
						target = &acp.PromptResponse{}
					}
				}
				if target == nil {
					continue
				}
				data := m.Params
				if m.Method == "" {
					data = m.Result
				}
				if err := json.Unmarshal(data, target); err != nil {
					t.Errorf("line %d: %T: %v", i+1, target, err)
				}
			}
		})
	}
	if kinds[acp.UpdateToolCallUpdate] == 0 || kinds[acp.UpdateAgentMessageChunk] == 0 {
		t.Errorf("decoded update kinds %v; want tool_call_update and agent_message_chunk among them", kinds)
	}
}

func FuzzSessionUpdate(f *testing.F) {
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","content":[{"type":"diff","path":"/a","newText":""}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[],"locations":null}`,
		`{"sessionUpdate":"plan","entries":[]}`,
		`{"sessionUpdate":"agent_error","x":1}`,
		`{"sessionUpdate":"config_option_update","configOptions":[{"id":"m","name":"M","type":"select","currentValue":"a","options":[{"group":"g","name":"G","options":[]}]}]}`,
		`{"sessionUpdate":"session_info_update","title":null}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","locations":[{"path":"/a","line":"3"}],"content":[{"path":"/x"}]}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","annotations":{"priority":"high"}},"messageId":5}`,
		`{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":"x","currency":"USD"}}`,
		`{}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u acp.SessionUpdate
		if err := json.Unmarshal(data, &u); err != nil {
			return
		}
		out, err := json.Marshal(u)
		if err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				t.Fatalf("Marshal produced invalid JSON for %s: %v", data, err)
			}
			return
		}
		var again acp.SessionUpdate
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("Unmarshal(Marshal(%s)) = %v; Marshal gave %s", data, err, out)
		}
		if again.Kind != u.Kind {
			t.Fatalf("kind changed over a round trip: %q → %q", u.Kind, again.Kind)
		}
	})
}

// TestDecodeParamsInTheSchemasWords: a request's params of the wrong shape
// give an error in the schema's words, the member's path first; it wraps
// the decoding's own error.
func TestDecodeParamsInTheSchemasWords(t *testing.T) {
	for _, tt := range []struct {
		params string
		want   string
	}{
		{`"bad"`, `want an object, got string "bad"`},
		{`{"sessionId":"s","prompt":"hi"}`, `prompt: want an array, got a string`},
		{`{"sessionId":5,"prompt":[]}`, `sessionId: want a string, got a number`},
	} {
		req := &acp.Request{Method: acp.MethodSessionPrompt, Params: json.RawMessage(tt.params)}
		var p acp.PromptRequest
		err := req.DecodeParams(&p)
		if err == nil || err.Error() != tt.want || errors.Unwrap(err) == nil {
			t.Errorf("DecodeParams(%s) = %v; want %q, wrapping the decoding's error", tt.params, err, tt.want)
		}
	}
}
