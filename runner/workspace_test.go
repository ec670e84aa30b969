package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestWorkspaceErrorAt: a workspace that a run cannot make is an error
// at the value it is about, and CheckWorkspace (validate --strict) says
// the same without making anything: at git for a directory that is not
// a repository, or a repository without commits when no ref is given; at
// ref for a ref that names no commit.
func TestWorkspaceErrorAt(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	repo, plain, empty := filepath.Join(base, "repo"), filepath.Join(base, "plain"), filepath.Join(base, "empty")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "--quiet", repo}, {"init", "--quiet", empty},
		{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	doc := func(name, ws string) string {
		return fmt.Sprintf("name: %s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {}\nturns: [{prompt: hi}]\nworkspace:\n%s", name, ws)
	}
	src := doc("not-a-repo", fmt.Sprintf("  git: %q\n", plain)) +
		"---\n" + doc("bad-ref", fmt.Sprintf("  git: %q\n  ref: no-such-branch\n", repo)) +
		"---\n" + doc("no-commits", fmt.Sprintf("  git: %q\n", empty)) +
		"---\n" + doc("good", fmt.Sprintf("  git: %q\n  ref: HEAD\n", repo))
	want := map[string]string{
		"not-a-repo": ":6:8: workspace: git " + plain + ": not a git repository",
		"bad-ref":    ":14:8: workspace: ref no-such-branch: unknown revision in ",
		"no-commits": ":21:8: workspace: ref HEAD: unknown revision in ",
	}

	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		got := ""
		if e := CheckWorkspace(t.Context(), sc.Workspace); e != nil {
			got = e.Error()
		}
		if w := want[sc.Name]; w == "" && got != "" || w != "" && !strings.HasPrefix(got, "s.yaml"+w) {
			t.Errorf("%s: CheckWorkspace = %q; want it to begin %q", sc.Name, got, "s.yaml"+w)
		}
	}

	rep := runScenarios(t, Options{}, src, map[string]string{"a.mock.yaml": "turns:\n  - steps: [{text: hi}]\n"})
	for _, r := range rep.Scenarios {
		w := want[r.Name]
		switch {
		case w == "" && r.Status != report.StatusPassed:
			t.Errorf("%s: %s (%q), want passed", r.Name, r.Status, r.Error)
		case w != "" && (r.Status != report.StatusError || !strings.HasPrefix(r.Error, r.File+w)):
			t.Errorf("%s: %s %q, want an error beginning %q", r.Name, r.Status, r.Error, r.File+w)
		}
	}
}

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
