package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/workspace"
	"github.com/google/go-cmp/cmp"
)

// linkFixture makes, in a new directory, the source src, a link alias to
// it and a directory outside it, and in src links of every kind and two
// .git files: one that names a git directory outside src, one inside.
func linkFixture(t *testing.T) (src, alias, outside string) {
	t.Helper()
	base := tempDir(t)
	src, alias, outside = filepath.Join(base, "src"), filepath.Join(base, "alias"), filepath.Join(base, "outside")
	write(t, filepath.Join(src, "a.txt"), "a\n", 0o644)
	write(t, filepath.Join(src, "sub", "b.txt"), "b\n", 0o644)
	write(t, filepath.Join(outside, "secret"), "mine\n", 0o644)
	write(t, filepath.Join(src, ".git"), "gitdir: /abs/main/.git/worktrees/wt\n", 0o644)
	write(t, filepath.Join(src, "sub", ".git"), "gitdir: ../.git/modules/sub\n", 0o644)
	must(t, os.Symlink(src, alias))
	for link, target := range map[string]string{
		"abs-in":      filepath.Join(src, "a.txt"),
		"abs-alias":   filepath.Join(alias, "a.txt"),
		"abs-root":    src,
		"sub/abs-dir": filepath.Join(src, "sub"),
		"rel-in":      "a.txt",
		"sub/rel-up":  "../a.txt",
		"sub/climb":   "../../src/a.txt",
		"abs-out":     filepath.Join(outside, "secret"),
		"sub/rel-out": "../../outside/secret",
	} {
		must(t, os.Symlink(target, filepath.Join(src, filepath.FromSlash(link))))
	}
	return src, alias, outside
}

// TestCopyRebasesLinks: a copy's symbolic link that led into the source,
// by its absolute path, through a link to it, or by a relative path that
// climbs out of it and back, leads to the same place in the copy; one
// that led outside leads there still (a relative one made absolute); a
// .git file is copied as it is. Writing through a link that led into the
// source changes the copy, and the change is the target's.
func TestCopyRebasesLinks(t *testing.T) {
	t.Parallel()
	src, alias, outside := linkFixture(t)
	w := create(t, workspace.Spec{From: alias}, tempDir(t))
	links := map[string]string{}
	for _, name := range []string{"abs-in", "abs-alias", "abs-root", "sub/abs-dir", "rel-in", "sub/rel-up", "sub/climb", "abs-out", "sub/rel-out"} {
		target, err := os.Readlink(filepath.Join(w.Dir, filepath.FromSlash(name)))
		must(t, err)
		links[name] = target
	}
	want := map[string]string{
		"abs-in":      filepath.Join(w.Dir, "a.txt"),
		"abs-alias":   filepath.Join(w.Dir, "a.txt"),
		"abs-root":    w.Dir,
		"sub/abs-dir": filepath.Join(w.Dir, "sub"),
		"rel-in":      "a.txt",
		"sub/rel-up":  "../a.txt",
		"sub/climb":   "../a.txt",
		"abs-out":     filepath.Join(outside, "secret"),
		"sub/rel-out": filepath.Join(outside, "secret"),
	}
	if d := cmp.Diff(want, links); d != "" {
		t.Errorf("the copy's links (-want +got):\n%s", d)
	}
	if got := read(t, filepath.Join(w.Dir, ".git")); got != "gitdir: /abs/main/.git/worktrees/wt\n" {
		t.Errorf(".git = %q; want it as the source has it", got)
	}
	if got := changesOf(t, w); !cmp.Equal(got, none) {
		t.Errorf("Changes() right after Create = %+v; want none", got)
	}
	f, err := os.OpenFile(filepath.Join(w.Dir, "abs-in"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString("agent\n")
	must(t, err)
	must(t, f.Close())
	if got := read(t, filepath.Join(src, "a.txt")); got != "a\n" {
		t.Errorf("the source's a.txt = %q after a write through the copy's link; want it untouched", got)
	}
	if got, want := changesOf(t, w), (changes{[]string{}, []string{"a.txt"}, []string{}}); !cmp.Equal(got, want) {
		t.Errorf("Changes() = %+v; want %+v", got, want)
	}
}

// TestPointers: Pointers lists what leads out of a directory to copy
// once copied: the links to outside it and a .git file that names a git
// directory outside it; not a link into it, nor a .git file that names
// one inside. A copy finds the same as it copies (Workspace.Pointers).
func TestPointers(t *testing.T) {
	t.Parallel()
	_, alias, outside := linkFixture(t)
	got, err := workspace.Pointers(t.Context(), alias)
	must(t, err)
	want := []workspace.Pointer{
		{Path: ".git", Target: "/abs/main/.git/worktrees/wt", Git: true},
		{Path: "abs-out", Target: filepath.Join(outside, "secret")},
		{Path: "sub/rel-out", Target: filepath.Join(outside, "secret")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Pointers() (-want +got):\n%s", d)
	}
	w := create(t, workspace.Spec{From: alias}, tempDir(t))
	if d := cmp.Diff(want, w.Pointers); d != "" {
		t.Errorf("the copy's Pointers (-want +got):\n%s", d)
	}
}
