package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxClientWritesOnlyInWritePaths: with a sandbox, acprun's
// fs/write_text_file writes only in the sandbox's write paths: a client
// root the sandbox keeps read-only is refused (recorded as refused, the
// file left as it was), whatever the host could enforce, while the
// session cwd is written.
func TestSandboxClientWritesOnlyInWritePaths(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	dir := filepath.Join(base, "sc")
	writeFiles(t, base, map[string]string{
		"other/file.txt": "orig\n",
		"sc/r.mock.yaml": `turns:
  - steps:
      - write: {path: ../other/file.txt, content: "via fs/write_text_file\n"}
      - write: {path: ../other/new.txt, content: "new\n"}
      - write: {path: mine.txt, content: "mine\n"}
`,
		"sc/s.yaml": `name: roots
agent: {command: [acprun, mock-agent, r.mock.yaml]}
client: {fs: true, roots: [., ../other]}
sandbox: {network: off, level: best-effort}
permissions: {default: allow}
turns:
  - prompt: go
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d, want %d\n%s", res.code, exitOK, res.stderr)
	}
	assertFile(t, filepath.Join(base, "other", "file.txt"), "orig\n")
	if _, err := os.Stat(filepath.Join(base, "other", "new.txt")); err == nil {
		t.Errorf("other/new.txt was created")
	}
	assertFile(t, filepath.Join(dir, "mine.txt"), "mine\n")
	sc := out.Scenarios[0]
	if len(sc.Turns) != 1 {
		t.Fatalf("turns %+v", sc.Turns)
	}
	var refused []string
	for _, r := range sc.Turns[0].ClientRequests {
		if r.Refused != "" {
			refused = append(refused, filepath.Base(r.Path)+": "+r.Refused)
		}
	}
	if len(refused) != 2 || !strings.Contains(refused[0], "file.txt: ") || !strings.Contains(refused[0], "read-only in the sandbox") || !strings.HasPrefix(refused[1], "new.txt: ") {
		t.Errorf("refused requests %q; want file.txt and new.txt refused as read-only in the sandbox", refused)
	}
}
