package runner

import (
	"fmt"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
)

// recordedSession reads a transcript's lines ({"dir", "msg"}) into a
// RecordedSession.
func recordedSession(t *testing.T, transcript string) *RecordedSession {
	t.Helper()
	r := NewRecordedSession()
	for i, line := range strings.Split(strings.TrimSpace(transcript), "\n") {
		var l struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		r.Message(i+1, l.Dir == "a2c", l.Msg)
	}
	return r
}

const askOptions = `"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]`

// TestRecordedSession: a permission request is merged onto what the
// session said of its tool call before it, in the session's cwd, and
// every field names the message it came from: in a later turn too, as the
// call is the same (ids are unique in the session); the time before the
// first turn and another session's updates know nothing of it.
func TestRecordedSession(t *testing.T) {
	t.Parallel()
	r := recordedSession(t, `
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"e1","title":"early","kind":"edit","locations":[{"path":"/early"}]}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"e1","title":"setup"},`+askOptions+`}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"e1","title":"Edit","kind":"edit","rawInput":{"file_path":"src/a.go"},"locations":[{"path":"/w/src/a.go"}]}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"e1","locations":[{"path":"/w/src/b.go"}]}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"other","update":{"sessionUpdate":"tool_call_update","toolCallId":"e1","locations":[{"path":"/etc/passwd"}]}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"e1","title":"Edit b","kind":"edit"},`+askOptions+`}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"e1"},`+askOptions+`}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":3}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"e1","kind":"edit"},`+askOptions+`}}}
`)
	options := []approve.Option{{ID: "ok", Name: "Allow", Kind: "allow_once"}}
	edit := approve.Request{ToolCallID: "e1", Title: "Edit b", Kind: "edit", RawInput: json.RawMessage(`{"file_path":"src/a.go"}`),
		Locations: []string{"/w/src/b.go"}, Options: options, Cwd: "/w"}
	editFields := []FieldSource{
		{Field: "title", Line: 11, Message: "session/request_permission"},
		{Field: "kind", Line: 11, Message: "session/request_permission"}, // carried again, though the same
		{Field: "rawInput", Line: 8, Message: "tool_call"},
		{Field: "locations", Line: 9, Message: "tool_call_update"},
	}
	want := []AskedPermission{
		{Line: 6, Turn: 0, ToolCallID: "e1", Request: approve.Request{ToolCallID: "e1", Title: "setup", Options: options, Cwd: "/w"},
			Fields: []FieldSource{{Field: "title", Line: 6, Message: "session/request_permission"}}},
		{Line: 11, Turn: 1, ToolCallID: "e1", Request: edit, Fields: editFields,
			Answer: &RecordedAnswer{Line: 12, Outcome: "selected", OptionID: "ok", OptionKind: "allow_once"}},
		// Asked again: nothing new, every value where it came from.
		{Line: 13, Turn: 1, ToolCallID: "e1", Request: edit, Fields: editFields},
		// The call of turn 1, asked about in turn 2.
		{Line: 17, Turn: 2, ToolCallID: "e1", Request: edit, Fields: []FieldSource{
			{Field: "title", Line: 11, Message: "session/request_permission"},
			{Field: "kind", Line: 17, Message: "session/request_permission"},
			{Field: "rawInput", Line: 8, Message: "tool_call"},
			{Field: "locations", Line: 9, Message: "tool_call_update"},
		}},
	}
	if diff := cmp.Diff(want, r.Permissions(), ignoreResolve); diff != "" {
		t.Errorf("Permissions() (-want +got):\n%s", diff)
	}
}

// TestRecordedSessionWithoutID: a permission request without a
// toolCallId is merged onto no tool call, not even one announced without
// an id: it stands alone, as run takes it, a tool call of its own; a
// tool_call_update without one is ignored; each is a protocol violation.
func TestRecordedSessionWithoutID(t *testing.T) {
	t.Parallel()
	r := recordedSession(t, `
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","title":"Edit","kind":"edit","locations":[{"path":"/w/a.go"}]}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"","rawInput":{"command":"rm -rf /"}}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"","kind":"execute"},`+askOptions+`}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"","title":"ls"},`+askOptions+`}}}
`)
	options := []approve.Option{{ID: "ok", Name: "Allow", Kind: "allow_once"}}
	want := []AskedPermission{
		{Line: 6, Turn: 1, Request: approve.Request{Kind: "execute", Options: options, Cwd: "/w"},
			Fields: []FieldSource{{Field: "kind", Line: 6, Message: "session/request_permission"}}},
		{Line: 7, Turn: 1, Request: approve.Request{Title: "ls", Options: options, Cwd: "/w"},
			Fields: []FieldSource{{Field: "title", Line: 7, Message: "session/request_permission"}}},
	}
	if diff := cmp.Diff(want, r.Permissions(), ignoreResolve); diff != "" {
		t.Errorf("Permissions() (-want +got):\n%s", diff)
	}
	// As run records it: three tool calls, four protocol violations.
	var calls []string
	for _, c := range r.s.snapshot(r.s.turnState(1)).ToolCalls {
		calls = append(calls, fmt.Sprintf("%q %s %q announced=%t", c.ID, c.Kind, c.Title, c.Announced))
	}
	wantCalls := []string{`"" edit "Edit" announced=true`, `"" execute "" announced=false`, `""  "ls" announced=false`}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	wantViolations := []string{
		`session/update tool_call "Edit": no toolCallId, which is required; recorded as a tool call of its own`,
		`session/update tool_call_update: no toolCallId, which is required; ignored, as it updates no tool call that can be told`,
		`session/request_permission "": toolCall has no toolCallId, which is required; taken as a tool call of its own`,
		`session/request_permission "ls": toolCall has no toolCallId, which is required; taken as a tool call of its own`,
	}
	if diff := cmp.Diff(wantViolations, r.s.violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestRecordedSessionLoad: a loaded session's updates count once the load
// is answered; a refused load leaves the session that session/new opens.
func TestRecordedSessionLoad(t *testing.T) {
	t.Parallel()
	ask := `{"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"e1"},` + askOptions + `}}}`
	prompt := `{"dir":"c2a","msg":{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}}`
	announce := func(session string) string {
		return `{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":{"sessionUpdate":"tool_call","toolCallId":"e1","kind":"read"}}}}`
	}
	tests := []struct {
		name, opening, session string
		wantKind               string
	}{
		{"loaded", `{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"old","cwd":"/w"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}`, "old", "read"},
		{"resumed", `{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/resume","params":{"sessionId":"old","cwd":"/w"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}`, "old", "read"},
		{"load refused", `{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"old","cwd":"/w"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"gone"}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/w"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"sessionId":"new"}}}`, "old", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := recordedSession(t, tt.opening+"\n"+prompt+"\n"+announce(tt.session)+"\n"+ask)
			got := r.Permissions()
			if len(got) != 1 || got[0].Request.Kind != tt.wantKind || got[0].Request.Cwd != "/w" {
				t.Errorf("Permissions() = %+v; want kind %q in /w", got, tt.wantKind)
			}
		})
	}
}

// TestRecordedSessionMethodIsNeverAnAnswer: a message of the agent with a
// "method" member, even "" or null, answers none of the client's requests,
// as the connection reads it: the session is the one the real answer opens.
func TestRecordedSessionMethodIsNeverAnAnswer(t *testing.T) {
	t.Parallel()
	for _, method := range []string{`""`, `null`, `5`} {
		t.Run(method, func(t *testing.T) {
			r := recordedSession(t, `
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"method":`+method+`,"result":{"sessionId":"other"}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}
{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"e1","kind":"edit"}}}}
{"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"e1"},`+askOptions+`}}}
`)
			got := r.Permissions()
			if len(got) != 1 || got[0].Request.Kind != "edit" {
				t.Errorf("Permissions() = %+v; want one of kind edit, from session s1", got)
			}
		})
	}
}

// TestRecordedSessionAnswers: each permission request carries the answer
// run wrote to it, matched by id (an id the agent uses again after the
// answer is a new request): the option selected and its kind among the
// request's options, which give run's verdict; a cancel or an error is
// no verdict; a request never answered has no answer.
func TestRecordedSessionAnswers(t *testing.T) {
	t.Parallel()
	const opts = `"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]`
	ask := func(id, call string) string {
		return `{"dir":"a2c","msg":{"jsonrpc":"2.0","id":` + id + `,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"` + call + `"},` + opts + `}}}`
	}
	answer := func(id, result string) string {
		return `{"dir":"c2a","msg":{"jsonrpc":"2.0","id":` + id + `,` + result + `}}`
	}
	r := recordedSession(t, strings.Join([]string{
		`{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w"}}}`,
		`{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}`,
		`{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}`,
		ask("1", "a"), ask(`"x"`, "b"), // 4, 5
		answer(`"x"`, `"result":{"outcome":{"outcome":"selected","optionId":"no"}}`), // 6
		answer("1", `"result":{"outcome":{"outcome":"selected","optionId":"ok"}}`),   // 7
		ask("1", "c"), answer("1", `"result":{"outcome":{"outcome":"cancelled"}}`), // 8, 9
		ask("1", "d"), answer("1", `"error":{"code":-32602,"message":"outside the roots"}`), // 10, 11
		ask("2", "e"), answer("2", `"result":{"outcome":{"outcome":"selected","optionId":"gone"}}`), // 12, 13
		ask("3", "f"), // 14: never answered
		answer("7", `"result":{"outcome":{"outcome":"selected","optionId":"ok"}}`), // 15: no such request
		ask("4", "g"), `{"dir":"a2c","msg":{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/w/a"}}}`, // 16, 17
		answer("4", `"result":{"content":"a"}`), // 18: the read's answer, or g's: none is g's
	}, "\n"))
	want := map[string]*RecordedAnswer{
		"a": {Line: 7, Outcome: "selected", OptionID: "ok", OptionKind: "allow_once"},
		"b": {Line: 6, Outcome: "selected", OptionID: "no", OptionKind: "reject_once"},
		"c": {Line: 9, Outcome: "cancelled"},
		"d": {Line: 11, Outcome: "error"},
		"e": {Line: 13, Outcome: "selected", OptionID: "gone"},
		"f": nil,
		"g": nil,
	}
	verdicts := map[string]approve.Verdict{"a": approve.Allow, "b": approve.Deny}
	got := r.Permissions()
	if len(got) != len(want) {
		t.Fatalf("%d permissions, want %d", len(got), len(want))
	}
	for _, p := range got {
		if diff := cmp.Diff(want[p.ToolCallID], p.Answer); diff != "" {
			t.Errorf("%s: Answer (-want +got):\n%s", p.ToolCallID, diff)
		}
		if p.Answer != nil && p.Answer.Verdict() != verdicts[p.ToolCallID] {
			t.Errorf("%s: Verdict() = %q, want %q", p.ToolCallID, p.Answer.Verdict(), verdicts[p.ToolCallID])
		}
	}
}

// TestRecordedSessionTurn: Turn says which turn the messages read so far
// end in, and whether its prompt is still unanswered: the time before the
// first prompt, a turn under way, a turn answered (between turns), and
// another request's answer with the prompt's id from the other side, which
// ends no turn.
func TestRecordedSessionTurn(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}`,
		`{"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}`,
		`{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}`,
		`{"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"cancelled"}}}}`,
		`{"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}`,
		`{"dir":"c2a","msg":{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}`,
	}
	type turn struct {
		N    int
		Open bool
	}
	want := []turn{{0, false}, {0, false}, {1, true}, {1, true}, {1, false}, {2, true}}
	for i := range lines {
		r := recordedSession(t, strings.Join(lines[:i+1], "\n"))
		n, open := r.Turn()
		if got := (turn{n, open}); got != want[i] {
			t.Errorf("after line %d: Turn() = %+v, want %+v", i+1, got, want[i])
		}
	}
}
