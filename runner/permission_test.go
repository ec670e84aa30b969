package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
)

// ignoreResolve leaves out a Request's funcs, Resolve and Excerpt, from
// comparisons (TestPermissionRequestResolvesLinks and
// TestPolicyReasonCutRedacted test them).
var ignoreResolve = cmpopts.IgnoreFields(approve.Request{}, "Resolve", "Excerpt")

// TestRecordedPermissionRequest: a params object and the whole JSON-RPC
// message read the same; what is not a permission request is an error
// that says so, at the byte it is about.
func TestRecordedPermissionRequest(t *testing.T) {
	t.Parallel()
	params := `{"sessionId":"s","toolCall":{"toolCallId":"t1","title":"run","kind":"execute","rawInput":{"command":"ls"},` +
		`"locations":[{"path":"a.go"}],"content":[{"type":"diff","path":"/w/b.go","newText":"x"}]},` +
		`"options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}`
	want := approve.Request{ToolCallID: "t1", Title: "run", Kind: "execute", RawInput: json.RawMessage(`{"command":"ls"}`),
		Locations: []string{"a.go"}, DiffPaths: []string{"/w/b.go"}, Options: []approve.Option{{ID: "y", Name: "Yes", Kind: "allow_once"}}, Cwd: "/w"}
	for _, data := range []string{params, `{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":` + params + `}`} {
		got, err := RecordedPermissionRequest([]byte(data), "/w")
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if diff := cmp.Diff(want, got.Request, ignoreResolve); diff != "" {
			t.Errorf("RecordedPermissionRequest(%s) (-want +got):\n%s", data, diff)
		}
		if len(got.Violations) > 0 {
			t.Errorf("RecordedPermissionRequest(%s): violations %v, want none", data, got.Violations)
		}
	}
	const wrapped = `{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{"toolCall": {"toolCallId": 5}}}`
	for _, tt := range []struct {
		data, at, want string // at: the text the error is at (its first occurrence)
	}{
		{"not json", "ot", "not JSON: invalid character 'o' in literal null (expecting 'u')"},
		{"{\"toolCall\": {\"toolCallId\": \"t\",\n  \"kind\": }}", "}}", "not JSON: invalid character '}' looking for beginning of value"},
		{`{"toolCall": 3}`, "3", "toolCall: want an object, got number 3"},
		{`{"toolCall": {"toolCallId": 5}}`, "5", "toolCall.toolCallId: want a string, got number 5"},
		{wrapped, "5", "toolCall.toolCallId: want a string, got number 5"},
		{`{"toolCall": {"toolCallId": "t"}, "options": [{"optionId": "a"}, {"optionId": 5}]}`, "5", "options[1].optionId: want a string, got a number: "},
		{` [1]`, "[", "want an object, got an array"},
		{`{"sessionId":"s"}`, "{", "no toolCall in the request"},
		{`{"params":{"options":[]}}`, `{"options`, "no toolCall in the request"},
		{`{"toolCall": null}`, "{", "no toolCall in the request"},
		{`{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/x"}}`, `"fs/`, `a "fs/read_text_file" request, not a session/request_permission; give`},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`, `"session/update"`, `a "session/update" notification, not a session/request_permission; give`},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "{", "a JSON-RPC response, not a session/request_permission; give"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, "{", "a JSON-RPC response, not a session/request_permission; give"},
	} {
		_, err := RecordedPermissionRequest([]byte(tt.data), "/w")
		var pe *RequestProblem
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, tt.want) {
			t.Errorf("RecordedPermissionRequest(%s) = %v, want a *RequestProblem %q…", tt.data, err, tt.want)
			continue
		}
		if want := strings.Index(tt.data, tt.at); pe.Off != want {
			t.Errorf("RecordedPermissionRequest(%s): %q at byte %d, want %d (%q)", tt.data, pe.Msg, pe.Off, want, tt.at)
		}
	}
}

// TestRecordedPermissionRequestViolations: a request that a run takes
// with a protocol violation (a malformed optional field takes its default,
// an invalid item of a list is left out, options that share an id,
// options of no kind or of one ACP does not define, no toolCallId) is read as the run reads it, with the run's violations, each
// at the byte of the value it is about.
func TestRecordedPermissionRequestViolations(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		data      string
		want      approve.Request
		at        []string // the text each violation is at (its last occurrence)
		violation []string
	}{
		{`{"toolCall": {"toolCallId": "t", "kind": 5}}`, approve.Request{ToolCallID: "t"}, []string{"5"},
			[]string{"session/request_permission t: toolCall.kind: want a string, got number 5; the field took its default"}},
		{`{"params": {"toolCall": {"toolCallId": "t", "kind": "read", "locations": [{"path": 5}, {"path": "a", "line": "x"}]}}}`,
			approve.Request{ToolCallID: "t", Kind: "read", Locations: []string{"a"}}, []string{"5}", `"x"`},
			[]string{"session/request_permission t: toolCall.locations[0].path: want a string, got number 5 (item skipped)",
				`session/request_permission t: toolCall.locations[1].line: want a non-negative integer, got string "x"; the field took its default`}},
		{`{"toolCall": {"toolCallId": "t"}, "options": [{"optionId": "a", "name": "A", "kind": "allow_once"}, {"optionId": "a", "name": "B", "kind": "reject_once"}]}`,
			approve.Request{ToolCallID: "t", Options: []approve.Option{{ID: "a", Name: "A", Kind: "allow_once"}, {ID: "a", Name: "B", Kind: "reject_once"}}},
			[]string{`{"optionId": "a", "name": "B"`},
			[]string{`session/request_permission t: two options share optionId "a" (of kinds "allow_once" and "reject_once"): each option needs an id of its own`}},
		{`{"toolCall": {"toolCallId": "t"}, "options": [{"optionId": "y", "name": "Yes", "kind": "allow"}, {"optionId": "n", "name": "No"}]}`,
			approve.Request{ToolCallID: "t", Options: []approve.Option{{ID: "y", Name: "Yes", Kind: "allow"}, {ID: "n", Name: "No"}}},
			[]string{`"allow"`, `{"optionId": "n"`},
			[]string{`session/request_permission t: option "y" has kind "allow", none of allow_once, allow_always, reject_once, reject_always: it is never chosen`,
				`session/request_permission t: option "n" has no kind, which is required: it is never chosen`}},
		{`{"toolCall": {"title": "run"}}`, approve.Request{Title: "run"}, []string{`{"title"`},
			[]string{`session/request_permission "run": toolCall has no toolCallId, which is required; taken as a tool call of its own`}},
		{`{"toolCall": {"kind": "read", "locations": [{"path": "a"}]}}`, approve.Request{Kind: "read", Locations: []string{"a"}}, []string{`{"kind"`},
			[]string{`session/request_permission "": toolCall has no toolCallId, which is required; taken as a tool call of its own`}},
	} {
		got, err := RecordedPermissionRequest([]byte(tt.data), "/w")
		if err != nil {
			t.Errorf("RecordedPermissionRequest(%s): %v", tt.data, err)
			continue
		}
		tt.want.Cwd = "/w"
		if diff := cmp.Diff(tt.want, got.Request, ignoreResolve, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("RecordedPermissionRequest(%s) (-want +got):\n%s", tt.data, diff)
		}
		var want []RequestProblem
		for i, v := range tt.violation {
			want = append(want, RequestProblem{Off: strings.LastIndex(tt.data, tt.at[i]), Msg: v})
		}
		if diff := cmp.Diff(want, got.Violations); diff != "" {
			t.Errorf("RecordedPermissionRequest(%s) violations (-want +got):\n%s", tt.data, diff)
		}
	}
}

// TestSketchedPermissionRequest: the command is rawInput.command and the
// title when there is none, paths are locations, and the four standard
// options are offered.
func TestSketchedPermissionRequest(t *testing.T) {
	t.Parallel()
	options := []approve.Option{
		{ID: "allow_once", Name: "Allow", Kind: approve.AllowOnce},
		{ID: "allow_always", Name: "Always Allow", Kind: approve.AllowAlways},
		{ID: "reject_once", Name: "Reject", Kind: approve.RejectOnce},
		{ID: "reject_always", Name: "Always Reject", Kind: approve.RejectAlways},
	}
	tests := []struct {
		sketch ToolCallSketch
		want   approve.Request
	}{
		{ToolCallSketch{Kind: "read"}, approve.Request{Kind: "read"}},
		{ToolCallSketch{Command: `echo "hi"`}, approve.Request{Title: `echo "hi"`, RawInput: json.RawMessage(`{"command":"echo \"hi\""}`)}},
		{ToolCallSketch{Title: "t", Command: "ls"}, approve.Request{Title: "t", RawInput: json.RawMessage(`{"command":"ls"}`)}},
		{ToolCallSketch{Kind: "edit", Paths: []string{"a", "/b"}}, approve.Request{Kind: "edit", Locations: []string{"a", "/b"}}},
	}
	for _, tt := range tests {
		tt.want.ToolCallID, tt.want.Options, tt.want.Cwd = "explain", options, "/w"
		if diff := cmp.Diff(tt.want, SketchedPermissionRequest(tt.sketch, "/w"), ignoreResolve); diff != "" {
			t.Errorf("SketchedPermissionRequest(%+v) (-want +got):\n%s", tt.sketch, diff)
		}
		if tt.sketch.Empty() {
			t.Errorf("%+v is Empty", tt.sketch)
		}
	}
	if !(ToolCallSketch{}).Empty() {
		t.Error("the zero sketch is not Empty")
	}
}

// TestPermissionRequestResolvesLinks: the policy sees the paths of a
// request as the OS resolves them, as acprun's fs jail does: a location or
// a redirection through a symbolic link in the cwd is denied by a deny
// rule of where the link leads, and no longer allowed by "**", while a
// cwd reached through a link still has its files allowed.
func TestPermissionRequestResolvesLinks(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, secret := filepath.Join(dir, "ws"), filepath.Join(dir, "secret")
	for _, d := range []string{ws, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{filepath.Join(ws, "lnk"): "../secret", filepath.Join(dir, "wslink"): "ws"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	deny := &approve.Policy{Default: approve.Allow, Deny: []approve.Rule{{Pos: "d:1", Path: []string{secret + "/**"}}}}
	allow := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Path: []string{"**"}}}}
	edit := func(path string) acp.ToolCall {
		return acp.ToolCall{ToolCallID: "e", Kind: acp.KindEdit, Locations: []acp.ToolCallLocation{{Path: path}}}
	}
	run := func(line string) acp.ToolCall {
		raw, _ := json.Marshal(map[string]string{"command": line})
		return acp.ToolCall{ToolCallID: "x", Kind: acp.KindExecute, RawInput: raw}
	}
	tests := []struct {
		name   string
		policy *approve.Policy
		call   acp.ToolCall
		cwd    string
		want   approve.Verdict
	}{
		{"deny: location through a link", deny, edit("lnk/a"), ws, approve.Deny},
		{"deny: redirection through a link", deny, run("echo x > lnk/b"), ws, approve.Deny},
		{"deny: a file of the cwd", deny, edit("a"), ws, approve.Allow},
		{"allow: location through a link out of the cwd", allow, edit("lnk/a"), ws, approve.Deny},
		{"allow: a file of the cwd", allow, edit("a"), ws, approve.Allow},
		{"allow: a file of a cwd given through a link", allow, edit("a"), filepath.Join(dir, "wslink"), approve.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.policy.Evaluate(PermissionRequest(tt.call, nil, tt.cwd))
			if d.Verdict != tt.want {
				t.Errorf("Evaluate() = %v (%s), paths %q; want %v", d.Verdict, d.Reason, d.Paths, tt.want)
			}
		})
	}
}
