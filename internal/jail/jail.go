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
// lead the open outside.
//
// Hard links are not detected: a hard link inside a root is a file of the
// root. Errors wrap the sentinels ErrOutside, ErrNotFound, ErrReadOnly,
// ErrNotAbsolute and ErrNotRegular.
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
	// ErrNotFound: the file does not exist.
	ErrNotFound = errors.New("not found")
	// ErrReadOnly: the Jail refuses writes.
	ErrReadOnly = errors.New("read-only")
	// ErrNotAbsolute: the path is not absolute.
	ErrNotAbsolute = errors.New("path is not absolute")
	// ErrNotRegular: the path names a directory, device, FIFO or socket
	// where a regular file is needed.
	ErrNotRegular = errors.New("not a regular file")
)

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel's limit does.
const maxLinks = 40

// Jail confines file access to its roots. Its methods may be called from
// many goroutines at once.
type Jail struct {
	roots    []root
	readOnly bool
	// afterCheck, when set (by tests), runs between the check of a path
	// and its opening.
	afterCheck func()
}

type root struct {
	path string   // resolved, absolute, clean
	dir  *os.Root // opened by New
}

// Option configures New.
type Option func(*Jail)

// WithReadOnly makes WriteFile fail with ErrReadOnly when readOnly is true.
func WithReadOnly(readOnly bool) Option {
	return func(j *Jail) { j.readOnly = readOnly }
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
	return j, nil
}

// Close releases the roots.
func (j *Jail) Close() error {
	var errs []error
	for _, r := range j.roots {
		errs = append(errs, r.dir.Close())
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
// error wrapping ErrNotAbsolute or ErrOutside.
func (j *Jail) Resolve(path string) (string, error) {
	_, _, p, err := j.locate(path)
	return p, err
}

// locate resolves path and returns the innermost root holding it and the
// path relative to that root ("." for the root itself).
func (j *Jail) locate(path string) (*root, string, string, error) {
	if !filepath.IsAbs(path) {
		return nil, "", "", fmt.Errorf("%s: %w", path, ErrNotAbsolute)
	}
	p, err := resolve(path)
	if err != nil {
		return nil, "", "", fmt.Errorf("resolve %s: %w", path, err)
	}
	var best *root
	rel := ""
	for i := range j.roots {
		r := &j.roots[i]
		if rl, ok := within(r.path, p); ok && (best == nil || len(r.path) > len(best.path)) {
			best, rel = r, rl
		}
	}
	if best == nil {
		return nil, "", p, fmt.Errorf("%s: %w", path, ErrOutside)
	}
	return best, rel, p, nil
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

// resolve cleans the absolute path and resolves it through symlinks. A
// component that does not exist (or whose parent is not a directory) is
// kept as it is; components after it are still looked at, since ".." may
// lead back to existing ones.
func resolve(path string) (string, error) {
	rest := components(path)
	resolved := string(filepath.Separator)
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		if c == ".." {
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			resolved = next
			continue
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			resolved = next
			continue
		}
		links++
		if links > maxLinks {
			return "", fmt.Errorf("%s: %w", path, syscall.ELOOP)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		rest = append(components(target), rest...)
	}
	return resolved, nil
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
// ErrNotAbsolute, ErrOutside, ErrNotFound or ErrNotRegular, or are the
// system's.
func (j *Jail) OpenRead(path string) (*os.File, error) {
	r, rel, _, err := j.locate(path)
	if err != nil {
		return nil, err
	}
	j.checked()
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := r.dir.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, j.openError(path, err)
	}
	if err := regular(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// WriteFile creates or truncates the regular file at path and writes data
// to it, creating missing parent directories inside the root. Errors wrap
// ErrReadOnly, ErrNotAbsolute, ErrOutside or ErrNotRegular, or are the
// system's.
func (j *Jail) WriteFile(path string, data []byte) error {
	if j.readOnly {
		return fmt.Errorf("write %s: %w", path, ErrReadOnly)
	}
	r, rel, _, err := j.locate(path)
	if err != nil {
		return err
	}
	if rel == "." {
		return fmt.Errorf("write %s: %w", path, ErrNotRegular)
	}
	j.checked()
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.dir.MkdirAll(dir, 0o755); err != nil {
			return j.openError(path, err)
		}
	}
	// No O_TRUNC before the file is known to be a regular file.
	f, err := r.dir.OpenFile(rel, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("write %s: %w", path, ErrNotRegular)
		}
		return j.openError(path, err)
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

// ResolveDir resolves path (as Resolve) and checks that it is a directory.
func (j *Jail) ResolveDir(path string) (string, error) {
	r, rel, p, err := j.locate(path)
	if err != nil {
		return "", err
	}
	fi, err := r.dir.Stat(rel)
	if err != nil {
		return "", j.openError(path, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s: %w", path, syscall.ENOTDIR)
	}
	return p, nil
}

// openError describes an error of os.Root: a missing file is ErrNotFound;
// a path that the root refused (it now leads outside: something was
// swapped after the check) is ErrOutside.
func (j *Jail) openError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("open %s: %w", path, ErrNotFound)
	}
	if _, _, _, lerr := j.locate(path); errors.Is(lerr, ErrOutside) {
		return fmt.Errorf("open %s: %w", path, ErrOutside)
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
