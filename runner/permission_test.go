package runner

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
)

// TestRecordedPermissionRequest: a params object and the whole JSON-RPC
// message read the same; what is not a permission request is an error
// that says so.
func TestRecordedPermissionRequest(t *testing.T) {
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
		if diff := cmp.Diff(want, got); diff != "" {
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
		if diff := cmp.Diff(tt.want, SketchedPermissionRequest(tt.sketch, "/w")); diff != "" {
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
