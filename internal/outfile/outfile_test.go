package outfile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/testkit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdDirEnv); dir != "" {
		holdDir(dir)
		return
	}
	if path := os.Getenv(holdPinEnv); path != "" {
		holdPin(path)
		return
	}
	goleak.VerifyTestMain(m)
}

// holdPinEnv names the file that the test binary, started again by
// TestPinRefusesAFileAnotherProcessPinned, pins and holds.
const holdPinEnv = "OUTFILE_TEST_HOLD_PIN"

// holdPin pins path, says "held" on stdout and keeps it pinned until
// stdin ends: another run that will write the file.
func holdPin(path string) {
	testkit.Hold(func() (func(), error) {
		p, err := outfile.Pin(context.Background(), path)
		if err != nil {
			return nil, err
		}
		return func() { p.Close() }, nil
	})
}

// mode is the permission bits of the file path names.
func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// withUmask sets the process's umask for the test.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func isFIFO(t *testing.T, path string) bool {
	t.Helper()
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeNamedPipe != 0
}

func TestWriteNewFileTakesTheUmask(t *testing.T) {
	for _, tt := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}} {
		withUmask(t, tt.umask)
		path := filepath.Join(t.TempDir(), "out", "r.json") // parents are created
		if err := outfile.Write(context.Background(), path, []byte("new")); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if got := mode(t, path); got != tt.want {
			t.Errorf("umask %03o: mode %v, want %v", tt.umask, got, tt.want)
		}
		if got := read(t, path); got != "new" {
			t.Errorf("content %q, want new", got)
		}
		if got := entries(t, filepath.Dir(path)); !slices.Equal(got, []string{"r.json"}) {
			t.Errorf("directory holds %q; want r.json alone (no temporary file left)", got)
		}
	}
}

// TestWriteReplacesARegularFile checks that an existing file is replaced
// whole (a reader holding the old file still reads the old content) and
// keeps its permission bits.
func TestWriteReplacesARegularFile(t *testing.T) {
	withUmask(t, 0o022)
	for _, perm := range []fs.FileMode{0o600, 0o664, 0o640} {
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, []byte("old content"), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, perm); err != nil { // past the umask
			t.Fatal(err)
		}
		old, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := outfile.Write(context.Background(), path, []byte("new")); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if got := read(t, path); got != "new" {
			t.Errorf("content %q, want new", got)
		}
		if got := mode(t, path); got != perm {
			t.Errorf("mode %v, want the old file's %v", got, perm)
		}
		held, _ := io.ReadAll(old)
		old.Close()
		if string(held) != "old content" {
			t.Errorf("a reader of the old file reads %q; want the old content (the file was rewritten in place, not replaced)", held)
		}
		if got := entries(t, filepath.Dir(path)); !slices.Equal(got, []string{"r.json"}) {
			t.Errorf("directory holds %q; want r.json alone", got)
		}
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(real, "r.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	chain := filepath.Join(dir, "chain.json")
	if err := os.Symlink("real/r.json", link); err != nil { // relative to the link's directory
		t.Fatal(err)
	}
	if err := os.Symlink(link, chain); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Write(context.Background(), chain, []byte("new")); err != nil {
		t.Fatalf("Write: %v", err)
	}
	for _, l := range []string{link, chain} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v, %v)", filepath.Base(l), fi.Mode(), err)
		}
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target holds %q, want new", got)
	}
	if got := mode(t, target); got != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", got)
	}
	if got := entries(t, real); !slices.Equal(got, []string{"r.json"}) {
		t.Errorf("target directory holds %q; want r.json alone", got)
	}
}

// TestWriteDanglingSymlink writes the file a dangling symlink points at;
// the temporary file is made beside that target, not beside the link.
func TestWriteDanglingSymlink(t *testing.T) {
	withUmask(t, 0o022)
	dir := t.TempDir()
	other := t.TempDir()
	target := filepath.Join(other, "r.json")
	link := filepath.Join(dir, "r.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Check(t.Context(), link); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if err := outfile.Write(context.Background(), link, []byte("new")); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced (%v, %v)", fi.Mode(), err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target holds %q, want new", got)
	}
	if got := mode(t, target); got != 0o644 {
		t.Errorf("target mode %v, want 0644", got)
	}
	if got := entries(t, other); !slices.Equal(got, []string{"r.json"}) {
		t.Errorf("target directory holds %q; want r.json alone", got)
	}
}

func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Write": outfile.Write(context.Background(), a, []byte("x")),
		"Check": outfile.Check(t.Context(), a),
	} {
		if !errors.Is(err, syscall.ELOOP) {
			t.Errorf("%s on a symlink loop: %v; want ELOOP", name, err)
		}
	}
}

// TestWriteFIFO writes into a FIFO: its reader gets the data and the FIFO
// stays a FIFO.
func TestWriteFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.fifo")
	mkfifo(t, path)
	got := make(chan string, 1)
	go readFIFO(path, got)
	if err := outfile.Write(context.Background(), path, []byte("results")); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if s := <-got; s != "results" {
		t.Errorf("the reader got %q, want results", s)
	}
	if !isFIFO(t, path) {
		t.Errorf("%s is no longer a FIFO", path)
	}
}

// readFIFO opens the FIFO path for reading, which waits for a writer,
// and sends what it reads to its end (or the error) on got.
func readFIFO(path string, got chan<- string) {
	f, err := os.Open(path)
	if err != nil {
		got <- err.Error()
		return
	}
	data, _ := io.ReadAll(f)
	f.Close()
	got <- string(data)
}

// TestWriteFIFOWithoutReader does not wait for a reader when the context
// has ended already: it says at once that the FIFO has none, with the
// context's cause, and leaves no goroutine behind (goleak) and the FIFO
// in place.
func TestWriteFIFOWithoutReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.fifo")
	mkfifo(t, path)
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	ctx = outfile.WithWaitNotice(ctx, func(string) { t.Error("waited for a reader after the context ended") })
	err := outfile.Write(ctx, path, []byte("x"))
	var nr *outfile.NoReaderError
	if !errors.As(err, &nr) || nr.Path != path || !errors.Is(err, stop) || err.Error() != "no reader on FIFO "+path+": interrupted" {
		t.Errorf("Write with no reader and an ended context: %v; want a NoReaderError for %s, caused by the interrupt", err, path)
	}
	if _, err := outfile.Create(ctx, path); !errors.As(err, &nr) || !errors.Is(err, stop) {
		t.Errorf("Create with no reader and an ended context: %v; want a NoReaderError caused by the interrupt", err)
	}
	// So when the wait for a reader of WithOpenWait has ended, while ctx
	// has not.
	ctx = outfile.WithOpenWait(context.Background(), ctx)
	if err := outfile.Write(ctx, path, []byte("x")); !errors.As(err, &nr) || !errors.Is(err, stop) {
		t.Errorf("Write with no reader and an ended WithOpenWait: %v; want a NoReaderError caused by the interrupt", err)
	}
	if !isFIFO(t, path) {
		t.Errorf("%s is no longer a FIFO", path)
	}
}

// TestWriteFIFOWaitsForItsReader: a FIFO without a reader is waited for,
// after the notice, until a reader opens it (here in answer to the
// notice), or until the context ends (here in the notice): then it is a
// NoReaderError with the context's cause, with no goroutine left behind
// (goleak).
func TestWriteFIFOWaitsForItsReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.fifo")
	mkfifo(t, path)
	got := make(chan string, 1)
	ctx := outfile.WithWaitNotice(context.Background(), func(fifo string) {
		if fifo != path {
			t.Errorf("waits for the reader of %s, want %s", fifo, path)
		}
		go readFIFO(path, got)
	})
	if err := outfile.Write(ctx, path, []byte("results")); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if s := <-got; s != "results" {
		t.Errorf("the reader got %q, want results", s)
	}

	stop := errors.New("interrupted")
	cctx, cancel := context.WithCancelCause(context.Background())
	noticed := false
	cctx = outfile.WithWaitNotice(cctx, func(string) { noticed = true; cancel(stop) })
	err := outfile.Write(cctx, path, []byte("x"))
	var nr *outfile.NoReaderError
	if !noticed || !errors.As(err, &nr) || !errors.Is(err, stop) {
		t.Errorf("Write cancelled while it waits: noticed %t, %v; want the notice and a NoReaderError caused by the interrupt", noticed, err)
	}
	if !isFIFO(t, path) {
		t.Errorf("%s is no longer a FIFO", path)
	}
}

// TestWriteFIFOWithAReader: a FIFO that has a reader already is written
// without waiting for one, all of it, however much more than the pipe
// holds at once, though the wait for a reader has ended (WithOpenWait:
// after an interrupt that cut a run short, acprun still writes the
// outputs that are read, until the next one).
func TestWriteFIFOWithAReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.fifo")
	mkfifo(t, path)
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader, without a writer yet
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A writer of the test's, so that the reader does not take the time
	// before Write opens the FIFO for its end; closed once Write is done.
	held, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("0123456789abcdef", 1<<16)) // 1 MiB, 16 pipes' worth
	got := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, r) // until both writers have closed
		got <- n
	}()
	interrupt, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := outfile.WithOpenWait(context.Background(), interrupt)
	ctx = outfile.WithWaitNotice(ctx, func(string) { t.Error("waited for a reader that was there") })
	err = outfile.Write(ctx, path, data)
	held.Close()
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if n := <-got; n != int64(len(data)) {
		t.Errorf("the reader got %d bytes, want %d", n, len(data))
	}
}

// TestWriteFIFOGivesUpItsReader: a FIFO whose reader opened it but never
// reads is written what the pipe holds, then waited for until the context
// ends: the rest is given up, with an *UnreadError of the context's cause
// that names the FIFO, and the FIFO stays. A Write that waited for good
// would make the guard's minute pass.
func TestWriteFIFOGivesUpItsReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.fifo")
	mkfifo(t, path)
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // never read
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- outfile.Write(ctx, path, []byte(strings.Repeat("x", 1<<20))) }() // more than a pipe holds
	cancel(stop)
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Write waited for the FIFO's reader after the context ended")
	}
	if _, ok := errors.AsType[*outfile.UnreadError](err); !ok || !errors.Is(err, stop) || err.Error() != "write "+path+": its reader did not read it: interrupted" {
		t.Errorf("Write: %v; want an *UnreadError writing %s, caused by the interrupt", err, path)
	}
	if !isFIFO(t, path) {
		t.Errorf("%s is no longer a FIFO", path)
	}
}

// TestWriteDevice writes to /dev/null, which stays the character device it
// is: only written, never replaced (as root, a rename would replace it).
func TestWriteDevice(t *testing.T) {
	const null = "/dev/null"
	before, err := os.Lstat(null)
	if err != nil || before.Mode()&fs.ModeCharDevice == 0 {
		t.Skipf("no character device %s: %v", null, err)
	}
	if err := outfile.Check(t.Context(), null); err != nil {
		t.Errorf("Check: %v", err)
	}
	if err := outfile.Write(context.Background(), null, []byte("discarded")); err != nil {
		t.Errorf("Write: %v", err)
	}
	f, err := outfile.Create(context.Background(), null)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if _, err := f.Write([]byte("line\n")); err != nil {
		t.Errorf("write: %v", err)
	}
	f.Close()
	after, err := os.Lstat(null)
	if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
		t.Fatalf("%s changed: %v → %v (%v)", null, before.Mode(), after.Mode(), err)
	}
	if entries := entries(t, "/dev"); slices.ContainsFunc(entries, func(n string) bool { return len(n) > 9 && n[:9] == ".null.tmp" }) {
		t.Errorf("a temporary file was left in /dev: %q", entries)
	}
}

// TestWriteDeviceError reports a device's write error (/dev/full: no space).
func TestWriteDeviceError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	if err := outfile.Write(context.Background(), "/dev/full", []byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Write to /dev/full: %v; want ENOSPC", err)
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/full changed: %v (%v)", fi.Mode(), err)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	tests := []struct {
		name string
		path string
		want error // nil: no error
	}{
		{"new file", filepath.Join(dir, "r.json"), nil},
		{"missing parents", filepath.Join(dir, "a", "b", "r.json"), nil},
		{"existing file", file, nil},
		{"FIFO without a reader", fifo, nil}, // not opened, so no wait
		{"directory", dir, syscall.EISDIR},
		{"parent is a file", filepath.Join(file, "r.json"), syscall.ENOTDIR},
		{"under /proc", "/proc/nope/r.json", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := outfile.Check(t.Context(), tt.path)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Check(%s) = %v; want %v", tt.path, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "b")); err != nil {
		t.Errorf("Check did not create the parents: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check left a file behind: %v", err)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"a", "fifo", "file"}) {
		t.Errorf("directory holds %q after the checks; want a, fifo, file", got)
	}
}

// TestCheckPermissions needs a process that permissions bind (not root).
func TestCheckPermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root is not bound by file permissions")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "readonly.json")
	if err := os.WriteFile(readOnly, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(ro, "r.json"), filepath.Join(ro, "sub", "r.json"), readOnly} {
		if err := outfile.Check(t.Context(), p); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Check(%s) = %v; want a permission error", p, err)
		}
	}
	if err := outfile.Write(context.Background(), readOnly, []byte("x")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Write of a read-only file = %v; want a permission error", err)
	}
	if got := read(t, readOnly); got != "keep" {
		t.Errorf("read-only file holds %q; want it untouched", got)
	}
	if err := outfile.CheckDir(t.Context(), filepath.Join(ro, "transcripts")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("CheckDir under a read-only directory = %v; want a permission error", err)
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := outfile.CheckDir(t.Context(), filepath.Join(dir, "t", "u")); err != nil {
		t.Errorf("CheckDir of a new directory: %v", err)
	}
	if got := entries(t, filepath.Join(dir, "t", "u")); len(got) != 0 {
		t.Errorf("CheckDir left %q behind", got)
	}
	if err := outfile.CheckDir(t.Context(), file); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("CheckDir of a file = %v; want ENOTDIR", err)
	}
	if err := outfile.CheckDir(t.Context(), "/proc/nope"); err == nil {
		t.Errorf("CheckDir(/proc/nope) = nil; want an error")
	}
}

// TestEmptyPath checks that "" (an unset variable on a command line) is
// refused by every function, and nothing is written in the working
// directory.
func TestEmptyPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ctx := context.Background()
	if err := outfile.Check(t.Context(), ""); !errors.Is(err, outfile.ErrEmptyPath) {
		t.Errorf("Check(\"\") = %v; want ErrEmptyPath", err)
	}
	if err := outfile.CheckDir(t.Context(), ""); !errors.Is(err, outfile.ErrEmptyPath) {
		t.Errorf("CheckDir(\"\") = %v; want ErrEmptyPath", err)
	}
	if err := outfile.Write(ctx, "", []byte("x")); !errors.Is(err, outfile.ErrEmptyPath) {
		t.Errorf("Write(\"\") = %v; want ErrEmptyPath", err)
	}
	if f, err := outfile.Create(ctx, ""); !errors.Is(err, outfile.ErrEmptyPath) {
		if f != nil {
			f.Close()
		}
		t.Errorf("Create(\"\") = %v; want ErrEmptyPath", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("the working directory holds %q; want nothing written", got)
	}
}

// TestErrorsNameNoTemporaryFile checks that a file that cannot be created
// where the temporary file goes (here in /proc, which takes no new files,
// whoever runs the test) is reported under the name the caller gave, as
// what failed: its directory takes no new file (not "no such file", the
// temporary file's error, of a file that exists).
func TestErrorsNameNoTemporaryFile(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	const path = "/proc/acprun-outfile-test.json"
	const taken = "its directory /proc does not take new files: no such file or directory"
	for _, tt := range []struct {
		name, path string
		err        error
		want       string
	}{
		{"Check", path, outfile.Check(t.Context(), path), "write " + path + ": " + taken},
		{"Check of an existing file", "/proc/version", outfile.Check(t.Context(), "/proc/version"), "write /proc/version: " + taken},
		{"CheckDir", "/proc", outfile.CheckDir(t.Context(), "/proc"), "write /proc: the directory does not take new files: no such file or directory"},
		{"Write", path, outfile.Write(context.Background(), path, []byte("x")), "write " + path + ": " + taken},
		{"Write of an existing file", "/proc/version", outfile.Write(context.Background(), "/proc/version", []byte("x")), "write /proc/version: " + taken},
	} {
		if tt.err == nil {
			t.Errorf("%s(%s) = nil; want an error", tt.name, tt.path)
			continue
		}
		if msg := tt.err.Error(); msg != tt.want {
			t.Errorf("%s(%s) = %q; want %q", tt.name, tt.path, msg, tt.want)
		}
		if !errors.Is(tt.err, fs.ErrNotExist) {
			t.Errorf("%s(%s) = %v; want it to wrap the system's error", tt.name, tt.path, tt.err)
		}
	}
}

// TestCreate opens files for a stream: a regular file is truncated in
// place (its mode kept), a new one is 0644 less the umask, a symlink is
// followed, a FIFO's reader gets every line.
func TestCreate(t *testing.T) {
	withUmask(t, 0o022)
	dir := t.TempDir()
	existing := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(existing, []byte("an old, longer content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("events.jsonl", link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ open, check string }{{existing, existing}, {link, existing}} {
		f, err := outfile.Create(context.Background(), tt.open)
		if err != nil {
			t.Fatalf("Create(%s): %v", tt.open, err)
		}
		f.WriteString("line\n")
		f.Close()
		if got := read(t, tt.check); got != "line\n" {
			t.Errorf("Create(%s): file holds %q, want one line", tt.open, got)
		}
		if got := mode(t, tt.check); got != 0o600 {
			t.Errorf("Create(%s): mode %v, want 0600 kept", tt.open, got)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	fresh := filepath.Join(dir, "new", "events.jsonl")
	f, err := outfile.Create(context.Background(), fresh)
	if err != nil {
		t.Fatalf("Create(new): %v", err)
	}
	f.Close()
	if got := mode(t, fresh); got != 0o644 {
		t.Errorf("new events file mode %v, want 0644", got)
	}
	if _, err := outfile.Create(context.Background(), dir); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("Create(directory) = %v; want EISDIR", err)
	}

	fifo := filepath.Join(dir, "events.fifo")
	mkfifo(t, fifo)
	got := make(chan string, 1)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		data, _ := io.ReadAll(r)
		r.Close()
		got <- string(data)
	}()
	w, err := outfile.Create(context.Background(), fifo)
	if err != nil {
		t.Fatalf("Create(fifo): %v", err)
	}
	w.WriteString("a\n")
	w.WriteString("b\n")
	w.Close()
	if s := <-got; s != "a\nb\n" {
		t.Errorf("the FIFO's reader got %q", s)
	}
	if !isFIFO(t, fifo) {
		t.Errorf("the FIFO was replaced")
	}
}

// TestWriteProcFD writes through /proc/self/fd links, where /dev/stdout
// leads: to a pipe, whose reader gets the data, and to a regular file,
// which is rewritten in place (the process's descriptor still sees it),
// not replaced beside the descriptor.
func TestWriteProcFD(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	link := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink(fdPath(w), link); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Check(t.Context(), link); err != nil {
		t.Errorf("Check(pipe): %v", err)
	}
	if err := outfile.Write(context.Background(), link, []byte("to the pipe")); err != nil {
		t.Fatalf("Write(pipe): %v", err)
	}
	w.Close()
	if data, _ := io.ReadAll(r); string(data) != "to the pipe" {
		t.Errorf("the pipe's reader got %q", data)
	}

	file := filepath.Join(t.TempDir(), "out.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("an older and longer content")
	if err := outfile.Check(t.Context(), fdPath(f)); err != nil {
		t.Errorf("Check(file): %v", err)
	}
	if err := outfile.Write(context.Background(), fdPath(f), []byte("new")); err != nil {
		t.Fatalf("Write(file): %v", err)
	}
	if got := read(t, file); got != "new" {
		t.Errorf("the file holds %q, want new", got)
	}
	fi, _ := f.Stat()
	if now, err := os.Stat(file); err != nil || !os.SameFile(fi, now) {
		t.Errorf("the file behind the descriptor was replaced")
	}
	if got := entries(t, filepath.Dir(file)); !slices.Equal(got, []string{"out.json"}) {
		t.Errorf("directory holds %q", got)
	}
}

// fdPath is f's link in /proc/self/fd.
func fdPath(f *os.File) string {
	return "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
}

// TestPinnedIgnoresWhatWasPutInItsPlace: a pinned output is written to the
// file its path named when pinned: a symlink put at its place since is
// replaced (its target left alone), and so is a FIFO (not opened, which
// would wait for a reader); a symlink put in the place of its directory
// changes nothing. A symlink that was there when it was pinned is followed.
func TestPinnedIgnoresWhatWasPutInItsPlace(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	write := func(t *testing.T, p *outfile.Pinned) {
		t.Helper()
		if err := p.WriteFrom(context.Background(), func(w io.Writer) error { _, err := io.WriteString(w, "results"); return err }); err != nil {
			t.Fatal(err)
		}
	}
	pin := func(t *testing.T, path string) *outfile.Pinned {
		t.Helper()
		p, err := outfile.Pin(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	mustWrite := func(t *testing.T, path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, path, want string) {
		t.Helper()
		fi, err := os.Lstat(path)
		got, _ := os.ReadFile(path)
		if err != nil || !fi.Mode().IsRegular() || string(got) != want {
			t.Errorf("%s: %v (err %v), %q; want a regular file holding %q", path, fi, err, got, want)
		}
	}
	t.Run("a symlink at its place", func(t *testing.T) {
		dir := t.TempDir()
		mustWrite(t, victim, "the user's")
		out := filepath.Join(dir, "r.json")
		p := pin(t, out)
		if err := os.Symlink(victim, out); err != nil {
			t.Fatal(err)
		}
		write(t, p)
		check(t, out, "results")
		check(t, victim, "the user's")
	})
	t.Run("a FIFO at its place", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "r.json")
		p := pin(t, out)
		if err := syscall.Mkfifo(out, 0o644); err != nil {
			t.Fatal(err)
		}
		write(t, p)
		check(t, out, "results")
	})
	t.Run("a symlink in the place of its directory", func(t *testing.T) {
		dir := t.TempDir()
		sub := filepath.Join(dir, "out")
		elsewhere := t.TempDir()
		p := pin(t, filepath.Join(sub, "r.json"))
		if err := os.Rename(sub, filepath.Join(dir, "moved")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, sub); err != nil {
			t.Fatal(err)
		}
		write(t, p)
		check(t, filepath.Join(dir, "moved", "r.json"), "results")
		if _, err := os.Lstat(filepath.Join(elsewhere, "r.json")); err == nil {
			t.Error("written through the symlink in the place of its directory")
		}
	})
	t.Run("a symlink there when pinned", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "target.json")
		out := filepath.Join(dir, "r.json")
		if err := os.Symlink(target, out); err != nil {
			t.Fatal(err)
		}
		write(t, pin(t, out))
		check(t, target, "results")
		if fi, err := os.Lstat(out); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the user's symlink %s was replaced", out)
		}
	})
}

// TestPinRefusesAFileAnotherProcessPinned checks that while another
// process holds a Pinned of a file (a run that will write it), Pin fails
// with a *BusyError naming the file and that process, leaving the file as
// it is, every time: a refused Pin leaves the other process's lock as it
// is; once that process has closed its Pinned, Pin takes it.
func TestPinRefusesAFileAnotherProcessPinned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte("first writer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder, release := testkit.StartHolder(t, holdPinEnv+"="+path)

	for try := 1; try <= 2; try++ {
		p, err := outfile.Pin(t.Context(), path)
		var busy *outfile.BusyError
		if !errors.As(err, &busy) {
			if p != nil {
				p.Close()
			}
			t.Fatalf("Pin %d of a file another process pinned = %v; want a *BusyError", try, err)
		}
		if busy.Path != path || busy.PID != holder {
			t.Errorf("BusyError = %+v; want path %s, pid %d", busy, path, holder)
		}
	}
	if got := read(t, path); got != "first writer\n" {
		t.Errorf("the file holds %q; want the first writer's line untouched", got)
	}

	release()
	p, err := outfile.Pin(t.Context(), path)
	if err != nil {
		t.Fatalf("Pin once the holder has closed its Pinned: %v", err)
	}
	if got := read(t, path); got != "first writer\n" {
		t.Errorf("the file holds %q once pinned; want it untouched until written", got)
	}
	p.Close()
	if names := entries(t, filepath.Dir(path)); !slices.Equal(names, []string{"r.json"}) {
		t.Errorf("the directory holds %q once closed; want r.json alone, the lock removed", names)
	}
}

// TestPinRefusesALockFileName: an output named as a lock file
// (".NAME.lock"), by its own name or through a symlink, is refused, so that
// another process's lock is not replaced: the file it pinned stays locked.
// A name that only looks alike is an output as any other.
func TestPinRefusesALockFileName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	holder, _ := testkit.StartHolder(t, holdPinEnv+"="+path)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(".r.json.lock", link); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".r.json.lock", "link", ".new.lock", outfile.DirLockName} {
		p, err := outfile.Pin(t.Context(), filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), "reserved for acprun's output locks; choose another name") {
			if p != nil {
				p.Close()
			}
			t.Errorf("Pin(%s) = %v; want it refused as a lock file's name", name, err)
		}
	}
	p, err := outfile.Pin(t.Context(), path)
	if p != nil {
		p.Close()
	}
	if busy, ok := errors.AsType[*outfile.BusyError](err); !ok || busy.PID != holder {
		t.Errorf("Pin of the file another process pinned, after the others = %v; want it still busy, held by pid %d", err, holder)
	}
	for _, name := range []string{"x.lock", ".lock", ".x.locks"} {
		p, err := outfile.Pin(t.Context(), filepath.Join(dir, name))
		if err != nil {
			t.Errorf("Pin(%s) = %v; want it pinned", name, err)
			continue
		}
		p.Close()
	}
}

// tempLog records what the outfile.WithTemps hooks hear: kept, the
// temporary files named, in order, and pending, those not forgotten
// since. It fails the test when told to keep a file that is there already
// (it must hear of it before it is made) or to forget one that is still
// there.
type tempLog struct {
	t       *testing.T
	kept    []string
	pending map[string]bool
}

// context returns ctx with l's hooks.
func (l *tempLog) context(ctx context.Context) context.Context {
	l.pending = map[string]bool{}
	return outfile.WithTemps(ctx, func(tmp string) {
		if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
			l.t.Errorf("told of %s once it was there (%v)", tmp, err)
		}
		l.kept = append(l.kept, tmp)
		l.pending[tmp] = true
	}, func(tmp string) {
		if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
			l.t.Errorf("told to forget %s while it is there (%v)", tmp, err)
		}
		delete(l.pending, tmp)
	})
}

// TestWithTempsNamesTheTemporaryFile checks that pinning a path, and a
// write through the Pinned, with WithTemps, name each temporary file they
// make (the one that tries the file can be made, the one written) by its
// absolute path (the working directory's output included) before they
// create it, and forget it once it is gone: none is pending after.
func TestWithTempsNamesTheTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	temps := &tempLog{t: t}
	ctx := temps.context(context.Background())
	p, err := outfile.Pin(ctx, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(temps.kept) != 1 || len(temps.pending) != 0 {
		t.Fatalf("Pin: told of %q, %d pending; want one, gone", temps.kept, len(temps.pending))
	}
	err = p.WriteFrom(ctx, func(w io.Writer) error {
		if len(temps.pending) != 1 || len(temps.kept) != 2 {
			return fmt.Errorf("%d temporary files pending before the write; want 1", len(temps.pending))
		}
		tmp := temps.kept[1]
		if !filepath.IsAbs(tmp) || !strings.HasPrefix(filepath.Base(tmp), ".r.json.tmp") {
			return fmt.Errorf("the temporary file is named %q; want an absolute .r.json.tmp*", tmp)
		}
		if _, err := os.Stat(tmp); err != nil {
			return fmt.Errorf("the temporary file named is not the one written: %w", err)
		}
		_, err := io.WriteString(w, "{}")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tmp := range temps.kept {
		if !filepath.IsAbs(tmp) || filepath.Dir(tmp) != dir || !strings.HasPrefix(filepath.Base(tmp), ".r.json.tmp") {
			t.Errorf("told of %s; want an absolute .r.json.tmp* in %s", tmp, dir)
		}
		if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the temporary file %s is still there after the write (%v)", tmp, err)
		}
	}
	if len(temps.pending) != 0 {
		t.Errorf("still pending once written: %v; want none", temps.pending)
	}
	if got := read(t, filepath.Join(dir, "r.json")); got != "{}" {
		t.Errorf("r.json holds %q; want {}", got)
	}
}

// TestWithTempsForgetsOnlyWhatIsGone: a write that fails removes its
// temporary file and forgets it; CheckDir's try is named and forgotten
// too.
func TestWithTempsForgetsOnlyWhatIsGone(t *testing.T) {
	dir := t.TempDir()
	temps := &tempLog{t: t}
	ctx := temps.context(context.Background())
	failed := errors.New("format failed")
	if err := outfile.WriteFrom(ctx, filepath.Join(dir, "r.json"), func(io.Writer) error { return failed }); !errors.Is(err, failed) {
		t.Fatalf("WriteFrom: %v; want %v", err, failed)
	}
	if err := outfile.CheckDir(ctx, filepath.Join(dir, "tr")); err != nil {
		t.Fatal(err)
	}
	if len(temps.kept) != 2 || len(temps.pending) != 0 {
		t.Errorf("told of %q, pending %v; want two, none pending", temps.kept, temps.pending)
	}
}

// TestRemoved tells a file written in place that still has a name from
// one removed since it was opened, naming it as given.
func TestRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	f, err := outfile.Create(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := outfile.Removed(f, "ev.jsonl"); err != nil {
		t.Errorf("Removed of a file still named: %v, want nil", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	err = outfile.Removed(f, "ev.jsonl")
	if !errors.Is(err, outfile.ErrRemoved) || err.Error() != "write ev.jsonl: the file was removed while it was written" {
		t.Errorf("Removed of a file removed: %v, want write ev.jsonl: %v", err, outfile.ErrRemoved)
	}
}

// TestRemovedFIFO: a FIFO whose name is gone still reaches the reader
// that opened it: nothing written to it was lost.
func TestRemovedFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0) // its own reader: opening does not block
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Removed(f, "events"); err != nil {
		t.Errorf("Removed of a FIFO whose name is gone: %v, want nil", err)
	}
}

// TestWriteWholeStreamsARegularFile: WriteWhole, as WriteFrom, streams a
// regular file's content into the temporary file that replaces it: what
// write writes reaches the disk before write returns. When write fails,
// the file is left as it was, and no temporary file.
func TestWriteWholeStreamsARegularFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	temps := &tempLog{t: t}
	ctx := temps.context(context.Background())
	chunk := strings.Repeat("x", 256<<10)
	var reached int64
	err := outfile.WriteWhole(ctx, path, func(w io.Writer) error {
		io.WriteString(w, chunk)
		if len(temps.kept) == 1 {
			if fi, err := os.Stat(temps.kept[0]); err == nil {
				reached = fi.Size()
			}
		}
		_, err := io.WriteString(w, chunk)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if reached == 0 {
		t.Error("nothing reached the temporary file while write ran: the content was held in memory")
	}
	if got := read(t, path); got != chunk+chunk {
		t.Errorf("the file holds %d bytes; want %d", len(got), 2*len(chunk))
	}
	failed := errors.New("format failed")
	err = outfile.WriteWhole(ctx, path, func(w io.Writer) error {
		io.WriteString(w, chunk)
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("WriteWhole: %v; want %v", err, failed)
	}
	if got := read(t, path); got != chunk+chunk || !slices.Equal(entries(t, dir), []string{"r.html"}) {
		t.Errorf("a failed write left %d bytes and %q; want the file as it was, alone", len(got), entries(t, dir))
	}
}

// TestWriteWholeInPlace: a file written in place, a FIFO or the file
// behind a /proc link, gets nothing from a write that fails (WriteFrom
// gives it what was written until then): the FIFO is not even opened, the
// file not truncated. One that succeeds is written whole.
func TestWriteWholeInPlace(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	failed := errors.New("format failed")
	failing := func(w io.Writer) error {
		// As much as a pipe holds reaches it, through WriteFrom's buffer.
		io.WriteString(w, strings.Repeat("x", 64<<10))
		io.WriteString(w, "x")
		return failed
	}
	page := func(w io.Writer) error { _, err := io.WriteString(w, "page"); return err }

	fifo := filepath.Join(t.TempDir(), "r.fifo")
	mkfifo(t, fifo)
	for _, c := range []struct {
		write func(io.Writer) error
		err   error
		want  string
	}{{failing, failed, ""}, {page, nil, "page"}} {
		// A reader that does not wait for a writer: it reads what a
		// writer left, then the end, or the end alone when none opened
		// the FIFO.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = outfile.WriteWhole(context.Background(), fifo, c.write)
		data, _ := io.ReadAll(r)
		r.Close()
		if !errors.Is(err, c.err) || string(data) != c.want {
			t.Errorf("FIFO: %v, its reader read %d bytes; want %v and %q", err, len(data), c.err, c.want)
		}
	}

	file := filepath.Join(t.TempDir(), "out.html")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("old")
	if err := outfile.WriteWhole(context.Background(), fdPath(f), failing); !errors.Is(err, failed) {
		t.Errorf("file: %v; want %v", err, failed)
	}
	if got := read(t, file); got != "old" {
		t.Errorf("a failed write left the file with %d bytes; want it as it was", len(got))
	}
	if err := outfile.WriteWhole(context.Background(), fdPath(f), page); err != nil || read(t, file) != "page" {
		t.Errorf("file: %v, it holds %q; want page", err, read(t, file))
	}
}
