// Package jail confines file access to a set of root directories. acprun
// serves an untrusted agent's fs/read_text_file and fs/write_text_file
// requests through a Jail.
//
// A path is checked in two steps. Resolve cleans it and resolves it through
// symlinks, component by component, as the kernel would: a symlink (also a
// dangling one, also a parent of a file that does not exist yet) is replaced
// by its target before the next component is looked at, and ".." goes up
// from where the resolution actually is. The resolved path must then lie in
// one of the roots, themselves resolved when the Jail was made. Only then is
// the file opened, through an os.Root held open on that root since New: the
// open walks the path with O_NOFOLLOW from the root's descriptor and refuses
// any symlink leading out of the root. A symlink swapped in after the check,
// or a root directory renamed and replaced by a symlink after New, cannot
// lead the open outside. A write goes further: it walks the resolved path
// from the root's descriptor following no symlink at all, making the
// missing directories and the file (only when missing) as it goes, so that
// a symlink swapped in after the check fails it (ErrChanged).
//
// Hidden paths (WithHidden: what a sandbox hides from the agent) are
// refused inside the roots as paths outside them are, on the resolved path
// too: a path that lies in a hidden one, or passes through a directory that
// is one (compared by device and inode, so that a hidden directory renamed
// with its parent is still known), fails with ErrHidden. With hidden paths,
// the opened file is checked again once open (before a write truncates it):
// a symlink swapped in after the check that led the open into a hidden
// path is refused then, and so is a write whose walk went through a hidden
// directory (directories exchanged after the check), the directories it
// holds open compared by identity. A refused write removes the file and
// the directories it made: it leaves nothing, and removes nothing it did
// not make.
//
// Writable paths (WithWritable: where a sandbox lets the agent write)
// restrict WriteFile further: the resolved path must also lie in one of
// them, and the file is opened through an os.Root held on the innermost of
// that writable directory and the root, so that a symlink swapped in after
// the check cannot lead the write out of either. A writable path that is
// a file is written only as itself, checked again once open.
//
// Hard links are not detected: a hard link inside a root is a file of the
// root (but a hard link to a hidden file is hidden). Errors wrap the
// sentinels ErrOutside, ErrHidden, ErrNotFound, ErrReadOnly,
// ErrNotWritable, ErrNotAbsolute, ErrNotRegular and ErrChanged.
package jail

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Errors wrapped by the Jail's methods; test for them with errors.Is.
var (
	// ErrOutside: the path does not lie in any of the roots.
	ErrOutside = errors.New("outside the allowed roots")
	// ErrHidden: the path lies in a hidden path (WithHidden).
	ErrHidden = errors.New("in a hidden path")
	// ErrNotFound: the file does not exist.
	ErrNotFound = errors.New("not found")
	// ErrReadOnly: the Jail refuses writes.
	ErrReadOnly = errors.New("read-only")
	// ErrNotWritable: the path lies in no writable path (WithWritable).
	ErrNotWritable = errors.New("not in a writable path")
	// ErrNotAbsolute: the path is not absolute.
	ErrNotAbsolute = errors.New("path is not absolute")
	// ErrNotRegular: the path names a directory, device, FIFO or socket
	// where a regular file is needed.
	ErrNotRegular = errors.New("not a regular file")
	// ErrChanged: a symlink took the place of a directory or of the file
	// on the resolved path between its check and its opening for a write.
	ErrChanged = errors.New("changed while being opened")
)

// beforeReadlink, when set (by tests), runs in walk between the Lstat
// that found a symlink and its Readlink.
var beforeReadlink func(link string)

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel's limit does.
const maxLinks = 40

// Jail confines file access to its roots. Its methods may be called from
// many goroutines at once.
type Jail struct {
	roots    []root
	hidden   []hiddenPath
	readOnly bool
	// limitWrites says WriteFile writes only in writable (WithWritable).
	limitWrites bool
	writable    []writablePath
	// afterCheck, when set (by tests), runs between the check of a path
	// and its opening.
	afterCheck func()
}

type root struct {
	path string   // resolved, absolute, clean
	dir  *os.Root // opened by New
}

// writablePath is a path given to WithWritable, resolved by New.
type writablePath struct {
	given string
	path  string   // resolved, absolute, clean
	dir   *os.Root // opened by New when it is a directory; nil for a file
}

// hiddenPath is a path given to WithHidden.
type hiddenPath struct {
	given    string      // absolute, clean
	resolved string      // resolved by New
	id       os.FileInfo // of resolved when New made the Jail; nil: it did not exist
}

// Option configures New.
type Option func(*Jail)

// WithReadOnly makes WriteFile fail with ErrReadOnly when readOnly is true.
func WithReadOnly(readOnly bool) Option {
	return func(j *Jail) { j.readOnly = readOnly }
}

// WithHidden has the Jail refuse paths, absolute, and everything under
// them: paths that are hidden from the agent, inside the roots or not. A
// hidden path need not exist.
func WithHidden(paths []string) Option {
	return func(j *Jail) {
		for _, p := range paths {
			j.hidden = append(j.hidden, hiddenPath{given: p})
		}
	}
}

// WithWritable has WriteFile write only in paths, absolute, and below
// them (and only in the roots): the paths a sandbox lets the agent write.
// Each is resolved and, when a directory, opened by New; one that does
// not exist then makes nothing writable. Without this option every root
// is writable; with no paths, nothing is.
func WithWritable(paths []string) Option {
	return func(j *Jail) {
		j.limitWrites = true
		for _, p := range paths {
			j.writable = append(j.writable, writablePath{given: p})
		}
	}
}

// New returns a Jail over roots, absolute paths of existing directories.
// Each root is resolved through symlinks and opened now; Close releases
// them.
func New(roots []string, opts ...Option) (*Jail, error) {
	if len(roots) == 0 {
		return nil, errors.New("no roots")
	}
	j := &Jail{}
	for _, o := range opts {
		o(j)
	}
	for _, r := range roots {
		err := ErrNotAbsolute
		var p string
		var dir *os.Root
		if filepath.IsAbs(r) {
			if p, err = resolve(r); err == nil {
				dir, err = os.OpenRoot(p)
			}
		}
		if err != nil {
			j.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		j.roots = append(j.roots, root{path: p, dir: dir})
	}
	for i := range j.hidden {
		h := &j.hidden[i]
		if !filepath.IsAbs(h.given) {
			j.Close()
			return nil, fmt.Errorf("hidden path %s: %w", h.given, ErrNotAbsolute)
		}
		h.given = filepath.Clean(h.given)
		h.resolved, h.id = resolveHidden(h.given)
	}
	kept := j.writable[:0]
	for _, w := range j.writable {
		if !filepath.IsAbs(w.given) {
			j.Close()
			return nil, fmt.Errorf("writable path %s: %w", w.given, ErrNotAbsolute)
		}
		p, err := resolve(w.given)
		if err != nil {
			continue // nothing can be written there
		}
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			continue // missing: nothing can be written there
		case fi.IsDir():
			if w.dir, err = os.OpenRoot(p); err != nil {
				continue
			}
		case !fi.Mode().IsRegular():
			continue
		}
		w.path = p
		kept = append(kept, w)
	}
	j.writable = kept
	return j, nil
}

// resolveHidden resolves a hidden path (as written when it cannot be) and
// returns it with its file info (nil when it does not exist).
func resolveHidden(p string) (string, os.FileInfo) {
	r, err := resolve(p)
	if err != nil {
		return p, nil
	}
	fi, err := os.Lstat(r)
	if err != nil {
		return r, nil
	}
	return r, fi
}

// Close releases the roots and the writable directories.
func (j *Jail) Close() error {
	var errs []error
	for _, r := range j.roots {
		errs = append(errs, r.dir.Close())
	}
	for _, w := range j.writable {
		if w.dir != nil {
			errs = append(errs, w.dir.Close())
		}
	}
	return errors.Join(errs...)
}

// Roots returns the resolved roots.
func (j *Jail) Roots() []string {
	out := make([]string, len(j.roots))
	for i, r := range j.roots {
		out[i] = r.path
	}
	return out
}

// ReadOnly reports whether the Jail refuses writes.
func (j *Jail) ReadOnly() bool { return j.readOnly }

// Resolve returns path cleaned and resolved through symlinks (the existing
// part of it: what does not exist yet is kept as written, cleaned), or an
// error wrapping ErrNotAbsolute, ErrOutside or ErrHidden; or, for a path
// the kernel would not follow, an *fs.PathError whose Path is where it
// stops: a file followed by more of the path or by a final / (wrapping
// syscall.ENOTDIR), or a missing directory followed by ".." (wrapping
// ErrNotFound).
func (j *Jail) Resolve(path string) (string, error) {
	_, _, p, err := j.locate(path)
	return p, err
}

// locate resolves path and returns the innermost root holding it and the
// path relative to that root ("." for the root itself). A path the kernel
// would not follow to its end fails where it stops (see walk), once both
// the path and where it stops are known to be inside the roots.
func (j *Jail) locate(path string) (*root, string, string, error) {
	if !filepath.IsAbs(path) {
		return nil, "", "", fmt.Errorf("%s: %w", path, ErrNotAbsolute)
	}
	p, stop, err := walk(path)
	if err != nil {
		return nil, "", "", fmt.Errorf("resolve %s: %w", path, err)
	}
	r, rel, err := j.contain(path, p)
	if err == nil && stop != nil { // where it stops must be inside too: it is named
		_, _, err = j.contain(path, stop.Path)
		if err == nil {
			err = fmt.Errorf("%s: %w", path, stop)
		}
	}
	if err != nil {
		return nil, "", p, err
	}
	return r, rel, p, nil
}

// contain returns the innermost root holding p, resolved, and p relative
// to it, or an error about path, which resolved to p: ErrOutside or
// ErrHidden.
func (j *Jail) contain(path, p string) (*root, string, error) {
	var best *root
	rel := ""
	for i := range j.roots {
		r := &j.roots[i]
		if rl, ok := within(r.path, p); ok && (best == nil || len(r.path) > len(best.path)) {
			best, rel = r, rl
		}
	}
	if best == nil {
		return nil, "", fmt.Errorf("%s: %w", path, ErrOutside)
	}
	if h := j.hiddenIn(p); h != "" {
		return nil, "", fmt.Errorf("%s: %w (%s)", path, ErrHidden, h)
	}
	return best, rel, nil
}

// hiddenIn returns the hidden path the resolved path p lies in, "" for
// none. Each hidden path counts as New resolved it and as it resolves now
// (it may have been created since), by name and by identity: p lies in a
// hidden directory also when a directory p passes through is that
// directory under another name (renamed with its parent), and p is a
// hidden file also when it is a hard link to it.
func (j *Jail) hiddenIn(p string) string {
	if len(j.hidden) == 0 {
		return ""
	}
	hidden := j.hiddenNow()
	for _, h := range hidden {
		for _, hp := range h.paths {
			if _, ok := within(hp, p); ok {
				return h.given
			}
		}
	}
	// Every existing directory from the top down to p, and p itself.
	for dir := p; ; dir = filepath.Dir(dir) {
		if fi, err := os.Lstat(dir); err == nil {
			if h := isHidden(hidden, fi); h != "" {
				return h
			}
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// hiddenState is a hidden path as New resolved it and as it resolves
// now, with the identities of what it named then and names now.
type hiddenState struct {
	given string
	paths [2]string
	ids   []os.FileInfo
}

// hiddenNow returns the state of each hidden path.
func (j *Jail) hiddenNow() []hiddenState {
	out := make([]hiddenState, len(j.hidden))
	for i, h := range j.hidden {
		now, id := resolveHidden(h.given)
		out[i] = hiddenState{given: h.given, paths: [2]string{h.resolved, now}}
		for _, fi := range []os.FileInfo{h.id, id} {
			if fi != nil {
				out[i].ids = append(out[i].ids, fi)
			}
		}
	}
	return out
}

// isHidden returns the hidden path that fi is (by identity), "" for none.
func isHidden(hidden []hiddenState, fi os.FileInfo) string {
	for _, h := range hidden {
		for _, id := range h.ids {
			if os.SameFile(fi, id) {
				return h.given
			}
		}
	}
	return ""
}

// verifyHeld checks, when there are hidden paths, that none of the
// directories a write walked to its file, held open, nor the file, is
// hidden: wherever their names lead now, the file is where they are.
func (j *Jail) verifyHeld(path string, c *created) error {
	if len(j.hidden) == 0 {
		return nil
	}
	hidden := j.hiddenNow()
	for _, f := range append(c.dirs[:len(c.dirs):len(c.dirs)], c.f) {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("open %s: %w", path, err)
		}
		if h := isHidden(hidden, fi); h != "" {
			return fmt.Errorf("open %s: it changed while being opened, and led into a hidden path: %w (%s)", path, ErrHidden, h)
		}
	}
	return nil
}

// verifyOpen checks, when there are hidden paths, that the file f opened
// for path is the one path resolves to now and that it is not hidden: a
// symlink swapped in between the check and the open may have led the open
// into a hidden path, which the roots' os.Root would have followed.
func (j *Jail) verifyOpen(path string, f *os.File) error {
	if len(j.hidden) == 0 {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	_, _, p, err := j.locate(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if now, err := os.Lstat(p); err != nil || !os.SameFile(fi, now) {
		return fmt.Errorf("open %s: it changed while being opened, and may lead to a hidden path: %w", path, ErrHidden)
	}
	return nil
}

// within reports whether p lies in dir (both clean and absolute) and
// returns it relative to dir.
func within(dir, p string) (string, bool) {
	if p == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if rest, ok := strings.CutPrefix(p, prefix); ok {
		return rest, true
	}
	return "", false
}

// ResolvePath returns the absolute path cleaned and resolved through
// symlinks as Resolve does (what does not exist yet is kept as written,
// cleaned), without checking it against any roots: where the path really
// leads. It fails for a relative path (ErrNotAbsolute), a symlink loop or
// a directory that cannot be read.
func ResolvePath(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: %w", path, ErrNotAbsolute)
	}
	return resolve(path)
}

// resolve cleans the absolute path and resolves it through symlinks. A
// component that does not exist (or whose parent is not a directory) is
// kept as it is; components after it are still looked at, since ".." may
// lead back to existing ones.
func resolve(path string) (string, error) {
	p, _, err := walk(path)
	return p, err
}

// walk resolves path as resolve does, and also returns where the kernel
// would refuse to follow it (nil when it would not): an *fs.PathError at
// the first component, resolved, that is not a directory but is followed
// by another or ends a path that names a directory ("a.txt/"), Err
// syscall.ENOTDIR; or that does not exist and is followed by "..", Err
// ErrNotFound.
func walk(path string) (string, *fs.PathError, error) {
	rest := components(path)
	resolved := string(filepath.Separator)
	exists, isDir := true, true // what resolved is
	var stop *fs.PathError
	refuse := func(err error) {
		if stop == nil {
			stop = &fs.PathError{Op: "walk", Path: resolved, Err: err}
		}
	}
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch {
		case exists && !isDir:
			refuse(syscall.ENOTDIR)
		case !exists && c == "..":
			refuse(ErrNotFound)
		}
		if c == ".." {
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			resolved, exists = next, false
			continue
		case err != nil:
			return "", nil, err
		case fi.Mode()&fs.ModeSymlink == 0:
			resolved, exists, isDir = next, true, fi.IsDir()
			continue
		}
		links++
		if links > maxLinks {
			return "", nil, fmt.Errorf("%s: %w", path, syscall.ELOOP)
		}
		if beforeReadlink != nil {
			beforeReadlink(next)
		}
		target, err := os.Readlink(next)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, fs.ErrNotExist) {
			// No longer a symlink since Lstat: looked at again, as a
			// link followed, so that a path changing all along ends.
			rest = append([]string{c}, rest...)
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		exists, isDir = true, true // the directory that holds the link, or /
		rest = append(components(target), rest...)
	}
	if exists && !isDir && namesDir(path) {
		refuse(syscall.ENOTDIR)
	}
	return resolved, stop, nil
}

// namesDir reports whether path can only name a directory: it ends in /,
// /. or /.. .
func namesDir(path string) bool {
	return strings.HasSuffix(path, string(filepath.Separator)) || filepath.Base(path) == "." || filepath.Base(path) == ".."
}

// components splits a path into its names, without empty ones and ".".
func components(path string) []string {
	var out []string
	for _, c := range strings.Split(path, string(filepath.Separator)) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// OpenRead opens the regular file at path for reading. Errors wrap
// ErrNotAbsolute, ErrOutside, ErrHidden, ErrNotFound or ErrNotRegular, or
// are the system's.
func (j *Jail) OpenRead(path string) (*os.File, error) {
	r, rel, _, err := j.locate(path)
	if err != nil {
		return nil, err
	}
	j.checked()
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := r.dir.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) { // a socket
		return nil, fmt.Errorf("open %s: %w", path, ErrNotRegular)
	}
	if err != nil {
		return nil, j.openError(path, err)
	}
	if err := j.verifyOpen(path, f); err != nil {
		f.Close()
		return nil, err
	}
	if err := regular(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// WriteFile creates or truncates the regular file at path and writes data
// to it, creating missing parent directories inside the root. Errors wrap
// ErrReadOnly, ErrNotAbsolute, ErrOutside, ErrHidden, ErrNotWritable,
// ErrNotRegular or ErrChanged, or are the system's; a refused write leaves
// nothing it made.
func (j *Jail) WriteFile(path string, data []byte) error {
	if j.readOnly {
		return fmt.Errorf("write %s: %w", path, ErrReadOnly)
	}
	r, rel, p, err := j.locate(path)
	if err != nil {
		return err
	}
	if rel == "." || namesDir(path) {
		return fmt.Errorf("write %s: %w", path, ErrNotRegular)
	}
	dir, wfile := r.dir, false
	if j.limitWrites {
		w := j.writableFor(p)
		switch {
		case w == nil:
			return fmt.Errorf("write %s: %w", path, ErrNotWritable)
		case w.dir == nil:
			wfile = true // the file itself: opened in the root, checked once open
		case len(w.path) > len(r.path): // the innermost of the two holds the open
			dir = w.dir
			rel, _ = within(w.path, p)
		}
	}
	j.checked()
	c, err := create(dir, rel, p)
	if err != nil {
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("write %s: %w", path, ErrNotRegular)
		}
		return j.openError(path, err)
	}
	defer c.close()
	f := c.f
	err = j.verifyHeld(path, c)
	if err == nil {
		err = j.verifyOpen(path, f)
	}
	if err == nil && wfile {
		err = j.verifyWritableFile(path, f)
	}
	if err != nil { // refused: what this write made goes
		f.Close()
		c.undo()
		return err
	}
	err = regular(f)
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writableFor returns the innermost writable path that the resolved path
// p lies in (a file only as itself), nil for none.
func (j *Jail) writableFor(p string) *writablePath {
	var best *writablePath
	for i := range j.writable {
		w := &j.writable[i]
		ok := p == w.path
		if w.dir != nil {
			_, ok = within(w.path, p)
		}
		if ok && (best == nil || len(w.path) > len(best.path)) {
			best = w
		}
	}
	return best
}

// verifyWritableFile checks that f, opened for path in its root, is the
// writable file that path resolves to now, and that it is still that
// writable path: a symlink swapped in after the check may have led the
// open elsewhere in the root.
func (j *Jail) verifyWritableFile(path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	_, _, p, err := j.locate(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if w := j.writableFor(p); w == nil || w.dir != nil {
		return fmt.Errorf("open %s: it changed while being opened: %w", path, ErrNotWritable)
	}
	if now, err := os.Lstat(p); err != nil || !os.SameFile(fi, now) {
		return fmt.Errorf("open %s: it changed while being opened: %w", path, ErrNotWritable)
	}
	return nil
}

// OpenDir opens the directory at path, held open so that it can be used
// whatever its path leads to later (a terminal starts in it). Errors wrap
// ErrNotAbsolute, ErrOutside, ErrHidden, ErrNotFound or syscall.ENOTDIR,
// or are the system's.
func (j *Jail) OpenDir(path string) (*os.File, error) {
	r, rel, _, err := j.locate(path)
	if err != nil {
		return nil, err
	}
	j.checked()
	f, err := r.dir.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if errors.Is(err, syscall.ENOTDIR) {
		if fi, serr := r.dir.Stat(rel); serr == nil && !fi.IsDir() {
			return nil, fmt.Errorf("%s: %w", path, syscall.ENOTDIR)
		}
	}
	if err != nil {
		return nil, j.openError(path, err)
	}
	if err := j.verifyOpen(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openError describes an error of os.Root: a missing file is ErrNotFound;
// a path that the root refused (it now leads outside: something was
// swapped after the check) is ErrOutside.
func (j *Jail) openError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("open %s: %w", path, ErrNotFound)
	}
	_, _, _, lerr := j.locate(path)
	for _, sentinel := range []error{ErrOutside, ErrHidden} {
		if errors.Is(lerr, sentinel) {
			return fmt.Errorf("open %s: %w", path, sentinel)
		}
	}
	if errors.Is(err, ErrChanged) {
		return fmt.Errorf("open %s: %w", path, err)
	}
	// os.Root refuses a path leading out of the root with an error of its
	// own, not an errno: report it as what it is.
	var pe *fs.PathError
	if errors.As(err, &pe) && !errors.Is(err, fs.ErrClosed) && !errors.Is(err, fs.ErrInvalid) {
		if _, ok := pe.Err.(syscall.Errno); !ok {
			return fmt.Errorf("open %s: %v: %w", path, pe.Err, ErrOutside)
		}
	}
	return fmt.Errorf("open %s: %w", path, err)
}

func (j *Jail) checked() {
	if j.afterCheck != nil {
		j.afterCheck()
	}
}

// regular checks that f is a regular file.
func regular(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return ErrNotRegular
	}
	return nil
}
