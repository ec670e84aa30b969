package workspace_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/workspace"
	"github.com/google/go-cmp/cmp"
)

// TestResolvePinsTheCommit: Resolve says which commit a ref names now,
// and a Create given it as Spec.Commit checks out that commit, whatever
// the ref names by then (an agent moved the branch from its worktree);
// one whose commit has gone from the repository is a *RefError that says
// so.
func TestResolvePinsTheCommit(t *testing.T) {
	t.Parallel()
	repo, first, second := newRepo(t)
	gitT(t, repo, "branch", "feature", first)
	commit, err := workspace.Resolve(t.Context(), workspace.Spec{Git: repo, Ref: "feature"})
	if err != nil || commit != first {
		t.Fatalf("Resolve(feature) = %q, %v; want %s", commit, err, first)
	}
	if c, err := workspace.Resolve(t.Context(), workspace.Spec{From: repo}); c != "" || err != nil {
		t.Errorf("Resolve of a copy = %q, %v; want \"\", nil", c, err)
	}
	gitT(t, repo, "branch", "-f", "feature", second) // an agent's commit on feature
	w := create(t, workspace.Spec{Git: repo, Ref: "feature", Commit: first}, tempDir(t))
	if w.Commit != first || read(t, filepath.Join(w.Dir, "a.txt")) != "one\n" {
		t.Errorf("Commit %s, a.txt %q; want the pinned %s, \"one\\n\"", w.Commit, read(t, filepath.Join(w.Dir, "a.txt")), first)
	}
	gone := strings.Repeat("0", len(first))
	_, err = workspace.Create(t.Context(), workspace.Spec{Git: repo, Ref: "feature", Commit: gone}, tempDir(t), "x")
	want := "workspace: ref feature: commit " + gone[:12] + ", which it named when the run started, is no longer in " + repo
	var ref *workspace.RefError
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.As(err, &ref) {
		t.Errorf("Create with a commit gone = %v (%T); want a *RefError beginning %q", err, err, want)
	}
}

// TestRefChanges: the refs of the source repository that an agent
// created, moved or deleted through its worktree since the baseline are
// named; what setup did before it is not, nor the worktree's own HEAD.
func TestRefChanges(t *testing.T) {
	t.Parallel()
	refChanges := func(w *workspace.Workspace) []string {
		t.Helper()
		got, err := w.RefChanges(t.Context())
		if err != nil {
			t.Fatalf("RefChanges() = %v", err)
		}
		return got
	}
	repo, first, second := newRepo(t)
	gitT(t, repo, "branch", "feature", first)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	if got := refChanges(w); got != nil {
		t.Errorf("RefChanges() right after Create = %q; want nil", got)
	}
	gitT(t, w.Dir, "tag", "setup-tag") // setup
	must(t, w.Snapshot(t.Context()))
	// The agent.
	gitT(t, w.Dir, "checkout", "--quiet", "--detach", first) // its own HEAD
	gitT(t, w.Dir, "checkout", "--quiet", "feature")
	write(t, filepath.Join(w.Dir, "a.txt"), "agent\n", 0o644)
	gitT(t, w.Dir, "commit", "--quiet", "-am", "agent")
	moved := gitT(t, repo, "rev-parse", "feature")
	gitT(t, w.Dir, "tag", "-d", "v1")
	gitT(t, w.Dir, "branch", "new", second)
	want := []string{
		"moved refs/heads/feature from " + first[:12] + " to " + moved[:12],
		"created refs/heads/new at " + second[:12],
		"deleted refs/tags/v1, which was at " + first[:12],
	}
	if d := cmp.Diff(want, refChanges(w)); d != "" {
		t.Errorf("RefChanges() (-want +got):\n%s", d)
	}
	if got := refChanges(create(t, workspace.Spec{From: fixture(t)}, tempDir(t))); got != nil {
		t.Errorf("RefChanges() of a copy = %q; want nil", got)
	}
}

// TestRefChangesOfAClone: an agent in the clone of a bare repository
// that pushes to it moves the repository's branch: that is named too.
func TestRefChangesOfAClone(t *testing.T) {
	t.Parallel()
	repo, _, second := newRepo(t)
	bare := filepath.Join(tempDir(t), "bare.git")
	gitT(t, repo, "clone", "--quiet", "--bare", repo, bare)
	w := create(t, workspace.Spec{Git: bare}, tempDir(t))
	write(t, filepath.Join(w.Dir, "a.txt"), "agent\n", 0o644)
	gitT(t, w.Dir, "commit", "--quiet", "-am", "agent")
	gitT(t, w.Dir, "push", "--quiet", "origin", "HEAD:main")
	pushed := gitT(t, bare, "rev-parse", "main")
	got, err := w.RefChanges(t.Context())
	want := []string{"moved refs/heads/main from " + second[:12] + " to " + pushed[:12]}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("RefChanges() = %q, %v; want %q", got, err, want)
	}
}
