package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/workspace"
)

// TestDiffLeavesOutHidden: the diff, taken outside the sandbox, shows
// nothing of a path the sandbox hides (Hide), whatever the agent did
// around it: a hidden file setup made, whose directory the agent renamed
// (the file, a mount point, goes with it) and replaced by one holding a
// file of its own at the hidden path, shows neither its baseline content
// (at its name) nor its content now (at its new name, the same file), nor
// does a hidden directory renamed whole; the note says what was left out
// (names only, not those of hidden files left alone), and the agent's
// other changes are shown.
func TestDiffLeavesOutHidden(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	write(t, filepath.Join(w.Dir, "config", ".env"), "TOPSECRET-FILE\n", 0o644)
	write(t, filepath.Join(w.Dir, "keys", "id"), "TOPSECRET-DIR\n", 0o644)
	write(t, filepath.Join(w.Dir, "alone.txt"), "TOPSECRET-ALONE\n", 0o644)
	must(t, w.Snapshot(t.Context())) // after setup
	w.Hide([]string{filepath.Join(w.Dir, "config", ".env"), filepath.Join(w.Dir, "keys"), filepath.Join(w.Dir, "alone.txt"), "/elsewhere/.ssh"})

	// The agent, in the sandbox.
	must(t, os.Rename(filepath.Join(w.Dir, "config"), filepath.Join(w.Dir, "moved")))
	write(t, filepath.Join(w.Dir, "config", ".env"), "planted\n", 0o644)
	must(t, os.Rename(filepath.Join(w.Dir, "keys"), filepath.Join(w.Dir, "k2")))
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n", 0o644)

	diff, _, _, err := w.Diff(t.Context(), 0)
	if err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	if strings.Contains(diff, "TOPSECRET") {
		t.Errorf("the diff shows a hidden file's content:\n%s", diff)
	}
	first, rest, _ := strings.Cut(diff, "\n")
	if want := `acprun: left out of this diff, as the sandbox hides them (the changes list them): "config/.env", "k2/id", "keys/id", "moved/.env"`; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
	if !strings.Contains(rest, "+changed\n") {
		t.Errorf("the diff does not show a.txt's change:\n%s", diff)
	}
}

// TestHiddenMoved: HiddenMoved finds where the agent moved what the
// sandbox hides in the workspace (a file, with the directory that holds
// it; a directory, renamed whole), and nothing of what stayed at its name
// or lies outside the workspace.
func TestHiddenMoved(t *testing.T) {
	t.Parallel()
	w := create(t, workspace.Spec{From: fixture(t)}, tempDir(t))
	write(t, filepath.Join(w.Dir, "config", ".env"), "s\n", 0o644)
	write(t, filepath.Join(w.Dir, "keys", "id"), "s\n", 0o644)
	write(t, filepath.Join(w.Dir, "stays.txt"), "s\n", 0o644)
	w.Hide([]string{filepath.Join(w.Dir, "config", ".env"), filepath.Join(w.Dir, "keys"), filepath.Join(w.Dir, "stays.txt"), "/elsewhere/.ssh"})
	if got, err := w.HiddenMoved(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("HiddenMoved() before = %q, %v; want none", got, err)
	}

	must(t, os.Rename(filepath.Join(w.Dir, "config"), filepath.Join(w.Dir, "moved")))
	write(t, filepath.Join(w.Dir, "config", ".env"), "planted\n", 0o644)
	must(t, os.MkdirAll(filepath.Join(w.Dir, "deep"), 0o755))
	must(t, os.Rename(filepath.Join(w.Dir, "keys"), filepath.Join(w.Dir, "deep", "k2")))

	got, err := w.HiddenMoved(t.Context())
	want := []string{filepath.Join(w.Dir, "deep", "k2"), filepath.Join(w.Dir, "moved", ".env")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("HiddenMoved() = %q, %v; want %q", got, err, want)
	}
}
