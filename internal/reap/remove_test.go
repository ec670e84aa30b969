package reap_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
)

// TestRemoveTreeReadOnly: RemoveTree, which the guard removes a killed
// run's temporary directories with, removes a directory an agent left
// read-only, or unsearchable, with files inside, and follows no symlink
// out of it.
func TestRemoveTreeReadOnly(t *testing.T) {
	t.Parallel()
	if !testkit.PermissionsBind(t) {
		return
	}
	dir := filepath.Join(t.TempDir(), "acprun-tmp-1")
	outside := filepath.Join(t.TempDir(), "outside")
	for _, d := range []string{filepath.Join(dir, "ro"), filepath.Join(dir, "closed"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("s\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for d, mode := range map[string]os.FileMode{"ro": 0o500, "closed": 0o000} {
		if err := os.Chmod(filepath.Join(dir, d), mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, d), 0o700) })
	}
	if err := os.Chmod(outside, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(outside, 0o755) })

	if err := reap.RemoveTree(dir); err != nil {
		t.Errorf("RemoveTree() = %v", err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is left (%v)", dir, err)
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o555 {
		t.Errorf("the directory the symlink led to was changed: %v, %v", fi, err)
	}
}
