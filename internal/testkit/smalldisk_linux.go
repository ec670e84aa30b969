package testkit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// SmallDisk is a new directory that is a tmpfs of size bytes, a file
// system that is full once that much is written in it, unmounted when the
// test ends. The test is skipped when this process may not mount one (not
// root, or in a container without CAP_SYS_ADMIN).
func SmallDisk(t testing.TB, size string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "small")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size="+size+",mode=0755"); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			t.Skipf("cannot mount a tmpfs of %s at %s: %v", size, dir, err)
		}
		t.Fatalf("mount a tmpfs of %s at %s: %v", size, dir, err)
	}
	// Before TempDir's removal, which runs later (cleanups run last
	// first): lazily, in case a process still holds a file in it.
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}
