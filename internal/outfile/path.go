package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// split splits path into its directory and its last element as the OS
// takes them: unlike filepath.Dir, it never cleans the directory, which
// would be wrong through a symlink or a directory not made yet ("a/../b"
// is "b" only when a is a directory that exists).
func split(path string) (dir, base string) {
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return string(filepath.Separator), path[1:]
	}
	return path[:i], path[i+1:]
}

// join is dir/name, without cleaning (see split).
func join(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// mkdirFor makes the missing directories of path, as the OS resolves it
// (split). A path whose last element is a directory's ("dir/", "a/..")
// is an error (op names what the caller was about to do).
func mkdirFor(path, op string) error {
	dir, base := split(path)
	if base == "" || base == "." || base == ".." {
		return &fs.PathError{Op: op, Path: path, Err: syscall.EISDIR}
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	return nil
}

// RealPath returns the absolute path of the file path names once its
// missing directories are made, as Check and the writes make them:
// symlinks are resolved, those of the directories on the way and of the
// file itself (a dangling one too), and ".." is taken after the symlink
// before it, as the OS takes it. A directory that does not exist yet is
// taken as the plain directory that will be made. Two paths name the same
// output exactly when their RealPaths are equal, whichever exist yet.
func RealPath(path string) (string, error) {
	if path == "" {
		return "", ErrEmptyPath
	}
	// The directories first: the file's symlink, if any, is read in the
	// directory they lead to.
	dir, base := split(path)
	d, err := realDir(dir)
	if err != nil {
		return "", err
	}
	real, inPlace, err := resolve(join(d, base))
	if err != nil || inPlace {
		return real, err
	}
	if dir, base = split(real); dir != d {
		if d, err = realDir(dir); err != nil { // the target of a symlink
			return "", err
		}
	}
	return filepath.Join(d, base), nil
}

// realDir is the absolute path, with no symlink in it, of the directory
// dir: each element is looked up in the one before, as the kernel does,
// and one that does not exist is taken as a plain directory to be made.
func realDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = join(wd, dir)
	}
	real := string(filepath.Separator)
	todo := strings.Split(dir, string(filepath.Separator))
	links := 0
	for len(todo) > 0 {
		elem := todo[0]
		todo = todo[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			real = filepath.Dir(real) // real holds no symlink: lexical is right
			continue
		}
		next := filepath.Join(real, elem)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			// To be made (a file in the way fails when it is).
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return "", &fs.PathError{Op: "resolve", Path: dir, Err: syscall.ELOOP}
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				real = string(filepath.Separator)
			}
			todo = append(strings.Split(target, string(filepath.Separator)), todo...)
			continue
		}
		real = next
	}
	return real, nil
}
