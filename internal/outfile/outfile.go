// Package outfile writes the files acprun produces (JSON results, JUnit
// XML, merged results, the events stream) without destroying what their
// paths point at.
//
// A path is first resolved through symlinks, a dangling one included: the
// file written is the symlink's target, and the symlink stays. A link of
// /proc (/dev/stdout leads to /proc/self/fd/1) is opened as it is: the
// file behind it is written in place, truncated first if it is regular.
// Then:
//
//   - a regular file, or a path that does not exist yet, is written to a
//     temporary file beside the real target and renamed over it, so a
//     reader never sees a torn file; missing parent directories are
//     created;
//   - a character device (/dev/null, /dev/stdout), a FIFO or any other
//     file that is not regular is opened for writing and written in
//     place: never truncated, never replaced;
//   - a directory is an error.
//
// An output that a failing write must leave as it was (WriteWhole) is
// streamed to a regular file's temporary file all the same, and made in
// memory only where it goes in place.
//
// A new file gets mode 0644 less the umask. An existing regular file keeps
// its permission bits and, where the process may, its owner, as cp and
// shell redirection do.
//
// Before any work whose output would be lost, Check, CheckDir and
// CheckTargets tell whether a command's outputs can all be written: each
// one where it goes, and no two to one file or to stdout.
//
// A path written after agents ran, which may have put symlinks where it
// goes, is pinned first (Pin): it is then written to the file it named
// when pinned, whatever was put in its place since.
//
// The files acprun keeps for itself where agents may write (a state file
// beside the scenarios and its lock, the lock of the transcripts
// directory) are opened in their directory, itself opened without
// following a symlink in its place (OpenDir), and never through a link,
// nor as a second name of another file (OpenOwnIn, PinIn): an agent that
// plants .acprun/state.json.lock -> ~/.bashrc cannot have acprun truncate
// the file it points at.
//
// A path is taken as the OS resolves it, never cleaned: the directory of
// "nodir/../r.json" is "nodir/..", made (nodir with it) when missing, and
// "link/../r.json" is beside link's target. RealPath names the file a path
// will write, for comparing outputs.
//
// An empty path is ErrEmptyPath. No error names a temporary file: each
// names the file or directory the caller gave.
package outfile

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrEmptyPath is the error of every function of the package given "" for
// a path: an unset variable in a command line, not the working directory.
var ErrEmptyPath = errors.New("empty path")

// Stdout is the path that stands for standard output in acprun's flags.
// The functions of this package treat it as an ordinary file name; callers
// handle it first.
const Stdout = "-"

// maxLinks bounds the symlinks followed by Resolve, as the kernel does.
const maxLinks = 40

// fileMode is the mode of a new file, before the umask.
const fileMode = 0o644

// resolve follows path through symlinks to the file it names and returns
// that file's path. The last link's target need not exist (a dangling
// symlink resolves to its target), nor need path itself. Directories on
// the way are left as they are: the kernel follows them. A link of /proc
// (such as /proc/self/fd/1, where /dev/stdout leads) is where resolving
// stops: its target may be a pipe or socket with no path, and the link
// itself opens it; the bool reports that it stopped there, and the file is
// to be written in place whatever it leads to.
func resolve(path string) (string, bool, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, false, nil
		}
		dir, _ := split(p)
		if onProc(dir) {
			return p, true, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(target) {
			target = join(dir, target) // not cleaned: dir may be or hold a symlink
		}
		p = target
	}
	return "", false, &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
}

// procSuperMagic is the file system type of /proc (statfs(2)).
const procSuperMagic = 0x9fa0

// onProc reports whether dir is on a proc file system.
func onProc(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Type == procSuperMagic
}

// Check reports whether Write or Create could write path, before any work
// is done whose output would then be lost. It resolves symlinks, creates
// missing parent directories, and for a regular or new file creates and
// removes a temporary file beside the target, which is what Write needs.
// It never opens a device or FIFO: it checks that the process may write it.
// A file whose name has the form of Pin's lock files (".NAME.lock") is
// refused whatever it is: writing it would break another run's lock.
// ctx is only for its WithTemps hooks, which hear of the temporary file.
func Check(ctx context.Context, path string) error {
	real, inPlace, fi, err := lookup(path, "write")
	switch {
	case err != nil:
		return err
	case isLockName(real):
		return fmt.Errorf("%s: names of the form .NAME.lock are reserved for acprun's output locks; choose another name", real)
	case fi != nil && inPlace:
		return access(real)
	case fi != nil && fi.Mode()&fs.ModeSocket != 0:
		return &fs.PathError{Op: "write", Path: real, Err: errors.New("is a socket")}
	case fi != nil && !fi.Mode().IsRegular():
		return access(real)
	case fi != nil:
		if err := access(real); err != nil {
			return err
		}
	}
	dir, base := split(real)
	return probe(ctx, dir, base, path)
}

// lookup resolves path (see resolve) and stats the file it names: fi is
// nil when there is none yet, and then the missing parent directories are
// made. An empty path and a directory are errors (op names what the
// caller was about to do).
//
// Paths are taken as the OS resolves them, never cleaned: the directory
// of "nodir/../r.json" is "nodir/..", which exists once nodir is made,
// and that of "link/../r.json" is the parent of link's target, not ".".
// The directories of path are made first, so that what path names
// through them is resolved and stat'ed as the write will find it.
func lookup(path, op string) (real string, inPlace bool, fi fs.FileInfo, err error) {
	if path == "" {
		return "", false, nil, ErrEmptyPath
	}
	if err := mkdirFor(path, op); err != nil {
		return "", false, nil, err
	}
	if real, inPlace, err = resolve(path); err != nil {
		return "", false, nil, err
	}
	fi, err = os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A dangling symlink: its target's directories are made too.
		return real, inPlace, nil, mkdirFor(real, op)
	case err != nil:
		return "", false, nil, err
	case fi.IsDir():
		return "", false, nil, &fs.PathError{Op: op, Path: real, Err: syscall.EISDIR}
	}
	return real, inPlace, fi, nil
}

// CheckDir reports whether files can be created in the directory dir,
// creating it and its parents when they are missing. ctx is only for its
// WithTemps hooks, which hear of the temporary file it tries.
func CheckDir(ctx context.Context, dir string) error {
	if dir == "" {
		return ErrEmptyPath
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return probe(ctx, dir, "acprun", dir)
}

// probe creates and removes a temporary file in dir, for the file base,
// telling ctx's WithTemps hooks of it; its errors name name.
func probe(ctx context.Context, dir, base, name string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return probeIn(ctx, root, base, name)
}

// probeIn is probe in the directory dir, already open.
func probeIn(ctx context.Context, dir *os.Root, base, name string) error {
	h := tempsOf(ctx)
	f, tmp, err := createTemp(dir, base, h)
	if err != nil {
		return untemp(err, name)
	}
	f.Close()
	return untemp(h.remove(dir, tmp), name)
}

// ErrRemoved is the error of a file written in place (a transcript, the
// events) that was removed, or its directory, while it was written: what
// was written went nowhere.
var ErrRemoved = errors.New("the file was removed while it was written")

// Removed returns ErrRemoved, as writing path (the file's name for
// messages), when f, a file written in place, has no name left: it, or
// its directory, was removed since it was opened (by an agent, a setup
// command). Nil while it has one, and for a device or FIFO, and when f
// cannot be looked at (its writes' errors say more).
func Removed(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink == 0 {
		return &fs.PathError{Op: "write", Path: path, Err: ErrRemoved}
	}
	return nil
}

// Fate says what became of a file written in place (a transcript, the
// events) whose writing failed with err, for messages: "was lost" when it
// was removed while it was written (ErrRemoved), else "is incomplete".
func Fate(err error) string {
	if errors.Is(err, ErrRemoved) {
		return "was lost"
	}
	return "is incomplete"
}

// access reports whether the process may write the file at path.
func access(path string) error {
	if err := syscall.Access(path, 2 /* W_OK */); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// Write writes data to the file path names (see the package doc). A FIFO
// is opened as a shell redirection would, waiting for its reader; when ctx
// ends first, or has ended before while the FIFO has no reader, Write
// gives up with a *NoReaderError (see WithOpenWait). A FIFO's reader, or a
// device's, is then waited for to read what is written until ctx ends:
// what it has not read then is given up, with an *UnreadError (UntilDone).
func Write(ctx context.Context, path string, data []byte) error {
	return WriteFrom(ctx, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom is Write with the content written by write as it is made, so
// that it is never held in memory whole. A regular file is still replaced
// only once write has succeeded; a file written in place gets what write
// wrote before it failed.
func WriteFrom(ctx context.Context, path string, write func(io.Writer) error) error {
	return writeFrom(ctx, path, write, false)
}

// WriteWhole is WriteFrom for an output that a failing write must leave
// as it was (an HTML page, JUnit XML): a regular file is streamed to its
// temporary file, as WriteFrom does, and replaced only once write has
// succeeded; a file written in place (a device, a FIFO, the file behind a
// /proc link), which its reader sees as it is written, gets what write
// made in memory (Whole), and is not opened when write fails.
func WriteWhole(ctx context.Context, path string, write func(io.Writer) error) error {
	return writeFrom(ctx, path, write, true)
}

// Whole runs write into memory and returns a write that writes what it
// made, or write's error: how an output written whole (WriteWhole) goes
// where it is written in place, stdout included, so that a write that
// fails writes nothing there. The only output held in memory whole.
func Whole(write func(io.Writer) error) (func(io.Writer) error, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return nil, err
	}
	return func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }, nil
}

// writeFrom is WriteFrom, or WriteWhole with whole.
func writeFrom(ctx context.Context, path string, write func(io.Writer) error, whole bool) error {
	real, inPlace, fi, err := lookup(path, "write")
	switch {
	case err != nil:
		return err
	case fi == nil:
		return replace(ctx, real, write, nil)
	case !inPlace && fi.Mode().IsRegular():
		if err := access(real); err != nil {
			return err // a read-only file is not replaced behind its owner's back
		}
		return replace(ctx, real, write, fi)
	}
	if whole {
		if write, err = Whole(write); err != nil {
			return err
		}
	}
	var f *os.File
	if fi.Mode().IsRegular() {
		// The file behind /dev/stdout: truncated and written, as a shell's
		// "> /dev/stdout" does; replacing it would leave the process's
		// stdout on the old file.
		f, err = os.OpenFile(real, os.O_WRONLY|os.O_TRUNC, 0)
	} else {
		f, err = openInPlace(ctx, real, fi)
	}
	if err != nil {
		return err
	}
	return writeClose(ctx, f, write)
}

// Pinned is an output path resolved before the work whose output it
// takes, such as the agents' run, while the agents may write where it
// goes: when it is written, the file is the one the path named when it
// was pinned. A symlink, FIFO or other file put at its place meanwhile is
// replaced, not followed nor opened, and a symlink put in the place of its
// directory changes nothing. A device, FIFO or /proc link it named then is
// written in place as WriteFrom does.
type Pinned struct {
	path string   // as given
	real string   // what it resolved to when pinned
	dir  *os.Root // real's directory; nil for a file written in place
	lock *os.File // the file Pin locked; nil when not locked
}

// Pin checks path as Check does and resolves it once, for
// Pinned.WriteFrom. The caller closes the Pinned.
//
// A regular file, or a new one, is locked until Close: a write lock on
// the file ".NAME.lock" beside it, which Close removes (the file itself is
// replaced when written, and is not made before). It is the one lock of
// every output file, whether it is then written whole (Pinned.WriteFrom)
// or streamed (Create): while another process holds it (a run, merge or
// probe writing the same file), Pin fails with a *BusyError naming path,
// and the file is left as it is.
//
// ctx is only for its WithTemps hooks, which hear of the temporary file
// Check tries.
func Pin(ctx context.Context, path string) (*Pinned, error) {
	if err := Check(ctx, path); err != nil {
		return nil, err
	}
	real, inPlace, fi, err := lookup(path, "write")
	if err != nil {
		return nil, err
	}
	p := &Pinned{path: path, real: real}
	if inPlace || fi != nil && !fi.Mode().IsRegular() {
		return p, nil
	}
	dir, base := split(real)
	if p.dir, err = os.OpenRoot(dir); err != nil {
		return nil, err
	}
	// Whatever is in the lock's place and is not acprun's is replaced, as
	// LockDir replaces it; no output is written in a dot-file's place. A
	// lock file its holder removed (Close) between our open and our lock
	// is no longer the one at its name: then the name's new file is locked.
	for range 100 {
		if p.lock, _, err = OpenOwnIn(p.dir, lockName(base), join(dir, lockName(base))); err != nil {
			p.dir.Close()
			return nil, err
		}
		if err := lockWrite(p.lock, path, false); err != nil {
			p.lock.Close() // not removed: another run holds it
			p.dir.Close()
			return nil, err
		}
		held, err1 := p.lock.Stat()
		named, err2 := p.dir.Lstat(lockName(base))
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return p, nil
		}
		p.lock.Close()
	}
	p.dir.Close()
	return nil, fmt.Errorf("%s: its lock file %s keeps being replaced", path, lockName(base))
}

// lockName is the name of Pin's lock file for the file base.
func lockName(base string) string { return "." + base + ".lock" }

// isLockName reports whether the file path has a name of lockName's form
// (DirLockName has it too).
func isLockName(path string) bool {
	_, base := split(path)
	return len(base) > len(".lock") && strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".lock")
}

// WriteFrom writes what write writes to the file p named when it was
// pinned, as the package-level WriteFrom does but for what was put at its
// place since (see Pinned).
func (p *Pinned) WriteFrom(ctx context.Context, write func(io.Writer) error) error {
	return p.writeFrom(ctx, write, false)
}

// WriteWhole is WriteFrom for an output that a failing write must leave
// as it was, as the package-level WriteWhole writes it.
func (p *Pinned) WriteWhole(ctx context.Context, write func(io.Writer) error) error {
	return p.writeFrom(ctx, write, true)
}

// writeFrom is WriteFrom, or WriteWhole with whole.
func (p *Pinned) writeFrom(ctx context.Context, write func(io.Writer) error, whole bool) error {
	if p.dir == nil {
		return writeFrom(ctx, p.real, write, whole)
	}
	return WriteIn(ctx, p.dir, p.real, write) // replaced only once write has succeeded
}

// WriteIn writes what write writes to the file of path's name in dir, a
// directory opened before others could write in it, as a Pinned path is
// written: a regular file there is replaced atomically, keeping its mode;
// a symlink, FIFO or other file is replaced, not followed nor opened. path
// names the file in errors. ctx is only for its WithTemps hook.
func WriteIn(ctx context.Context, dir *os.Root, path string, write func(io.Writer) error) error {
	_, base := split(path)
	fi, err := dir.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fi = nil
	case err != nil:
		return err
	case fi.IsDir():
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	case fi.Mode().IsRegular():
		if err := access(path); err != nil {
			return err // a read-only file is not replaced behind its owner's back
		}
	default:
		fi = nil // not a file of ours: replaced
	}
	return replaceIn(ctx, dir, path, write, fi)
}

// SyncDir syncs the directory p's file was pinned in (nothing for a file
// written in place), so that a rename in it survives a crash: that
// directory, not what its path leads to now, which may be a FIFO whose
// open would never return. Best effort: some file systems cannot sync a
// directory.
func (p *Pinned) SyncDir() {
	if p.dir == nil {
		return
	}
	if d, err := p.dir.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Close releases the directory p holds open, and removes the lock file it
// holds, then releases it. A nil Pinned (stdout's) has nothing to close.
func (p *Pinned) Close() error {
	if p == nil || p.dir == nil {
		return nil
	}
	if p.lock != nil {
		_, base := split(p.real)
		_ = p.dir.Remove(lockName(base)) // while held: no other run has it
		p.lock.Close()
	}
	return p.dir.Close()
}

// writeClose writes to f, a file written in place, through a buffer and
// closes it, returning the first error. f's reader (a FIFO's) is waited
// for until ctx ends (UntilDone): what it has not read then is given up.
func writeClose(ctx context.Context, f *os.File, write func(io.Writer) error) error {
	if err := writeBuffered(UntilDone(ctx, f), write); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeBuffered calls write with a buffer in front of w and flushes it.
func writeBuffered(w io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// Create opens the file path names for a stream of writes (the events
// file), without a temporary file: a regular file is truncated (keeping
// its mode) or created with missing parents, a device or FIFO is opened in
// place. The caller closes the file.
//
// Create takes no lock: a caller that must keep other runs off the file
// pins it first (Pin) and keeps it pinned until the file is closed, so
// that an events file and an output written whole lock the same way and
// meet.
func Create(ctx context.Context, path string) (*os.File, error) {
	real, _, fi, err := lookup(path, "open")
	switch {
	case err != nil:
		return nil, err
	case fi == nil || fi.Mode().IsRegular(): // the file behind /dev/stdout too
		return os.OpenFile(real, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	}
	return openInPlace(ctx, real, fi)
}

// BusyError is the error of Pin for a file that another process has
// pinned (a run, merge or probe that will write it), and of LockDir for a
// directory another process holds the lock of.
type BusyError struct {
	Path string // as the caller named it
	PID  int    // the holder's pid; 0 when unknown (another PID namespace)
	Dir  bool   // Path is a directory (LockDir's)
}

func (e *BusyError) Error() string {
	what := "file"
	if e.Dir {
		what = "directory"
	}
	return Holder(e.PID) + " is writing to it; give each run its own " + what
}

// Holder names the run that holds a lock, by its pid (0: unknown), for
// messages: "another acprun run (pid 42)".
func Holder(pid int) string {
	if pid > 0 {
		return fmt.Sprintf("another acprun run (pid %d)", pid)
	}
	return "another acprun run"
}

// lockWrite takes the write lock (an fcntl(2) record lock on the whole
// file) of f, open for writing, or fails with a *BusyError naming path
// (dir: a directory, whose lock f is) when another process holds it.
func lockWrite(f *os.File, path string, dir bool) error {
	whole := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	err := fcntlLock(f, syscall.F_SETLK, &whole)
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) {
		held := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
		pid := 0
		if fcntlLock(f, syscall.F_GETLK, &held) == nil && held.Type != syscall.F_UNLCK {
			pid = int(held.Pid)
		}
		return &BusyError{Path: path, PID: pid, Dir: dir}
	}
	if err != nil {
		return &fs.PathError{Op: "lock", Path: f.Name(), Err: err}
	}
	return nil
}

// fcntlLock is fcntl(2) with a record lock command, retried when a signal
// interrupts it.
func fcntlLock(f *os.File, cmd int, lk *syscall.Flock_t) error {
	for {
		err := syscall.FcntlFlock(f.Fd(), cmd, lk)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// openInPlace opens a file that is not regular for writing, neither
// creating nor truncating it. A FIFO is opened as waitFIFO says.
func openInPlace(ctx context.Context, path string, fi fs.FileInfo) (*os.File, error) {
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	// Without a reader, a non-blocking open fails with ENXIO instead of
	// waiting (fifo(7)); with one, the file is written through Go's
	// poller, which parks a write the reader does not take yet.
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if !errors.Is(err, syscall.ENXIO) {
		return f, err
	}
	return waitFIFO(ctx, path, func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) })
}

// OpenIn opens the file name of dir for a stream of writes, as a
// transcript is written: a regular file is created (mode 0644 less the
// umask) or truncated, a FIFO is opened in place, and a FIFO that has no
// reader is waited for as WriteFrom waits (see WithWaitNotice), until ctx
// ends: then, or at once when ctx has ended before, it is a
// *NoReaderError. dir's rules hold: nothing outside it is opened. The
// caller closes the file.
func OpenIn(ctx context.Context, dir *os.Root, name string) (*os.File, error) {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, fileMode)
	if !errors.Is(err, syscall.ENXIO) {
		return f, err
	}
	return waitFIFO(ctx, filepath.Join(dir.Name(), name), func(flag int) (*os.File, error) { return dir.OpenFile(name, flag, 0) })
}

// waitFIFO opens for writing the FIFO path, which open opens with the
// flags given to it, when a non-blocking open has found that it has no
// reader: after the notice of WithWaitNotice, it waits for a reader until
// ctx ends (or the context of WithOpenWait), and not at all when it has
// ended already; then it is a *NoReaderError.
func waitFIFO(ctx context.Context, path string, open func(flag int) (*os.File, error)) (*os.File, error) {
	until := ctx
	if u, ok := ctx.Value(openWaitKey{}).(context.Context); ok {
		until = u
	}
	if until.Err() != nil {
		return nil, &NoReaderError{Path: path, Cause: context.Cause(until)}
	}
	if notice, ok := ctx.Value(waitNoticeKey{}).(func(string)); ok {
		notice(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := open(os.O_WRONLY)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-until.Done():
	}
	// Be the reader for a moment, so that the waiting open returns and its
	// goroutine ends; whatever it opened is closed unwritten.
	if r, err := open(os.O_RDONLY | syscall.O_NONBLOCK); err == nil {
		if o := <-done; o.f != nil {
			o.f.Close()
		}
		r.Close()
	}
	return nil, &NoReaderError{Path: path, Cause: context.Cause(until)}
}

// NoReaderError is the error of writing to a FIFO that no process reads:
// the context of the write ended while it waited for a reader, or had
// ended before (then it did not wait).
type NoReaderError struct {
	Path  string // the FIFO
	Cause error  // why the wait ended: the context's cause
}

func (e *NoReaderError) Error() string {
	return fmt.Sprintf("no reader on FIFO %s: %v", e.Path, e.Cause)
}

// Unwrap returns the cause.
func (e *NoReaderError) Unwrap() error { return e.Cause }

// waitNoticeKey is the context key of WithWaitNotice's notice.
type waitNoticeKey struct{}

// WithWaitNotice returns a copy of ctx that makes WriteFrom, Write,
// Pinned.WriteFrom, Create and OpenIn given it call notice with the FIFO's
// path when they are about to wait for its reader (none has opened it
// yet), so that the caller can say why it waits and how to stop it.
func WithWaitNotice(ctx context.Context, notice func(fifo string)) context.Context {
	return context.WithValue(ctx, waitNoticeKey{}, notice)
}

// openWaitKey is the context key of WithOpenWait's context.
type openWaitKey struct{}

// WithOpenWait returns a copy of ctx that makes WriteFrom, Write,
// Pinned.WriteFrom, Create and OpenIn given it wait for a FIFO's reader
// to open it until until ends, rather than ctx, and not at all once until
// has ended: their *NoReaderError then has until's cause. A reader that
// has opened it is waited for to read it until ctx ends, as before.
func WithOpenWait(ctx, until context.Context) context.Context {
	return context.WithValue(ctx, openWaitKey{}, until)
}

// tempsKey is the context key of WithTemps's hooks.
type tempsKey struct{}

// WithTemps returns a copy of ctx that makes WriteFrom, Write, WriteIn,
// Pinned.WriteFrom, Check, CheckDir and Pin given it call keep with the
// absolute path of each temporary file they make (to write a regular file
// through, or to try that a file can be made) before they create it, so
// that what would remove it when the process is killed mid-write (the
// run's guard) knows of it; and forget with that path once the file is
// gone (renamed over the file written, or removed), or when the name was
// taken and the file not made: what keep was told then holds only the
// temporary files still there. One that could not be removed is not
// forgotten.
func WithTemps(ctx context.Context, keep, forget func(tmp string)) context.Context {
	return context.WithValue(ctx, tempsKey{}, temps{keep: keep, forget: forget})
}

// temps are the hooks of WithTemps; their zero value has none.
type temps struct {
	keep, forget func(tmp string)
}

// tempsOf returns the hooks of ctx's WithTemps, if any.
func tempsOf(ctx context.Context) temps {
	h, _ := ctx.Value(tempsKey{}).(temps)
	return h
}

// on reports whether h has a hook.
func (h temps) on() bool { return h.keep != nil || h.forget != nil }

// kept tells keep of the temporary file abs.
func (h temps) kept(abs string) {
	if h.keep != nil {
		h.keep(abs)
	}
}

// gone tells forget of the temporary file abs.
func (h temps) gone(abs string) {
	if h.forget != nil {
		h.forget(abs)
	}
}

// remove removes the temporary file tmp of dir, and forgets it once it is
// gone.
func (h temps) remove(dir *os.Root, tmp tempFile) error {
	err := dir.Remove(tmp.name)
	if err == nil {
		h.gone(tmp.abs)
	}
	return err
}

// rename renames the temporary file tmp of dir to name, and forgets it
// once renamed.
func (h temps) rename(dir *os.Root, tmp tempFile, name string) error {
	err := dir.Rename(tmp.name, name)
	if err == nil {
		h.gone(tmp.abs)
	}
	return err
}

// tempFile is a temporary file that createTemp made.
type tempFile struct {
	name string // in its directory
	abs  string // its absolute path, as the WithTemps hooks hear of it; "" without them
}

// replace writes to a temporary file beside path and renames it over
// path. When path exists (old is its FileInfo) the new file takes its
// permission bits and, where the process may, its owner.
func replace(ctx context.Context, path string, write func(io.Writer) error, old fs.FileInfo) error {
	d, _ := split(path)
	dir, err := os.OpenRoot(d)
	if err != nil {
		return err
	}
	defer dir.Close()
	return replaceIn(ctx, dir, path, write, old)
}

// replaceIn is replace in the directory dir, already open, of path: the
// temporary file is made there and renamed over path's name there, so that
// a symlink at that name is replaced, not followed, and a symlink put in
// the place of the directory itself changes nothing.
func replaceIn(ctx context.Context, dir *os.Root, path string, write func(io.Writer) error, old fs.FileInfo) (err error) {
	_, base := split(path)
	h := tempsOf(ctx)
	f, tmp, err := createTemp(dir, base, h)
	if err != nil {
		return untemp(err, path)
	}
	defer func() {
		if err != nil {
			f.Close()
			h.remove(dir, tmp)
			err = untemp(err, path)
		}
	}()
	if old != nil {
		if err := f.Chmod(old.Mode().Perm()); err != nil {
			return err
		}
		if st, ok := old.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
			_ = f.Chown(int(st.Uid), int(st.Gid)) // best effort: only a privileged process may give a file away
		}
	}
	if err := writeBuffered(f, write); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return h.rename(dir, tmp, base)
}

// untemp returns err, from work on a temporary file, naming path instead
// (the file the caller asked for): a message that named ".r.json.tmp123"
// would send the user looking for a file that is gone. A temporary file
// that could not be made in a directory that is there is said as what it
// is: path's directory (or path, a directory) takes no new file.
func untemp(err error, path string) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		return &fs.PathError{Op: "write", Path: path, Err: le.Err}
	case errors.As(err, &pe) && isTemp(pe.Path) && pe.Op == "createtemp" && isDir(filepath.Dir(pe.Path)):
		what := "its directory " + filepath.Dir(pe.Path)
		if filepath.Clean(path) == filepath.Dir(pe.Path) {
			what = "the directory"
		}
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%s does not take new files: %w", what, pe.Err)}
	case errors.As(err, &pe) && isTemp(pe.Path):
		return &fs.PathError{Op: "write", Path: path, Err: pe.Err}
	}
	return err
}

// isDir reports whether path is a directory (not one that was removed).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// isTemp reports whether path is one of createTemp's names.
func isTemp(path string) bool {
	base := filepath.Base(path)
	i := strings.LastIndex(base, ".tmp")
	return strings.HasPrefix(base, ".") && i > 0 && strings.Trim(base[i+len(".tmp"):], "0123456789*") == ""
}

// createTemp creates a new file ".BASE.tmpNNN" in dir with mode 0644 less
// the umask (os.CreateTemp would make it 0600), and returns it. h's keep
// hears of each name, by its absolute path, before it is tried, and its
// forget of each that was not made (see WithTemps).
func createTemp(dir *os.Root, base string, h temps) (*os.File, tempFile, error) {
	abs := dir.Name()
	if h.on() && !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, tempFile{}, err
		}
		abs = join(wd, abs) // not cleaned: dir may be or hold a symlink
	}
	for range 100 {
		t := tempFile{name: "." + base + ".tmp" + strconv.FormatUint(uint64(rand.Uint32()), 10)}
		if h.on() {
			t.abs = join(abs, t.name)
		}
		h.kept(t.abs)
		f, err := dir.OpenFile(t.name, os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode)
		if err != nil {
			h.gone(t.abs) // not made: the name is another file's, or none is
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = &fs.PathError{Op: "createtemp", Path: filepath.Join(dir.Name(), t.name), Err: pe.Err}
		}
		return f, t, err
	}
	return nil, tempFile{}, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir.Name(), "."+base+".tmp*"), Err: fs.ErrExist}
}
