package workspace

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// A copy is the source relocated: a symbolic link of the source that
// leads into it leads to the same place in the copy (see copyLink), so
// that what the agent does through it stays in the copy, where the
// changes are listed; one that leads outside leads there still. Pointers
// lists what a copy keeps that leads out of it.

// Pointer is a file of a directory to copy (Spec.From) that leads out of
// the copy made of it: a symbolic link to a path outside the directory,
// or a .git file that names a git directory by its absolute path (a
// linked worktree's names its administrative directory in the main
// repository). What the agent writes through it lands there, and is not
// among the attempt's changes.
type Pointer struct {
	Path   string // relative to the directory, with slashes
	Target string // absolute: where the copy's link leads, or the git directory the .git file names
	Git    bool   // a .git file; else a symbolic link
}

// EnvTestWalks names a file to which each call of Pointers appends the
// directory it walks, a line each: a test seam, to count the walks.
const EnvTestWalks = "ACPRUN_TEST_WALKS"

// Pointers lists the pointers of the directory from (an absolute path),
// in the order of a walk of it (lexical, parents first). It reads what a
// copy of it reads, nothing of the files' contents but the .git files';
// what it cannot read (a directory without permission) it skips, as the
// copy would fail on it anyway. ctx stops it. A copy finds them as it
// copies (Workspace.Pointers): Pointers is for a check that makes none.
func Pointers(ctx context.Context, from string) ([]Pointer, error) {
	src, err := source("from", from)
	if err != nil {
		return nil, err
	}
	if name := os.Getenv(EnvTestWalks); name != "" {
		if err := appendLine(name, from); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(src)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	given := filepath.Clean(from)
	var out []Pointer
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil // skipped
		}
		link := ""
		if d.Type()&fs.ModeSymlink != 0 {
			if link, err = root.Readlink(rel); err != nil {
				return nil
			}
		}
		if p, ok := pointerAt(root, src, given, rel, d.Type(), link); ok {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// pointerAt is the Pointer that the entry rel (slash-separated) of the
// source is, when it is one: root is the source opened, src and given as
// for copyLink, typ the entry's type and link, for a symbolic link, its
// target. It is how Pointers and a copy (copyTree) tell one.
func pointerAt(root *os.Root, src, given, rel string, typ fs.FileMode, link string) (Pointer, bool) {
	switch {
	case typ&fs.ModeSymlink != 0:
		if target, outside := copyLink(src, given, "", rel, link); outside {
			return Pointer{Path: rel, Target: target}, true
		}
	case typ.IsRegular() && path.Base(rel) == ".git":
		if dir := gitFileDir(root, rel); filepath.IsAbs(dir) {
			return Pointer{Path: rel, Target: dir, Git: true}, true
		}
	}
	return Pointer{}, false
}

// gitFileDir is the git directory that the .git file rel of root names
// ("gitdir: DIR" on its first line), as written; "" when it names none.
func gitFileDir(root *os.Root, rel string) string {
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	dir, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "gitdir: ")
	if !ok {
		return ""
	}
	return dir
}

// copyLink is the target to give the copy, in dst, of the symbolic link
// rel (slash-separated, relative to src) whose target is link; src is the
// source with its symlinks resolved, given the path it was given by,
// cleaned. outside reports a target that leads out of the copy. A link
// that leads into the source leads to the same place in the copy: an
// absolute one to its path in dst, a relative one as it is when it never
// climbs above the source, else by the relative path from where it is in
// the copy. One that leads outside the source leads to the same place: an
// absolute one as it is, a relative one (which in the copy would lead
// elsewhere) by its absolute path. dst "" asks only whether it leads
// outside, and where (see Pointers).
func copyLink(src, given, dst, rel, link string) (target string, outside bool) {
	dir := path.Dir(rel)
	if !filepath.IsAbs(link) && staysWithin(dir, link) {
		return link, false
	}
	abs := link
	if !filepath.IsAbs(link) {
		abs = filepath.Join(src, filepath.FromSlash(dir), link)
	}
	abs = filepath.Clean(abs)
	in, ok := lexicalRel(abs, src)
	if !ok {
		in, ok = lexicalRel(abs, given)
	}
	if !ok {
		in, ok = relWithin(abs, src) // through a link to the source
	}
	switch {
	case !ok:
		return abs, true
	case dst == "":
		return "", false
	case filepath.IsAbs(link):
		return filepath.Join(dst, in), false
	}
	r, err := filepath.Rel(filepath.Join(dst, filepath.FromSlash(dir)), filepath.Join(dst, in))
	if err != nil {
		return filepath.Join(dst, in), false
	}
	return r, false
}

// staysWithin reports whether the relative link target link, of a link in
// the directory dir (slash-separated, relative to the source; "." for its
// top), never climbs above the source: it then leads to the same place
// relative to the copy as to the source.
func staysWithin(dir, link string) bool {
	depth := 0
	if dir != "." {
		depth = strings.Count(dir, "/") + 1
	}
	for part := range strings.SplitSeq(filepath.ToSlash(link), "/") {
		switch part {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return false
			}
		default:
			depth++
		}
	}
	return true
}

// lexicalRel is p relative to dir when p is dir or lies inside it, by
// their names alone (both clean and absolute).
func lexicalRel(p, dir string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// appendLine appends line and a newline to the file name, created when
// missing (see EnvTestWalks).
func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	return errors.Join(err, f.Close())
}
