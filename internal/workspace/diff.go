package workspace

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// diffConfig fixes the settings that would change the text of Diff: where
// acprun's choice is not git's default (path quoting), or git would read a
// file of the user's anyway (the excludes file).
var diffConfig = []string{
	"-c", "core.quotepath=off",
	"-c", "core.excludesFile=/dev/null",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "diff.suppressBlankEmpty=false",
	"-c", "advice.addEmbeddedRepo=false",
}

// diffOptions fix the diff's format whatever the config says.
var diffOptions = []string{
	"--no-color", "--no-ext-diff", "--no-textconv",
	"--src-prefix=a/", "--dst-prefix=b/",
	"--unified=3", "--inter-hunk-context=0",
	"--diff-algorithm=myers", "--indent-heuristic",
	"--find-renames", "--submodule=short", "-O/dev/null",
	// git would run `git status` in an embedded repository to say
	// whether it is dirty, with that repository's config: the agent's.
	"--ignore-submodules=dirty",
}

// Diff returns `git diff` of the working tree against its baseline, the
// state Snapshot recorded (after setup; as checked out when Snapshot was
// not called again), untracked files included, as text cut to at most
// limit bytes: after the last whole line when that keeps at least half of
// limit, else at a character boundary. The text is valid UTF-8 (invalid
// bytes become U+FFFD). total is the size in bytes of git's full output,
// and truncated says the text is not all of it. limit <= 0 means no limit.
//
// Untracked files are those the repository's .gitignore files and the
// source's info/exclude (as it was when the workspace was made) do not
// ignore. An embedded repository the agent made shows as a subproject
// commit (never "-dirty": git is not run in it), or not at all while it
// has no commit. A file git could not open (the agent made it, or a
// directory above it, unreadable) is left out of git's view as one over
// the read budget is (see below), and the text's first line says which,
// as unreadableNote does; Changes still lists it.
//
// git reads all of a file to diff it, so what Diff costs is bounded as
// Changes is, whatever the agent left: git reads a file the baseline had
// at the same size (as Snapshot did), and of the others (created, or made
// another size) no more than diffReadBudget bytes in all, smallest first
// (then by path); those that do not fit are left out of git's view (an
// untracked one is not added, a tracked one is marked assume-unchanged in
// the temporary index), and the text's first line says which, as
// leftOutNote does. Changes still lists them.
//
// git runs on acprun's own git directory (see baseGit), never on the
// workspace's, so the workspace's index and the source's index, HEAD,
// branches and object store stay as they are, and git runs no command
// anyone configured (see the package comment). A copy has no diff: Diff
// returns "", 0, false, nil.
func (w *Workspace) Diff(ctx context.Context, limit int) (diff string, total int, truncated bool, err error) {
	if w.Kind == KindCopy {
		return "", 0, false, nil
	}
	w.mu.Lock()
	removed := w.removed
	w.mu.Unlock()
	if removed {
		return "", 0, false, fmt.Errorf("workspace: diff %s: the workspace was removed", w.Dir)
	}
	head, err := w.diff(ctx, limit)
	if err != nil {
		return "", 0, false, fmt.Errorf("workspace: diff %s: %w", w.Dir, err)
	}
	diff, truncated = clip(head.buf, head.total, limit)
	return diff, head.total, truncated, nil
}

// diff fills a temporary index with the baseline's tree plus every
// untracked path as intent-to-add (no content is stored), leaving out of
// git's view the files the read budget does not cover (see Diff), then
// writes the note on those and the diff of the baseline with the working
// tree into a headWriter.
func (w *Workspace) diff(ctx context.Context, limit int) (*headWriter, error) {
	w.mu.Lock()
	base, baseline := w.base, w.baseline
	w.mu.Unlock()
	g, done, err := w.baseGit()
	if err != nil {
		return nil, err
	}
	defer done()
	if _, err := g.run(ctx, "read-tree", base); err != nil {
		return nil, err
	}
	tracked, err := g.lsFiles(ctx)
	if err != nil {
		return nil, err
	}
	// Untracked paths are those neither ignored nor in the index; they
	// are named rather than added with `git add --all`, which would also
	// look at the tracked paths and run `git status` in an embedded
	// repository the agent put at a submodule's path, with that
	// repository's config.
	untracked, err := g.lsFiles(ctx, "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	hidden := w.hiddenAmong(slices.Concat(tracked, untracked))
	notHidden := func(paths []string) []string {
		return slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return hidden[p] })
	}
	left, unreadable := w.leftOut(ctx, baseline, slices.Concat(notHidden(tracked), notHidden(untracked)))
	skip := maps.Clone(left)
	for _, p := range unreadable {
		skip[p] = 0
	}
	for p := range hidden {
		skip[p] = 0
	}
	isLeft := func(p string) bool { _, ok := skip[p]; return ok }
	if err := g.assumeUnchanged(ctx, slices.DeleteFunc(tracked, func(p string) bool { return !isLeft(p) })); err != nil {
		return nil, err
	}
	if err := g.intendToAdd(ctx, slices.DeleteFunc(untracked, isLeft)); err != nil {
		return nil, err
	}
	head := &headWriter{limit: limit}
	head.Write([]byte(hiddenNote(w.hiddenChanged(ctx, baseline, hidden))))
	head.Write([]byte(leftOutNote(left)))
	head.Write([]byte(unreadableNote(unreadable)))
	g.out = head
	args := append(append([]string{"diff"}, diffOptions...), base, "--")
	if _, err := g.run(ctx, args...); err != nil {
		return nil, err
	}
	return head, nil
}

// writeBase writes the tree of the working tree as it is now, untracked
// files included and ignored ones not, into acprun's own git directory,
// and returns its hash: the baseline Diff compares with. It runs before
// the agent does, so `git add --all` (see intendToAdd) meets only what the
// checkout and setup made.
func (w *Workspace) writeBase(ctx context.Context) (string, error) {
	g, done, err := w.baseGit()
	if err != nil {
		return "", err
	}
	defer done()
	if _, err := g.run(ctx, "read-tree", w.Commit); err != nil {
		return "", err
	}
	// --ignore-errors: a path git cannot add (unreadable, or an embedded
	// repository with no commit yet) keeps the commit's version, or stays
	// untracked, and the rest goes in.
	_, _ = g.run(ctx, "add", "--all", "--ignore-errors")
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("git add: %w", context.Cause(ctx))
	}
	return g.run(ctx, "write-tree")
}

// baseGitDir is the name of acprun's own git directory for a git
// workspace's diff inside its private directory (Workspace.private).
const baseGitDir = "base"

// baseEnv keeps every config file but that of the git directory named
// (the system's, the user's, the environment's) and the system's
// attributes from git.
var baseEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_CONFIG_PARAMETERS=", "GIT_CONFIG_COUNT=0", "GIT_ATTR_NOSYSTEM=1",
}

// initBase makes acprun's own git directory for the diff in w.private:
// empty but for the source's objects, reached as an alternate, and a copy
// of the source's info/exclude. Its config defines no driver, hook or
// other command, so whatever attributes the working tree has, and
// whatever config the agent writes in the workspace's git directory or
// the source's, git running there runs nothing but itself.
func (w *Workspace) initBase() error {
	if err := w.makePrivate(); err != nil {
		return err
	}
	dir := filepath.Join(w.private, baseGitDir)
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = true\n\tattributesFile = /dev/null\n[gc]\n\tauto = 0\n"
	if len(w.Commit) == 64 {
		config = strings.Replace(config, "= 0\n", "= 1\n", 1) + "[extensions]\n\tobjectFormat = sha256\n"
	}
	exclude, err := os.ReadFile(filepath.Join(w.common, "info", "exclude"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("git directory: %w", err)
	}
	for _, d := range []string{"refs", "info", filepath.Join("objects", "info")} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return fmt.Errorf("git directory: %w", err)
		}
	}
	for name, content := range map[string]string{
		"HEAD":                           "ref: refs/heads/base\n",
		"config":                         config,
		filepath.Join("info", "exclude"): string(exclude),
		filepath.Join("objects", "info", "alternates"): filepath.Join(w.common, "objects") + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			return fmt.Errorf("git directory: %w", err)
		}
	}
	return nil
}

// baseGit runs git on acprun's own git directory, with Dir as its work
// tree and a new temporary index, in an environment where no config
// applies but that directory's own (see initBase). done removes the
// index.
func (w *Workspace) baseGit() (g gitCmd, done func(), err error) {
	dir := filepath.Join(w.private, baseGitDir)
	tmp, err := os.MkdirTemp(dir, "index-*")
	if err != nil {
		return gitCmd{}, nil, err
	}
	g = gitCmd{
		dir:    w.Dir,
		global: append([]string{"--git-dir=" + dir, "--work-tree=" + w.Dir}, diffConfig...),
		env:    append(slices.Clone(baseEnv), "GIT_INDEX_FILE="+filepath.Join(tmp, "index")),
		runs:   w.runs,
	}
	return g, func() { os.RemoveAll(tmp) }, nil
}

// lsFiles lists the paths of the index (or, with --others, of the
// working tree and not in the index), relative to Dir with '/'
// separators, as git has them.
func (g gitCmd) lsFiles(ctx context.Context, args ...string) ([]string, error) {
	out, err := g.run(ctx, append([]string{"ls-files", "-z"}, args...)...)
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"), nil
}

// nulList is paths as git reads a list with -z.
func nulList(paths []string) io.Reader {
	return strings.NewReader(strings.Join(paths, "\x00") + "\x00")
}

// intendToAdd adds the untracked paths to the index as intent-to-add.
func (g gitCmd) intendToAdd(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	add := g
	add.global = append(slices.Clone(g.global), "--literal-pathspecs")
	add.in = nulList(paths)
	// --ignore-errors: a path git cannot add (an embedded repository
	// with no commit yet) is left out and the rest goes in; the exit
	// status then only says that something was left out.
	_, _ = add.run(ctx, "add", "--intent-to-add", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul")
	return ctx.Err()
}

// assumeUnchanged marks the paths of the index assume-unchanged: git
// diff then takes them for their index version, and reads nothing of
// them (nor does it when it refreshes the index).
func (g gitCmd) assumeUnchanged(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	mark := g
	mark.in = nulList(paths)
	_, err := mark.run(ctx, "update-index", "--assume-unchanged", "-z", "--stdin")
	return err
}

// diffReadBudget is the most Diff lets git read of the files the
// baseline did not have at their size: 32 MiB, a fraction of a second of
// git's reading, and far more than the results keep of a diff (256 KiB).
const diffReadBudget = 32 << 20

// leftOut returns the paths among paths (git's, relative to Dir) that git
// is not to be given: in unreadable, sorted, those it could not open (a
// regular file that cannot be opened, or a path below a directory that
// cannot be searched); in left, with their sizes, the regular files the
// baseline had at no such size that do not fit in diffReadBudget, given
// to it smallest first (then by path). A path that is not a regular file
// now costs git no read of its own (a symlink is its target's name; a
// directory, an embedded repository's commit). Each regular file is
// opened, never read.
func (w *Workspace) leftOut(ctx context.Context, baseline snapshot, paths []string) (left map[string]int64, unreadable []string) {
	type file struct {
		path string
		size int64
	}
	var grown []file
	for _, p := range paths {
		name := filepath.Join(w.Dir, filepath.FromSlash(p))
		info, err := os.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
			// Deleted (git says so), also when a directory of its path
			// became a file or a link that leads nowhere.
			continue
		case err != nil:
			unreadable = append(unreadable, p) // below a directory git cannot search
			continue
		case !info.Mode().IsRegular():
			continue
		}
		if _, _, err := hash(ctx, name, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			unreadable = append(unreadable, p)
			continue
		}
		if readFor(baseline[p], info) == readNone {
			grown = append(grown, file{p, info.Size()})
		}
	}
	slices.SortFunc(grown, func(a, b file) int {
		return cmp.Or(cmp.Compare(a.size, b.size), strings.Compare(a.path, b.path))
	})
	left = map[string]int64{}
	read := int64(0)
	for _, f := range grown {
		if f.size <= diffReadBudget-read {
			read += f.size
			continue
		}
		left[f.path] = f.size
	}
	slices.Sort(unreadable)
	return left, unreadable
}

// leftOutNamed is how many of the files left out of a diff its note names.
const leftOutNamed = 10

// leftOutNote is the line that begins a diff from which the files of
// left were left out (see leftOut): it names them with their sizes, as
// pathsNote does. It is "" when none was.
func leftOutNote(left map[string]int64) string {
	return pathsNote(fmt.Sprintf("as git reads at most %d MiB of the files whose size changed, smallest first", diffReadBudget>>20),
		slices.Sorted(maps.Keys(left)), func(p string) string { return fmt.Sprintf("%q (%d bytes)", p, left[p]) })
}

// unreadableNote is the line that follows leftOutNote's in a diff from
// which the files of unreadable, sorted, were left out as git could not
// open them (see leftOut). It is "" when none was.
func unreadableNote(unreadable []string) string {
	return pathsNote("as they cannot be read", unreadable, strconv.Quote)
}

// pathsNote is a line of a diff's head saying that the paths, sorted, were
// left out of it, and why: it names the first leftOutNamed of them, each
// as name gives it (quoted as Go does, so that no name can end the line),
// and counts the others. It is "" for no paths.
func pathsNote(why string, paths []string, name func(string) string) string {
	if len(paths) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("acprun: left out of this diff, " + why + " (the changes list them): ")
	for i, p := range paths {
		if i == leftOutNamed {
			fmt.Fprintf(&b, ", and %d more", len(paths)-leftOutNamed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name(p))
	}
	b.WriteString("\n")
	return b.String()
}

// headWriter keeps the first limit bytes written to it (all when limit <=
// 0) and counts them all.
type headWriter struct {
	limit int
	buf   []byte
	total int
}

func (h *headWriter) Write(p []byte) (int, error) {
	h.total += len(p)
	keep := p
	if h.limit > 0 {
		keep = p[:min(len(p), max(0, h.limit-len(h.buf)))]
	}
	h.buf = append(h.buf, keep...)
	return len(p), nil
}

// clip turns head, the first bytes of total, into valid UTF-8 text of at
// most limit bytes (any length when limit <= 0), and says whether it lost
// anything of the total.
func clip(head []byte, total, limit int) (string, bool) {
	if limit <= 0 {
		return strings.ToValidUTF8(string(head), "\uFFFD"), false
	}
	truncated := total > len(head) || len(head) > limit
	if truncated {
		// What follows head is lost: cut where it reads well.
		head = cutAt(head, limit)
	}
	s := strings.ToValidUTF8(string(head), "\uFFFD")
	if len(s) > limit {
		// Replacement characters made it longer.
		s, truncated = string(cutAt([]byte(s), limit)), true
	}
	return s, truncated
}

// cutAt cuts b, text that goes on beyond it, to at most n bytes: after its
// last newline when that keeps at least half of n, else before any rune cut
// in two.
func cutAt(b []byte, n int) []byte {
	b = b[:min(len(b), n)]
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 && i+1 >= (n+1)/2 {
		return b[:i+1]
	}
	// Drop a last rune that lost its tail.
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return b
}

// DiffPaths returns the paths (relative to Dir, with slashes) whose
// changes diff, a text of Diff or the start of one, shows: those its
// headers name, both the old and the new path of a rename. The files its
// note says were left out are not among them.
func DiffPaths(diff string) map[string]bool {
	paths := map[string]bool{}
	for line := range strings.Lines(diff) {
		line = strings.TrimSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
			for _, p := range headerPaths(rest) {
				paths[p] = true
			}
			continue
		}
		for _, prefix := range []string{"rename from ", "rename to "} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				if p, ok := unquotePath(rest); ok {
					paths[p] = true
				}
			}
		}
	}
	return paths
}

// headerPaths is the paths a "diff --git " header's rest names, as the
// options of Diff write them ("a/P b/P", each quoted when P needs it).
// A rename whose names cannot be told apart here yields none: its
// "rename from" and "rename to" lines name them.
func headerPaths(rest string) []string {
	if strings.HasPrefix(rest, `"`) {
		a, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil
		}
		old, ok1 := unquotePath(a)
		b := strings.TrimPrefix(rest[len(a):], " ")
		cur, ok2 := unquotePath(b)
		if !ok1 || !ok2 || !strings.HasPrefix(old, "a/") || !strings.HasPrefix(cur, "b/") {
			return nil
		}
		return []string{old[2:], cur[2:]}
	}
	// "a/P b/P": P is the same on both sides but for a rename.
	if n := len(rest) - len("a/ b/"); n > 0 && n%2 == 0 {
		p := rest[2 : 2+n/2]
		if rest == "a/"+p+" b/"+p {
			return []string{p}
		}
	}
	return nil
}

// unquotePath is a path as git writes it: as it is, or quoted as C
// strings are (git writes 3 octal digits for a byte, as Go does).
func unquotePath(s string) (string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return s, s != ""
	}
	p, err := strconv.Unquote(s)
	return p, err == nil
}
