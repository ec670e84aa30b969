package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipelinedFileRequests: an agent that sends its fs requests without
// waiting for their answers (two writes to a file, then a read of it, for
// each of 20 files) finds them served in the order it sent them, one at a
// time: each file ends as the last write, and each read reads it whole.
func TestPipelinedFileRequests(t *testing.T) {
	t.Parallel()
	underRace(t)
	dir := realTempDir(t)
	ws := filepath.Join(dir, "ws")
	const files = 20
	first, last := strings.Repeat("A", 60000), strings.Repeat("B", 10)
	var script strings.Builder
	script.WriteString("turns:\n  - steps:\n")
	for i := range files {
		path := filepath.Join(ws, fmt.Sprintf("f%d.txt", i))
		for j, content := range []string{first, last} {
			fmt.Fprintf(&script, "      - garbage: '{\"jsonrpc\":\"2.0\",\"id\":\"w%d_%d\",\"method\":\"fs/write_text_file\",\"params\":{\"sessionId\":\"mock-session-1\",\"path\":%q,\"content\":%q}}'\n", i, j, path, content)
		}
		fmt.Fprintf(&script, "      - garbage: '{\"jsonrpc\":\"2.0\",\"id\":\"r%d\",\"method\":\"fs/read_text_file\",\"params\":{\"sessionId\":\"mock-session-1\",\"path\":%q}}'\n", i, path)
	}
	script.WriteString("      - text: done\n")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": script.String(),
		"ws/.keep":        "",
		"s.yaml": `name: pipelined
agent: {command: [acprun, mock-agent, ../agent.mock.yaml], cwd: ./ws}
client: {fs: true}
permissions: {default: deny}
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 || len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("exit %d, %d scenarios; want 0, 1\nstderr:\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	for i := range files {
		got, err := os.ReadFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i)))
		if err != nil || string(got) != last {
			t.Errorf("f%d.txt = %d bytes starting %.12q (%v); want the last write, %q", i, len(got), got, err, last)
		}
	}
	reqs := out.Scenarios[0].Turns[0].ClientRequests
	if len(reqs) != 3*files {
		t.Fatalf("%d client requests recorded; want %d", len(reqs), 3*files)
	}
	for _, r := range reqs {
		if r.Refused != "" || r.Error != "" {
			t.Errorf("client request %+v: want it served", r)
		}
		if r.Method == "fs/read_text_file" && r.Bytes != len(last) {
			t.Errorf("the read of %s read %d bytes; want the last write whole, %d", r.Path, r.Bytes, len(last))
		}
	}
}
