package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
)

// Kinds of workspace, as in Workspace.Kind.
const (
	KindCopy     = "copy"
	KindWorktree = "worktree"
	KindClone    = "clone"
)

// maxPrefix is how many bytes of the sanitised prefix a workspace's
// directory name keeps.
const maxPrefix = 60

// Spec says what to make. Exactly one of From and Git is set (absolute paths).
type Spec struct {
	From string // directory to copy
	Git  string // git repository to check out: its top directory, or a bare repository
	Ref  string // commit/branch/tag; "" = HEAD
	// Commit, when set, is the commit (full hash) that Resolve found Ref
	// naming when the run started: Create checks it out, whatever Ref
	// names by then. A worktree shares its branches and tags with the
	// source repository, so an agent's commit on a branch moves the
	// user's: every attempt of a run still starts where the first did.
	// "" resolves Ref when the workspace is made.
	Commit string
	// Mark is the mark (see package reap) that every git command run for
	// the workspace, from Create to Remove, carries a mark of its own
	// inside, with what it starts: the run's guard kills them when acprun
	// is killed. "" leaves the mark acprun's environment holds, if any.
	Mark reap.Mark
	// Redact shows the cut of what a failed git command said (its error
	// line cut at 300 bytes) knowing the whole line, so that no part of a
	// secret the cut goes through is in the error: the run's redactor.
	// nil shows the cut as it is.
	Redact *redact.Redactor
}

// runs is how the spec's git commands run.
func (s Spec) runs() runs { return runs{mark: s.Mark, red: s.Redact} }

// Workspace is one attempt's copy. Its methods may be called from several
// goroutines.
type Workspace struct {
	Dir    string // absolute, symlinks resolved (filepath.EvalSymlinks), the root the agent works in
	Kind   string // KindCopy, KindWorktree or KindClone
	Commit string // git: the commit checked out (full hash); "" for copies
	// Fallback says why a worktree could not be added to a non-bare
	// repository, so that it was cloned instead; "" otherwise.
	Fallback string
	// Pointers, for a copy, are what it holds that leads out of it, as
	// Pointers lists them for its source: found as it was copied, in the
	// order of a walk. None for git workspaces.
	Pointers []Pointer
	// LeftOut, for a copy, are the files of its source it did not copy
	// (sockets, FIFOs and devices), in the order of a walk: a check that
	// finds one missing can say why. None for git workspaces.
	LeftOut []LeftOut
	// Shared is the directory Dir is made in, inside the parent given to
	// Create: the same for every workspace made there, by this run and
	// others, earlier or at the same time, so that hiding it from an
	// agent, but for its own workspace (see Own), hides all the others.
	Shared string

	// repo is the source repository (its top directory, or the bare
	// repository's directory) for git workspaces.
	repo string
	// gitDir is the workspace's own git directory, found or made when the
	// workspace was made: the worktree's administrative directory inside
	// the source, or the clone's in private. acprun's git commands on it
	// name it (and Dir as the work tree) rather than trusting Dir/.git,
	// which the agent can rewrite; the diff runs on acprun's own (see
	// initBase).
	gitDir string
	// common is the source repository's git directory that its
	// worktrees share (config, hooks, objects), for git workspaces.
	common string
	// private is a git workspace's directory beside Dir (Dir + ".git",
	// mode 0700) that holds a clone's git directory and acprun's own for
	// the diff out of the agent's roots; removed with Dir. "" for copies.
	private string
	// runs holds Spec.Mark, inside which every git command run for the
	// workspace carries a mark of its own, and Spec.Redact.
	runs runs

	mu       sync.Mutex
	baseline snapshot
	base     string       // git: the tree of the baseline, in acprun's own git directory
	shared   snapshot     // git: the source's shared files that run commands (see RepoChanges)
	refs     refs         // git: the source's refs (see RefChanges)
	hidden   []hiddenPath // what the agent's sandbox hides in Dir (see Hide)
	removed  bool
}

// Create makes a fresh workspace in a new directory in parent's shared
// directory (parent is os.TempDir() when ""; created when missing, and
// then left in place). The shared directory, acprun-workspaces-UID (UID:
// the user's id), is made mode 0700 when missing, must be a directory of
// the user's own, and is removed with the last workspace in it. The new
// directory's name starts with prefix, sanitised: characters other than
// [A-Za-z0-9._-] become '-' (a run of them one '-'), leading '.' and '-'
// are dropped, it is cut to 60 bytes, and "workspace" stands in for an
// empty result. ctx bounds the git commands and stops a long copy. On error
// nothing is left behind in parent.
//
// parent must not lie inside the source: a copy would copy itself, and a
// worktree would show in the source's status. A Git path must be the top
// of its work tree (or a bare repository), so that paths inside it map to
// the same paths inside Dir (see Rebase).
func Create(ctx context.Context, spec Spec, parent, prefix string) (*Workspace, error) {
	if err := spec.problem(); err != nil {
		return nil, err
	}
	if spec.From != "" {
		return createCopy(ctx, spec.From, parent, prefix)
	}
	return createGit(ctx, spec, parent, prefix)
}

// Check checks what Create checks of spec before it makes anything, and
// makes nothing: that its source is a directory and, for Git, that git is
// on PATH, that Git is the top of a work tree or a bare repository, and
// that Ref names a commit in it (a *RefError when it does not). It reads
// the local repository only, never a remote.
func Check(ctx context.Context, spec Spec) error {
	_, err := Resolve(ctx, spec)
	return err
}

// Resolve checks spec as Check does and returns the full hash of the
// commit that its Ref (HEAD when "") names now in its repository, for
// Spec.Commit; "" for a copy.
func Resolve(ctx context.Context, spec Spec) (string, error) {
	if err := spec.problem(); err != nil {
		return "", err
	}
	if spec.From != "" {
		_, err := source("from", spec.From)
		return "", err
	}
	_, _, commit, err := gitSource(ctx, spec)
	return commit, err
}

// problem is what is wrong with the fields of s together; nil when
// nothing is.
func (s Spec) problem() error {
	switch {
	case s.From != "" && s.Git != "":
		return errors.New("workspace: both from and git are set: give one")
	case s.From == "" && s.Git == "":
		return errors.New("workspace: neither from nor git is set: give one")
	case s.From != "" && s.Ref != "":
		return fmt.Errorf("workspace: ref %s is set for a copy of %s: ref needs git", s.Ref, s.From)
	}
	return nil
}

// source checks that dir, named by a scenario as what (from or git), is an
// absolute path to a directory, and returns it with symlinks resolved.
func source(what, dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("workspace: %s %s: not an absolute path", what, dir)
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("workspace: %s %s: no such directory", what, dir)
	case err != nil:
		return "", fmt.Errorf("workspace: %s %s: %w", what, dir, err)
	case !info.IsDir():
		return "", fmt.Errorf("workspace: %s %s: not a directory", what, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("workspace: %s %s: %w", what, dir, err)
	}
	return real, nil
}

// DirError is a workspace that could not be made for want of rights or
// room in Dir, the directory workspaces are made in (absolute): the
// environment's fault (a TMPDIR that cannot be written, a full disk), not
// its source's. Err says what failed.
type DirError struct {
	Dir string
	Err error
}

func (e *DirError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *DirError) Unwrap() error { return e.Err }

// noRoom reports whether err, from writing a workspace, says that its
// file system has no room (or quota) left, or takes no writes (or a git
// command in it said so): never the source's fault.
func noRoom(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS) || gitSaidNoRoom(err)
}

// placeError is err, an error of making a workspace in the shared
// directory shared, as a *DirError of the directory shared is in when err
// says that its file system has no room (noRoom): a full disk is the
// attempt's place's fault, not its source's.
func placeError(err error, shared string) error {
	if noRoom(err) {
		return &DirError{Dir: filepath.Dir(shared), Err: err}
	}
	return err
}

// makeDir checks that parent does not lie inside src (resolved), creates
// it when missing, and makes the workspace's own new directory in the
// shared directory in it (see Shared). It returns that directory and the
// shared one, with symlinks resolved. An error of parent or in it is a
// *DirError.
func makeDir(what, given, src, parent, prefix string) (dir, shared string, err error) {
	parent = cmp.Or(parent, os.TempDir())
	parent, err = filepath.Abs(parent)
	if err != nil {
		return "", "", fmt.Errorf("workspace: directory %s: %w", parent, err)
	}
	if Within(parent, src) {
		return "", "", fmt.Errorf("workspace: %s %s: the workspaces' directory %s lies inside it: put workspaces outside %s", what, given, parent, given)
	}
	dir, shared, err = makeIn(parent, prefix)
	if err != nil {
		return "", "", &DirError{Dir: parent, Err: err}
	}
	return dir, shared, nil
}

// MakePrivate makes a new directory of acprun's own, named prefix-*, in
// the shared directory (see Workspace.Shared) in parent ("" for the
// system's temporary directory; made when missing), with the
// workspaces: a sandbox that hides that directory hides it too (a
// sandboxed agent's temporary directory, which no other agent may read).
// A parent that lies in a shared directory already (one MakePrivate made)
// gets the new directory itself. RemovePrivate removes it.
func MakePrivate(parent, prefix string) (string, error) {
	parent, err := filepath.Abs(cmp.Or(parent, os.TempDir()))
	if err != nil {
		return "", fmt.Errorf("workspace: directory %s: %w", parent, err)
	}
	if SharedOf(parent) != "" {
		dir, err := os.MkdirTemp(parent, sanitise(prefix)+"-*")
		if err != nil {
			return "", fmt.Errorf("workspace: %w", err)
		}
		return dir, nil
	}
	dir, _, err := makeIn(parent, prefix)
	return dir, err
}

// RemovePrivate removes dir, made by MakePrivate, and the shared
// directory it was made in when nothing is left in it. As Remove, it
// succeeds on the read-only and unsearchable directories an agent left
// there (its TMPDIR), without following symlinks out of dir.
func RemovePrivate(dir string) error {
	err := reap.RemoveTree(dir)
	if parent := filepath.Dir(dir); filepath.Base(parent) == sharedName() {
		removeShared(parent)
	}
	return err
}

// SharedOf returns the shared directory that path lies in (see
// Workspace.Shared), "" when it lies in none.
func SharedOf(path string) string {
	for d := filepath.Clean(path); ; {
		if filepath.Base(d) == sharedName() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// makeIn makes, in parent (absolute; made when missing), the shared
// directory and in it the workspace's own new one (see makeDir).
func makeIn(parent, prefix string) (dir, shared string, err error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", "", fmt.Errorf("workspace: %w", err)
	}
	realParent, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return "", "", fmt.Errorf("workspace: %w", err)
	}
	shared = filepath.Join(realParent, sharedName())
	// The last workspace's Remove may remove the shared directory between
	// its making and the workspace's: make it again.
	for range 10 {
		if err = makeShared(shared); err != nil {
			return "", "", err
		}
		dir, err = os.MkdirTemp(shared, sanitise(prefix)+"-*")
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return "", "", fmt.Errorf("workspace: %w", err)
	}
	return dir, shared, nil
}

// sharedName is the name of the shared directory (see Workspace.Shared):
// one per user, as the system's temporary directory is everyone's.
func sharedName() string {
	return "acprun-workspaces-" + strconv.Itoa(os.Getuid())
}

// makeShared makes the shared directory dir unless it exists, mode 0700,
// and checks that it is a directory of the user's own, not a symbolic
// link (someone else could have made it first in a directory everyone
// writes in, such as /tmp).
func makeShared(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("workspace: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !info.IsDir() || !ok || int(st.Uid) != os.Getuid() || info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("workspace: the workspaces' directory %s is not a directory of mode 0700 that is acprun's user's own: remove it, or choose another with --workspace-dir", dir)
	}
	return nil
}

// removeShared removes the shared directory dir when it holds nothing
// (no workspace of this run or another is left in it).
func removeShared(dir string) {
	if dir != "" {
		_ = syscall.Rmdir(dir) // fails when not empty, as it should
	}
}

// ResolveExisting resolves the symlinks of the clean absolute path p as far
// as it exists, and appends the rest.
func ResolveExisting(p string) string {
	var rest []string
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		up := filepath.Dir(p)
		if up == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = up
	}
}

// sanitise makes prefix safe as the start of a directory name.
func sanitise(prefix string) string {
	var b strings.Builder
	dash := false
	for _, r := range prefix {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(r)
		dash = r == '-'
	}
	s := strings.TrimLeft(b.String(), ".-")
	if len(s) > maxPrefix {
		s = s[:maxPrefix]
	}
	s = cmp.Or(s, "workspace")
	return s
}

// Within reports whether path is dir or lies inside it; both are clean
// absolute paths, compared with their symlinks resolved as far as they
// exist (ResolveExisting), so that a path named through a symlink to dir,
// or inside one, is inside it.
func Within(path, dir string) bool {
	_, ok := relWithin(path, dir)
	return ok
}

// relWithin is path relative to dir when path is dir or lies inside it
// (see Within).
func relWithin(path, dir string) (string, bool) {
	rel, err := filepath.Rel(ResolveExisting(dir), ResolveExisting(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Rebase maps path into the workspace when it lies inside from (the source,
// absolute): from/a/b becomes to/a/b, and from itself becomes to. Other
// paths, relative ones included, are returned unchanged. Both are cleaned
// and have their symlinks resolved as far as they exist (see Within):
// /src2/x is not inside /src, nor is /src/../etc, nor a path through a
// link inside /src that leads out of it; a path through a link to /src
// is inside it.
func Rebase(path, from, to string) string {
	if !filepath.IsAbs(path) || !filepath.IsAbs(from) {
		return path
	}
	rel, ok := relWithin(filepath.Clean(path), filepath.Clean(from))
	if !ok {
		return path
	}
	return filepath.Join(to, rel)
}

// Own lists the paths in Shared that the workspace's agent works with:
// Dir, and a clone's git directory (which Dir/.git points to). acprun's
// own git directory, beside them, is not one: it holds the baseline of
// the diff, files the agent may not read included.
func (w *Workspace) Own() []string {
	own := []string{w.Dir}
	if w.Kind == KindClone && w.gitDir != "" {
		own = append(own, w.gitDir)
	}
	return own
}

// Remove deletes the workspace: for a worktree, `git worktree remove
// --force --force` from the source repository, then os.RemoveAll anyway,
// then, if git still knows the worktree, `git worktree unlock` and `git
// worktree prune`; else os.RemoveAll, of a clone's git directory beside
// Dir too. It succeeds on read-only files and directories (and an
// unreadable root) the agent left, adding owner permissions as needed,
// without following symlinks out of Dir. It is idempotent and nil-safe.
func (w *Workspace) Remove() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.removed {
		return nil
	}
	if err := w.remove(); err != nil {
		return fmt.Errorf("workspace: remove %s: %w", w.Dir, err)
	}
	w.removed = true
	return nil
}

// remove does Remove's work, also for a workspace that Create is
// abandoning half made.
func (w *Workspace) remove() error {
	ctx, cancel := context.WithTimeout(context.Background(), gitCleanupTimeout)
	defer cancel()
	if w.Kind == KindWorktree {
		// A failure (the agent locked the worktree, broke its .git file
		// or left read-only directories) is repaired below.
		unlock := lockRepo(w.repo)
		_, _ = runGit(ctx, w.runs, w.repo, "worktree", "remove", "--force", "--force", w.Dir)
		unlock()
	}
	if err := reap.RemoveTree(w.Dir); err != nil {
		return err
	}
	if w.private != "" {
		if err := reap.RemoveTree(w.private); err != nil {
			return err
		}
	}
	defer removeShared(w.Shared)
	// gitDir is unknown when Create was cancelled during worktree add.
	if w.Kind == KindWorktree && (w.gitDir == "" || exists(w.gitDir)) {
		// git still knows it (worktree remove failed): a lock the agent
		// set, or the one of an interrupted add, would keep prune from
		// forgetting it.
		unlock := lockRepo(w.repo)
		_, _ = runGit(ctx, w.runs, w.repo, "worktree", "unlock", w.Dir)
		_, err := runGit(ctx, w.runs, w.repo, "worktree", "prune")
		unlock()
		if err != nil {
			return err
		}
		if w.gitDir != "" && exists(w.gitDir) {
			return fmt.Errorf("git worktree prune left %s", w.gitDir)
		}
	}
	return nil
}

// exists reports whether path exists (as anything).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
