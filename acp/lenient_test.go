package acp_test

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/google/go-cmp/cmp"
)

// TestMalformedOptionalFieldsTakeTheirDefault: one malformed optional field
// (x-deserialize-default-on-error) or list item (x-deserialize-skip-invalid-
// items) no longer costs the whole update: it takes its default, the rest is
// kept, and Malformed says what was replaced.
func TestMalformedOptionalFieldsTakeTheirDefault(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		want      acp.SessionUpdate // Kind, the payload and Malformed; Raw is not compared
		malformed []string
	}{
		{
			name: "tool_call location line",
			raw:  `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":[{"path":"/p/a","line":"3"},{"path":"/p/b","line":4}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Read",
				Locations: []acp.ToolCallLocation{{Path: "/p/a"}, {Path: "/p/b", Line: ptr(4)}}}},
			malformed: []string{`locations[0].line: want a non-negative integer, got string "3"; the field took its default`},
		},
		{
			name: "tool_call location line not an integer",
			raw:  `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":[{"path":"/p/a","line":1.5}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Read",
				Locations: []acp.ToolCallLocation{{Path: "/p/a"}}}},
			malformed: []string{`locations[0].line: want a non-negative integer, got number 1.5; the field took its default`},
		},
		{
			// JSON Schema's integer is any number without a fractional part.
			name: "tool_call location line a whole float",
			raw:  `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":[{"path":"/p/a","line":3.0},{"path":"/p/b","line":4e0},{"path":"/p/c","line":"3"}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Read",
				Locations: []acp.ToolCallLocation{{Path: "/p/a", Line: ptr(3)}, {Path: "/p/b", Line: ptr(4)}, {Path: "/p/c"}}}},
			malformed: []string{`locations[2].line: want a non-negative integer, got string "3"; the field took its default`},
		},
		{
			name: "tool_call location without a valid path is skipped",
			raw:  `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":[{"path":5},{"path":"/p/b"}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Read",
				Locations: []acp.ToolCallLocation{{Path: "/p/b"}}}},
			malformed: []string{`locations[0].path: want a string, got number 5 (item skipped)`},
		},
		{
			name:      "tool_call locations not an array",
			raw:       `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":{"path":"/p/a"}}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Read"}},
			malformed: []string{`locations: want an array, got an object; the field took its default`},
		},
		{
			name: "tool_call kind, status and name",
			raw:  `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Run","kind":5,"status":true,"name":["bash"],"rawInput":"3","rawOutput":[1]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Run",
				RawInput: json.RawMessage(`"3"`), RawOutput: json.RawMessage(`[1]`)}},
			malformed: []string{
				`name: want a string, got an array; the field took its default`,
				`kind: want a string, got number 5; the field took its default`,
				`status: want a string, got boolean true; the field took its default`,
			},
		},
		{
			name: "tool_call content items",
			raw: `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Edit","content":[` +
				`{"path":"/x"},` +
				`{"type":"content","content":{"type":"text","text":5}},` +
				`{"type":"diff","path":"/p/a","oldText":1,"newText":"new"},` +
				`{"type":"diff","path":"/p/a","newText":false},` +
				`{"type":"terminal","terminalId":"term_1"},` +
				`{"type":"content","content":{"type":"text","text":"ok","annotations":{"priority":"high"}}}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Edit",
				Content: []acp.ToolCallContent{
					acp.DiffToolContent("/p/a", nil, "new"),
					acp.TerminalToolContent("term_1"),
					{Type: acp.ToolContentBlock, Content: &acp.ContentBlock{Type: acp.ContentText, Text: "ok", Annotations: &acp.Annotations{}}},
				}}},
			malformed: []string{
				`content[0]: missing type (item skipped)`,
				`content[1].content.text: want a string, got number 5 (item skipped)`,
				`content[2].oldText: want a string, got number 1; the field took its default`,
				`content[3].newText: want a string, got boolean false (item skipped)`,
				`content[5].content.annotations.priority: want a number, got string "high"; the field took its default`,
			},
		},
		{
			name:      "tool_call content not an array",
			raw:       `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Edit","content":"done"}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateToolCall, ToolCall: &acp.ToolCall{ToolCallID: "t", Title: "Edit"}},
			malformed: []string{`content: want an array, got string "done"; the field took its default`},
		},
		{
			name: "tool_call_update title, kind and status leave the record unchanged",
			raw:  `{"sessionUpdate":"tool_call_update","toolCallId":"t","title":7,"kind":{},"status":"completed","name":0}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t",
				Status: ptr(acp.StatusCompleted)}},
			malformed: []string{
				`title: want a string, got number 7; the field took its default`,
				`name: want a string, got number 0; the field took its default`,
				`kind: want a string, got an object; the field took its default`,
			},
		},
		{
			name: "tool_call_update locations and content",
			raw:  `{"sessionUpdate":"tool_call_update","toolCallId":"t","locations":[{"path":"/p/a","line":"3"}],"content":3}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t",
				Locations: []acp.ToolCallLocation{{Path: "/p/a"}}}},
			malformed: []string{
				`content: want an array, got number 3; the field took its default`,
				`locations[0].line: want a non-negative integer, got string "3"; the field took its default`,
			},
		},
		{
			name: "tool_call_update content item without type",
			raw:  `{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"path":"/x"}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate, ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t",
				Content: []acp.ToolCallContent{}}},
			malformed: []string{`content[0]: missing type (item skipped)`},
		},
		{
			name: "plan entries",
			raw:  `{"sessionUpdate":"plan","entries":[{"content":"Write","priority":"high","status":"pending"},{"content":1,"priority":"low","status":"pending"},{"content":"Test","priority":"low","status":["done"]}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdatePlan, Plan: &acp.Plan{Entries: []acp.PlanEntry{
				{Content: "Write", Priority: acp.PriorityHigh, Status: acp.PlanPending}}}},
			malformed: []string{
				`entries[1].content: want a string, got number 1 (item skipped)`,
				`entries[2].status: want a string, got an array (item skipped)`,
			},
		},
		{
			name:      "plan entries not an array",
			raw:       `{"sessionUpdate":"plan","entries":{"content":"x"}}`,
			want:      acp.SessionUpdate{Kind: acp.UpdatePlan, Plan: &acp.Plan{}},
			malformed: []string{`entries: want an array, got an object; the field took its default`},
		},
		{
			name:      "usage cost amount",
			raw:       `{"sessionUpdate":"usage_update","used":120,"size":200000,"cost":{"amount":"0.1","currency":"USD"}}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: 120, Size: 200000}},
			malformed: []string{`cost.amount: want a number, got string "0.1" (cost ignored)`},
		},
		{
			name:      "usage cost not an object",
			raw:       `{"sessionUpdate":"usage_update","used":120,"size":200000,"cost":5}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: 120, Size: 200000}},
			malformed: []string{`cost: want an object, got number 5; the field took its default`},
		},
		{
			name: "content block annotations",
			raw:  `{"sessionUpdate":"agent_message_chunk","messageId":5,"content":{"type":"text","text":"hi","annotations":{"audience":["user",5],"lastModified":1,"priority":"high"}}}`,
			want: acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{
				Type: acp.ContentText, Text: "hi", Annotations: &acp.Annotations{Audience: []acp.Role{acp.RoleUser}}}}},
			malformed: []string{
				`content.annotations.audience[1]: want a string, got number 5 (item skipped)`,
				`content.annotations.lastModified: want a string, got number 1; the field took its default`,
				`content.annotations.priority: want a number, got string "high"; the field took its default`,
				`messageId: want a string, got number 5; the field took its default`,
			},
		},
		{
			name:      "content block annotations not an object",
			raw:       `{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi","annotations":"all"}}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateUserMessageChunk, UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("hi")}},
			malformed: []string{`content.annotations: want an object, got string "all"; the field took its default`},
		},
		{
			name:      "image uri",
			raw:       `{"sessionUpdate":"agent_thought_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png","uri":5}}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateAgentThoughtChunk, AgentThoughtChunk: &acp.ContentChunk{Content: acp.ImageBlock("image/png", "AA==")}},
			malformed: []string{`content.uri: want a string, got number 5; the field took its default`},
		},
		{
			name: "resource link optional fields",
			raw:  `{"sessionUpdate":"agent_message_chunk","content":{"type":"resource_link","uri":"file:///a","name":"a","size":"12","title":1,"description":false,"mimeType":{}}}`,
			want: acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.ResourceLinkBlock("file:///a", "a")}},
			malformed: []string{
				`content.mimeType: want a string, got an object; the field took its default`,
				`content.title: want a string, got number 1; the field took its default`,
				`content.description: want a string, got boolean false; the field took its default`,
				`content.size: want an integer, got string "12"; the field took its default`,
			},
		},
		{
			name:      "embedded resource mime type",
			raw:       `{"sessionUpdate":"agent_message_chunk","content":{"type":"resource","resource":{"uri":"file:///a","mimeType":5,"text":"x"}}}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.ResourceBlock("file:///a", "", "x")}},
			malformed: []string{`content.resource.mimeType: want a string, got number 5; the field took its default`},
		},
		{
			name: "a field of another block type is ignored",
			raw:  `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","size":"big"}}`,
			want: acp.SessionUpdate{Kind: acp.UpdateAgentMessageChunk, AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("hi")}},
		},
		{
			name: "available command input",
			raw:  `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"web","description":"Search","input":"query"},{"name":5,"description":"x"},{"name":"init","description":"Init","input":{"hint":1}}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateAvailableCommandsUpdate, AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{
				{Name: "web", Description: "Search"}, {Name: "init", Description: "Init"}}}},
			malformed: []string{
				`availableCommands[0].input: want an object, got string "query"; the field took its default`,
				`availableCommands[1].name: want a string, got number 5 (item skipped)`,
				`availableCommands[2].input.hint: want a string, got number 1 (availableCommands[2].input ignored)`,
			},
		},
		{
			name: "config options",
			raw:  `{"sessionUpdate":"config_option_update","configOptions":[{"id":"auto","name":"Auto","type":"boolean","currentValue":true,"description":5,"category":[]},{"id":1,"name":"x","type":"boolean","currentValue":false}]}`,
			want: acp.SessionUpdate{Kind: acp.UpdateConfigOptionUpdate, ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: []acp.SessionConfigOption{
				{ID: "auto", Name: "Auto", Type: acp.ConfigBoolean, CurrentValue: true}}}},
			malformed: []string{
				`configOptions[0].description: want a string, got number 5; the field took its default`,
				`configOptions[0].category: want a string, got an array; the field took its default`,
				`configOptions[1].id: want a string, got number 1 (item skipped)`,
			},
		},
		{
			name:      "session info title",
			raw:       `{"sessionUpdate":"session_info_update","title":5,"updatedAt":null}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateSessionInfoUpdate, SessionInfoUpdate: &acp.SessionInfoUpdate{UpdatedAt: ptr("")}},
			malformed: []string{`title: want a string, got number 5; the field took its default`},
		},
		{
			name:      "notice description",
			raw:       `{"sessionUpdate":"notice","severity":"info","title":"Indexed","description":42}`,
			want:      acp.SessionUpdate{Kind: acp.UpdateNotice, Notice: &acp.Notice{Severity: acp.SeverityInfo, Title: "Indexed"}},
			malformed: []string{`description: want a string, got number 42; the field took its default`},
		},
		{
			name: "compaction summary and error",
			raw:  `{"sessionUpdate":"compaction_update","compactionId":"c1","status":"failed","summary":[{"text":"x"},{"type":"text","text":"partial"}],"error":{"code":1}}`,
			want: acp.SessionUpdate{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &acp.CompactionUpdate{CompactionID: "c1", Status: acp.CompactionFailed,
				Summary: []acp.ContentBlock{acp.TextBlock("partial")}}},
			malformed: []string{
				`summary[0]: missing type (item skipped)`,
				`error: want a string, got an object; the field took its default`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u acp.SessionUpdate
			if err := json.Unmarshal([]byte(tt.raw), &u); err != nil {
				t.Fatalf("Unmarshal(%s) = %v; want the update kept", tt.raw, err)
			}
			if string(u.Raw) != tt.raw {
				t.Errorf("Raw = %s; want the update as received", u.Raw)
			}
			tt.want.Malformed = tt.malformed
			u.Raw = nil
			if diff := cmp.Diff(tt.want, u); diff != "" {
				t.Errorf("decoded update (-want +got):\n%s", diff)
			}
			// The update marshals as its defaults, a valid update.
			out, err := json.Marshal(u)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			var again acp.SessionUpdate
			if err := json.Unmarshal(out, &again); err != nil || again.Malformed != nil {
				t.Errorf("Marshal = %s: Unmarshal %v, Malformed %q; want a well-formed update", out, err, again.Malformed)
			}
		})
	}
}

// TestWellFormedUpdatesHaveNoMalformed: the strict decode succeeds for
// well-formed updates, and nothing is reported.
func TestWellFormedUpdatesHaveNoMalformed(t *testing.T) {
	for _, u := range everyUpdate() {
		data, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var got acp.SessionUpdate
		if err := json.Unmarshal(data, &got); err != nil || got.Malformed != nil {
			t.Errorf("Unmarshal(%s) = %v, Malformed %q; want nil, nil", data, err, got.Malformed)
		}
	}
}

// TestPermissionRequestToolCallLenient: a malformed optional field of the
// tool call in a permission request no longer fails the request (which
// would have been answered -32602 and the tool denied).
func TestPermissionRequestToolCallLenient(t *testing.T) {
	raw := `{"sessionId":"s1","toolCall":{"toolCallId":"t","title":"Write","kind":"edit","locations":[{"path":"/p/a","line":"3"}]},` +
		`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`
	var got acp.RequestPermissionRequest
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("Unmarshal = %v; want the request kept", err)
	}
	want := acp.RequestPermissionRequest{
		SessionID: "s1",
		ToolCall:  acp.ToolCallUpdate{ToolCallID: "t", Title: ptr("Write"), Kind: ptr(acp.KindEdit), Locations: []acp.ToolCallLocation{{Path: "/p/a"}}},
		Options:   []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.AllowOnce}},
		Malformed: []string{`toolCall.locations[0].line: want a non-negative integer, got string "3"; the field took its default`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded request (-want +got):\n%s", diff)
	}
	out, err := json.Marshal(got)
	if err != nil || strings.Contains(string(out), "Malformed") {
		t.Errorf("Marshal = %s, %v; want the request without Malformed", out, err)
	}

	for _, bad := range []struct{ raw, want string }{
		{`{"sessionId":"s1","toolCall":{"toolCallId":1},"options":[]}`, `permission request: toolCall.toolCallId: want a string, got number 1`},
		{`{"sessionId":2,"toolCall":{"toolCallId":"t"},"options":[]}`, `permission request: sessionId: want a string, got number 2`},
		{`{"sessionId":"s1","toolCall":{"toolCallId":"t","line":"x"},"options":"allow"}`, `permission request: options:`},
		{`[]`, `permission request: want an object, got an array`},
	} {
		var r acp.RequestPermissionRequest
		if err := json.Unmarshal([]byte(bad.raw), &r); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Unmarshal(%s) = %v; want an error containing %q", bad.raw, err, bad.want)
		}
	}
}

// TestMalformedMembersReportedInSchemaOrder: of several malformed members
// that each fail their object, the one reported is the first in the
// schema's order (the wire struct's), whatever their order in the message
// and whatever fails them: a required member's wrong type, or a strict
// member's (a config option's select options, a permission request's
// options) failing its own decoding. A config option is no exception.
func TestMalformedMembersReportedInSchemaOrder(t *testing.T) {
	checkMalformed(t, []malformedCase{
		{"config option id before options", `{"sessionUpdate":"config_option_update","configOptions":[{"id":1,"name":"M","type":"select","currentValue":"a","options":"x"}]}`,
			[]string{`configOptions[0].id: want a string, got number 1 (item skipped)`}},
		{"config option id before options written first", `{"sessionUpdate":"config_option_update","configOptions":[{"options":"x","type":"select","currentValue":"a","name":"M","id":1}]}`,
			[]string{`configOptions[0].id: want a string, got number 1 (item skipped)`}},
		{"config option type before options", `{"sessionUpdate":"config_option_update","configOptions":[{"options":[{"value":1}],"id":"m","name":"M","type":true}]}`,
			[]string{`configOptions[0].type: want a string, got boolean true (item skipped)`}},
		{"plan entry content before status", `{"sessionUpdate":"plan","entries":[{"status":5,"priority":"high","content":1}]}`,
			[]string{`entries[0].content: want a string, got number 1 (item skipped)`}},
	})

	var s acp.NewSessionResponse
	if err := json.Unmarshal([]byte(`{"sessionId":"s1","configOptions":[{"options":"x","id":1,"name":"M","type":"select"}]}`), &s); err != nil {
		t.Fatalf("session/new answer: %v", err)
	}
	if want := []string{`configOptions[0].id: want a string, got number 1 (item skipped)`}; !cmp.Equal(want, s.Malformed) {
		t.Errorf("session/new answer: Malformed %q, want %q", s.Malformed, want)
	}

	var r acp.RequestPermissionRequest
	err := json.Unmarshal([]byte(`{"options":"allow","toolCall":{"toolCallId":"t"},"sessionId":2}`), &r)
	if want := `permission request: sessionId: want a string, got number 2`; err == nil || err.Error() != want {
		t.Errorf("permission request: %v, want %q", err, want)
	}
}

// TestDroppedValueKeepsOnlyItsNote: a list item left out
// (x-deserialize-skip-invalid-items), or an optional object ignored for a
// malformed required member, is reported by its one note, with the reason:
// the replacements made inside it while it was decoded are not reported,
// for nothing of it was kept. A kept item's replacements still are.
func TestDroppedValueKeepsOnlyItsNote(t *testing.T) {
	checkMalformed(t, []malformedCase{
		{"location skipped", `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","locations":[{"path":5,"line":"3"},{"path":"/p/b","line":"4"}]}`,
			[]string{
				`locations[0].path: want a string, got number 5 (item skipped)`,
				`locations[1].line: want a non-negative integer, got string "4"; the field took its default`,
			}},
		{"content item skipped", `{"sessionUpdate":"tool_call","toolCallId":"t","title":"Edit","content":[{"type":"diff","oldText":1,"newText":"n","path":2}]}`,
			[]string{`content[0].path: want a string, got number 2 (item skipped)`}},
		{"config option skipped", `{"sessionUpdate":"config_option_update","configOptions":[{"id":"m","name":"M","type":"boolean","description":5,"category":[],"options":"x"}]}`,
			[]string{`configOptions[0].options: want an array, got string "x" (item skipped)`}},
		{"nested item skipped inside a kept one", `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"a","description":"b","input":{"hint":1}},{"name":1,"description":"c","input":{"hint":2}}]}`,
			[]string{
				`availableCommands[0].input.hint: want a string, got number 1 (availableCommands[0].input ignored)`,
				`availableCommands[1].name: want a string, got number 1 (item skipped)`,
			}},
	})

	var r acp.PromptResponse
	if err := json.Unmarshal([]byte(`{"stopReason":"end_turn","usage":{"cachedReadTokens":"x","totalTokens":5.5,"inputTokens":1,"outputTokens":1}}`), &r); err != nil {
		t.Fatalf("session/prompt answer: %v", err)
	}
	if want := []string{`usage.totalTokens: want a non-negative integer, got number 5.5 (usage ignored)`}; r.Usage != nil || !cmp.Equal(want, r.Malformed) {
		t.Errorf("session/prompt answer: usage %+v, Malformed %q; want none and %q", r.Usage, r.Malformed, want)
	}
}

// malformedCase is an update, raw, whose lenient decode keeps it and
// reports malformed.
type malformedCase struct {
	name, raw string
	malformed []string
}

// checkMalformed decodes each case's update and compares its Malformed.
func checkMalformed(t *testing.T, cases []malformedCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var u acp.SessionUpdate
			if err := json.Unmarshal([]byte(tt.raw), &u); err != nil {
				t.Fatalf("Unmarshal = %v; want the invalid item left out", err)
			}
			if diff := cmp.Diff(tt.malformed, u.Malformed); diff != "" {
				t.Errorf("Malformed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProblemPath: the path of the value a Malformed entry, or a lenient
// decoding's error, is about, in dotted form, for pointing at it in the
// message's JSON.
func TestProblemPath(t *testing.T) {
	for _, tt := range []struct{ problem, want string }{
		{"toolCall.kind: want a string, got number 5; the field took its default", "toolCall.kind"},
		{"toolCall.locations[0].path: want a string, got number 5 (item skipped)", "toolCall.locations.0.path"},
		{"_meta.x[12][3]: want an object, got null", "_meta.x.12.3"},
		{"want an object, got an array", ""},
		{"permission request: want an object, got an array", ""},
	} {
		if got := acp.ProblemPath(tt.problem); got != tt.want {
			t.Errorf("ProblemPath(%q) = %q, want %q", tt.problem, got, tt.want)
		}
	}
	for _, tt := range []struct{ raw, want string }{
		{`{"toolCall":{"toolCallId":1}}`, "toolCall.toolCallId"},
		{`{"toolCall":{"toolCallId":"t"},"options":[{"optionId":"a"},{"optionId":5}]}`, "options.1.optionId"},
		{`{"toolCall":{"toolCallId":"t"},"options":"x"}`, "options"},
		{`[]`, ""},
	} {
		var r acp.RequestPermissionRequest
		err := json.Unmarshal([]byte(tt.raw), &r)
		if got := acp.ErrorPath(err); err == nil || got != tt.want {
			t.Errorf("ErrorPath(Unmarshal(%s) = %v) = %q, want %q", tt.raw, err, got, tt.want)
		}
	}
}
