package runner

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestGitRefPinnedPerRun: a git workspace's ref is resolved once, when
// the run starts: an agent that commits on the branch it names (which
// its worktree shares with the source repository) moves that branch, yet
// every attempt of the run starts at the commit it named at the start,
// and each attempt warns, naming the ref that moved.
func TestGitRefPinnedPerRun(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"repo/a.txt": "one\n",
		"s.yaml": `name: pinned
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
workspace: {git: repo, ref: feature}
turns:
  - prompt: hi
`,
		"a.mock.yaml": `turns:
  - steps:
      - spawn: "git checkout -q feature && echo x >> a.txt && git -c user.email=a@b -c user.name=a commit -qam agent"
      - text: done
`,
	})
	repo := filepath.Join(dir, "repo")
	gitRepo(t, repo)
	gitIn(t, repo, "branch", "feature")
	start := gitIn(t, repo, "rev-parse", "feature")
	rep := runDir(t, dir, Options{Repeat: 3, Parallel: 1})
	if len(rep.Scenarios) != 3 {
		t.Fatalf("%d results; want 3", len(rep.Scenarios))
	}
	for _, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || r.Workspace == nil || r.Workspace.Commit != start {
			t.Errorf("attempt %d: %s (%q), workspace %+v; want passed at commit %s", r.Attempt, r.Status, r.Error, r.Workspace, start)
			continue
		}
		want := "workspace: refs of the source repository changed while the agent ran: moved refs/heads/feature from "
		if r.Attempt == 1 {
			want += start[:12] + " to " // then where the attempt before left it
		}
		if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("attempt %d: warnings %q; want one beginning %q", r.Attempt, r.Warnings, want)
		}
	}
	if n := strings.Count(gitIn(t, repo, "log", "--oneline", "feature"), "\n") + 1; n != 4 {
		t.Errorf("feature has %d commits; want 4 (the first, and one per attempt, each on it as the agent left it)", n)
	}
}
