package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// hiddenPath is a path of the workspace that the agent's sandbox hides
// from it, as Hide found it.
type hiddenPath struct {
	rel string      // relative to Dir, with slashes
	id  fs.FileInfo // what it was then; nil when it did not exist
}

// Hide records the paths (absolute) that the agent's sandbox hides, those
// that lie in Dir, as they are now: call it once setup has run, before the
// agent starts. The diff, which acprun takes outside the sandbox, then
// leaves out of git's view every path that lies in one of them by name
// (what the baseline holds there) or by identity (the file, or a directory
// above it, is the one hidden, renamed since): the agent cannot read a
// hidden file, but it can move the directory that holds it (the file, a
// mount point, goes with it) and put a file of its own at its name, which
// would have the diff show the hidden file's content, then and now.
func (w *Workspace) Hide(paths []string) {
	var hs []hiddenPath
	for _, p := range paths {
		rel, ok := relWithin(filepath.Clean(p), w.Dir)
		if !ok {
			continue
		}
		h := hiddenPath{rel: filepath.ToSlash(rel)}
		if fi, err := os.Lstat(filepath.Join(w.Dir, rel)); err == nil {
			h.id = fi
		}
		hs = append(hs, h)
	}
	w.mu.Lock()
	w.hidden = hs
	w.mu.Unlock()
}

// hiddenAmong returns the paths among paths (relative to Dir, with
// slashes) that lie in a path Hide recorded, by name or by identity (see
// Hide). Each directory is looked at once.
func (w *Workspace) hiddenAmong(paths []string) map[string]bool {
	w.mu.Lock()
	hs := w.hidden
	w.mu.Unlock()
	out := map[string]bool{}
	if len(hs) == 0 {
		return out
	}
	seen := map[string]bool{} // a path looked at: whether it is hidden by identity
	var isHidden func(p string) bool
	isHidden = func(p string) bool {
		if p == "." {
			return false
		}
		if h, ok := seen[p]; ok {
			return h
		}
		h := isHidden(path.Dir(p)) || w.isHiddenFile(hs, p)
		seen[p] = h
		return h
	}
	for _, p := range paths {
		if hiddenByName(hs, p) || isHidden(p) {
			out[p] = true
		}
	}
	return out
}

// hiddenByName reports whether p is one of hs or lies below one.
func hiddenByName(hs []hiddenPath, p string) bool {
	for _, h := range hs {
		if h.rel == "." || p == h.rel || strings.HasPrefix(p, h.rel+"/") {
			return true
		}
	}
	return false
}

// isHiddenFile reports whether the file at p (relative to Dir, with
// slashes) is one of hs, by identity.
func (w *Workspace) isHiddenFile(hs []hiddenPath, p string) bool {
	fi, err := os.Lstat(filepath.Join(w.Dir, filepath.FromSlash(p)))
	if err != nil {
		return false
	}
	for _, h := range hs {
		if h.id != nil && os.SameFile(fi, h.id) {
			return true
		}
	}
	return false
}

// hiddenNote is the line that begins a diff from which the paths of
// hidden, sorted, were left out as the sandbox hides them (see pathsNote).
// It is "" when none was.
func hiddenNote(hidden []string) string {
	return pathsNote("as the sandbox hides them", hidden, strconv.Quote)
}

// hiddenChanged returns, sorted, the paths of hidden (relative to Dir,
// with slashes) that differ from baseline as Changes compares them: those
// the diff would have shown, which its note names. A hidden file the agent
// left alone is not named.
func (w *Workspace) hiddenChanged(ctx context.Context, baseline snapshot, hidden map[string]bool) []string {
	var out []string
	for p := range hidden {
		name := filepath.Join(w.Dir, filepath.FromSlash(p))
		b, had := baseline[p]
		info, err := os.Lstat(name)
		if err != nil || !had {
			out = append(out, p) // deleted, or new
			continue
		}
		if e, ok, err := record(ctx, name, info, readFor(b, info)); err != nil || !ok || e != b {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// HiddenMoved returns the paths (absolute) in Dir where a file or
// directory that Hide recorded lies now under another name: the agent
// cannot read a hidden path, but it can rename the directory that holds it
// (the path, a mount point, goes with it), and a sandbox planned later by
// the names it hides (a judge's, a verify command's) would then let what
// it holds be read at its new name. It walks Dir, following no symlink,
// only when Hide recorded a path in it; ctx stops the walk.
func (w *Workspace) HiddenMoved(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	hs := w.hidden
	w.mu.Unlock()
	hs = slices.DeleteFunc(slices.Clone(hs), func(h hiddenPath) bool { return h.id == nil })
	if len(hs) == 0 {
		return nil, nil
	}
	var out []string
	err := filepath.WalkDir(w.Dir, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		switch {
		case p == w.Dir:
			return err
		case err != nil:
			// Unreadable: to the sandboxed processes too, which have no
			// capabilities.
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone since it was listed
		}
		for _, h := range hs {
			if !os.SameFile(info, h.id) {
				continue
			}
			if rel(w.Dir, p) != h.rel {
				out = append(out, p)
			}
			if d.IsDir() {
				return fs.SkipDir // hidden whole
			}
			return nil
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("workspace: the hidden paths in %s: %w", w.Dir, err)
	}
	return out, nil
}
