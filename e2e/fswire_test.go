package e2e_test

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClientRequestsOnTheWire: the agent's fs and terminal requests as
// sent, through the binary: one without a member the schema requires is
// refused and changes nothing; one without sessionId is refused as a
// protocol violation; client.roots add to the session cwd; and paths the
// kernel would not follow are refused as it would.
func TestClientRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	ws := filepath.Join(dir, "ws")
	request := func(id, method, params string) string {
		return "      - garbage: '" + `{"jsonrpc":"2.0","id":"` + id + `","method":"` + method + `","params":` + params + "}'\n"
	}
	session := `"sessionId":"mock-session-1",`
	script := "turns:\n  - steps:\n" +
		request("nocontent", "fs/write_text_file", `{`+session+`"path":"`+ws+`/important.txt"}`) +
		request("nullcontent", "fs/write_text_file", `{`+session+`"path":"`+ws+`/important.txt","content":null}`) +
		request("novalue", "terminal/create", `{`+session+`"command":"echo","args":["[$A]"],"env":[{"name":"A"}]}`) +
		request("nosession", "fs/write_text_file", `{"path":"`+ws+`/planted.txt","content":"x"}`) +
		request("nullsession", "fs/read_text_file", `{"sessionId":null,"path":"`+ws+`/a.txt"}`) +
		request("slashwrite", "fs/write_text_file", `{`+session+`"path":"`+ws+`/new.txt/","content":"x"}`) +
		request("slashread", "fs/read_text_file", `{`+session+`"path":"`+ws+`/a.txt/"}`) +
		request("underfile", "fs/write_text_file", `{`+session+`"path":"`+ws+`/a.txt/b","content":"x"}`) +
		request("dotdot", "fs/read_text_file", `{`+session+`"path":"`+ws+`/missing/../a.txt"}`) +
		"      - read: {path: a.txt}\n" +
		"      - terminal: {command: pwd, waitForExit: true, output: true, release: true}\n" +
		"      - text: ' done'\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml":  script,
		"ws/important.txt": "keep me\n",
		"ws/a.txt":         "a\n",
		"other/.keep":      "",
		"s.yaml": `name: wire
agent: {command: [acprun, mock-agent, ../agent.mock.yaml], cwd: ./ws}
client: {roots: [./other]}
permissions: {default: deny, allow: [{kind: execute}]}
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 || len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("exit %d, %d scenarios; want 0, 1\nstderr:\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	sc := out.Scenarios[0]
	tr := sc.Turns[0]
	failed := map[string]string{} // the first failure of each path or command
	for _, r := range tr.ClientRequests {
		key := r.Method + " " + strings.TrimPrefix(cmp.Or(r.Path, r.Command), ws)
		if _, ok := failed[key]; !ok {
			failed[key] = r.Refused + r.Error
		}
	}

	t.Run("required members", func(t *testing.T) {
		if got, _ := os.ReadFile(filepath.Join(ws, "important.txt")); string(got) != "keep me\n" {
			t.Errorf("important.txt = %q after writes without content; want it unchanged", got)
		}
		n := 0
		for _, r := range tr.ClientRequests {
			switch r.Refused {
			case "invalid params: content is required":
				if r.Path == ws+"/important.txt" && r.Error == "" {
					n++
				}
			case "invalid params: env: value is required":
				if r.Error == "" {
					n++
				}
			}
		}
		if n != 3 {
			t.Errorf("client requests %+v: want the two writes without content (recorded with their path) and the env without value refused", tr.ClientRequests)
		}
	})
	t.Run("sessionId required", func(t *testing.T) {
		want := []string{
			"fs/write_text_file without a sessionId, which is required; refused",
			"fs/read_text_file without a sessionId, which is required; refused",
		}
		if strings.Join(sc.Violations, "\n") != strings.Join(want, "\n") {
			t.Errorf("violations = %q; want %q", sc.Violations, want)
		}
		if _, err := os.Stat(filepath.Join(ws, "planted.txt")); err == nil {
			t.Errorf("a write without sessionId was served")
		}
	})
	t.Run("the cwd is a root", func(t *testing.T) {
		if !strings.Contains(tr.Text, "read: a\n") || !strings.Contains(tr.Text, "exit 0: "+ws+"\n") {
			t.Errorf("text = %q; want a.txt read and pwd run in the cwd, %s", tr.Text, ws)
		}
	})
	t.Run("paths as the kernel has them", func(t *testing.T) {
		for key, want := range map[string]string{
			"fs/write_text_file /new.txt/":        ws + "/new.txt/ is not a regular file",
			"fs/read_text_file /a.txt/":           ws + "/a.txt/: " + ws + "/a.txt is not a directory",
			"fs/write_text_file /a.txt/b":         ws + "/a.txt/b: " + ws + "/a.txt is not a directory",
			"fs/read_text_file /missing/../a.txt": "Resource not found: " + ws + "/missing/../a.txt: " + ws + "/missing does not exist",
		} {
			if got := failed[key]; got != want {
				t.Errorf("%s: refused or failed %q; want %q", key, got, want)
			}
		}
		if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
			t.Errorf("a write to new.txt/ made new.txt")
		}
	})
}
