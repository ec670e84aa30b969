package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
)

// clientTree makes a session cwd (the root) with a few files, and a
// directory outside it.
func clientTree(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for p, content := range map[string]string{
		filepath.Join(root, "lines.txt"):      "one\ntwo\nthree\nfour\n",
		filepath.Join(root, "sub", "a.txt"):   "a",
		filepath.Join(outside, "secret.txt"):  "secret",
		filepath.Join(root, "no-newline.txt"): "x\ny",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func newTestClient(t *testing.T, cfg ClientConfig) *clientServer {
	t.Helper()
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	c := newClientServer(cfg)
	if c.jailErr != nil {
		t.Fatalf("roots: %v", c.jailErr)
	}
	t.Cleanup(c.close)
	return c
}

// clientCall serves one request; the result comes back as decoded JSON.
func clientCall(t *testing.T, c *clientServer, method string, params any) (map[string]any, report.ClientRequest, *acp.Error) {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	if !c.serves(method) {
		t.Fatalf("serves(%s) = false", method)
	}
	result, rec, err := c.handle(t.Context(), &acp.Request{ID: &acp.ID{}, Method: method, Params: raw})
	if err != nil {
		var ae *acp.Error
		if !errors.As(err, &ae) {
			t.Fatalf("%s: error %v is no *acp.Error", method, err)
		}
		if result != nil {
			t.Errorf("%s: result %v with error %v", method, result, err)
		}
		return nil, rec, ae
	}
	data, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: result %s is no object: %v", method, data, err)
	}
	return m, rec, nil
}

func clientInt(n int) *int { return &n }

func TestClientCapabilities(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	// Notices and compaction updates are always recorded.
	sess := &acp.ClientSessionCapabilities{Notices: &acp.Capability{}, Compaction: &acp.Capability{}}
	tests := []struct {
		name string
		cfg  ClientConfig
		want acp.ClientCapabilities
	}{
		{"all", ClientConfig{FS: true, Terminal: true}, acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true, Session: sess}},
		{"read-only still offers writes", ClientConfig{FS: true, ReadOnly: true}, acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Session: sess}},
		{"terminal only", ClientConfig{Terminal: true}, acp.ClientCapabilities{Terminal: true, Session: sess}},
		{"none", ClientConfig{}, acp.ClientCapabilities{Session: sess}},
		{"answers: form elicitation", ClientConfig{Elicitation: true}, acp.ClientCapabilities{Session: sess,
			Elicitation: &acp.ElicitationCapabilities{Form: &acp.Capability{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Cwd = root
			c := newTestClient(t, tt.cfg)
			if diff := cmp.Diff(tt.want, c.capabilities()); diff != "" {
				t.Errorf("capabilities() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientServesOnlyItsMethods(t *testing.T) {
	t.Parallel()
	c := newClientServer(ClientConfig{})
	defer c.close()
	for _, m := range []string{acp.MethodSessionUpdate, acp.MethodSessionRequestPermission, "fs/delete", "terminal/resize"} {
		if c.serves(m) {
			t.Errorf("serves(%s) = true", m)
		}
	}
}

func TestClientOff(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := newTestClient(t, ClientConfig{Cwd: root, Roots: []string{root}})
	for _, m := range []string{acp.MethodFSReadTextFile, acp.MethodFSWriteTextFile, acp.MethodTerminalCreate, acp.MethodTerminalOutput, acp.MethodTerminalWaitForExit, acp.MethodTerminalKill, acp.MethodTerminalRelease} {
		_, rec, err := clientCall(t, c, m, map[string]any{"sessionId": "s", "path": filepath.Join(root, "lines.txt"), "command": "true", "terminalId": "term-1"})
		if err == nil || err.Code != acp.CodeMethodNotFound {
			t.Errorf("%s with the capability off: err = %v; want code %d", m, err, acp.CodeMethodNotFound)
		}
		if rec.Method != m || rec.Refused == "" {
			t.Errorf("%s: record %+v; want the method and a refusal", m, rec)
		}
	}
}

func TestClientReadTextFile(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	c := newTestClient(t, ClientConfig{FS: true, Terminal: true, Cwd: root, Roots: []string{root}})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	lines := filepath.Join(root, "lines.txt")
	tests := []struct {
		name     string
		params   acp.ReadTextFileRequest
		want     string
		wantCode int    // 0: success
		wantMsg  string // in the error message
		wantRec  report.ClientRequest
	}{
		{"whole file", acp.ReadTextFileRequest{Path: lines}, "one\ntwo\nthree\nfour\n", 0, "",
			report.ClientRequest{Path: lines, Bytes: 19}},
		{"line and limit", acp.ReadTextFileRequest{Path: lines, Line: clientInt(2), Limit: clientInt(2)}, "two\nthree\n", 0, "",
			report.ClientRequest{Path: lines, Bytes: 10}},
		{"claude's read", acp.ReadTextFileRequest{Path: lines, Line: clientInt(1), Limit: clientInt(2000)}, "one\ntwo\nthree\nfour\n", 0, "",
			report.ClientRequest{Path: lines, Bytes: 19}},
		{"line only", acp.ReadTextFileRequest{Path: lines, Line: clientInt(4)}, "four\n", 0, "",
			report.ClientRequest{Path: lines, Bytes: 5}},
		{"line zero is the first", acp.ReadTextFileRequest{Path: lines, Line: clientInt(0), Limit: clientInt(1)}, "one\n", 0, "",
			report.ClientRequest{Path: lines, Bytes: 4}},
		{"past the end", acp.ReadTextFileRequest{Path: lines, Line: clientInt(9)}, "", 0, "",
			report.ClientRequest{Path: lines}},
		{"limit zero", acp.ReadTextFileRequest{Path: lines, Limit: clientInt(0)}, "", 0, "",
			report.ClientRequest{Path: lines}},
		{"last line without newline", acp.ReadTextFileRequest{Path: filepath.Join(root, "no-newline.txt"), Line: clientInt(2), Limit: clientInt(5)}, "y", 0, "",
			report.ClientRequest{Path: filepath.Join(root, "no-newline.txt"), Bytes: 1}},
		{"missing", acp.ReadTextFileRequest{Path: filepath.Join(root, "missing.txt")}, "", acp.CodeResourceNotFound, "not found",
			report.ClientRequest{Path: filepath.Join(root, "missing.txt"), Error: "Resource not found: " + filepath.Join(root, "missing.txt") + ": file not found"}},
		{"relative", acp.ReadTextFileRequest{Path: "lines.txt"}, "", acp.CodeInvalidParams, "absolute",
			report.ClientRequest{Path: "lines.txt", Refused: `path must be absolute: "lines.txt"`}},
		{"outside", acp.ReadTextFileRequest{Path: filepath.Join(outside, "secret.txt")}, "", acp.CodeInvalidParams, "outside the allowed roots",
			report.ClientRequest{Path: filepath.Join(outside, "secret.txt"), Refused: "" + filepath.Join(outside, "secret.txt") + " is outside the allowed roots (" + root + ")"}},
		{"dot-dot", acp.ReadTextFileRequest{Path: root + "/../outside/secret.txt"}, "", acp.CodeInvalidParams, "outside the allowed roots",
			report.ClientRequest{Path: root + "/../outside/secret.txt", Refused: "" + root + "/../outside/secret.txt is outside the allowed roots (" + root + ")"}},
		{"symlink out", acp.ReadTextFileRequest{Path: filepath.Join(root, "out", "secret.txt")}, "", acp.CodeInvalidParams, "outside the allowed roots",
			report.ClientRequest{Path: filepath.Join(root, "out", "secret.txt"), Refused: "" + filepath.Join(root, "out", "secret.txt") + " is outside the allowed roots (" + root + ")"}},
		{"directory", acp.ReadTextFileRequest{Path: filepath.Join(root, "sub")}, "", acp.CodeInvalidParams, "not a regular file",
			report.ClientRequest{Path: filepath.Join(root, "sub"), Error: "" + filepath.Join(root, "sub") + " is not a regular file"}},
		{"negative limit", acp.ReadTextFileRequest{Path: lines, Limit: clientInt(-1)}, "", acp.CodeInvalidParams, "limit",
			report.ClientRequest{Path: lines, Refused: "invalid params: limit: want a non-negative integer, got number -1"}},
		{"negative line", acp.ReadTextFileRequest{Path: lines, Line: clientInt(-1)}, "", acp.CodeInvalidParams, "line",
			report.ClientRequest{Path: lines, Refused: "invalid params: line: want a non-negative integer, got number -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.params.SessionID = "s"
			res, rec, err := clientCall(t, c, acp.MethodFSReadTextFile, tt.params)
			tt.wantRec.Method = acp.MethodFSReadTextFile
			if diff := cmp.Diff(tt.wantRec, rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
			if tt.wantCode != 0 {
				if err == nil || err.Code != tt.wantCode || !strings.Contains(err.Message, tt.wantMsg) {
					t.Errorf("err = %v; want code %d with %q", err, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if diff := cmp.Diff(map[string]any{"content": tt.want}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientWriteTextFile(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	scratch := filepath.Join(filepath.Dir(root), "scratch")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, ClientConfig{FS: true, Cwd: root, Roots: []string{root, scratch}})
	ro := newTestClient(t, ClientConfig{FS: true, ReadOnly: true, Cwd: root, Roots: []string{root}})
	// A sandbox that lets the agent write only its cwd: the second root is
	// read-only to it, and so to acprun's writes for it.
	sb := newTestClient(t, ClientConfig{FS: true, Cwd: root, Roots: []string{root, scratch}, Writable: []string{root}})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		c        *clientServer
		path     string
		wantCode int
		wantMsg  string
		refused  bool
		lands    string // where the content must be, for a success
	}{
		{"new file in a new dir", c, filepath.Join(root, "new", "dir", "f.txt"), 0, "", false, filepath.Join(root, "new", "dir", "f.txt")},
		{"overwrite", c, filepath.Join(root, "lines.txt"), 0, "", false, filepath.Join(root, "lines.txt")},
		{"second root", c, filepath.Join(scratch, "s.txt"), 0, "", false, filepath.Join(scratch, "s.txt")},
		{"outside", c, filepath.Join(outside, "x.txt"), acp.CodeInvalidParams, "outside the allowed roots", true, ""},
		{"symlinked parent", c, filepath.Join(root, "out", "x.txt"), acp.CodeInvalidParams, "outside the allowed roots", true, ""},
		{"relative", c, "x.txt", acp.CodeInvalidParams, "absolute", true, ""},
		{"read-only", ro, filepath.Join(root, "sub", "a.txt"), acp.CodeInvalidParams, "read-only", true, ""},
		{"sandbox write path", sb, filepath.Join(root, "sb.txt"), 0, "", false, filepath.Join(root, "sb.txt")},
		{"root the sandbox keeps read-only", sb, filepath.Join(scratch, "sb.txt"), acp.CodeInvalidParams, "read-only in the sandbox", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const content = "written by the agent\n"
			res, rec, err := clientCall(t, tt.c, acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{SessionID: "s", Path: tt.path, Content: content})
			if rec.Method != acp.MethodFSWriteTextFile || rec.Path != tt.path || rec.Bytes != len(content) || (rec.Refused != "") != tt.refused {
				t.Errorf("record = %+v; want path %s, %d bytes, refused %v", rec, tt.path, len(content), tt.refused)
			}
			if tt.wantCode != 0 {
				if err == nil || err.Code != tt.wantCode || !strings.Contains(err.Message, tt.wantMsg) {
					t.Errorf("err = %v; want code %d with %q", err, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if diff := cmp.Diff(map[string]any{}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if got, err := os.ReadFile(tt.lands); err != nil || string(got) != content {
				t.Errorf("%s = %q, %v; want %q", tt.lands, got, err, content)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Errorf("a write landed outside")
	}
	if _, err := os.Stat(filepath.Join(scratch, "sb.txt")); err == nil {
		t.Errorf("a write landed where the sandbox forbids")
	}
	if got, _ := os.ReadFile(filepath.Join(root, "sub", "a.txt")); string(got) != "a" {
		t.Errorf("read-only write changed sub/a.txt to %q", got)
	}
}

// TestClientCwdIsAlwaysARoot: roots that leave out the session cwd add
// to it, as ACP's additionalDirectories do: the cwd is still served, and
// a terminal without cwd starts there; outside the cwd and the roots is
// still refused.
func TestClientCwdIsAlwaysARoot(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	other := filepath.Join(filepath.Dir(root), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := &approve.Policy{Default: approve.Allow}
	c := newTestClient(t, ClientConfig{FS: true, Terminal: true, Cwd: root, Roots: []string{other}, Policy: policy})
	res, _, err := clientCall(t, c, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: filepath.Join(root, "sub", "a.txt")})
	if err != nil || res["content"] != "a" {
		t.Errorf("read in the cwd: %v, %v; want it served", res, err)
	}
	if _, _, err := clientCall(t, c, acp.MethodFSWriteTextFile, acp.WriteTextFileRequest{SessionID: "s", Path: filepath.Join(other, "o.txt"), Content: "o"}); err != nil {
		t.Errorf("write in the other root: %v", err)
	}
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "pwd"})
	res, _, err = clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id))
	if err != nil || res["exitCode"] != 0.0 {
		t.Fatalf("wait_for_exit: %v, %v", res, err)
	}
	if res, _, _ := clientCall(t, c, acp.MethodTerminalOutput, termRef(id)); res["output"] != root+"\n" {
		t.Errorf("a terminal without cwd ran in %q; want the session cwd %s", res["output"], root)
	}
	_, rec, err := clientCall(t, c, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: filepath.Join(outside, "secret.txt")})
	if want := filepath.Join(outside, "secret.txt") + " is outside the allowed roots (" + root + ", " + other + ")"; err == nil || rec.Refused != want {
		t.Errorf("read outside: %v, refused %q; want %q", err, rec.Refused, want)
	}
}

// terminalClient serves terminals in root with a policy allowing every
// command but rm.
func terminalClient(t *testing.T, root string) *clientServer {
	t.Helper()
	policy := &approve.Policy{
		Default: approve.Deny,
		Allow:   []approve.Rule{{Pos: "s.yaml:5", Command: []string{"*"}}},
		Deny:    []approve.Rule{{Pos: "s.yaml:9", Command: []string{"rm *"}}},
	}
	return newTestClient(t, ClientConfig{
		FS: true, Terminal: true, Cwd: root, Roots: []string{root}, Policy: policy,
		Env: append(os.Environ(), "BASE=base", "OVER=base"),
	})
}

func clientCreateTerminal(t *testing.T, c *clientServer, p acp.CreateTerminalRequest) string {
	t.Helper()
	p.SessionID = "s"
	res, rec, err := clientCall(t, c, acp.MethodTerminalCreate, p)
	if err != nil {
		t.Fatalf("terminal/create %q: %v", p.Command, err)
	}
	id, _ := res["terminalId"].(string)
	if id == "" || rec.TerminalID != id {
		t.Fatalf("result %v, record %+v", res, rec)
	}
	return id
}

func termRef(id string) acp.TerminalOutputRequest {
	return acp.TerminalOutputRequest{SessionID: "s", TerminalID: id}
}

// TestClientTerminalOutputLimitZero: outputByteLimit 0 keeps no output,
// as the agent asked, and says the output was truncated when there was
// some.
func TestClientTerminalOutputLimitZero(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	for command, truncated := range map[string]bool{"printf abcdef": true, "true": false} {
		id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: command, OutputByteLimit: ptr(int64(0))})
		if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id)); err != nil {
			t.Fatal(err)
		}
		res, _, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"output": "", "truncated": truncated, "exitStatus": map[string]any{"exitCode": 0.0}}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("%s: output result (-want +got):\n%s", command, diff)
		}
	}
}

func TestClientTerminal(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	limit := int64(8)
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{
		Command:         `echo "$BASE $OVER $NEW"; pwd; printf 'héé' >&2; exit 3`,
		Env:             []acp.EnvVariable{{Name: "OVER", Value: "req"}, {Name: "NEW", Value: "new"}},
		Cwd:             filepath.Join(root, "sub"),
		OutputByteLimit: &limit,
	})

	res, rec, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"exitCode": 3.0}, res); diff != "" {
		t.Errorf("wait_for_exit result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(report.ClientRequest{Method: acp.MethodTerminalWaitForExit, TerminalID: id, ExitCode: clientInt(3)}, rec); diff != "" {
		t.Errorf("wait_for_exit record (-want +got):\n%s", diff)
	}

	// The whole output is "base req new\n<root>/sub\nhéé": 8 bytes kept,
	// cut at a character: "/subhéé" would be 9 bytes.
	res, rec, err = clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"output": "ub\nhéé", "truncated": true, "exitStatus": map[string]any{"exitCode": 3.0}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("output result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(report.ClientRequest{Method: acp.MethodTerminalOutput, TerminalID: id, Bytes: 8, Truncated: true, ExitCode: clientInt(3)}, rec); diff != "" {
		t.Errorf("output record (-want +got):\n%s", diff)
	}

	_, rec, err = clientCall(t, c, acp.MethodTerminalRelease, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(report.ClientRequest{Method: acp.MethodTerminalRelease, TerminalID: id, ExitCode: clientInt(3)}, rec); diff != "" {
		t.Errorf("release record (-want +got):\n%s", diff)
	}
	for _, m := range []string{acp.MethodTerminalOutput, acp.MethodTerminalWaitForExit, acp.MethodTerminalKill, acp.MethodTerminalRelease} {
		_, rec, err := clientCall(t, c, m, termRef(id))
		if err == nil || err.Code != acp.CodeResourceNotFound || rec.Error == "" || rec.TerminalID != id {
			t.Errorf("%s after release: err %v, record %+v; want code %d, recorded", m, err, rec, acp.CodeResourceNotFound)
		}
	}
}

func TestClientTerminalFullOutput(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "cat", Args: []string{"lines.txt"}})
	if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id)); err != nil {
		t.Fatal(err)
	}
	res, _, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"output": "one\ntwo\nthree\nfour\n", "truncated": false, "exitStatus": map[string]any{"exitCode": 0.0}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("output result (-want +got):\n%s", diff)
	}
}

func TestClientTerminalKill(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "sleep 1000 & wait"})
	res, rec, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"output": "", "truncated": false}, res); diff != "" {
		t.Errorf("output of a running command (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(report.ClientRequest{Method: acp.MethodTerminalOutput, TerminalID: id}, rec); diff != "" {
		t.Errorf("output record (-want +got):\n%s", diff)
	}
	_, rec, err = clientCall(t, c, acp.MethodTerminalKill, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(report.ClientRequest{Method: acp.MethodTerminalKill, TerminalID: id}, rec); diff != "" {
		t.Errorf("kill record (-want +got):\n%s", diff)
	}
	res, rec, err = clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"signal": "SIGKILL"}, res); diff != "" {
		t.Errorf("wait_for_exit after kill (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(report.ClientRequest{Method: acp.MethodTerminalWaitForExit, TerminalID: id, Signal: "SIGKILL"}, rec); diff != "" {
		t.Errorf("wait_for_exit record (-want +got):\n%s", diff)
	}
}

func TestClientTerminalRefusals(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	c := terminalClient(t, root)
	tests := []struct {
		name     string
		params   acp.CreateTerminalRequest
		wantCode int
		wantMsg  string
		wantRec  report.ClientRequest
		by       string // "allow RULE" or "deny RULE": the policy's decision, when asked
	}{
		{"denied shell line", acp.CreateTerminalRequest{Command: "ls && rm -rf sub"}, acp.CodeInvalidParams, "denied by rule s.yaml:9",
			report.ClientRequest{Command: "ls && rm -rf sub", Refused: "command denied by rule s.yaml:9: ls && rm -rf sub"}, "deny s.yaml:9"},
		{"denied argv", acp.CreateTerminalRequest{Command: "rm", Args: []string{"-rf", "my dir"}}, acp.CodeInvalidParams, "denied by rule",
			report.ClientRequest{Command: "rm -rf 'my dir'", Refused: "command denied by rule s.yaml:9: rm -rf 'my dir'"}, "deny s.yaml:9"},
		{"denied through sh -c", acp.CreateTerminalRequest{Command: "/bin/sh", Args: []string{"-c", "rm -rf sub"}}, acp.CodeInvalidParams, "denied by rule",
			report.ClientRequest{Command: "/bin/sh -c 'rm -rf sub'", Refused: "command denied by rule s.yaml:9: /bin/sh -c 'rm -rf sub'"}, "deny s.yaml:9"},
		{"cwd outside", acp.CreateTerminalRequest{Command: "ls", Cwd: outside}, acp.CodeInvalidParams, "outside the allowed roots",
			report.ClientRequest{Command: "ls", Refused: "" + outside + " is outside the allowed roots (" + root + ")"}, "allow s.yaml:5"},
		{"cwd relative", acp.CreateTerminalRequest{Command: "ls", Cwd: "sub"}, acp.CodeInvalidParams, "absolute",
			report.ClientRequest{Command: "ls", Refused: `cwd must be absolute: "sub"`}, ""},
		{"cwd a file", acp.CreateTerminalRequest{Command: "ls", Cwd: filepath.Join(root, "lines.txt")}, acp.CodeInvalidParams, "not a directory",
			report.ClientRequest{Command: "ls", Error: "" + filepath.Join(root, "lines.txt") + " is not a directory"}, "allow s.yaml:5"},
		{"empty command", acp.CreateTerminalRequest{Command: ""}, acp.CodeInvalidParams, "empty",
			report.ClientRequest{Refused: "empty command"}, ""},
		{"negative outputByteLimit", acp.CreateTerminalRequest{Command: "ls", OutputByteLimit: ptr(int64(-1))}, acp.CodeInvalidParams, "negative",
			report.ClientRequest{Command: "ls", Refused: "invalid params: outputByteLimit: want a non-negative integer, got number -1"}, ""},
		{"unknown program", acp.CreateTerminalRequest{Command: "no-such-program-acprun"}, acp.CodeInternalError, "not found",
			report.ClientRequest{Command: "no-such-program-acprun", Error: `no-such-program-acprun: executable file not found in $PATH`}, "allow s.yaml:5"},
		{"env name with =", acp.CreateTerminalRequest{Command: "env", Env: []acp.EnvVariable{{Name: "OK", Value: "1"}, {Name: "INJ=EVIL", Value: "x"}}},
			acp.CodeInvalidParams, `env[1]: bad environment variable "INJ=EVIL"`,
			report.ClientRequest{Command: "env", Refused: badEnv(1, "INJ=EVIL")}, ""},
		{"empty env name", acp.CreateTerminalRequest{Command: "env", Env: []acp.EnvVariable{{Name: "", Value: "x"}}},
			acp.CodeInvalidParams, `env[0]: bad environment variable ""`,
			report.ClientRequest{Command: "env", Refused: badEnv(0, "")}, ""},
		{"env name that is no shell name", acp.CreateTerminalRequest{Command: "env", Env: []acp.EnvVariable{{Name: "A.B", Value: "x"}}},
			acp.CodeInvalidParams, `env[0]: bad environment variable "A.B"`,
			report.ClientRequest{Command: "env", Refused: badEnv(0, "A.B")}, ""},
		{"env name starting with a digit", acp.CreateTerminalRequest{Command: "env", Env: []acp.EnvVariable{{Name: "1A", Value: "x"}}},
			acp.CodeInvalidParams, `env[0]: bad environment variable "1A"`,
			report.ClientRequest{Command: "env", Refused: badEnv(0, "1A")}, ""},
		{"NUL in an env value", acp.CreateTerminalRequest{Command: "env", Env: []acp.EnvVariable{{Name: "A", Value: "x\x00B=y"}}},
			acp.CodeInvalidParams, `env[0]: bad environment variable "A"`,
			report.ClientRequest{Command: "env", Refused: badEnv(0, "A")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.params.SessionID = "s"
			_, rec, err := clientCall(t, c, acp.MethodTerminalCreate, tt.params)
			if err == nil || err.Code != tt.wantCode || !strings.Contains(err.Message, tt.wantMsg) {
				t.Errorf("err = %v; want code %d with %q", err, tt.wantCode, tt.wantMsg)
			}
			tt.wantRec.Method = acp.MethodTerminalCreate
			if verdict, rule, ok := strings.Cut(tt.by, " "); ok {
				tt.wantRec.Decision, tt.wantRec.Rule, tt.wantRec.Reason = verdict, rule, verdict+" rule "+rule+" matched"
			}
			if diff := cmp.Diff(tt.wantRec, rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "sub", "a.txt")); err != nil {
		t.Errorf("a denied rm ran: %v", err)
	}
}

// badEnv is the refusal of the bad env entry i named name.
func badEnv(i int, name string) string {
	return fmt.Sprintf("invalid params: env[%d]: bad environment variable %q: a name must be letters, digits and _ (not starting with a digit), a value without NUL", i, name)
}

// TestClientTerminalPolicy: every command the agent runs is put to the
// policy exactly as a permission request for it would be: deny rules,
// allow rules, then the default (a nil policy denies), and the decision is
// recorded. A refused command never runs.
func TestClientTerminalPolicy(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	pwned := filepath.Join(outside, "PWNED")
	echoOnly := &approve.Policy{Default: approve.Deny, Allow: []approve.Rule{{Pos: "s.yaml:4", Command: []string{"echo *"}}}}
	noOutside := &approve.Policy{Default: approve.Deny,
		Allow: echoOnly.Allow, Deny: []approve.Rule{{Pos: "s.yaml:7", Path: []string{outside + "/**"}}}}
	envDeny := &approve.Policy{Default: approve.Deny,
		Allow: echoOnly.Allow, Deny: []approve.Rule{{Pos: "s.yaml:7", Command: []string{"BASH_ENV=*", "LD_PRELOAD=*"}}}}
	evil := filepath.Join(outside, "evil.sh")
	if err := os.WriteFile(evil, []byte("touch "+pwned+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inCwd := &approve.Policy{Default: approve.Deny,
		Allow: []approve.Rule{{Pos: "s.yaml:4", Command: []string{"echo *"}, Path: []string{"sub/**"}}}}
	tests := []struct {
		name    string
		policy  *approve.Policy
		params  acp.CreateTerminalRequest
		want    report.ClientRequest // Method, Command and TerminalID are filled in
		created string               // the file the command writes when it runs
	}{
		{"default deny without allow rules", &approve.Policy{Default: approve.Deny},
			acp.CreateTerminalRequest{Command: "echo hi > " + pwned},
			report.ClientRequest{Decision: "deny", Reason: "no rule matched; default deny",
				Refused: "command denied (no rule matched; default deny): echo hi > " + pwned}, ""},
		{"no policy", nil,
			acp.CreateTerminalRequest{Command: "echo hi > " + pwned},
			report.ClientRequest{Decision: "deny", Reason: "no permissions; default deny",
				Refused: "command denied (no policy; default deny): echo hi > " + pwned}, ""},
		{"--deny-all", approve.DenyAll(),
			acp.CreateTerminalRequest{Command: "echo hi > " + pwned},
			report.ClientRequest{Decision: "deny", Rule: "--deny-all", Reason: "no rule matched; default deny (--deny-all)",
				Refused: "command denied (no rule matched; default deny (--deny-all)): echo hi > " + pwned}, ""},
		{"--allow-all", approve.AllowAll(),
			acp.CreateTerminalRequest{Command: "echo hi > " + pwned},
			report.ClientRequest{Decision: "allow", Rule: "--allow-all", Reason: "no rule matched; default allow (--allow-all)"}, pwned},
		{"a command no allow rule allows", echoOnly,
			acp.CreateTerminalRequest{Command: "echo hi && touch " + pwned},
			report.ClientRequest{Decision: "deny", Reason: "no rule matched; default deny",
				Refused: `command denied (no rule matched; default deny; no allow rule allows command "touch ` + pwned + `"): echo hi && touch ` + pwned}, ""},
		{"allowed through a shell wrapper", echoOnly,
			acp.CreateTerminalRequest{Command: "bash", Args: []string{"-c", "echo hi > " + pwned}},
			report.ClientRequest{Decision: "allow", Rule: "s.yaml:4", Reason: "allow rule s.yaml:4 matched"}, pwned},
		{"redirection denied by a path rule", noOutside,
			acp.CreateTerminalRequest{Command: "echo hi > " + pwned},
			report.ClientRequest{Decision: "deny", Rule: "s.yaml:7", Reason: "deny rule s.yaml:7 matched",
				Refused: "command denied by rule s.yaml:7: echo hi > " + pwned}, ""},
		{"relative redirection in the terminal's cwd", inCwd,
			acp.CreateTerminalRequest{Command: "echo hi > out.txt", Cwd: filepath.Join(root, "sub")},
			report.ClientRequest{Decision: "allow", Rule: "s.yaml:4", Reason: "allow rule s.yaml:4 matched"}, filepath.Join(root, "sub", "out.txt")},
		// The terminal's env is seen as assignments written before the
		// command, and recorded so.
		{"env denied by an assignment rule", envDeny,
			acp.CreateTerminalRequest{Command: "bash", Args: []string{"-c", "echo hi"}, Env: []acp.EnvVariable{{Name: "A", Value: "1"}, {Name: "BASH_ENV", Value: evil}}},
			report.ClientRequest{Decision: "deny", Rule: "s.yaml:7", Reason: "deny rule s.yaml:7 matched",
				Refused: "command denied by rule s.yaml:7: A=1 BASH_ENV=" + evil + " bash -c 'echo hi'"}, ""},
		{"env on a shell line", envDeny,
			acp.CreateTerminalRequest{Command: "echo hi; echo there", Env: []acp.EnvVariable{{Name: "LD_PRELOAD", Value: "x.so"}}},
			report.ClientRequest{Decision: "deny", Rule: "s.yaml:7", Reason: "deny rule s.yaml:7 matched",
				Refused: "command denied by rule s.yaml:7: LD_PRELOAD=x.so echo hi; echo there"}, ""},
		{"env allowed as written before the command", envDeny,
			acp.CreateTerminalRequest{Command: "echo \"$GREETING\" > " + pwned, Env: []acp.EnvVariable{{Name: "GREETING", Value: "hello world"}}},
			report.ClientRequest{Decision: "allow", Rule: "s.yaml:4", Reason: "allow rule s.yaml:4 matched"}, pwned},
		{"relative redirection out of the allowed paths", inCwd,
			acp.CreateTerminalRequest{Command: "echo hi > ../escaped.txt", Cwd: filepath.Join(root, "sub")},
			report.ClientRequest{Decision: "deny", Reason: "no rule matched; default deny",
				Refused: "command denied (no rule matched; default deny): echo hi > ../escaped.txt"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(pwned)
			c := newTestClient(t, ClientConfig{Terminal: true, Cwd: root, Roots: []string{root}, Policy: tt.policy})
			tt.params.SessionID = "s"
			res, rec, err := clientCall(t, c, acp.MethodTerminalCreate, tt.params)
			tt.want.Method, tt.want.Command = acp.MethodTerminalCreate, envLine(tt.params.Env, commandLine(tt.params.Command, tt.params.Args))
			if tt.created == "" {
				if err == nil || err.Code != acp.CodeInvalidParams || err.Message != tt.want.Refused {
					t.Errorf("err = %v; want code %d: %s", err, acp.CodeInvalidParams, tt.want.Refused)
				}
			} else {
				if err != nil {
					t.Fatalf("terminal/create: %v", err)
				}
				tt.want.TerminalID, _ = res["terminalId"].(string)
				if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(tt.want.TerminalID)); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(tt.created); err != nil {
					t.Errorf("the allowed command did not run: %v", err)
				}
			}
			if diff := cmp.Diff(tt.want, rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
			for _, f := range []string{pwned, filepath.Join(root, "escaped.txt")} {
				if _, err := os.Stat(f); err == nil && f != tt.created {
					t.Errorf("a refused command ran: %s exists", f)
				}
			}
		})
	}
}

// TestClientKillAnsweredOnceEnded: terminal/kill is answered once the
// command has ended and its output was drained: the terminal/output sent
// after it (an agent's timeout: kill, then output) says how it ended,
// every run.
func TestClientKillAnsweredOnceEnded(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "sleep", Args: []string{"1000"}})
	if _, _, err := clientCall(t, c, acp.MethodTerminalKill, termRef(id)); err != nil {
		t.Fatal(err)
	}
	res, rec, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := res["exitStatus"].(map[string]any); st["signal"] != "SIGKILL" || rec.Signal != "SIGKILL" {
		t.Errorf("terminal/output after terminal/kill = %v, record %+v; want the exit status, signal SIGKILL", res, rec)
	}
}

func TestClientKillAllAndClose(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := newClientServer(ClientConfig{Terminal: true, Cwd: root, Roots: []string{root}, Env: os.Environ(), Policy: approve.AllowAll()})
	a := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "sleep", Args: []string{"1000"}})
	c.killAll()
	res, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(a))
	if err != nil || res["signal"] != "SIGKILL" {
		t.Errorf("wait_for_exit after killAll = %v, %v; want SIGKILL", res, err)
	}
	b := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "sleep", Args: []string{"1000"}})
	term, err2 := c.terms.Get(b)
	if err2 != nil {
		t.Fatal(err2)
	}
	c.close()
	select {
	case <-term.Done():
	default:
		t.Errorf("terminal %s still running after close", b)
	}
	_, rec, aerr := clientCall(t, c, acp.MethodTerminalCreate, acp.CreateTerminalRequest{SessionID: "s", Command: "true"})
	if aerr == nil || rec.Error == "" {
		t.Errorf("terminal/create after close: err %v, record %+v; want an error", aerr, rec)
	}
}

func TestClientWaitForExitCancelled(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "sleep", Args: []string{"1000"}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	raw, _ := json.Marshal(termRef(id))
	_, rec, err := c.handle(ctx, &acp.Request{ID: &acp.ID{}, Method: acp.MethodTerminalWaitForExit, Params: raw})
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeRequestCancelled || rec.Error == "" {
		t.Errorf("wait_for_exit with a cancelled ctx: err %v, record %+v; want code %d, recorded", err, rec, acp.CodeRequestCancelled)
	}
}

func TestClientBadParams(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	for _, m := range []string{acp.MethodFSReadTextFile, acp.MethodFSWriteTextFile, acp.MethodTerminalCreate, acp.MethodTerminalOutput, acp.MethodTerminalRelease} {
		for _, params := range []json.RawMessage{nil, json.RawMessage(`[1]`), json.RawMessage(`{"path": 3, "command": 4, "terminalId": 5}`)} {
			_, rec, err := c.handle(t.Context(), &acp.Request{ID: &acp.ID{}, Method: m, Params: params})
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || rec.Refused == "" || rec.Error != "" {
				t.Errorf("%s %s: err %v, record %+v; want code %d, recorded refused", m, params, err, rec, acp.CodeInvalidParams)
			}
		}
	}
}

// TestClientRequiredMembers: a request without a member the schema
// requires, or with it null, is refused as invalid params (recorded so,
// with its path when it has one), not served with its zero value: a write
// without content leaves the file as it was, an env variable without value
// sets nothing.
func TestClientRequiredMembers(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	file := filepath.Join(root, "lines.txt")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, params, want, path string
	}{
		{acp.MethodFSWriteTextFile, `{"sessionId":"s","path":"` + file + `"}`, "invalid params: content is required", file},
		{acp.MethodFSWriteTextFile, `{"sessionId":"s","path":"` + file + `","content":null}`, "invalid params: content is required", file},
		{acp.MethodFSReadTextFile, `{"sessionId":"s"}`, "invalid params: path is required", ""},
		{acp.MethodFSReadTextFile, `{"sessionId":"s","path":"` + file + `","line":"x"}`, "", file},
		{acp.MethodTerminalCreate, `{"sessionId":"s","command":"env","env":[{"name":"A"}]}`, "invalid params: env: value is required", ""},
		{acp.MethodTerminalOutput, `{"sessionId":"s","terminalId":null}`, "invalid params: terminalId is required", ""},
	} {
		_, rec, err := c.handle(t.Context(), &acp.Request{ID: &acp.ID{}, Method: tt.method, Params: json.RawMessage(tt.params)})
		var ae *acp.Error
		if tt.want == "" && ae == nil && errors.As(err, &ae) {
			tt.want = ae.Message // a bad value: its message is the decoder's
		}
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || ae.Message != tt.want || rec.Refused != tt.want || rec.Error != "" || rec.Path != tt.path {
			t.Errorf("%s %s: err %v, record %+v; want code %d, %q", tt.method, tt.params, err, rec, acp.CodeInvalidParams, tt.want)
		}
	}
	if after, err := os.ReadFile(file); err != nil || string(after) != string(before) {
		t.Errorf("%s = %q, %v after writes without content; want it unchanged, %q", file, after, err, before)
	}
}

func TestClientMissingRoot(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := newClientServer(ClientConfig{FS: true, Cwd: root, Roots: []string{filepath.Join(root, "missing")}})
	defer c.close()
	_, rec, err := clientCall(t, c, acp.MethodFSReadTextFile, acp.ReadTextFileRequest{SessionID: "s", Path: filepath.Join(root, "lines.txt")})
	if err == nil || err.Code != acp.CodeInternalError || !strings.Contains(rec.Error, "roots") {
		t.Errorf("read with a missing root: err %v, record %+v; want code %d about the roots", err, rec, acp.CodeInternalError)
	}
}

func TestClientCommandLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		args    []string
		env     []acp.EnvVariable
		want    string
	}{
		{"ls -la | head", nil, nil, "ls -la | head"},
		{"git", []string{"commit", "-m", "it's done"}, nil, `git commit -m 'it'\''s done'`},
		{"/my bin/x", []string{"", "a=b"}, nil, `'/my bin/x' '' a=b`},
		{"ls", nil, []acp.EnvVariable{{Name: "A", Value: "1"}, {Name: "B", Value: ""}, {Name: "C", Value: "it's $(x) `y`;"}, {Name: "A", Value: "2"}},
			`A=1 B='' C='it'\''s $(x) ` + "`y`" + `;' A=2 ls`},
		{"bash", []string{"-c", "echo hi"}, []acp.EnvVariable{{Name: "BASH_ENV", Value: "/tmp/evil.sh"}}, `BASH_ENV=/tmp/evil.sh bash -c 'echo hi'`},
	}
	for _, tt := range tests {
		if got := envLine(tt.env, commandLine(tt.command, tt.args)); got != tt.want {
			t.Errorf("envLine(%q, commandLine(%q, %q)) = %q; want %q", tt.env, tt.command, tt.args, got, tt.want)
		}
	}
}

// TestClientRefusedCommandsCountInNeither: a terminal/create the policy
// allowed but acprun refused for another reason (its cwd outside the
// roots, also with a read-only client) counts in neither allowed nor
// denied, and its record keeps the policy's decision beside the refusal.
// A served command and a denied one count.
func TestClientRefusedCommandsCountInNeither(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	for _, client := range []string{"", "client: {readOnly: true}\n"} {
		rep := runScenarios(t, Options{}, `name: refused
agent: {command: [acprun, mock-agent, a.mock.yaml]}
`+client+`permissions: {allow: [{kind: execute, command: ls}], deny: [{command: "rm *"}]}
turns: [{prompt: hi}]
`, map[string]string{"a.mock.yaml": `turns:
  - steps:
      - terminal: {command: ls, cwd: ` + outside + `, waitForExit: true}
      - terminal: {command: ls, waitForExit: true}
      - terminal: {command: rm, args: [x], cwd: ` + outside + `, waitForExit: true}
`})
		sc := rep.Scenarios[0]
		if sc.Allowed != 1 || sc.Denied != 1 {
			t.Errorf("%sallowed/denied = %d/%d, want 1/1", client, sc.Allowed, sc.Denied)
		}
		var creates []report.ClientRequest
		for _, r := range sc.Turns[0].ClientRequests {
			if r.Method == acp.MethodTerminalCreate {
				creates = append(creates, r)
			}
		}
		if len(creates) != 3 {
			t.Fatalf("%sterminal/create records = %+v, want 3", client, creates)
		}
		if r := creates[0]; !strings.Contains(r.Refused, "outside the allowed roots") || r.Decision != "allow" {
			t.Errorf("%scwd outside = %+v, want refused, the policy's allow kept", client, r)
		}
		if r := creates[1]; r.Refused != "" || r.Decision != "allow" {
			t.Errorf("%sls = %+v, want allowed and served", client, r)
		}
		if r := creates[2]; r.Decision != "deny" {
			t.Errorf("%sdenied rm = %+v, want denied", client, r)
		}
	}
}

// TestClientTerminalOutputFitsAnAnswer: the output terminal/output sends
// takes at most maxAnswer bytes as JSON, however much the terminal keeps
// (by default, or the larger outputByteLimit the agent asked for): a NUL
// takes six bytes there, so only the end that fits is sent, truncated
// (2 MB of NULs, all kept, take 12 MB as JSON).
func TestClientTerminalOutputFitsAnAnswer(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	for _, limit := range []*int64{nil, ptr(int64(64 << 20))} {
		t.Run(map[bool]string{false: "default limit", true: "64 MiB limit"}[limit != nil], func(t *testing.T) {
			t.Parallel()
			id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "head -c 2000000 /dev/zero; printf end", OutputByteLimit: limit})
			if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id)); err != nil {
				t.Fatal(err)
			}
			res, rec, err := clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := res["output"].(string)
			wantBytes := (maxAnswer-len("end"))/len(`\u0000`) + len("end")
			if len(out) != wantBytes || !strings.HasSuffix(out, "\x00end") || res["truncated"] != true {
				t.Errorf("outputByteLimit %v: output of %d bytes ending %q, truncated %v; want its last %d bytes, truncated",
					limit, len(out), out[max(len(out)-4, 0):], res["truncated"], wantBytes)
			}
			if line, _ := json.Marshal(res); len(line) > maxAnswer+100 {
				t.Errorf("outputByteLimit %v: the answer takes %d bytes as JSON, want at most %d and its keys", limit, len(line), maxAnswer)
			}
			if rec.Bytes != wantBytes || !rec.Truncated {
				t.Errorf("outputByteLimit %v: record %+v, want %d bytes, truncated", limit, rec, wantBytes)
			}
		})
	}
}

// TestClientTerminalCwdHeld: a terminal starts in the very directory its
// cwd named when it was checked: one swapped for a symlink leading out of
// the roots before the command starts does not take it there.
func TestClientTerminalCwdHeld(t *testing.T) {
	t.Parallel()
	root, outside := clientTree(t)
	c := terminalClient(t, root)
	sub := filepath.Join(root, "sub")
	c.beforeStart = func() {
		if err := os.Rename(sub, sub+".moved"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, sub); err != nil {
			t.Fatal(err)
		}
	}
	res, _, err := clientCall(t, c, acp.MethodTerminalCreate, acp.CreateTerminalRequest{Command: "pwd -P", Cwd: sub})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res["terminalId"].(string)
	if _, _, err := clientCall(t, c, acp.MethodTerminalWaitForExit, termRef(id)); err != nil {
		t.Fatal(err)
	}
	res, _, err = clientCall(t, c, acp.MethodTerminalOutput, termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	if got := res["output"]; got != sub+".moved\n" {
		t.Errorf("the terminal ran in %q; want %q, the directory checked", got, sub+".moved\n")
	}
}

// TestClientTerminalCwdMissing: a cwd that does not exist is said to be
// missing.
func TestClientTerminalCwdMissing(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	cwd := filepath.Join(root, "gone")
	_, rec, err := clientCall(t, c, acp.MethodTerminalCreate, acp.CreateTerminalRequest{Command: "pwd", Cwd: cwd})
	want := "Resource not found: the cwd " + cwd + " does not exist"
	if err == nil || err.Code != acp.CodeResourceNotFound || err.Message != want || rec.Error != want {
		t.Errorf("err %v, record %+v; want %q (%d)", err, rec, want, acp.CodeResourceNotFound)
	}
}

// TestClientWaitForExitUnanswered: a terminal/wait_for_exit whose
// connection closes while its command runs is recorded with the reason in
// words, not Go's "context canceled".
func TestClientWaitForExitUnanswered(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	id := clientCreateTerminal(t, c, acp.CreateTerminalRequest{Command: "sleep 100"})
	raw, err := json.Marshal(termRef(id))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(acp.ErrClosed) // the connection closed
	_, rec, err := c.handle(ctx, &acp.Request{ID: &acp.ID{}, Method: acp.MethodTerminalWaitForExit, Params: raw})
	const want = "not answered: the connection to the agent was closed while waiting for the command to exit"
	if err == nil || rec.Error != want {
		t.Errorf("record error %q (err %v), want %q", rec.Error, err, want)
	}
}

// TestClientMalformedKeepsCommand: a terminal/create refused because a
// member is malformed (an argument that is not a string, args that are not
// an array, a path of the wrong type) is still recorded with its command
// (and a request with a path, with its path): a malformed member elsewhere
// does not lose what the agent asked to run. A word that is not a string
// is recorded as the JSON the agent sent.
func TestClientMalformedKeepsCommand(t *testing.T) {
	t.Parallel()
	root, _ := clientTree(t)
	c := terminalClient(t, root)
	file := filepath.Join(root, "lines.txt")
	for _, tt := range []struct {
		method, params, command, path string
	}{
		{acp.MethodTerminalCreate, `{"sessionId":"s","command":"rm","args":["-rf",1,{"a":"b"}]}`, `rm -rf 1 '{"a":"b"}'`, ""},
		{acp.MethodTerminalCreate, `{"sessionId":"s","command":"rm","args":"-rf /"}`, `rm '"-rf /"'`, ""},
		{acp.MethodTerminalCreate, `{"sessionId":"s","command":"ls","args":["-l"],"outputByteLimit":"x"}`, "ls -l", ""},
		{acp.MethodTerminalCreate, `{"sessionId":"s","command":7}`, "", ""},
		{acp.MethodFSReadTextFile, `{"sessionId":"s","path":"` + file + `","line":"x","command":"ls","args":[1]}`, "", file},
	} {
		_, rec, err := c.handle(t.Context(), &acp.Request{ID: &acp.ID{}, Method: tt.method, Params: json.RawMessage(tt.params)})
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || rec.Refused == "" || rec.Command != tt.command || rec.Path != tt.path {
			t.Errorf("%s %s: err %v, record %+v; want code %d, refused, command %q, path %q", tt.method, tt.params, err, rec, acp.CodeInvalidParams, tt.command, tt.path)
		}
	}
}
