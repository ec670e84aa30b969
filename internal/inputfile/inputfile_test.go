package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
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
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("moved.yaml", dangling); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
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
		{"link that leads nowhere", dangling, dangling + ": a symbolic link to moved.yaml, which does not exist", fs.ErrNotExist},
		{"link loop", loop, loop + ": a symbolic link to loop: too many levels of symbolic links", syscall.ELOOP},
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

// TestReadAnySize checks that a negative limit reads a file whatever its
// size (acprun's own results, as large as its agents' text).
func TestReadAnySize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	want := strings.Repeat("x", 1<<20)
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path, -1)
	if err != nil || string(got) != want {
		t.Fatalf("Read(-1) = %d bytes, %v; want the whole file, %d bytes", len(got), err, len(want))
	}
}

// TestReadSizesItsBuffer checks that a file is read into one buffer of
// its size, not one grown as it is read, whose copies would cost the
// file's size twice more (a results file is as large as its agents'
// text).
func TestReadSizesItsBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	want := strings.Repeat("x", 8<<20)
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := Read(path, -1)
	runtime.ReadMemStats(&after)
	if err != nil || string(got) != want {
		t.Fatalf("Read = %d bytes, %v; want the whole file", len(got), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(want))+64<<10 {
		t.Errorf("Read allocated %d bytes for a file of %d", n, len(want))
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

// TestPinned: a pinned file is read in the directory it was in when
// pinned, by its name there: a symbolic link put in its place since (an
// agent's, to a file of the user's) is refused, not followed, and so is
// one put in the place of its directory; a file renamed over it is read;
// a link that was there when pinned (the user's) was followed then.
func TestPinned(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "id_rsa")
	write := func(p, data string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(victim, "SECRET\n")
	spec := filepath.Join(dir, "spec.md")
	write(spec, "spec\n")
	var pins Pins
	defer pins.Close()
	p := pins.Pin(spec)
	if data, err := p.Read(100); err != nil || string(data) != "spec\n" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	// Renamed over: read as it is now.
	write(spec+".new", "edited\n")
	if err := os.Rename(spec+".new", spec); err != nil {
		t.Fatal(err)
	}
	if data, err := p.Read(100); err != nil || string(data) != "edited\n" {
		t.Fatalf("after a rename: Read = %q, %v", data, err)
	}
	// A link planted in its place: refused.
	os.Remove(spec)
	if err := os.Symlink(victim, spec); err != nil {
		t.Fatal(err)
	}
	want := spec + ": replaced by a symbolic link since the run started, which acprun does not follow (an agent may have put it there)"
	if data, err := p.Read(100); !errors.Is(err, ErrLink) || err.Error() != want {
		t.Fatalf("a planted link: Read = %q, %v; want %s", data, err, want)
	}

	// Its directory swapped for a link to one holding a file of the name:
	// the directory pinned is read.
	other := t.TempDir()
	write(filepath.Join(other, "a.txt"), "SECRET\n")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	write(filepath.Join(sub, "a.txt"), "mine\n")
	q := pins.Pin(filepath.Join(sub, "a.txt"))
	if err := os.Rename(sub, sub+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, sub); err != nil {
		t.Fatal(err)
	}
	if data, err := q.Read(100); err != nil || string(data) != "mine\n" {
		t.Fatalf("directory swapped: Read = %q, %v; want the pinned directory's file", data, err)
	}

	// A link that was there when pinned is the user's: followed then.
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(filepath.Join(sub+".moved", "a.txt"), link); err != nil {
		t.Fatal(err)
	}
	l := pins.Pin(link)
	if data, err := l.Read(100); err != nil || string(data) != "mine\n" {
		t.Fatalf("a link when pinned: Read = %q, %v", data, err)
	}

	// Missing when pinned, a link later: refused.
	gone := filepath.Join(dir, "gone.md")
	g := pins.Pin(gone)
	if _, err := g.Read(100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: Read = %v", err)
	}
	if err := os.Symlink(victim, gone); err != nil {
		t.Fatal(err)
	}
	if data, err := g.Read(100); !errors.Is(err, ErrLink) {
		t.Fatalf("missing, then a link: Read = %q, %v", data, err)
	}
	// Its directory missing too: an error of every Read.
	none := pins.Pin(filepath.Join(dir, "nodir", "x"))
	if _, err := none.Read(100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no directory: Read = %v", err)
	}
}

// TestPinnedOpen: Open opens a pinned file as Read reads it, whatever its
// size, for a caller that streams it; a symbolic link planted in its
// place is refused, not followed.
func TestPinnedOpen(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.txt")
	big := strings.Repeat("x", 1<<20)
	if err := os.WriteFile(golden, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	var pins Pins
	defer pins.Close()
	p := pins.Pin(golden)
	f, err := p.Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != big {
		t.Fatalf("read %d bytes, %v; want the %d of the file", len(data), err, len(big))
	}
	victim := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(victim, []byte("SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(golden)
	if err := os.Symlink(victim, golden); err != nil {
		t.Fatal(err)
	}
	if f, err := p.Open(); !errors.Is(err, ErrLink) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("a planted link: Open = %v; want ErrLink", err)
	}
	if _, err := pins.Pin(filepath.Join(dir, "nodir", "x")).Open(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no directory: Open = %v", err)
	}
}

// TestPinsShareDirectories: the files pinned in one directory share its
// descriptor, each still read by its own name; after Close none is read.
func TestPinsShareDirectories(t *testing.T) {
	dir := t.TempDir()
	var pins Pins
	var pinned []*Pinned
	for i := range 50 {
		name := filepath.Join(dir, fmt.Sprintf("c%d.json", i))
		if err := os.WriteFile(name, []byte(strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		pinned = append(pinned, pins.Pin(name))
	}
	other := pins.Pin(filepath.Join(t.TempDir(), "gone.json"))
	if len(pins.dirs) != 2 {
		t.Errorf("%d directories open for 50 files in one and one in another; want 2", len(pins.dirs))
	}
	for i, p := range pinned {
		if data, err := p.Read(100); err != nil || string(data) != strconv.Itoa(i) {
			t.Errorf("file %d: Read = %q, %v", i, data, err)
		}
	}
	if _, err := other.Read(100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: Read = %v", err)
	}
	if err := pins.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pinned[0].Read(100); err == nil {
		t.Error("Read after Close succeeded")
	}
}

// TestOpenNoLink: a file that is itself a symbolic link is refused
// (ErrLink) without being opened; links among its directories are
// followed.
func TestOpenNoLink(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenNoLink(link, -1); !errors.Is(err, ErrLink) {
		if f != nil {
			f.Close()
		}
		t.Errorf("a link: OpenNoLink = %v, want ErrLink", err)
	}
	linkedDir := filepath.Join(t.TempDir(), "d")
	if err := os.Symlink(dir, linkedDir); err != nil {
		t.Fatal(err)
	}
	f, err := OpenNoLink(filepath.Join(linkedDir, "t.jsonl"), -1)
	if err != nil {
		t.Fatalf("a file in a linked directory: %v", err)
	}
	f.Close()
	if _, err := OpenNoLink(dir, -1); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: OpenNoLink = %v, want ErrNotRegular", err)
	}
}

// TestDashIsNoStdin: "-" where a file is read, as in acprun validate -,
// is a file named "-"; one that does not exist says that this input is
// read from a file, not stdin, and what to give, rather than only that
// "-" does not exist. A file named "-" is read as any other.
func TestDashIsNoStdin(t *testing.T) {
	t.Chdir(t.TempDir())
	const want = "-: no such file or directory; acprun reads this from a file, not from stdin: give the file's path"
	for name, f := range map[string]func() error{
		"Read": func() error { _, err := Read("-", 10); return err },
		"Stat": func() error { _, err := Stat("-"); return err },
		"Open": func() error { _, err := Open("-", 10); return err },
	} {
		err := f()
		if err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s(-): %v, want %q wrapping fs.ErrNotExist", name, err, want)
		}
	}
	if err := os.WriteFile("-", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read("-", 10); err != nil || string(data) != "x" {
		t.Errorf("Read(-) of a file named -: %q, %v", data, err)
	}
}
