package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "z.png")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	small := write("small", "hello")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	exact := write("exact", "0123456789")
	over := write("over", "0123456789!")

	for _, tc := range []struct {
		name, path string
		want       string // the contents, or the error
		is         error
	}{
		{"regular", small, "hello", nil},
		{"link to a regular file", link, "hello", nil},
		{"at the limit", exact, "0123456789", nil},
		{"fifo", fifo, fifo + ": not a regular file (a FIFO): give a file", ErrNotRegular},
		{"link to /dev/zero", zero, zero + ": not a regular file (a character device): give a file", ErrNotRegular},
		{"directory", dir, dir + ": not a regular file (a directory): give a file", ErrNotRegular},
		{"over the limit", over, over + ": larger than 10 bytes, the most acprun reads of it", ErrTooLarge},
		{"missing", filepath.Join(dir, "nope"), filepath.Join(dir, "nope") + ": no such file or directory", fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Read(tc.path, 10)
			if tc.is == nil {
				if err != nil || string(data) != tc.want {
					t.Fatalf("Read = %q, %v; want %q", data, err, tc.want)
				}
				return
			}
			if err == nil || err.Error() != tc.want || !errors.Is(err, tc.is) {
				t.Fatalf("Read = %q, %v; want the error %q (%v)", data, err, tc.want, tc.is)
			}
			var e *Error
			if !errors.As(err, &e) || e.Path != tc.path {
				t.Fatalf("Read's error %#v is not an *Error for %s", err, tc.path)
			}
			if cerr := Check(tc.path, 10); tc.is != ErrTooLarge && (cerr == nil || cerr.Error() != tc.want) {
				t.Errorf("Check = %v; want %q", cerr, tc.want)
			}
		})
	}
}

// TestReadFromBounded checks that a reader longer than its size said is
// cut at limit+1 bytes: a file that grows cannot blow memory.
func TestReadFromBounded(t *testing.T) {
	r := &endless{}
	_, err := ReadFrom(r, "grows", 100)
	if !errors.Is(err, ErrTooLarge) || r.n != 101 {
		t.Fatalf("ReadFrom = %v after %d bytes; want ErrTooLarge after 101", err, r.n)
	}
}

// endless is a reader that never ends, and counts what it gave.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += len(p)
	return len(p), nil
}

// TestOpenSwapped checks that Open refuses, without blocking, a FIFO it
// finds once open: the name's check passed on a regular file that was
// then replaced.
func TestOpenSwapped(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openChecked(fifo, 10) // as Open once the name was checked
	if err == nil {
		f.Close()
	}
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") {
		t.Fatalf("openChecked = %v; want a FIFO refused", err)
	}
}
