package outfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/testkit"
)

// holdDirEnv names the directory that the test binary, started again by
// TestLockDirRefusesADirectoryAnotherProcessLocks, locks with LockDir.
const holdDirEnv = "OUTFILE_TEST_HOLD_DIR"

// holdDir takes the lock of dir, says "held" on stdout and keeps it until
// stdin ends: another run writing in the directory.
func holdDir(dir string) {
	testkit.Hold(func() (func(), error) {
		f, _, err := outfile.LockDir(dir)
		if err != nil {
			return nil, err
		}
		return func() { f.Close() }, nil
	})
}

// TestLockDirRefusesADirectoryAnotherProcessLocks: while another process
// holds the lock of a directory (a run writing its transcripts there),
// LockDir fails with a *BusyError naming the directory and the holder's
// pid, and leaves the directory as it is; once the holder has ended,
// LockDir takes it.
func TestLockDirRefusesADirectoryAnotherProcessLocks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte("first run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder, release := testkit.StartHolder(t, holdDirEnv+"="+dir)

	f, _, err := outfile.LockDir(dir)
	var busy *outfile.BusyError
	if !errors.As(err, &busy) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("LockDir of a directory another process holds = %v; want a *BusyError", err)
	}
	if busy.Path != dir || busy.PID != holder || !busy.Dir {
		t.Errorf("BusyError = %+v; want path %s, pid %d, a directory", busy, dir, holder)
	}
	if want := fmt.Sprintf("another acprun run (pid %d) is writing to it; give each run its own directory", holder); err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
	if got := read(t, filepath.Join(dir, "s.jsonl")); got != "first run\n" {
		t.Errorf("the directory's file holds %q; want it untouched", got)
	}

	release()
	f, replaced, err := outfile.LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir once the holder has ended: %v", err)
	}
	f.Close()
	if replaced != "" {
		t.Errorf("LockDir replaced its own lock file, %s", replaced)
	}
}

// TestOpenOwnInReplaces: what is in the place of a file acprun keeps for
// itself and is not a plain file of its own (a symlink, dangling or not, a
// hard link to another file, a FIFO) is replaced by a new empty file, and
// the file it led to is not opened; LockDir says what it replaced.
func TestOpenOwnInReplaces(t *testing.T) {
	tests := []struct {
		name  string
		plant func(lock, victim string) error
		want  string
	}{
		{"symlink", func(lock, victim string) error { return os.Symlink(victim, lock) }, "a symbolic link to "},
		{"dangling symlink", func(lock, victim string) error { return os.Symlink(victim+".new", lock) }, "a symbolic link to "},
		{"hard link", func(lock, victim string) error { return os.Link(victim, lock) }, "a second name of another file (a hard link)"},
		{"fifo", func(lock, _ string) error { return syscall.Mkfifo(lock, 0o644) }, "a FIFO"},
		{"own file", func(lock, _ string) error { return os.WriteFile(lock, nil, 0o644) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "bashrc")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(dir, outfile.DirLockName)
			if err := tt.plant(lock, victim); err != nil {
				t.Fatal(err)
			}
			f, replaced, err := outfile.LockDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("x"); err != nil { // what a lock's holder may write there
				t.Error(err)
			}
			f.Close()
			if want := lock + " was " + tt.want; tt.want == "" && replaced != "" || tt.want != "" && !strings.HasPrefix(replaced, want) {
				t.Errorf("replaced %q; want %q…", replaced, want)
			}
			if got := read(t, victim); got != "precious\n" {
				t.Errorf("the file the planted lock led to holds %q", got)
			}
			if _, err := os.Lstat(victim + ".new"); err == nil {
				t.Errorf("the target of the dangling link was made")
			}
			if fi, err := os.Lstat(lock); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("the lock file is %v, %v; want a regular file", fi, err)
			}
		})
	}
}

// TestOpenDir: the directory is made when missing; a symlink in its place
// is a *LinkError naming it and its target, not followed; a file there is
// ENOTDIR.
func TestOpenDir(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "a", ".acprun")
	root, err := outfile.OpenDir(made)
	if err != nil {
		t.Fatal(err)
	}
	root.Close()
	if fi, err := os.Lstat(made); err != nil || !fi.IsDir() {
		t.Errorf("OpenDir made %v, %v; want a directory", fi, err)
	}
	elsewhere := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	root, err = outfile.OpenDir(link)
	var le *outfile.LinkError
	if !errors.As(err, &le) || le.Path != link || le.Target != elsewhere {
		if root != nil {
			root.Close()
		}
		t.Errorf("OpenDir of a symlink = %v; want a *LinkError naming %s and %s", err, link, elsewhere)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if root, err := outfile.OpenDir(file); !errors.Is(err, syscall.ENOTDIR) {
		if root != nil {
			root.Close()
		}
		t.Errorf("OpenDir of a file = %v; want ENOTDIR", err)
	}
}
