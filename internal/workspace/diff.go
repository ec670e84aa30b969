package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// diffConfig overrides the settings, in the user's or the repository's
// config, that would change the text of Diff.
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

// Diff returns `git diff` of the working tree against the commit checked
// out (Commit), untracked files included, as text cut to at most limit
// bytes: after the last whole line when that keeps at least half of limit,
// else at a character boundary. The text is valid UTF-8 (invalid bytes
// become U+FFFD). total is the size in bytes of git's full output, and
// truncated says the text is not all of it. limit <= 0 means no limit.
//
// Untracked files are those the repository's .gitignore files and
// the git directory's info/exclude do not ignore (the user's global
// excludes file is not read, so the diff is the same on every machine). An
// embedded repository the agent made shows as a subproject commit (never
// "-dirty": git is not run in it), or not at all while it has no commit. A
// file git cannot read (the agent made it unreadable) fails the diff with
// git's message; Changes still lists it.
//
// The diff is made in a temporary index of its own, so the workspace's
// index and the source's index, HEAD and branches stay as they are (git
// may add the empty blob to the shared object store). git works on the
// git directory found or made with the workspace, outside Dir, never on
// whatever Dir/.git says now, and runs no command the agent could have
// configured (see the package comment). A copy has no diff: Diff returns
// "", 0, false, nil.
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

// diff fills a temporary index with the commit's tree plus every untracked
// path as intent-to-add (no content is stored), then writes the diff of
// the commit with the working tree into a headWriter.
func (w *Workspace) diff(ctx context.Context, limit int) (*headWriter, error) {
	tmp, err := os.MkdirTemp("", "acprun-diff-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	g := w.git()
	g.global = append(g.global, diffConfig...)
	g.env = []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := g.run(ctx, "read-tree", w.Commit); err != nil {
		return nil, err
	}
	if err := g.intendToAdd(ctx); err != nil {
		return nil, err
	}
	head := &headWriter{limit: limit}
	g.out = head
	args := append(append([]string{"diff"}, diffOptions...), w.Commit, "--")
	if _, err := g.run(ctx, args...); err != nil {
		return nil, err
	}
	return head, nil
}

// intendToAdd adds every untracked path to the index as intent-to-add. It
// names them (`git ls-files --others`) rather than running `git add --all`,
// which would also look at the tracked paths and run `git status` in an
// embedded repository the agent put at a submodule's path, with that
// repository's config.
func (g gitCmd) intendToAdd(ctx context.Context) error {
	untracked, err := g.run(ctx, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	if untracked == "" {
		return nil
	}
	add := g
	add.global = append(slices.Clone(g.global), "--literal-pathspecs")
	add.in = strings.NewReader(untracked)
	// --ignore-errors: a path git cannot add (an embedded repository
	// with no commit yet) is left out and the rest goes in; the exit
	// status then only says that something was left out.
	_, _ = add.run(ctx, "add", "--intent-to-add", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul")
	return ctx.Err()
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
