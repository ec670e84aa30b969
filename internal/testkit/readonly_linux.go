package testkit

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// ReadOnlyDir makes the existing directory dir one this process cannot
// write in, whoever it runs as, until the test ends: mode 0555, and for
// root, which permissions do not bind, the immutable attribute too
// (chattr +i). The test is skipped when the file system does not take the
// attribute.
func ReadOnlyDir(t testing.TB, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if os.Geteuid() != 0 {
		return
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutable))
	}
	if err != nil {
		t.Skipf("root cannot be kept from writing in %s: chattr +i: %v", dir, err)
	}
	t.Cleanup(func() {
		f, err := os.Open(dir)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)); err != nil {
			t.Errorf("chattr -i %s: %v", dir, err)
		}
	})
}

// fsImmutable is FS_IMMUTABLE_FL of linux/fs.h, chattr's i.
const fsImmutable = 0x10
