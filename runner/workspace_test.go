package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestWorkspaceCwdThroughSymlink: an agent.cwd and a client root that
// name a directory of the workspace's source through a symlink are moved
// into the attempt's copy, as when named directly: the agent works and
// writes there, its changes are recorded, and the source is left alone.
func TestWorkspaceCwdThroughSymlink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "my proj")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("my proj", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"my proj/a.txt": "hi\n",
		"a.mock.yaml": `turns:
  - steps:
      - spawn: "echo shell > shell.txt"
      - write: {path: fs.txt, content: client}
      - text: done
`,
		"s.yaml": `name: link
agent: {command: [acprun, mock-agent, ` + filepath.Join(dir, "a.mock.yaml") + `], cwd: link/sub}
client: {fs: true, roots: [link/sub]}
workspace: {from: "my proj"}
permissions: {default: allow}
turns:
  - prompt: hi
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Self: agentBin(t), WorkspaceDir: t.TempDir(), KeepWorkspaces: true}, scs)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Scenarios[0]
	if r.Status != report.StatusPassed || len(r.Warnings) != 0 {
		t.Errorf("status %s (error %q, failures %q), warnings %q; want passed, no warning", r.Status, r.Error, r.Failures, r.Warnings)
	}
	if r.Workspace == nil {
		t.Fatal("no workspace in the result")
	}
	if d := cmp.Diff([]string{"sub/fs.txt", "sub/shell.txt"}, r.Workspace.Created); d != "" {
		t.Errorf("created (-want +got):\n%s", d)
	}
	for _, name := range []string{"shell.txt", "fs.txt"} {
		if _, err := os.Lstat(filepath.Join(src, "sub", name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the agent wrote %s in the source: %v", name, err)
		}
	}
}
