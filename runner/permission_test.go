package runner

import (
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

// ignoreResolve leaves out a Request's Resolve, a func, from comparisons
// (TestPermissionRequestResolvesLinks tests it).
var ignoreResolve = cmpopts.IgnoreFields(approve.Request{}, "Resolve")

// TestRecordedPermissionRequest: a params object and the whole JSON-RPC
// message read the same; what is not a permission request is an error
// that says so.
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
		if diff := cmp.Diff(want, got, ignoreResolve); diff != "" {
			t.Errorf("RecordedPermissionRequest(%s) (-want +got):\n%s", data, diff)
		}
	}
	for data, wantErr := range map[string]string{
		`not json`:                  "not a session/request_permission params object: ",
		`{"toolCall": 3}`:           "not a session/request_permission params object: ",
		`{"sessionId":"s"}`:         "no toolCall in the request",
		`{"params":{"options":[]}}`: "no toolCall in the request",
	} {
		_, err := RecordedPermissionRequest([]byte(data), "/w")
		if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
			t.Errorf("RecordedPermissionRequest(%s) = %v, want %q…", data, err, wantErr)
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
