package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
)

// gitIn runs git in dir, away from the user's and the system's config, and
// returns its output without the final newline.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// gitRepo makes the directory dir a repository with one commit of all it holds.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "first")
}

// TestDiffStartsAfterSetup: the diff of a git workspace in the results and
// in the judge's prompt starts where created/modified/deleted do, after
// setup: setup's change is not shown as the agent's. The judge passes only
// when it is shown the agent's change and not setup's.
func TestDiffStartsAfterSetup(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"repo/a.txt": "one\n",
		"repo/b.txt": "bee\n",
		"s.yaml": `name: setup-diff
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
workspace: {git: repo}
setup: ["echo setup-change >> a.txt"]
turns:
  - prompt: change b.txt
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: only b.txt changed}
`,
		"a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: b.txt, content: "agent-change\n"}
      - text: done
`,
		"judge.mock.yaml": `turns:
  - match: setup-change
    steps: [{text: "FAIL: shown setup's change"}]
  - match: agent-change
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not shown the agent's change"}]
`,
	})
	gitRepo(t, filepath.Join(dir, "repo"))
	r := runDir(t, dir, Options{}).Scenarios[0]
	if r.Status != report.StatusPassed || r.Judge == nil || r.Judge.Text != "PASS" {
		t.Errorf("status %s, judge %+v (error %q, failures %q); want passed, the judge shown the agent's change only", r.Status, r.Judge, r.Error, r.Failures)
	}
	ws := r.Workspace
	if !slices.Equal(ws.Modified, []string{"b.txt"}) || !strings.Contains(ws.Diff, "+agent-change\n") || strings.Contains(ws.Diff, "setup-change") {
		t.Errorf("workspace modified %q, diff:\n%s\nwant b.txt, the agent's change only", ws.Modified, ws.Diff)
	}
}

// TestRepoConfigChangeIsWarned: an agent that runs `git config` in its
// worktree changes the source repository's config; the attempt warns,
// naming the file, and leaves the config as the agent made it.
func TestRepoConfigChangeIsWarned(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"repo/a.txt": "one\n",
		"s.yaml": `name: repo-config
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
workspace: {git: repo}
turns:
  - prompt: hi
`,
		"a.mock.yaml": `turns:
  - steps:
      - spawn: git config filter.x.clean false
      - text: done
`,
	})
	repo := filepath.Join(dir, "repo")
	gitRepo(t, repo)
	r := runDir(t, dir, Options{}).Scenarios[0]
	want := "workspace: git files of the source repository changed while the agent ran: modified " + filepath.Join(repo, ".git", "config") + "; "
	if r.Status != report.StatusPassed || !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("status %s, warnings %q (error %q); want passed, a warning starting %q", r.Status, r.Warnings, r.Error, want)
	}
	if got := gitIn(t, repo, "config", "filter.x.clean"); got != "false" {
		t.Errorf("the repository's filter.x.clean = %q; want it left as the agent set it", got)
	}
}

// TestDiffCutKeepsNoSecret: a secret that the cut of a long diff goes
// through leaves no part of itself in the results or the judge's prompt.
func TestDiffCutKeepsNoSecret(t *testing.T) {
	const secret = "supersecretvalue123"
	repo := filepath.Join(writeTree(t, map[string]string{"repo/a.txt": "one\n"}), "repo")
	gitRepo(t, repo)
	ws, err := workspace.Create(t.Context(), workspace.Spec{Git: repo}, t.TempDir(), "cut")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	// The secret's first 8 bytes are the last ones of the diff kept.
	head := "diff --git a/x.txt b/x.txt\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+"
	text := strings.Repeat("A", diffLimit-len(head)-8) + secret + strings.Repeat("B", 1000) + "\n"
	if err := os.WriteFile(filepath.Join(ws.Dir, "x.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &scenarioRun{ws: ws, red: redact.New(secret)}
	var w report.WorkspaceResult
	if err := r.changes(t.Context(), &w); err != nil {
		t.Fatal(err)
	}
	if !w.DiffTruncated || !strings.HasSuffix(w.Diff, "AAA"+redact.Marker) {
		t.Errorf("diff truncated %v, ends %q; want it cut, the secret's start redacted", w.DiffTruncated, w.Diff[max(0, len(w.Diff)-40):])
	}
	summary := r.changeSummary(t.Context())
	for what, s := range map[string]string{"diff": w.Diff, "judge's summary": summary} {
		if strings.Contains(s, secret[:4]) {
			t.Errorf("the %s leaks the secret's start: …%s", what, s[strings.Index(s, secret[:4])-10:][:30])
		}
	}
}
