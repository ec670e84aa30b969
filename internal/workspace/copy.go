package workspace

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// modeBits are the mode bits a copy keeps and Changes compares: permission
// bits plus setuid, setgid and sticky.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// createCopy makes a workspace that is a copy of the directory from.
func createCopy(ctx context.Context, from, parent, prefix string) (*Workspace, error) {
	src, err := source("from", from)
	if err != nil {
		return nil, err
	}
	dir, shared, err := makeDir("from", from, src, parent, prefix)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: dir, Kind: KindCopy, Shared: shared}
	if w.Pointers, w.LeftOut, err = copyTree(ctx, src, filepath.Clean(from), dir); err != nil {
		_ = w.remove()
		return nil, placeError(fmt.Errorf("workspace: copy %s: %w", from, err), shared)
	}
	if err := w.Snapshot(ctx); err != nil {
		_ = w.remove()
		return nil, err
	}
	return w, nil
}

// copying, when set, is told each path (relative to the source, with
// slashes) the copy has looked at and is about to copy (tests: to change
// the source then).
var copying func(rel string)

// copyTree copies the tree at src (symlinks resolved; given is the path it
// was given by, cleaned) into the existing, empty directory dst, and
// returns the pointers it copied, as Pointers lists them (found as it
// goes: the source is walked once), and what it left out (see
// Workspace.LeftOut). dst itself keeps its mode. A
// symbolic link that leads into the source leads into the copy (see
// copyLink). The source is read through an os.Root and each file
// checked once open to be the one listed: an agent that can
// write in the source (a scenario's whose cwd holds it, running beside
// this one) and swaps a directory or file for a symlink while it is
// copied (to ~/.ssh) cannot have acprun copy what the link leads to into
// the workspace: the copy fails instead.
func copyTree(ctx context.Context, src, given, dst string) ([]Pointer, []LeftOut, error) {
	root, err := os.OpenRoot(src)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	type dirTimes struct {
		path  string
		mode  fs.FileMode
		mtime time.Time
	}
	var dirs []dirTimes // in walk order: parents before their children
	var pointers []Pointer
	var leftOut []LeftOut
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		info, err := root.Lstat(rel)
		if err != nil {
			return err
		}
		if copying != nil {
			copying(rel)
		}
		link := ""
		switch mode := info.Mode(); {
		case mode.IsDir():
			// Writable until its children are in; its own mode comes last.
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirTimes{target, mode & modeBits, info.ModTime()})
		case mode&fs.ModeSymlink != 0:
			if link, err = root.Readlink(rel); err != nil {
				return err
			}
			to, _ := copyLink(src, given, dst, rel, link)
			if err := os.Symlink(to, target); err != nil {
				return err
			}
		case mode.IsRegular():
			if err := copyFile(root, rel, target, info); err != nil {
				return err
			}
		default:
			// Sockets, FIFOs and devices: nothing a fixture needs, and
			// opening a FIFO would block.
			leftOut = append(leftOut, LeftOut{Path: rel, Type: info.Mode().Type()})
		}
		if p, ok := pointerAt(root, src, given, rel, info.Mode().Type(), link); ok {
			pointers = append(pointers, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if err := os.Chtimes(d.path, time.Time{}, d.mtime); err != nil {
			return nil, nil, err
		}
		if err := os.Chmod(d.path, d.mode); err != nil {
			return nil, nil, err
		}
	}
	return pointers, leftOut, nil
}

// LeftOut is a file of a copy's source that the copy leaves out: a
// socket, FIFO or device (inputfile.Kind says which, for messages).
type LeftOut struct {
	Path string      // relative to the source, with slashes
	Type fs.FileMode // its type bits (fs.ModeNamedPipe, fs.ModeSocket, fs.ModeDevice…)
}

// copyFile copies the regular file rel of root, whose information is
// info, to the new file dst, with its mode and modification time. The file
// opened must be the one info is about: one swapped since is an error.
func copyFile(root *os.Root, rel, dst string, info fs.FileInfo) error {
	in, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	if opened, err := in.Stat(); err != nil || !os.SameFile(info, opened) {
		return fmt.Errorf("copy %s: it changed while it was copied", rel)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", rel, err)
	}
	if err := out.Chmod(info.Mode() & modeBits); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, time.Time{}, info.ModTime())
}
