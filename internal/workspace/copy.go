package workspace

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
	dir, err := makeDir("from", from, src, parent, prefix)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: dir, Kind: KindCopy}
	if err := copyTree(ctx, src, dir); err != nil {
		_ = w.remove()
		return nil, fmt.Errorf("workspace: copy %s: %w", from, err)
	}
	if err := w.Snapshot(); err != nil {
		_ = w.remove()
		return nil, err
	}
	return w, nil
}

// copyTree copies the tree at src into the existing, empty directory dst.
// dst itself keeps its mode.
func copyTree(ctx context.Context, src, dst string) error {
	type dirTimes struct {
		path  string
		mode  fs.FileMode
		mtime time.Time
	}
	var dirs []dirTimes // in walk order: parents before their children
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if path == src {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			// Writable until its children are in; its own mode comes last.
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirTimes{target, mode & modeBits, info.ModTime()})
		case mode&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case mode.IsRegular():
			return copyFile(path, target, mode&modeBits, info.ModTime())
		default:
			// Sockets, FIFOs and devices: nothing a fixture needs, and
			// opening a FIFO would block.
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if err := os.Chtimes(d.path, time.Time{}, d.mtime); err != nil {
			return err
		}
		if err := os.Chmod(d.path, d.mode); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies the regular file src to the new file dst, with mode and
// modification time.
func copyFile(src, dst string, mode fs.FileMode, mtime time.Time) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Chmod(mode); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, time.Time{}, mtime)
}
