package jail

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// created is a file WriteFile opened for writing through create, with
// what the open made (the file, missing parent directories), so that a
// write refused once the file is open can leave nothing behind.
type created struct {
	f    *os.File
	dirs []*os.File // the directories walked, top first, open until close
	made []made     // what the open made, in the order made
}

// made is a directory entry that create made.
type made struct {
	parent *os.File // the directory it was made in
	name   string
	dir    bool
	id     unix.Stat_t // of what was opened at that name
}

// create opens the file rel (relative, clean, resolved: neither symlinks
// nor "..") under top for writing, making it and its missing parent
// directories, without following any symlink: a component that became a
// symlink since rel was resolved fails with ErrChanged. The file is
// created only when it does not exist, so that what existed before is
// never what undo removes. name names the file in errors.
func create(top *os.Root, rel, name string) (c *created, err error) {
	dir, err := top.OpenFile(".", os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	c = &created{dirs: []*os.File{dir}}
	defer func() {
		if err != nil {
			c.undo()
			c.close()
			c = nil
		}
	}()
	var parents []string
	if d := filepath.Dir(rel); d != "." {
		parents = strings.Split(d, string(filepath.Separator))
	}
	for _, p := range parents {
		fd, mk, err := c.openat(dir, p, unix.O_RDONLY|unix.O_DIRECTORY, func(parent int) (int, error) {
			return -1, unix.Mkdirat(parent, p, 0o755)
		})
		if err != nil {
			return c, err
		}
		next := os.NewFile(uintptr(fd), filepath.Join(dir.Name(), p))
		c.dirs = append(c.dirs, next)
		if mk {
			if err := c.record(dir, p, true, fd); err != nil {
				return c, err
			}
		}
		dir = next
	}
	base := filepath.Base(rel)
	// No O_TRUNC before the file is known to be a regular file.
	const flags = unix.O_WRONLY | unix.O_NONBLOCK
	fd, mk, err := c.openat(dir, base, flags, func(parent int) (int, error) {
		return unix.Openat(parent, base, flags|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	})
	if err != nil {
		return c, err
	}
	c.f = os.NewFile(uintptr(fd), name)
	if mk {
		if err := c.record(dir, base, false, fd); err != nil {
			c.f.Close()
			return c, err
		}
	}
	return c, nil
}

// openat opens name in dir with flags, following no symlink. When name
// does not exist, mk makes it and returns it open, or -1 to have it opened
// then; made says mk made it (EEXIST: another made it meanwhile, opened
// as theirs). A symlink in the place of name, or a file in the place of a
// directory, fails with ErrChanged.
func (c *created) openat(dir *os.File, name string, flags int, mk func(parent int) (int, error)) (fd int, made bool, err error) {
	parent := int(dir.Fd())
	open := func() (int, error) {
		for {
			fd, err := unix.Openat(parent, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != unix.EINTR {
				return fd, err
			}
		}
	}
	fd, err = open()
	if err == unix.ENOENT {
		switch fd, err = mk(parent); {
		case err == nil:
			made = true
			if fd < 0 {
				fd, err = open()
			}
		case err == unix.EEXIST:
			fd, err = open()
		}
	}
	switch {
	// ELOOP (EMLINK on FreeBSD): a symlink, where the path was resolved
	// through none; ENOTDIR: no directory, where one was resolved (or
	// none was, then made).
	case err == unix.ELOOP || err == unix.EMLINK || (err == unix.ENOTDIR && flags&unix.O_DIRECTORY != 0):
		return -1, false, fmt.Errorf("%s: a symlink or a file took its place: %w", filepath.Join(dir.Name(), name), ErrChanged)
	case err != nil:
		return -1, false, &os.PathError{Op: "openat", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return fd, made, nil
}

// record notes that name, opened as fd, was made in parent.
func (c *created) record(parent *os.File, name string, dir bool, fd int) error {
	m := made{parent: parent, name: name, dir: dir}
	if err := unix.Fstat(fd, &m.id); err != nil {
		return &os.PathError{Op: "fstat", Path: filepath.Join(parent.Name(), name), Err: err}
	}
	c.made = append(c.made, m)
	return nil
}

// undo removes what create made, the last made first, each only if its
// name still leads to what was made there (a directory only when empty):
// nothing that was there before, nor what another put there since.
func (c *created) undo() {
	for i := len(c.made) - 1; i >= 0; i-- {
		m := c.made[i]
		parent := int(m.parent.Fd())
		var st unix.Stat_t
		if unix.Fstatat(parent, m.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Dev != m.id.Dev || st.Ino != m.id.Ino {
			continue
		}
		flags := 0
		if m.dir {
			flags = unix.AT_REMOVEDIR
		}
		unix.Unlinkat(parent, m.name, flags) // a directory another filled stays
	}
}

// close closes the directories create walked (not the file).
func (c *created) close() {
	for _, d := range c.dirs {
		d.Close()
	}
}
