package outfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/acprun/acprun/internal/inputfile"
)

// LinkError is the error of OpenDir for a symbolic link in the place of
// the directory: one acprun does not follow there, where an agent may have
// put it.
type LinkError struct {
	Path   string // as the caller named it
	Target string // what the link points at
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link (to %s), which acprun does not follow there (an agent may have put it)", e.Path, e.Target)
}

// OpenDir opens the directory dir, made with its parents when missing,
// for the files acprun keeps there for itself: a symbolic link in its
// place is a *LinkError, not followed, and anything else that is not a
// directory an error. The directories on its way are taken as the OS
// resolves them. The caller closes the Root.
func OpenDir(dir string) (*os.Root, error) {
	if dir == "" {
		return nil, ErrEmptyPath
	}
	parent, base := split(dir)
	if base == "" || base == "." || base == ".." { // no link can be there
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return os.OpenRoot(dir)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	p, err := os.OpenRoot(parent)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.Mkdir(base, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, named(err, "mkdir", dir)
	}
	fi, err := p.Lstat(base)
	switch {
	case err != nil:
		return nil, named(err, "lstat", dir)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := p.Readlink(base)
		return nil, &LinkError{Path: dir, Target: target}
	case !fi.IsDir():
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	d, err := p.OpenRoot(base)
	if err != nil {
		return nil, named(err, "open", dir)
	}
	// OpenRoot follows a link within parent: one put there since Lstat
	// is not the directory seen.
	if opened, err := d.Stat("."); err != nil || !os.SameFile(fi, opened) {
		d.Close()
		return nil, &fs.PathError{Op: "open", Path: dir, Err: errors.New("replaced while it was opened")}
	}
	return d, nil
}

// OpenOwnIn opens for reading and writing the file name of dir, one
// acprun keeps there for itself (a lock file), created empty when missing.
// Only a regular file with no other name is taken as it is: anything else
// in its place (a symbolic link, a second name of another file, a FIFO or
// a device) is removed, never followed nor opened, and a new empty file
// made instead; replaced then says so, for a warning ("PATH was a
// symbolic link to /home/me/.bashrc, …: replaced by a new one, …"). path
// names the file in errors and in replaced.
func OpenOwnIn(dir *os.Root, name, path string) (f *os.File, replaced string, err error) {
	for range 10 { // each turn is lost only to a file swapped meanwhile
		fi, err := dir.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode) // never follows
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return nil, "", named(err, "create", path)
			}
			return f, replaced, nil
		case err != nil:
			return nil, "", named(err, "lstat", path)
		case fi.IsDir():
			return nil, "", &fs.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
		case !own(fi):
			replaced = fmt.Sprintf("%s was %s, not a file of acprun's (an agent may have put it there): replaced by a new one, without opening what was there", path, notOwn(dir, name, fi))
			if err := dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, "", named(err, "remove", path)
			}
			continue
		}
		f, err := dir.OpenFile(name, os.O_RDWR|syscall.O_NONBLOCK, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", named(err, "open", path)
		}
		// The Root follows a link within dir: what was opened must be
		// the file seen, still one of acprun's.
		if opened, err := f.Stat(); err == nil && os.SameFile(fi, opened) && own(opened) {
			return f, replaced, nil
		}
		f.Close()
	}
	return nil, "", &fs.PathError{Op: "open", Path: path, Err: errors.New("replaced again and again while it was opened")}
}

// own reports whether fi is a file acprun may take as its own: a regular
// file with one name. Another name (a hard link made to a file of the
// user's) would have its writes land in that file.
func own(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || uint64(st.Nlink) == 1
}

// notOwn says what fi, the file name of dir that is not acprun's own,
// is: "a symbolic link to X", "a second name of another file (a hard
// link)", "a FIFO".
func notOwn(dir *os.Root, name string, fi fs.FileInfo) string {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		target, _ := dir.Readlink(name)
		return "a symbolic link to " + target
	case m.IsRegular():
		return "a second name of another file (a hard link)"
	default:
		return inputfile.Kind(m)
	}
}

// PinIn is Pin for the file of path's name in dir, a directory opened
// before others could write in it (OpenDir): the Pinned writes there,
// whatever is put in the place of the file or of the directory since. As
// Pin does, it checks that the file can be written: in the place of a
// regular file, or a new one. The Pinned takes dir: its Close closes it.
// ctx is only for its WithTemps hooks, which hear of the temporary file
// that check tries.
func PinIn(ctx context.Context, dir *os.Root, path string) (*Pinned, error) {
	_, base := split(path)
	if fi, err := dir.Lstat(base); err == nil && fi.Mode().IsRegular() {
		if err := access(path); err != nil {
			return nil, err // a read-only file is not replaced behind its owner's back
		}
	}
	if err := probeIn(ctx, dir, base, path); err != nil {
		return nil, err
	}
	return &Pinned{path: path, real: path, dir: dir}, nil
}

// DirLockName is the name of LockDir's lock file in the directory it
// locks.
const DirLockName = ".acprun.lock"

// LockDir takes the lock of the directory dir, which a run writes files in
// until it ends (the transcripts directory), for as long as the caller
// keeps the returned file open: a write lock, as Pin takes, on the file
// DirLockName in dir, opened as OpenOwnIn opens it (replaced says what it
// replaced, as OpenOwnIn does). While another process holds it, LockDir fails with a
// *BusyError naming dir, so that two runs never write their files over
// each other's.
func LockDir(dir string) (f *os.File, replaced string, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	f, replaced, err = OpenOwnIn(root, DirLockName, join(dir, DirLockName))
	if err != nil {
		return nil, "", err
	}
	if err := lockWrite(f, dir, true); err != nil {
		f.Close()
		return nil, "", err
	}
	return f, replaced, nil
}

// named is err, from work through an os.Root (whose errors name the file
// in the root), naming path and saying op instead.
func named(err error, op, path string) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return &fs.PathError{Op: op, Path: path, Err: pe.Err}
	}
	return err
}
