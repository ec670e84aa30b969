package reap

import (
	"io/fs"
	"os"
)

// RemoveTree removes dir and everything in it, as the guard removes what
// a run leaves (Guard.Remove) and a run removes its workspaces and its
// agents' temporary directories. When a plain os.RemoveAll fails (a
// directory an agent left without write or search permission), it gives
// every directory inside owner permissions, through an os.Root so that no
// symlink leads outside, and tries again.
func RemoveTree(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil {
		return nil
	}
	info, lerr := os.Lstat(dir)
	if lerr != nil || !info.IsDir() {
		return err
	}
	if info.Mode().Perm()&0o700 != 0o700 {
		_ = os.Chmod(dir, info.Mode().Perm()|0o700)
	}
	root, rerr := os.OpenRoot(dir)
	if rerr != nil {
		return err
	}
	_ = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && name != "." {
			_ = root.Chmod(name, 0o700)
		}
		return nil // keep going: remove what can be removed
	})
	root.Close()
	return os.RemoveAll(dir)
}
