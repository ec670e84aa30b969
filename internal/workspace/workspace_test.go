package workspace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/google/go-cmp/cmp"
)

// tempDir is t.TempDir with symlinks resolved, so paths compare simply.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func write(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree describes every entry below dir (its root excluded): "dir 0755",
// "file 0644 content" or "link target".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			m[rel] = fmt.Sprintf("dir %#o", info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("file %#o %s", info.Mode().Perm(), b)
		default:
			m[rel] = "other " + info.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// create makes a workspace and removes it at the end of the test.
func create(t *testing.T, spec workspace.Spec, parent string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Create(t.Context(), spec, parent, t.Name())
	if err != nil {
		t.Fatalf("Create(%+v) = %v", spec, err)
	}
	t.Cleanup(func() {
		if err := w.Remove(); err != nil {
			t.Errorf("Remove() = %v", err)
		}
	})
	return w
}

type changes struct {
	Created, Modified, Deleted []string
}

func changesOf(t *testing.T, w *workspace.Workspace) changes {
	t.Helper()
	c, m, d, err := w.Changes(t.Context())
	if err != nil {
		t.Fatalf("Changes() = %v", err)
	}
	if c == nil || m == nil || d == nil {
		t.Errorf("Changes() = %q, %q, %q; want non-nil slices", c, m, d)
	}
	return changes{c, m, d}
}

var none = changes{[]string{}, []string{}, []string{}}

// fixture makes a source directory with one of everything a copy keeps.
func fixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "a.txt"), "alpha\n", 0o644)
	write(t, filepath.Join(src, "run.sh"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(src, "ro.txt"), "read only\n", 0o444)
	write(t, filepath.Join(src, "sub", "deep", "b.txt"), "beta\n", 0o600)
	write(t, filepath.Join(src, "locked", "c.txt"), "gamma\n", 0o644)
	must(t, os.Chmod(filepath.Join(src, "locked"), 0o555))
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "locked"), 0o755) })
	must(t, os.Mkdir(filepath.Join(src, "empty"), 0o750))
	must(t, os.Chmod(filepath.Join(src, "empty"), 0o750))
	must(t, os.Symlink("a.txt", filepath.Join(src, "link")))
	must(t, os.Symlink("../nowhere", filepath.Join(src, "sub", "dangling")))
	must(t, os.Symlink("sub", filepath.Join(src, "dirlink")))
	write(t, filepath.Join(src, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	return src
}

func TestCopyPreservesTree(t *testing.T) {
	t.Parallel()
	src := fixture(t)
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := tree(t, src)
	delete(want, "fifo") // skipped, without an error
	parent := tempDir(t)

	w := create(t, workspace.Spec{From: src}, parent)

	if w.Kind != workspace.KindCopy || w.Commit != "" {
		t.Errorf("Kind, Commit = %q, %q; want %q, \"\"", w.Kind, w.Commit, workspace.KindCopy)
	}
	if shared := sharedIn(parent); filepath.Dir(w.Dir) != shared || w.Shared != shared || !strings.HasPrefix(filepath.Base(w.Dir), "TestCopyPreservesTree-") {
		t.Errorf("Dir = %s, Shared = %s; want %s/TestCopyPreservesTree-*", w.Dir, w.Shared, shared)
	}
	if diff := cmp.Diff(want, tree(t, w.Dir)); diff != "" {
		t.Errorf("copy differs from source (-source +copy):\n%s", diff)
	}
	for _, name := range []string{"a.txt", "sub", "sub/deep/b.txt"} {
		si, err := os.Stat(filepath.Join(src, name))
		must(t, err)
		ci, err := os.Stat(filepath.Join(w.Dir, name))
		must(t, err)
		if !si.ModTime().Equal(ci.ModTime()) {
			t.Errorf("%s: mtime %v; want the source's %v", name, ci.ModTime(), si.ModTime())
		}
	}
	if got := changesOf(t, w); !cmp.Equal(got, none) {
		t.Errorf("Changes() right after Create = %+v; want none", got)
	}
	wantLeftOut := []workspace.LeftOut{{Path: "fifo", Type: fs.ModeNamedPipe}}
	if diff := cmp.Diff(wantLeftOut, w.LeftOut); diff != "" {
		t.Errorf("LeftOut differs (-want +got):\n%s", diff)
	}
	for _, l := range w.LeftOut {
		if got := inputfile.Kind(l.Type); got != "a FIFO" {
			t.Errorf("LeftOut %s: inputfile.Kind(Type) = %q; want %q", l.Path, got, "a FIFO")
		}
	}
}

func TestCopiesAreIndependent(t *testing.T) {
	t.Parallel()
	src := fixture(t)
	want := tree(t, src)
	parent := tempDir(t)
	w1 := create(t, workspace.Spec{From: src}, parent)
	w2 := create(t, workspace.Spec{From: src}, parent)
	if w1.Dir == w2.Dir {
		t.Fatalf("both workspaces are %s", w1.Dir)
	}

	write(t, filepath.Join(w1.Dir, "a.txt"), "changed\n", 0o644)
	write(t, filepath.Join(w1.Dir, "sub", "new.txt"), "new\n", 0o644)
	must(t, os.Remove(filepath.Join(w1.Dir, "sub", "deep", "b.txt")))

	if diff := cmp.Diff(want, tree(t, w2.Dir)); diff != "" {
		t.Errorf("second workspace changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, tree(t, src)); diff != "" {
		t.Errorf("source changed (-want +got):\n%s", diff)
	}
	if got := changesOf(t, w2); !cmp.Equal(got, none) {
		t.Errorf("second workspace's Changes() = %+v; want none", got)
	}
}

func TestCreateInParallel(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	src := fixture(t)
	parent := tempDir(t)
	specs := []workspace.Spec{{From: src}, {Git: repo}}
	const n = 4
	ws := make([]*workspace.Workspace, 2*n)
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	for i := range ws {
		wg.Go(func() {
			ws[i], errs[i] = workspace.Create(t.Context(), specs[i%2], parent, "same")
		})
	}
	wg.Wait()
	dirs := map[string]bool{}
	for i, w := range ws {
		if errs[i] != nil {
			t.Errorf("Create %d: %v", i, errs[i])
			continue
		}
		t.Cleanup(func() { must(t, w.Remove()) })
		if dirs[w.Dir] {
			t.Errorf("two workspaces in %s", w.Dir)
		}
		dirs[w.Dir] = true
	}
}

func TestChanges(t *testing.T) {
	t.Parallel()
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "same.txt"), "same\n", 0o644)
	write(t, filepath.Join(src, "edit.txt"), "before\n", 0o644)
	write(t, filepath.Join(src, "sameSize.txt"), "aaaa\n", 0o644)
	write(t, filepath.Join(src, "chmod.sh"), "#!/bin/sh\n", 0o644)
	write(t, filepath.Join(src, "gone.txt"), "gone\n", 0o644)
	write(t, filepath.Join(src, "dir", "gone2.txt"), "gone\n", 0o644)
	write(t, filepath.Join(src, "becomeLink.txt"), "x\n", 0o644)
	write(t, filepath.Join(src, ".git", "config"), "[core]\n", 0o644)
	must(t, os.Symlink("same.txt", filepath.Join(src, "link")))
	must(t, os.Symlink("same.txt", filepath.Join(src, "stable")))
	w := create(t, workspace.Spec{From: src}, tempDir(t))
	d := w.Dir

	write(t, filepath.Join(d, "edit.txt"), "after, longer\n", 0o644)
	write(t, filepath.Join(d, "sameSize.txt"), "bbbb\n", 0o644)
	must(t, os.Chmod(filepath.Join(d, "chmod.sh"), 0o755))
	must(t, os.Remove(filepath.Join(d, "gone.txt")))
	must(t, os.RemoveAll(filepath.Join(d, "dir")))
	must(t, os.Remove(filepath.Join(d, "link")))
	must(t, os.Symlink("edit.txt", filepath.Join(d, "link")))
	must(t, os.Remove(filepath.Join(d, "becomeLink.txt")))
	must(t, os.Symlink("same.txt", filepath.Join(d, "becomeLink.txt")))
	write(t, filepath.Join(d, "new.txt"), "", 0o644)
	write(t, filepath.Join(d, "a", "b", "c.txt"), "deep\n", 0o644)
	must(t, os.Symlink("nowhere", filepath.Join(d, "newlink")))
	must(t, os.MkdirAll(filepath.Join(d, "emptydir", "inner"), 0o755))
	write(t, filepath.Join(d, ".git", "config"), "[core]\n\tbare = false\n", 0o644)
	write(t, filepath.Join(d, ".git", "index"), "x", 0o644)
	write(t, filepath.Join(d, "nested", ".git", "HEAD"), "ref\n", 0o644)

	want := changes{
		Created:  []string{"a/b/c.txt", "nested/.git/HEAD", "new.txt", "newlink"},
		Modified: []string{"becomeLink.txt", "chmod.sh", "edit.txt", "link", "sameSize.txt"},
		Deleted:  []string{"dir/gone2.txt", "gone.txt"},
	}
	if diff := cmp.Diff(want, changesOf(t, w)); diff != "" {
		t.Errorf("Changes() (-want +got):\n%s", diff)
	}
}

func TestChangesRootGitFile(t *testing.T) {
	t.Parallel()
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, ".git"), "gitdir: /elsewhere\n", 0o644)
	write(t, filepath.Join(src, "a"), "a", 0o644)
	w := create(t, workspace.Spec{From: src}, tempDir(t))
	write(t, filepath.Join(w.Dir, ".git"), "gitdir: /moved\n", 0o644)
	if got := changesOf(t, w); !cmp.Equal(got, none) {
		t.Errorf("Changes() = %+v; want none (a root .git file is ignored)", got)
	}
}

// TestSnapshotResetsBaseline: what acprun and setup wrote before Snapshot
// is no change; what the agent then does to those files is.
func TestSnapshotResetsBaseline(t *testing.T) {
	t.Parallel()
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "a.txt"), "a\n", 0o644)
	w := create(t, workspace.Spec{From: src}, tempDir(t))

	// Setup commands ran, and acprun wrote the agent's settings: their
	// work is not the agent's.
	write(t, filepath.Join(w.Dir, "setup.txt"), "made by setup\n", 0o644)
	write(t, filepath.Join(w.Dir, "a.txt"), "set up\n", 0o644)
	write(t, filepath.Join(w.Dir, ".claude", "settings.json"), `{"ask": ["Bash"]}`, 0o644)
	if got := changesOf(t, w); cmp.Equal(got, none) {
		t.Fatalf("Changes() before Snapshot = none; want the setup's changes")
	}
	must(t, w.Snapshot(t.Context()))
	if got := changesOf(t, w); !cmp.Equal(got, none) {
		t.Errorf("Changes() right after Snapshot = %+v; want none", got)
	}

	write(t, filepath.Join(w.Dir, "agent.txt"), "by the agent\n", 0o644)
	must(t, os.Remove(filepath.Join(w.Dir, "setup.txt")))
	write(t, filepath.Join(w.Dir, ".claude", "settings.json"), `{"defaultMode": "bypassPermissions"}`, 0o644)
	want := changes{Created: []string{"agent.txt"}, Modified: []string{".claude/settings.json"}, Deleted: []string{"setup.txt"}}
	if diff := cmp.Diff(want, changesOf(t, w)); diff != "" {
		t.Errorf("Changes() (-want +got):\n%s", diff)
	}
}

func TestChangesUnreadable(t *testing.T) {
	t.Parallel()
	if !testkit.PermissionsBind(t) {
		return
	}
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "secret.txt"), "s\n", 0o644)
	write(t, filepath.Join(src, "closed", "x.txt"), "x\n", 0o644)
	write(t, filepath.Join(src, "ok.txt"), "ok\n", 0o644)
	w := create(t, workspace.Spec{From: src}, tempDir(t))

	must(t, os.Chmod(filepath.Join(w.Dir, "secret.txt"), 0o000))
	must(t, os.Chmod(filepath.Join(w.Dir, "closed"), 0o000))
	write(t, filepath.Join(w.Dir, "new.txt"), "n\n", 0o000)
	write(t, filepath.Join(w.Dir, "ok.txt"), "changed\n", 0o644)

	want := changes{
		Created:  []string{"new.txt"},
		Modified: []string{"closed/x.txt", "ok.txt", "secret.txt"},
		Deleted:  []string{},
	}
	if diff := cmp.Diff(want, changesOf(t, w)); diff != "" {
		t.Errorf("Changes() (-want +got):\n%s", diff)
	}
	// Remove (in create's cleanup) copes with all of it.
}

func TestRemove(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	for _, spec := range []workspace.Spec{{From: fixture(t)}, {Git: repo}} {
		t.Run(fmt.Sprintf("%+v", spec), func(t *testing.T) {
			w, err := workspace.Create(t.Context(), spec, tempDir(t), "rm")
			must(t, err)
			write(t, filepath.Join(w.Dir, "ro", "deep", "f.txt"), "f\n", 0o444)
			must(t, os.Chmod(filepath.Join(w.Dir, "ro", "deep"), 0o555))
			must(t, os.Chmod(filepath.Join(w.Dir, "ro"), 0o000))
			must(t, os.Chmod(w.Dir, 0o500))
			// A symlink out of the workspace: removing must not follow it.
			outside := filepath.Join(tempDir(t), "outside.txt")
			write(t, outside, "keep\n", 0o444)
			must(t, os.Chmod(w.Dir, 0o700))
			must(t, os.Symlink(filepath.Dir(outside), filepath.Join(w.Dir, "out")))
			must(t, os.Chmod(w.Dir, 0o500))

			if err := w.Remove(); err != nil {
				t.Fatalf("Remove() = %v", err)
			}
			if _, err := os.Lstat(w.Dir); !os.IsNotExist(err) {
				t.Errorf("after Remove, Lstat(%s) = %v; want not exist", w.Dir, err)
			}
			if got := read(t, outside); got != "keep\n" {
				t.Errorf("file outside = %q; want it kept", got)
			}
			if info, err := os.Stat(outside); err != nil || info.Mode().Perm() != 0o444 {
				t.Errorf("file outside: %v, %v; want mode 0444", info, err)
			}
			if err := w.Remove(); err != nil {
				t.Errorf("second Remove() = %v; want nil", err)
			}
		})
	}
}

func TestRebase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, from, to, want string
	}{
		{"inside", "/src/a/b", "/src", "/ws/1", "/ws/1/a/b"},
		{"the source itself", "/src", "/src", "/ws/1", "/ws/1"},
		{"trailing slash", "/src/", "/src", "/ws/1", "/ws/1"},
		{"from with trailing slash", "/src/a", "/src/", "/ws/1", "/ws/1/a"},
		{"prefix trick", "/src2/a", "/src", "/ws/1", "/src2/a"},
		{"prefix trick, equal length", "/srcX", "/src", "/ws/1", "/srcX"},
		{"dot-dot out", "/src/../etc/passwd", "/src", "/ws/1", "/src/../etc/passwd"},
		{"dot-dot inside", "/src/a/../b", "/src", "/ws/1", "/ws/1/b"},
		{"name starting with dots", "/src/..hidden", "/src", "/ws/1", "/ws/1/..hidden"},
		{"parent of source", "/", "/src", "/ws/1", "/"},
		{"unrelated", "/home/u/x", "/src", "/ws/1", "/home/u/x"},
		{"relative path", "src/a", "/src", "/ws/1", "src/a"},
		{"root source", "/a/b", "/", "/ws/1", "/ws/1/a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := workspace.Rebase(tt.path, tt.from, tt.to); got != tt.want {
				t.Errorf("Rebase(%q, %q, %q) = %q; want %q", tt.path, tt.from, tt.to, got, tt.want)
			}
		})
	}
}

// TestRebaseThroughSymlinks: a path named through a symlink to the
// source, or a source named through one, is mapped into the workspace as
// the path it resolves to; a link inside the source that leads out of it
// is where it leads.
func TestRebaseThroughSymlinks(t *testing.T) {
	t.Parallel()
	base := tempDir(t)
	src := filepath.Join(base, "my src")
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(base, "elsewhere"), 0o755))
	must(t, os.Symlink("my src", filepath.Join(base, "link")))
	must(t, os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(src, "out")))
	link := filepath.Join(base, "link")
	tests := []struct {
		name, path, from, want string
		within                 bool
	}{
		{"path through a link to the source", filepath.Join(link, "sub"), src, "/ws/1/sub", true},
		{"the link itself", link, src, "/ws/1", true},
		{"source through a link", filepath.Join(src, "sub"), link, "/ws/1/sub", true},
		{"both through the link", filepath.Join(link, "sub", "new"), link, "/ws/1/sub/new", true},
		{"not yet there, through the link", filepath.Join(link, "gone", "x"), src, "/ws/1/gone/x", true},
		{"a link inside leading out", filepath.Join(src, "out"), src, filepath.Join(src, "out"), false},
		{"beside the source", filepath.Join(base, "elsewhere"), link, filepath.Join(base, "elsewhere"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := workspace.Rebase(tt.path, tt.from, "/ws/1"); got != tt.want {
				t.Errorf("Rebase(%q, %q, /ws/1) = %q; want %q", tt.path, tt.from, got, tt.want)
			}
			if got := workspace.Within(tt.path, tt.from); got != tt.within {
				t.Errorf("Within(%q, %q) = %v; want %v", tt.path, tt.from, got, tt.within)
			}
		})
	}
}

func TestPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prefix, want string
	}{
		{"plain-name_1.0", "plain-name_1.0-"},
		{"fix bug: über/agent x3", "fix-bug-ber-agent-x3-"},
		{"../../etc", "etc-"},
		{"", "workspace-"},
		{"///", "workspace-"},
		{strings.Repeat("a", 100), strings.Repeat("a", 60) + "-"},
	}
	src := filepath.Join(tempDir(t), "src")
	must(t, os.Mkdir(src, 0o755))
	parent := tempDir(t)
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			w, err := workspace.Create(t.Context(), workspace.Spec{From: src}, parent, tt.prefix)
			must(t, err)
			defer w.Remove()
			if filepath.Dir(w.Dir) != sharedIn(parent) {
				t.Errorf("Create(prefix %q).Dir = %s; want it in %s", tt.prefix, w.Dir, sharedIn(parent))
			}
			if base := filepath.Base(w.Dir); !strings.HasPrefix(base, tt.want) || strings.ContainsAny(base[len(tt.want):], "/-") {
				t.Errorf("Create(prefix %q) made %s; want %s<random>", tt.prefix, base, tt.want)
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	base := tempDir(t)
	file := filepath.Join(base, "file")
	write(t, file, "x", 0o644)
	src := filepath.Join(base, "src")
	must(t, os.Mkdir(src, 0o755))
	plain := filepath.Join(base, "plain")
	must(t, os.Mkdir(plain, 0o755))
	repo, _, _ := newRepo(t)
	must(t, os.Mkdir(filepath.Join(repo, "sub"), 0o755))
	empty := filepath.Join(base, "empty")
	gitT(t, base, "init", "--quiet", empty)

	tests := []struct {
		name   string
		spec   workspace.Spec
		parent string // "" for a fresh temp dir
		want   string
	}{
		{"none", workspace.Spec{}, "", "workspace: neither from nor git is set: give one"},
		{"both", workspace.Spec{From: src, Git: repo}, "", "workspace: both from and git are set: give one"},
		{"relative", workspace.Spec{From: "fixtures/repo"}, "", "workspace: from fixtures/repo: not an absolute path"},
		{"missing", workspace.Spec{From: filepath.Join(base, "nope")}, "", "workspace: from " + base + "/nope: no such directory"},
		{"a file", workspace.Spec{From: file}, "", "workspace: from " + file + ": not a directory"},
		{"ref on a copy", workspace.Spec{From: src, Ref: "main"}, "", "workspace: ref main is set for a copy of " + src + ": ref needs git"},
		{"parent inside", workspace.Spec{From: src}, filepath.Join(src, "ws"), "workspace: from " + src + ": the workspaces' directory " + src + "/ws lies inside it: put workspaces outside " + src},
		{"parent is source", workspace.Spec{From: src}, src, "lies inside it"},
		{"parent inside repo", workspace.Spec{Git: repo}, filepath.Join(repo, "ws"), "workspace: git " + repo + ": the workspaces' directory " + repo + "/ws lies inside it"},
		{"not a repo", workspace.Spec{Git: plain}, "", "workspace: git " + plain + ": not a git repository (git rev-parse: fatal: not a git repository"},
		{"subdirectory", workspace.Spec{Git: filepath.Join(repo, "sub")}, "", "workspace: git " + repo + "/sub: not the top of its repository: give " + repo},
		{"git dir", workspace.Spec{Git: filepath.Join(repo, ".git")}, "", "workspace: git " + repo + "/.git: not in a work tree"},
		{"bad ref", workspace.Spec{Git: repo, Ref: "HEAD~3"}, "", "workspace: ref HEAD~3: unknown revision in " + repo},
		{"option as ref", workspace.Spec{Git: repo, Ref: "--all"}, "", "workspace: ref --all: unknown revision in " + repo},
		{"no commits", workspace.Spec{Git: empty}, "", "workspace: ref HEAD: unknown revision in " + empty + " (has it any commits?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := tt.parent
			if parent == "" {
				parent = tempDir(t)
			}
			before := entries(t, parent)
			w, err := workspace.Create(t.Context(), tt.spec, parent, "x")
			if err == nil {
				w.Remove()
				t.Fatalf("Create(%+v) = nil error; want %q", tt.spec, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Create(%+v) = %q; want it to contain %q", tt.spec, err, tt.want)
			}
			if after := entries(t, parent); !slices.Equal(before, after) {
				t.Errorf("Create left %q in %s; had %q", after, parent, before)
			}
		})
	}
}

// sharedIn is the shared directory Create makes workspaces in, in parent.
func sharedIn(parent string) string {
	return filepath.Join(parent, "acprun-workspaces-"+strconv.Itoa(os.Getuid()))
}

// entries lists dir's names; nil when it does not exist.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	must(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestCheck: Check says what Create would say of a spec's source and ref
// (a *RefError for a ref that names no commit), and nil when Create would
// make it; it makes nothing: the repository's worktrees, files and status
// are as they were.
func TestCheck(t *testing.T) {
	t.Parallel()
	base := tempDir(t)
	plain := filepath.Join(base, "plain")
	must(t, os.Mkdir(plain, 0o755))
	repo, _, _ := newRepo(t)
	empty := filepath.Join(base, "empty")
	gitT(t, base, "init", "--quiet", empty)
	state := func() []string {
		return append(entries(t, repo), gitT(t, repo, "worktree", "list", "--porcelain"), gitT(t, repo, "status", "--porcelain"))
	}
	before := state()

	tests := []struct {
		name string
		spec workspace.Spec
		want string // "" for none
		ref  bool   // a *RefError
	}{
		{"copy", workspace.Spec{From: plain}, "", false},
		{"head", workspace.Spec{Git: repo}, "", false},
		{"tag", workspace.Spec{Git: repo, Ref: "v1"}, "", false},
		{"older commit", workspace.Spec{Git: repo, Ref: "HEAD~1"}, "", false},
		{"missing", workspace.Spec{Git: filepath.Join(base, "nope")}, "workspace: git " + base + "/nope: no such directory", false},
		{"not a repo", workspace.Spec{Git: plain}, "workspace: git " + plain + ": not a git repository (git rev-parse: fatal: not a git repository", false},
		{"subdirectory", workspace.Spec{Git: filepath.Join(repo, ".git")}, "workspace: git " + repo + "/.git: not in a work tree", false},
		{"bad ref", workspace.Spec{Git: repo, Ref: "no-such-branch"}, "workspace: ref no-such-branch: unknown revision in " + repo + ": give a branch, tag or commit of it", true},
		{"no commits", workspace.Spec{Git: empty}, "workspace: ref HEAD: unknown revision in " + empty + " (has it any commits?)", true},
		{"ref on a copy", workspace.Spec{From: plain, Ref: "main"}, "workspace: ref main is set for a copy of " + plain + ": ref needs git", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := workspace.Check(t.Context(), tt.spec)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.want == "" && err != nil || !strings.HasPrefix(got, tt.want) {
				t.Errorf("Check(%+v) = %v; want an error beginning %q", tt.spec, err, tt.want)
			}
			var ref *workspace.RefError
			if errors.As(err, &ref) != tt.ref {
				t.Errorf("Check(%+v) = %v (%T); want a *RefError: %v", tt.spec, err, err, tt.ref)
			}
		})
	}
	if diff := cmp.Diff(before, state()); diff != "" {
		t.Errorf("Check changed the repository (-before +after):\n%s", diff)
	}
}

func TestCreateNoGit(t *testing.T) {
	repo, _, _ := newRepo(t)
	t.Setenv("PATH", tempDir(t))
	_, err := workspace.Create(t.Context(), workspace.Spec{Git: repo}, tempDir(t), "x")
	want := "workspace: git " + repo + ": git is not on PATH: install git, or copy a directory with from"
	if err == nil || err.Error() != want {
		t.Errorf("Create without git = %v; want %q", err, want)
	}
}

func TestCreateCancelled(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	parent := tempDir(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, spec := range []workspace.Spec{{Git: repo}, {From: fixture(t)}} {
		w, err := workspace.Create(ctx, spec, parent, "x")
		if err == nil {
			w.Remove()
			t.Errorf("Create(%+v) with a cancelled ctx = nil error", spec)
		} else if !strings.Contains(err.Error(), "context canceled") {
			t.Errorf("Create(%+v) with a cancelled ctx = %v; want context canceled", spec, err)
		}
	}
	if got := entries(t, parent); len(got) != 0 {
		t.Errorf("cancelled Create left %q", got)
	}
}

// --- git ---

// gitT runs git in dir for the test, independent of the user's config, and
// returns its trimmed output.
func gitT(t *testing.T, dir string, args ...string) string {
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
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with two commits on main: first has
// a.txt "one" and b.txt; second changes a.txt to "two" and adds c.txt.
// Tag v1 names first.
func newRepo(t *testing.T) (repo, first, second string) {
	t.Helper()
	repo = filepath.Join(tempDir(t), "repo")
	gitT(t, filepath.Dir(repo), "init", "--quiet", repo)
	write(t, filepath.Join(repo, "a.txt"), "one\n", 0o644)
	write(t, filepath.Join(repo, "b.txt"), "bee\n", 0o644)
	write(t, filepath.Join(repo, ".gitignore"), "*.log\n", 0o644)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "--quiet", "-m", "first")
	first = gitT(t, repo, "rev-parse", "HEAD")
	gitT(t, repo, "tag", "v1")
	write(t, filepath.Join(repo, "a.txt"), "two\n", 0o644)
	write(t, filepath.Join(repo, "c.txt"), "sea\n", 0o644)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "--quiet", "-m", "second")
	second = gitT(t, repo, "rev-parse", "HEAD")
	return repo, first, second
}

// repoState is what must not change in a source repository.
func repoState(t *testing.T, repo string) string {
	t.Helper()
	return strings.Join([]string{
		"status: " + gitT(t, repo, "status", "--porcelain", "--untracked-files=all"),
		"head: " + gitT(t, repo, "rev-parse", "HEAD"),
		"branch: " + gitT(t, repo, "symbolic-ref", "--quiet", "HEAD"),
		"refs: " + gitT(t, repo, "for-each-ref"),
		"stash: " + gitT(t, repo, "stash", "list"),
	}, "\n")
}

func TestGitRefs(t *testing.T) {
	t.Parallel()
	repo, first, second := newRepo(t)
	tests := []struct {
		ref, commit, a string
	}{
		{"", second, "two\n"},
		{"HEAD~1", first, "one\n"},
		{"v1", first, "one\n"},
		{"main", second, "two\n"},
		{first[:10], first, "one\n"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			w := create(t, workspace.Spec{Git: repo, Ref: tt.ref}, tempDir(t))
			if w.Kind != workspace.KindWorktree || w.Commit != tt.commit {
				t.Errorf("Kind, Commit = %q, %q; want %q, %q", w.Kind, w.Commit, workspace.KindWorktree, tt.commit)
			}
			if got := read(t, filepath.Join(w.Dir, "a.txt")); got != tt.a {
				t.Errorf("a.txt = %q; want %q", got, tt.a)
			}
			_, err := os.Stat(filepath.Join(w.Dir, "c.txt"))
			if hasC := err == nil; hasC != (tt.commit == second) {
				t.Errorf("c.txt exists: %v; want %v", hasC, tt.commit == second)
			}
			if head := gitT(t, w.Dir, "rev-parse", "HEAD"); head != tt.commit {
				t.Errorf("workspace HEAD = %s; want %s", head, tt.commit)
			}
			if got := changesOf(t, w); !cmp.Equal(got, none) {
				t.Errorf("Changes() right after Create = %+v; want none", got)
			}
		})
	}
}

// edit changes a git workspace: modifies a.txt (tracked), adds new.txt
// (untracked), deletes b.txt, adds an ignored file and an empty directory.
func edit(t *testing.T, dir string) {
	t.Helper()
	write(t, filepath.Join(dir, "a.txt"), "one\nmore\n", 0o644)
	write(t, filepath.Join(dir, "new dir", "new ü.txt"), "fresh\n", 0o644)
	must(t, os.Remove(filepath.Join(dir, "b.txt")))
	write(t, filepath.Join(dir, "debug.log"), "ignored\n", 0o644)
	must(t, os.Mkdir(filepath.Join(dir, "emptydir"), 0o755))
}

// wantDiff is edit's diff against first. git ends a ---/+++ name that has
// a space with a tab.
const wantDiff = `diff --git a/a.txt b/a.txt
index 5626abf..9a72323 100644
--- a/a.txt
+++ b/a.txt
@@ -1 +1,2 @@
 one
+more
diff --git a/b.txt b/b.txt
deleted file mode 100644
index af9c6fd..0000000
--- a/b.txt
+++ /dev/null
@@ -1 +0,0 @@
-bee
diff --git a/new dir/new ü.txt b/new dir/new ü.txt
new file mode 100644
index 0000000..92d5444
--- /dev/null
+++ b/new dir/new ü.txt` + "\t" + `
@@ -0,0 +1 @@
+fresh
`

func TestGitDiff(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	before := repoState(t, repo)
	w := create(t, workspace.Spec{Git: repo, Ref: "HEAD~1"}, tempDir(t))
	edit(t, w.Dir)
	wsStatus := gitT(t, w.Dir, "status", "--porcelain")

	diff, total, truncated, err := w.Diff(t.Context(), 0)
	if err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	if d := cmp.Diff(wantDiff, diff); d != "" {
		t.Errorf("Diff() (-want +got):\n%s", d)
	}
	if total != len(diff) || truncated {
		t.Errorf("Diff() total, truncated = %d, %v; want %d, false", total, truncated, len(diff))
	}
	want := changes{
		Created:  []string{"debug.log", "new dir/new ü.txt"},
		Modified: []string{"a.txt"},
		Deleted:  []string{"b.txt"},
	}
	if d := cmp.Diff(want, changesOf(t, w)); d != "" {
		t.Errorf("Changes() (-want +got):\n%s", d)
	}
	if got := gitT(t, w.Dir, "status", "--porcelain"); got != wsStatus {
		t.Errorf("Diff changed the workspace's status:\n%s\nwant:\n%s", got, wsStatus)
	}
	if got := repoState(t, repo); got != before {
		t.Errorf("source repository changed:\n%s\nwant:\n%s", got, before)
	}

	t.Run("limit", func(t *testing.T) {
		for _, limit := range []int{1, 20, 60, 150, len(wantDiff) - 1, len(wantDiff), len(wantDiff) + 1} {
			got, total, truncated, err := w.Diff(t.Context(), limit)
			if err != nil {
				t.Fatalf("Diff(%d) = %v", limit, err)
			}
			if total != len(wantDiff) {
				t.Errorf("Diff(%d) total = %d; want %d", limit, total, len(wantDiff))
			}
			if wantTrunc := limit < len(wantDiff); truncated != wantTrunc {
				t.Errorf("Diff(%d) truncated = %v; want %v", limit, truncated, wantTrunc)
			}
			if len(got) > limit || !strings.HasPrefix(wantDiff, got) || !utf8.ValidString(got) {
				t.Errorf("Diff(%d) = %q; want a valid prefix of at most %d bytes", limit, got, limit)
			}
			if len(got) < limit/2-utf8.UTFMax {
				t.Errorf("Diff(%d) = %q; want at least half of %d bytes", limit, got, limit)
			}
			head := wantDiff[:min(limit, len(wantDiff))]
			if lineEnd := strings.LastIndex(head, "\n") + 1; lineEnd >= (limit+1)/2 && len(got) != lineEnd {
				t.Errorf("Diff(%d) = %q; want it cut after the line ending at %d", limit, got, lineEnd)
			}
		}
	})
}

// TestGitDiffFromBaseline: the diff starts where Changes does, at the
// baseline Snapshot takes after setup: setup's edits, new files and
// deletions are not the agent's, in either kind of git workspace. The
// source's info/exclude still says what is untracked.
func TestGitDiffFromBaseline(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	bare := filepath.Join(tempDir(t), "bare.git")
	gitT(t, filepath.Dir(bare), "clone", "--quiet", "--bare", repo, bare)
	for _, src := range []string{repo, bare} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			common := gitT(t, src, "rev-parse", "--path-format=absolute", "--git-common-dir")
			write(t, filepath.Join(common, "info", "exclude"), "*.tmp\n", 0o644)
			w := create(t, workspace.Spec{Git: src}, tempDir(t))
			// Setup.
			write(t, filepath.Join(w.Dir, "a.txt"), "set up\n", 0o644)
			write(t, filepath.Join(w.Dir, "setup.txt"), "made by setup\n", 0o644)
			must(t, os.Remove(filepath.Join(w.Dir, "b.txt")))
			must(t, w.Snapshot(t.Context()))
			if diff, total, _, err := w.Diff(t.Context(), 0); diff != "" || total != 0 || err != nil {
				t.Errorf("Diff() right after Snapshot = %q, %d, %v; want nothing", diff, total, err)
			}
			// The agent.
			write(t, filepath.Join(w.Dir, "setup.txt"), "made by setup\nand the agent\n", 0o644)
			write(t, filepath.Join(w.Dir, "agent.txt"), "by the agent\n", 0o644)
			write(t, filepath.Join(w.Dir, "scratch.tmp"), "ignored by info/exclude\n", 0o644)
			must(t, os.Remove(filepath.Join(w.Dir, "c.txt")))
			diff, _, _, err := w.Diff(t.Context(), 0)
			must(t, err)
			const want = `diff --git a/agent.txt b/agent.txt
new file mode 100644
index 0000000..1dd1a58
--- /dev/null
+++ b/agent.txt
@@ -0,0 +1 @@
+by the agent
diff --git a/c.txt b/c.txt
deleted file mode 100644
index 558ad60..0000000
--- a/c.txt
+++ /dev/null
@@ -1 +0,0 @@
-sea
diff --git a/setup.txt b/setup.txt
index e8db4c7..b8fd26e 100644
--- a/setup.txt
+++ b/setup.txt
@@ -1 +1,2 @@
 made by setup
+and the agent
`
			if d := cmp.Diff(want, diff); d != "" {
				t.Errorf("Diff() (-want +got):\n%s", d)
			}
			wantChanges := changes{Created: []string{"agent.txt", "scratch.tmp"}, Modified: []string{"setup.txt"}, Deleted: []string{"c.txt"}}
			if d := cmp.Diff(wantChanges, changesOf(t, w)); d != "" {
				t.Errorf("Changes() (-want +got):\n%s", d)
			}
		})
	}
}

// TestRepoChanges: a change the agent makes through its worktree to the
// config and hooks the source repository shares with it is reported,
// and left as it is; one setup made before the baseline is not.
func TestRepoChanges(t *testing.T) {
	t.Parallel()
	repoChanges := func(w *workspace.Workspace) []string {
		t.Helper()
		got, err := w.RepoChanges(t.Context())
		if err != nil {
			t.Fatalf("RepoChanges() = %v", err)
		}
		return got
	}
	repo, _, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	if got := repoChanges(w); got != nil {
		t.Errorf("RepoChanges() right after Create = %q; want nil", got)
	}
	gitT(t, w.Dir, "config", "setup.x", "y") // setup
	must(t, w.Snapshot(t.Context()))
	if got := repoChanges(w); got != nil {
		t.Errorf("RepoChanges() right after Snapshot = %q; want nil", got)
	}
	// The agent.
	gitT(t, w.Dir, "config", "filter.x.clean", "evil")
	gitDir := filepath.Join(repo, ".git")
	write(t, filepath.Join(gitDir, "hooks", "pre-commit"), "#!/bin/sh\nevil\n", 0o755)
	want := []string{"created " + filepath.Join(gitDir, "hooks", "pre-commit"), "modified " + filepath.Join(gitDir, "config")}
	if d := cmp.Diff(want, repoChanges(w)); d != "" {
		t.Errorf("RepoChanges() (-want +got):\n%s", d)
	}
	if got := gitT(t, repo, "config", "filter.x.clean"); got != "evil" {
		t.Errorf("the repository's filter.x.clean = %q; want it left as the agent set it", got)
	}
	if got := repoChanges(create(t, workspace.Spec{From: fixture(t)}, tempDir(t))); got != nil {
		t.Errorf("RepoChanges() of a copy = %q; want nil", got)
	}
}

func TestGitSourceUntouched(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	write(t, filepath.Join(repo, "a.txt"), "uncommitted\n", 0o644) // the user's own work
	write(t, filepath.Join(repo, "untracked.txt"), "mine\n", 0o644)
	gitT(t, repo, "add", "a.txt")
	before := repoState(t, repo)
	index := read(t, filepath.Join(repo, ".git", "index"))

	w, err := workspace.Create(t.Context(), workspace.Spec{Git: repo, Ref: "v1"}, tempDir(t), "x")
	must(t, err)
	if list := gitT(t, repo, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+w.Dir+"\n") {
		t.Errorf("git worktree list does not list %s:\n%s", w.Dir, list)
	}
	edit(t, w.Dir)
	// The agent commits in its workspace, on a detached HEAD.
	gitT(t, w.Dir, "add", "-A")
	gitT(t, w.Dir, "commit", "--quiet", "-m", "agent")
	if _, _, _, err := w.Diff(t.Context(), 100); err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	must(t, w.Remove())

	if got := repoState(t, repo); got != before {
		t.Errorf("source repository changed:\n%s\nwant:\n%s", got, before)
	}
	if got := read(t, filepath.Join(repo, ".git", "index")); got != index {
		t.Errorf("source index file changed")
	}
	if list := gitT(t, repo, "worktree", "list", "--porcelain"); strings.Contains(list, w.Dir) {
		t.Errorf("git worktree list still lists %s after Remove:\n%s", w.Dir, list)
	}
	if _, err := os.Lstat(w.Dir); !os.IsNotExist(err) {
		t.Errorf("Lstat(%s) after Remove = %v; want not exist", w.Dir, err)
	}
}

func TestGitDiffAfterAgentCommit(t *testing.T) {
	t.Parallel()
	repo, first, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo, Ref: first}, tempDir(t))
	write(t, filepath.Join(w.Dir, "a.txt"), "one\nmore\n", 0o644)
	gitT(t, w.Dir, "commit", "--quiet", "-am", "agent")
	write(t, filepath.Join(w.Dir, "later.txt"), "x\n", 0o644)

	diff, _, _, err := w.Diff(t.Context(), 0)
	must(t, err)
	for _, want := range []string{"+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+more\n", "+++ b/later.txt\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("Diff() = %q; want it against the commit checked out, containing %q", diff, want)
		}
	}
}

func TestGitIgnoresConfigEnvAndHooks(t *testing.T) {
	repo, _, _ := newRepo(t)
	marker := filepath.Join(tempDir(t), "hook-ran")
	hooks := filepath.Join(repo, ".git", "hooks")
	for _, hook := range []string{"post-checkout", "reference-transaction", "post-index-change"} {
		write(t, filepath.Join(hooks, hook), "#!/bin/sh\necho "+hook+" >> "+marker+"\n", 0o755)
	}
	config := filepath.Join(tempDir(t), "gitconfig")
	write(t, config, `[diff]
	noprefix = true
	external = /bin/false
	context = 10
	renames = false
	algorithm = patience
	mnemonicPrefix = true
[color]
	ui = always
[core]
	quotepath = true
	pager = /bin/false
	hooksPath = `+hooks+`
	excludesFile = `+filepath.Join(filepath.Dir(config), "ignore")+`
`, 0o644)
	write(t, filepath.Join(filepath.Dir(config), "ignore"), "new*\n", 0o644)
	// As if acprun ran inside a git hook of another repository.
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	t.Setenv("GIT_DIR", filepath.Join(tempDir(t), "elsewhere"))
	t.Setenv("GIT_WORK_TREE", tempDir(t))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(tempDir(t), "other-index"))
	t.Setenv("GIT_DIFF_OPTS", "--unified=0")
	t.Setenv("GIT_EXTERNAL_DIFF", "/bin/false")

	w := create(t, workspace.Spec{Git: repo, Ref: "HEAD~1"}, tempDir(t))
	if w.Kind != workspace.KindWorktree {
		t.Errorf("Kind = %q; want %q", w.Kind, workspace.KindWorktree)
	}
	edit(t, w.Dir)
	diff, _, _, err := w.Diff(t.Context(), 0)
	must(t, err)
	if d := cmp.Diff(wantDiff, diff); d != "" {
		t.Errorf("Diff() with a hostile config (-want +got):\n%s", d)
	}
	must(t, w.Remove())
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a hook ran (%s: %v): %q", marker, err, read(t, marker))
	}
}

func TestGitBareClone(t *testing.T) {
	t.Parallel()
	repo, first, _ := newRepo(t)
	bare := filepath.Join(tempDir(t), "bare.git")
	gitT(t, filepath.Dir(bare), "clone", "--quiet", "--bare", repo, bare)
	refs := gitT(t, bare, "for-each-ref")

	parent := tempDir(t)
	w := create(t, workspace.Spec{Git: bare, Ref: "HEAD~1"}, parent)
	if w.Kind != workspace.KindClone || w.Commit != first {
		t.Errorf("Kind, Commit = %q, %q; want %q, %q", w.Kind, w.Commit, workspace.KindClone, first)
	}
	if got := read(t, filepath.Join(w.Dir, "a.txt")); got != "one\n" {
		t.Errorf("a.txt = %q; want %q", got, "one\n")
	}
	// The clone's git directory is out of the agent's reach, beside the
	// workspace, as private as it; git in the workspace finds it.
	if info, err := os.Stat(w.Dir + ".git"); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("Stat(%s.git) = %v, %v; want a directory with mode 0700", w.Dir, info, err)
	}
	if got, want := gitT(t, w.Dir, "rev-parse", "--absolute-git-dir"), filepath.Join(w.Dir+".git", "git"); got != want {
		t.Errorf("the workspace's git directory is %s; want %s", got, want)
	}
	if got := gitT(t, w.Dir, "rev-parse", "HEAD"); got != first {
		t.Errorf("clone HEAD = %s; want %s", got, first)
	}
	edit(t, w.Dir)
	diff, _, _, err := w.Diff(t.Context(), 0)
	must(t, err)
	if d := cmp.Diff(wantDiff, diff); d != "" {
		t.Errorf("Diff() (-want +got):\n%s", d)
	}
	must(t, w.Remove())
	if got := entries(t, parent); len(got) != 0 {
		t.Errorf("Remove left %q", got)
	}
	if got := gitT(t, bare, "for-each-ref"); got != refs {
		t.Errorf("bare repository's refs changed:\n%s\nwant:\n%s", got, refs)
	}
	if _, err := os.Stat(filepath.Join(bare, "worktrees")); !os.IsNotExist(err) {
		t.Errorf("bare repository has worktrees: %v", err)
	}
}

func TestGitWorktreeRefusedFallsBackToClone(t *testing.T) {
	t.Parallel()
	repo, _, second := newRepo(t)
	// git cannot make .git/worktrees/<name> when worktrees is a file,
	// whoever runs the test.
	write(t, filepath.Join(repo, ".git", "worktrees"), "not a directory\n", 0o644)
	before := repoState(t, repo)

	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	if w.Kind != workspace.KindClone || w.Commit != second {
		t.Errorf("Kind, Commit = %q, %q; want %q, %q", w.Kind, w.Commit, workspace.KindClone, second)
	}
	if got := read(t, filepath.Join(w.Dir, "c.txt")); got != "sea\n" {
		t.Errorf("c.txt = %q; want %q", got, "sea\n")
	}
	if got := gitT(t, w.Dir, "rev-parse", "HEAD"); got != second {
		t.Errorf("clone HEAD = %s; want %s", got, second)
	}
	if got := changesOf(t, w); !cmp.Equal(got, none) {
		t.Errorf("Changes() right after Create = %+v; want none", got)
	}
	must(t, w.Remove())
	if got := repoState(t, repo); got != before {
		t.Errorf("source repository changed:\n%s\nwant:\n%s", got, before)
	}
}

func TestGitRemoveAfterAgentBrokeWorktree(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	w, err := workspace.Create(t.Context(), workspace.Spec{Git: repo}, tempDir(t), "x")
	must(t, err)
	gitT(t, repo, "worktree", "lock", w.Dir)
	must(t, os.Remove(filepath.Join(w.Dir, ".git")))

	must(t, w.Remove())
	if _, err := os.Lstat(w.Dir); !os.IsNotExist(err) {
		t.Errorf("Lstat(%s) after Remove = %v; want not exist", w.Dir, err)
	}
	if list := gitT(t, repo, "worktree", "list", "--porcelain"); strings.Contains(list, w.Dir) {
		t.Errorf("git worktree list still lists %s after Remove:\n%s", w.Dir, list)
	}
}

func TestDiffOfCopy(t *testing.T) {
	t.Parallel()
	w := create(t, workspace.Spec{From: fixture(t)}, tempDir(t))
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n", 0o644)
	diff, total, truncated, err := w.Diff(t.Context(), 100)
	if diff != "" || total != 0 || truncated || err != nil {
		t.Errorf("Diff() of a copy = %q, %d, %v, %v; want \"\", 0, false, nil", diff, total, truncated, err)
	}
}

func TestGitDiffOddFiles(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	gitT(t, w.Dir, "init", "--quiet", "fresh-repo") // no commit yet
	write(t, filepath.Join(w.Dir, "fresh-repo", "f.txt"), "f\n", 0o644)
	gitT(t, w.Dir, "init", "--quiet", "sub-repo")
	write(t, filepath.Join(w.Dir, "sub-repo", "g.txt"), "g\n", 0o644)
	gitT(t, filepath.Join(w.Dir, "sub-repo"), "add", "g.txt")
	gitT(t, filepath.Join(w.Dir, "sub-repo"), "commit", "--quiet", "-m", "sub")
	must(t, syscall.Mkfifo(filepath.Join(w.Dir, "fifo"), 0o644))
	write(t, filepath.Join(w.Dir, "plain.txt"), "plain\n", 0o644)
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n", 0o644)

	diff, _, _, err := w.Diff(t.Context(), 0)
	if err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	for _, want := range []string{"+++ b/a.txt\n", "+++ b/plain.txt\n", "+++ b/sub-repo\n@@ -0,0 +1 @@\n+Subproject commit "} {
		if !strings.Contains(diff, want) {
			t.Errorf("Diff() = %q; want it to contain %q", diff, want)
		}
	}
	want := changes{
		Created:  []string{"fifo", "fresh-repo/f.txt", "plain.txt", "sub-repo/g.txt"},
		Modified: []string{"a.txt"},
		Deleted:  []string{},
	}
	got := changesOf(t, w)
	got.Created = slices.DeleteFunc(got.Created, func(p string) bool { return strings.Contains(p, "/.git/") })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Changes() (-want +got):\n%s", d)
	}
}

// TestGitDiffUnreadable: the files git could not open (the agent made them
// unreadable, or a directory above them unsearchable) are left out of the
// diff, which its note says, and the rest of the diff stands; Changes
// still lists everything. A tracked file git cannot see is no deletion.
// TestGitDiffDirectoryReplaced: the files of a tracked directory the agent
// replaced by a file, or by a link that leads nowhere, are deleted: the
// diff shows them so and says nothing of files it cannot read.
func TestGitDiffDirectoryReplaced(t *testing.T) {
	t.Parallel()
	for _, replace := range []string{"file", "link loop"} {
		t.Run(replace, func(t *testing.T) {
			t.Parallel()
			repo, _, _ := newRepo(t)
			write(t, filepath.Join(repo, "docs", "a.md"), "one\n", 0o644)
			gitT(t, repo, "add", "docs")
			gitT(t, repo, "commit", "--quiet", "-m", "docs")
			w := create(t, workspace.Spec{Git: repo}, tempDir(t))
			must(t, os.RemoveAll(filepath.Join(w.Dir, "docs")))
			if replace == "file" {
				write(t, filepath.Join(w.Dir, "docs"), "see\n", 0o644)
			} else {
				must(t, os.Symlink("docs", filepath.Join(w.Dir, "docs")))
			}
			diff, _, _, err := w.Diff(t.Context(), 0)
			if err != nil {
				t.Fatalf("Diff() = %v", err)
			}
			if strings.Contains(diff, "cannot be read") || !strings.Contains(diff, "deleted file mode") || !strings.Contains(diff, "a/docs/a.md") {
				t.Errorf("Diff() = %q; want docs/a.md deleted and no note of files it cannot read", diff)
			}
		})
	}
}

func TestGitDiffUnreadable(t *testing.T) {
	t.Parallel()
	if !testkit.PermissionsBind(t) {
		return
	}
	repo, _, _ := newRepo(t)
	write(t, filepath.Join(repo, "sub", "d.txt"), "d\n", 0o644)
	gitT(t, repo, "add", "sub")
	gitT(t, repo, "commit", "--quiet", "-m", "sub")
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	write(t, filepath.Join(w.Dir, "secret.txt"), "s\n", 0o000)
	must(t, os.Chmod(filepath.Join(w.Dir, "b.txt"), 0o000)) // tracked, so read first
	write(t, filepath.Join(w.Dir, "plain.txt"), "plain\n", 0o644)
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n", 0o644)
	write(t, filepath.Join(w.Dir, "sub", "new.txt"), "n\n", 0o644)
	must(t, os.Chmod(filepath.Join(w.Dir, "sub"), 0o000))
	t.Cleanup(func() { os.Chmod(filepath.Join(w.Dir, "sub"), 0o755) })

	diff, _, _, err := w.Diff(t.Context(), 0)
	if err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	first, rest, _ := strings.Cut(diff, "\n")
	if want := `acprun: left out of this diff, as they cannot be read (the changes list them): "b.txt", "secret.txt", "sub/d.txt"`; first != want {
		t.Errorf("Diff()'s first line = %q; want %q", first, want)
	}
	for _, want := range []string{"+++ b/a.txt\n", "+++ b/plain.txt\n"} {
		if !strings.Contains(rest, want) {
			t.Errorf("Diff() = %q; want it to contain %q", diff, want)
		}
	}
	for _, not := range []string{"b/b.txt", "b/secret.txt", "sub"} {
		if strings.Contains(rest, not) {
			t.Errorf("Diff() = %q; want no %q in it", diff, not)
		}
	}
	want := changes{
		Created:  []string{"plain.txt", "secret.txt"},
		Modified: []string{"a.txt", "b.txt", "sub/d.txt"},
		Deleted:  []string{},
	}
	if d := cmp.Diff(want, changesOf(t, w)); d != "" {
		t.Errorf("Changes() (-want +got):\n%s", d)
	}
}

// TestGitRunsNothingTheAgentConfigured: an agent that can write only in its
// workspace gives git a config that runs its commands (filter, process
// filter, textconv and external diff drivers, fsmonitor, hooks), in the git
// directory Dir/.git is or names, in the one `git config` writes there (a
// worktree's is the source repository's), or in a repository of its own
// inside the workspace (one git would run `git status` in); Diff still
// records the change set, and runs none of them.
func TestGitRunsNothingTheAgentConfigured(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	// A submodule at mod, whose commit the agent can reproduce.
	mod := filepath.Join(tempDir(t), "mod")
	gitT(t, filepath.Dir(mod), "init", "--quiet", mod)
	write(t, filepath.Join(mod, "f.txt"), "same\n", 0o644)
	gitT(t, mod, "add", "f.txt")
	gitT(t, mod, "commit", "--quiet", "-m", "mod")
	gitT(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+gitT(t, mod, "rev-parse", "HEAD")+",mod")
	gitT(t, repo, "commit", "--quiet", "-m", "with a submodule")
	bare := filepath.Join(tempDir(t), "bare.git")
	gitT(t, filepath.Dir(bare), "clone", "--quiet", "--bare", repo, bare)

	for _, kind := range []struct{ name, src string }{{workspace.KindWorktree, repo}, {workspace.KindClone, bare}} {
		for _, attack := range []struct {
			name string
			do   func(t *testing.T, dir, config string)
		}{
			{"git directory", func(t *testing.T, dir, config string) {
				gitDir := filepath.Join(dir, ".git")
				if info, err := os.Lstat(gitDir); err != nil || !info.IsDir() {
					// Dir/.git names a git directory the agent cannot
					// write: point it at one of its own.
					gitDir = filepath.Join(dir, "agent.git")
					gitT(t, dir, "clone", "--quiet", "--bare", "--no-hardlinks", kind.src, gitDir)
					write(t, filepath.Join(dir, ".git"), "gitdir: "+gitDir+"\n", 0o644)
				}
				appendFile(t, filepath.Join(gitDir, "config"), config)
				write(t, filepath.Join(dir, ".gitattributes"), attributes, 0o644)
			}},
			{"repository config", func(t *testing.T, dir, config string) {
				// `git config` in the workspace: for a worktree, the
				// config it shares with the source repository.
				path := filepath.Join(gitT(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir"), "config")
				saved := read(t, path)
				t.Cleanup(func() { write(t, path, saved, 0o644) })
				appendFile(t, path, config)
				write(t, filepath.Join(dir, ".gitattributes"), attributes, 0o644)
			}},
			{"embedded repository", func(t *testing.T, dir, config string) {
				embedded(t, mod, filepath.Join(dir, "nested"), config)
			}},
			{"embedded repository at a submodule's path", func(t *testing.T, dir, config string) {
				must(t, os.Remove(filepath.Join(dir, "mod")))
				embedded(t, mod, filepath.Join(dir, "mod"), config)
			}},
		} {
			t.Run(kind.name+"/"+attack.name, func(t *testing.T) {
				w := create(t, workspace.Spec{Git: kind.src, Ref: "HEAD"}, tempDir(t))
				if w.Kind != kind.name {
					t.Fatalf("Kind = %q; want %q", w.Kind, kind.name)
				}
				marker := filepath.Join(tempDir(t), "ran")
				script := filepath.Join(w.Dir, "evil.sh")
				write(t, script, "#!/bin/sh\necho \"$1\" >> "+marker+"\ncat\n", 0o755)
				run := func(what string) string { return "sh " + script + " " + what }
				config := "[filter \"x\"]\n\tclean = " + run("clean") + "\n\tsmudge = " + run("smudge") +
					"\n[diff \"x\"]\n\ttextconv = " + run("textconv") + "\n\tcommand = " + run("command") +
					"\n[diff]\n\texternal = " + run("external") + "\n"
				hook := filepath.Join(w.Dir, "hooks", "post-index-change")
				write(t, hook, "#!/bin/sh\necho hook >> "+marker+"\n", 0o755)
				config += "[filter \"p\"]\n\tprocess = " + run("process") +
					"\n[core]\n\tfsmonitor = " + hook + "\n\thooksPath = " + filepath.Dir(hook) + "\n"
				attack.do(t, w.Dir, config)
				write(t, filepath.Join(w.Dir, "a.txt"), "changed\n", 0o644)

				diff, _, _, err := w.Diff(t.Context(), 0)
				if err != nil {
					t.Fatalf("Diff() = %v", err)
				}
				for _, want := range []string{"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+changed\n", "+++ b/evil.sh\n"} {
					if !strings.Contains(diff, want) {
						t.Errorf("Diff() =\n%s\nwant it to contain %q", diff, want)
					}
				}
				if got := changesOf(t, w); !slices.Contains(got.Modified, "a.txt") || !slices.Contains(got.Created, "evil.sh") {
					t.Errorf("Changes() = %+v; want a.txt modified, evil.sh created", got)
				}
				if b, err := os.ReadFile(marker); !os.IsNotExist(err) {
					t.Errorf("git ran the agent's commands (%v): %q", err, b)
				}
			})
		}
	}
}

// attributes send every file through the agent's filter and diff driver
// x, and a.txt and f.txt through its process filter p.
const attributes = "* filter=x diff=x\na.txt filter=p\nf.txt filter=p\n"

// embedded makes dir a clone of the repository src (as an agent can) whose
// config is config and whose attributes send every file through the
// filter and diff driver x, and changes f.txt, keeping its size, so that
// `git status` in it runs the filter.
func embedded(t *testing.T, src, dir, config string) {
	t.Helper()
	gitT(t, filepath.Dir(dir), "clone", "--quiet", "--no-hardlinks", src, dir)
	appendFile(t, filepath.Join(dir, ".git", "config"), config)
	write(t, filepath.Join(dir, ".git", "info", "attributes"), attributes, 0o644)
	write(t, filepath.Join(dir, "f.txt"), "diff\n", 0o644)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	must(t, os.Chtimes(filepath.Join(dir, "f.txt"), old, old))
}

// appendFile appends text to the file path.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(text)
	must(t, errors.Join(err, f.Close()))
}

// TestShared: every workspace made in a parent is made in one shared
// directory there, the user's own (mode 0700), removed with the last
// workspace in it; a shared directory that is not the user's own, or a
// symbolic link, is refused, and nothing is made.
func TestShared(t *testing.T) {
	t.Parallel()
	src := filepath.Join(tempDir(t), "src")
	must(t, os.Mkdir(src, 0o755))
	parent := tempDir(t)
	a := create(t, workspace.Spec{From: src}, parent)
	b := create(t, workspace.Spec{From: src}, parent)
	shared := sharedIn(parent)
	if a.Shared != shared || b.Shared != shared || filepath.Dir(a.Dir) != shared || filepath.Dir(b.Dir) != shared {
		t.Errorf("workspaces %s and %s (shared %s, %s); want both in %s", a.Dir, b.Dir, a.Shared, b.Shared, shared)
	}
	if info, err := os.Stat(shared); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("shared directory: %v (%v); want mode 0700", info, err)
	}
	if !slices.Equal(a.Own(), []string{a.Dir}) {
		t.Errorf("Own() = %q; want the copy alone", a.Own())
	}
	must(t, a.Remove())
	if _, err := os.Stat(shared); err != nil {
		t.Errorf("the shared directory is gone with a workspace left in it: %v", err)
	}
	must(t, b.Remove())
	if got := entries(t, parent); len(got) != 0 {
		t.Errorf("%s holds %q once every workspace is removed; want nothing", parent, got)
	}

	for name, plant := range map[string]func(){
		"link":   func() { must(t, os.Symlink(tempDir(t), shared)) },
		"open":   func() { must(t, os.Mkdir(shared, 0o755)); must(t, os.Chmod(shared, 0o755)) },
		"a file": func() { must(t, os.WriteFile(shared, nil, 0o600)) },
	} {
		plant()
		_, err := workspace.Create(t.Context(), workspace.Spec{From: src}, parent, "x")
		if err == nil || !strings.Contains(err.Error(), "is not a directory of mode 0700 that is acprun's user's own") {
			t.Errorf("%s: Create: %v; want it refused", name, err)
		}
		if got := entries(t, parent); len(got) != 1 {
			t.Errorf("%s: %s holds %q", name, parent, got)
		}
		must(t, os.RemoveAll(shared))
	}
}

// TestCreateDirErrors: a workspace that cannot be made for want of rights
// (or room) where workspaces are made is a *workspace.DirError naming that
// directory, not an error of its source: a copy and a git workspace alike,
// in a directory that cannot be written or made.
func TestCreateDirErrors(t *testing.T) {
	t.Parallel()
	base := tempDir(t)
	src := filepath.Join(base, "src")
	must(t, os.Mkdir(src, 0o755))
	write(t, filepath.Join(base, "file"), "x", 0o644)
	repo, _, _ := newRepo(t)
	ro := filepath.Join(base, "ro")
	must(t, os.Mkdir(ro, 0o755))
	testkit.ReadOnlyDir(t, ro)
	for _, parent := range []string{ro, filepath.Join(base, "file", "ws")} {
		for _, spec := range []workspace.Spec{{From: src}, {Git: repo}} {
			w, err := workspace.Create(t.Context(), spec, parent, "x")
			if err == nil {
				w.Remove()
				t.Fatalf("Create(%+v) in %s = nil error", spec, parent)
			}
			var de *workspace.DirError
			if !errors.As(err, &de) || de.Dir != parent {
				t.Errorf("Create(%+v) in %s = %v (%T); want a *DirError of %s", spec, parent, err, err, parent)
			}
		}
	}
}

// TestNoRoom: a write that fails for want of room or a writable file
// system is the workspaces' directory's fault; other errors are not.
func TestNoRoom(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "write", Path: "/ws/a", Err: syscall.ENOSPC}, true},
		{fmt.Errorf("copy a: %w", &fs.PathError{Op: "write", Path: "/ws/a", Err: syscall.EDQUOT}), true},
		{&fs.PathError{Op: "mkdir", Path: "/ws/a", Err: syscall.EROFS}, true},
		{&fs.PathError{Op: "open", Path: "/src/a", Err: syscall.EACCES}, false},
		{errors.New("copy a: it changed while it was copied"), false},
	} {
		if got := workspace.NoRoom(c.err); got != c.want {
			t.Errorf("NoRoom(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestCreateFullDisk: a workspace that does not fit in the file system
// where workspaces are made (a tmpfs of 200K, a file of 400K) is a
// *workspace.DirError naming that directory, not an error of its source,
// whatever kind it is: a copy, a worktree (whose directory git removes
// when its checkout fails, and which then falls back to a clone) and a
// clone of a bare repository. Nothing of it is left there.
func TestCreateFullDisk(t *testing.T) {
	t.Parallel()
	small := testkit.SmallDisk(t, "200k")
	big := make([]byte, 400<<10)
	rand.NewChaCha8([32]byte{}).Read(big) // does not compress
	src := filepath.Join(tempDir(t), "src")
	write(t, filepath.Join(src, "big.bin"), string(big), 0o644)
	repo := filepath.Join(tempDir(t), "repo")
	gitT(t, filepath.Dir(repo), "init", "--quiet", repo)
	write(t, filepath.Join(repo, "big.bin"), string(big), 0o644)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "--quiet", "-m", "big")
	bare := filepath.Join(tempDir(t), "bare.git")
	gitT(t, filepath.Dir(bare), "clone", "--quiet", "--bare", repo, bare)
	// 1M of text, whose objects fit but whose checkout does not, and git
	// says only that it could not write the file; 1M of zeros, which git
	// checks out as a hole, and whose snapshot does not fit.
	var small1M []workspace.Spec
	for _, f := range []struct{ name, content string }{{"text", strings.Repeat("acprun\n", 1<<20/7)}, {"zeros", string(make([]byte, 1<<20))}} {
		name, content := f.name, f.content
		r := filepath.Join(tempDir(t), name)
		gitT(t, filepath.Dir(r), "init", "--quiet", r)
		write(t, filepath.Join(r, name+".bin"), content, 0o644)
		gitT(t, r, "add", "-A")
		gitT(t, r, "commit", "--quiet", "-m", name)
		small1M = append(small1M, workspace.Spec{Git: r})
	}
	for _, spec := range append([]workspace.Spec{{From: src}, {Git: repo}, {Git: bare}}, small1M...) {
		w, err := workspace.Create(t.Context(), spec, small, "x")
		if err == nil {
			w.Remove()
			t.Fatalf("Create(%+v) in a full %s = nil error", spec, small)
		}
		var de *workspace.DirError
		if !errors.As(err, &de) || de.Dir != small || strings.Contains(err.Error(), "no such file") {
			t.Errorf("Create(%+v) in a full %s = %v (%T); want a *DirError of %s", spec, small, err, err, small)
		}
		if left, _ := os.ReadDir(small); len(left) != 0 {
			t.Errorf("Create(%+v): %s holds %v after; want nothing", spec, small, left)
		}
	}
}

// TestDiffPaths: the paths a diff shows are read from its headers, as
// git writes them with Diff's options: a name with " b/" in it, names
// git quotes, a rename (both names), a mode change, a binary file, a
// subproject; the note's names are not among them.
func TestDiffPaths(t *testing.T) {
	t.Parallel()
	repo, _, _ := newRepo(t)
	big := bytes.Repeat([]byte("line of the renamed file\n"), 40)
	write(t, filepath.Join(repo, "old name.txt"), string(big), 0o644)
	gitT(t, repo, "add", "old name.txt")
	gitT(t, repo, "commit", "--quiet", "-m", "old")
	w := create(t, workspace.Spec{Git: repo}, tempDir(t))
	must(t, os.Rename(filepath.Join(w.Dir, "old name.txt"), filepath.Join(w.Dir, "new\tname.txt")))
	write(t, filepath.Join(w.Dir, "x b", "y b", "z.txt"), "z\n", 0o644)
	write(t, filepath.Join(w.Dir, "quo\"te\x01.txt"), "q\n", 0o644)
	write(t, filepath.Join(w.Dir, "bin.dat"), "\x00\x01\x02", 0o644)
	write(t, filepath.Join(w.Dir, "héllo.txt"), "h\n", 0o644)
	must(t, os.Chmod(filepath.Join(w.Dir, "a.txt"), 0o755))
	diff, _, _, err := w.Diff(t.Context(), 0)
	must(t, err)
	got := slices.Sorted(maps.Keys(workspace.DiffPaths(diff)))
	want := []string{"a.txt", "bin.dat", "héllo.txt", "new\tname.txt", "old name.txt", "quo\"te\x01.txt", "x b/y b/z.txt"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DiffPaths() (-want +got):\n%s\ndiff:\n%s", d, diff)
	}
	note := "acprun: left out of this diff, as they cannot be read (the changes list them): \"k.pem\"\n"
	if got := workspace.DiffPaths(note + "diff --git a/b b/b\n"); len(got) != 1 || !got["b"] {
		t.Errorf("DiffPaths(note and b) = %v; want b alone", got)
	}
}
