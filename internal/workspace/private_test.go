package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/workspace"
)

// TestRemovePrivateReadOnly: RemovePrivate removes a private directory
// (a sandboxed agent's TMPDIR) whatever the agent left in it: a directory
// it made read-only, or unsearchable, with files inside, does not keep
// the directory, and what it holds, on disk past the scenario. A symlink
// there to a directory outside is removed, not followed.
func TestRemovePrivateReadOnly(t *testing.T) {
	t.Parallel()
	if !testkit.PermissionsBind(t) {
		return
	}
	parent := tempDir(t)
	outside := filepath.Join(tempDir(t), "outside")
	write(t, filepath.Join(outside, "keep.txt"), "keep\n", 0o644)
	must(t, os.Chmod(outside, 0o555))
	t.Cleanup(func() { os.Chmod(outside, 0o755) })
	dir, err := workspace.MakePrivate(parent, "acprun-tmp")
	must(t, err)
	write(t, filepath.Join(dir, "ro", "f.txt"), "secret\n", 0o644)
	must(t, os.Chmod(filepath.Join(dir, "ro"), 0o500))
	write(t, filepath.Join(dir, "closed", "g.txt"), "secret\n", 0o644)
	must(t, os.Chmod(filepath.Join(dir, "closed"), 0o000))
	must(t, os.Symlink(outside, filepath.Join(dir, "out")))
	t.Cleanup(func() { // whatever the test finds, t.TempDir can remove it
		os.Chmod(filepath.Join(dir, "ro"), 0o700)
		os.Chmod(filepath.Join(dir, "closed"), 0o700)
	})

	if err := workspace.RemovePrivate(dir); err != nil {
		t.Errorf("RemovePrivate() = %v", err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is left (%v)", dir, err)
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o555 {
		t.Errorf("the directory the symlink led to was changed: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep.txt")); err != nil {
		t.Errorf("a file outside was removed: %v", err)
	}
}
