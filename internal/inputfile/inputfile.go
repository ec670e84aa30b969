// Package inputfile reads the files acprun is given as input (scenario,
// config, results, transcripts, mock agent scripts, prompt files and
// attachments, gateway cassettes, session state files and the project
// settings permissions.enforce merges into) the one way: only a regular file, after following symbolic
// links, and at most a limit of it. A FIFO, a device or a socket is
// refused before anything is read, so that none can make acprun wait
// forever (a FIFO with no writer, a terminal) or read without end
// (/dev/zero); the read itself is bounded, so that a file that grows or
// lies about its size cannot take all memory.
//
// A file read after others (agents) could write where it is, named before
// they could, is pinned (Pin): a symbolic link put in its place since is
// refused, not followed.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// Errors an *Error wraps; test for them with errors.Is.
var (
	// ErrNotRegular: the path names a directory, FIFO, device or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the limit.
	ErrTooLarge = errors.New("too large")
	// ErrLink: a file read by Pinned.Read or OpenNoLink is a
	// symbolic link (or was swapped while it was opened): one put there
	// by others since, which is not followed.
	ErrLink = errors.New("replaced by a symbolic link")
)

// Error is an input file that cannot be read: its path and why.
type Error struct {
	Path  string
	Err   error  // ErrNotRegular, ErrTooLarge, or the system's error
	Kind  string // with ErrNotRegular: what the file is ("a FIFO")
	Limit int64  // with ErrTooLarge: the most that may be read
	// Link is, when the path is a symbolic link that leads nowhere (Err
	// is then fs.ErrNotExist, or the system's error for a loop), what it
	// points at.
	Link string
}

// Error is "PATH: REASON".
func (e *Error) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path, for callers that say which file
// otherwise: "not a regular file (a FIFO): give a file".
func (e *Error) Reason() string {
	switch e.Err {
	case ErrNotRegular:
		return fmt.Sprintf("not a regular file (%s): give a file", e.Kind)
	case ErrTooLarge:
		return fmt.Sprintf("larger than %s, the most acprun reads of it", Size(e.Limit))
	case ErrLink:
		return "replaced by a symbolic link since the run started, which acprun does not follow (an agent may have put it there)"
	}
	if e.Path == "-" && e.Link == "" && errors.Is(e.Err, fs.ErrNotExist) {
		// As stdin, where acprun reads it (run --prompt -): this input
		// it reads from a file only.
		return e.Err.Error() + "; acprun reads this from a file, not from stdin: give the file's path"
	}
	if e.Link != "" {
		if errors.Is(e.Err, fs.ErrNotExist) {
			return fmt.Sprintf("a symbolic link to %s, which does not exist", e.Link)
		}
		return fmt.Sprintf("a symbolic link to %s: %v", e.Link, e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns the cause: ErrNotRegular, ErrTooLarge or the system's
// error (fs.ErrNotExist with a missing file).
func (e *Error) Unwrap() error { return e.Err }

// Bare is the error without the path, for callers that name the file
// otherwise: its message is Reason, and it wraps what the *Error wraps.
func (e *Error) Bare() error { return bareError{e} }

// bareError is an *Error said without its path.
type bareError struct{ e *Error }

func (b bareError) Error() string { return b.e.Reason() }
func (b bareError) Unwrap() error { return b.e.Err }

// Bare is err without the path when it is an *Error (see Error.Bare),
// and err otherwise.
func Bare(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e.Bare()
	}
	return err
}

// Size writes a limit for a message: "4 MiB", or "100 bytes" when it is
// not a whole number of MiB.
func Size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Kind says what a file of mode m is, for a message: "a FIFO", "a
// directory"; "a regular file" for one.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a file"
}

// Check stats path, following symbolic links, and returns an *Error
// unless it is a regular file of at most limit bytes (limit < 0: any
// size). It reads nothing; a caller that checks early (validate) must
// still read with Open or Read, since the file can change.
func Check(path string, limit int64) error {
	fi, err := Stat(path)
	if err != nil {
		return err
	}
	return check(path, fi, limit)
}

// Stat is os.Stat, whose error is an *Error that says, of a symbolic link
// that leads nowhere (to a file that does not exist, or in a loop), what
// it points at: "a symbolic link to ../moved.yaml, which does not exist".
func Stat(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		e := &Error{Path: path, Err: bare(err)}
		if lfi, lerr := os.Lstat(path); lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 {
			e.Link, _ = os.Readlink(path)
		}
		return nil, e
	}
	return fi, nil
}

// check is Check on fi, path's information.
func check(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &Error{Path: path, Err: ErrNotRegular, Kind: Kind(fi.Mode())}
	}
	if limit >= 0 && fi.Size() > limit {
		return &Error{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	return nil
}

// Open opens path for reading when it is a regular file (a symbolic link
// to one included) of at most limit bytes by its size now (limit < 0: any
// size), and returns an *Error otherwise. It never blocks on a FIFO: the
// path is checked by name (a device is not even opened), then opened
// without waiting for a writer and checked again once open, in case the
// file was swapped in between. Read from it through io.LimitReader (as
// Read does): a file may grow.
func Open(path string, limit int64) (*os.File, error) {
	if err := Check(path, limit); err != nil {
		return nil, err
	}
	return openChecked(path, limit)
}

// OpenNoLink is Open, but path itself must not be a symbolic link (the
// directories on its way may be): one is an *Error wrapping ErrLink. It
// opens a file acprun wrote itself, never as a link, where agents could
// write (a transcript): a link there is theirs.
func OpenNoLink(path string, limit int64) (*os.File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, &Error{Path: path, Err: bare(err)}
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &Error{Path: path, Err: ErrLink}
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	return open(path, syscall.O_NOFOLLOW, limit)
}

// openChecked is Open after the check by name: it opens path without
// blocking and checks the open file.
func openChecked(path string, limit int64) (*os.File, error) {
	return open(path, 0, limit)
}

// open opens path without blocking, with flag added, and checks the open
// file. A symbolic link that O_NOFOLLOW refuses is ErrLink.
func open(path string, flag int, limit int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flag, 0)
	if errors.Is(err, syscall.ELOOP) && flag&syscall.O_NOFOLLOW != 0 {
		return nil, &Error{Path: path, Err: ErrLink}
	}
	if err != nil {
		return nil, &Error{Path: path, Err: bare(err)}
	}
	fi, err := f.Stat()
	if err == nil {
		err = check(path, fi, limit)
	} else {
		err = &Error{Path: path, Err: bare(err)}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadIn is Read of the file name inside root: a symbolic link or ".."
// that leads out of root is an error, as with any os.Root. path is how
// errors name the file.
func ReadIn(root *os.Root, name, path string, limit int64) ([]byte, error) {
	return readIn(root, name, path, limit, false)
}

// ReadInNoLink is ReadIn, but the file name itself must not be a
// symbolic link: one there is an *Error wrapping ErrLink, and so is a file
// swapped for another while it is opened. It reads a file acprun wrote
// itself, never as a link, where agents could write (a state file).
func ReadInNoLink(root *os.Root, name, path string, limit int64) ([]byte, error) {
	return readIn(root, name, path, limit, true)
}

// readIn is ReadIn, or ReadInNoLink with noLink: for a file in a directory
// opened before others (agents) could write in it, where a link at the
// file's place is theirs, not the user's (see Pin).
func readIn(root *os.Root, name, path string, limit int64, noLink bool) ([]byte, error) {
	f, err := openIn(root, name, path, limit, noLink)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path, limit)
}

// openIn opens the file name inside root for reading as readIn reads it,
// checked as readIn checks it.
func openIn(root *os.Root, name, path string, limit int64, noLink bool) (*os.File, error) {
	stat := root.Stat
	if noLink {
		stat = root.Lstat
	}
	fi, err := stat(name)
	if err != nil {
		return nil, &Error{Path: path, Err: bare(err)}
	}
	if fi.Mode()&fs.ModeSymlink != 0 { // only Lstat says so
		return nil, &Error{Path: path, Err: ErrLink}
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &Error{Path: path, Err: bare(err)}
	}
	opened, err := f.Stat()
	switch {
	case err != nil:
		err = &Error{Path: path, Err: bare(err)}
	case noLink && !os.SameFile(fi, opened):
		err = &Error{Path: path, Err: ErrLink} // swapped since Lstat
	default:
		err = check(path, opened, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Pinned is an input file read after others (agents) could write where
// it is, named before they could: Pins.Pin resolves its symbolic links and
// opens its directory then, and Read reads the file of that name in that
// directory, whatever was put in the place of the directory since, and
// refusing a symbolic link put in the file's place (ErrLink). A file
// replaced by another (rename) is read as it is now.
type Pinned struct {
	path string   // as given, which errors name
	dir  *os.Root // the directory of the file path led to when pinned
	name string   // the file's name in dir
	err  error    // why it could not be pinned, which Read returns
}

// Pins pins files, each directory opened once for all the files pinned in
// it: a run's cassettes (one per attempt) or golden files hold a
// descriptor per directory, not per file. The zero Pins is ready to use;
// its methods are not safe for concurrent use, its Pinned files' Read is.
type Pins struct {
	dirs map[string]*os.Root // by the directory's real path
}

// Pin pins path (see Pinned). It never fails: a path whose directory
// cannot be opened is an error of every Read.
func (ps *Pins) Pin(path string) *Pinned {
	p := &Pinned{path: path}
	real, err := filepath.EvalSymlinks(path)
	if err != nil { // a file that is gone: its name in its directory
		var derr error
		if real, derr = filepath.EvalSymlinks(filepath.Dir(path)); derr != nil {
			p.err = &Error{Path: path, Err: bare(err)}
			return p
		}
		real = filepath.Join(real, filepath.Base(path))
	}
	p.name = filepath.Base(real)
	dir := filepath.Dir(real)
	if p.dir = ps.dirs[dir]; p.dir != nil {
		return p
	}
	if p.dir, err = os.OpenRoot(dir); err != nil {
		p.err = &Error{Path: path, Err: bare(err)}
		return p
	}
	if ps.dirs == nil {
		ps.dirs = map[string]*os.Root{}
	}
	ps.dirs[dir] = p.dir
	return p
}

// Close closes the directories ps opened: the files it pinned can no
// longer be read.
func (ps *Pins) Close() error {
	var errs []error
	for _, d := range ps.dirs {
		errs = append(errs, d.Close())
	}
	ps.dirs = nil
	return errors.Join(errs...)
}

// Read returns the contents of the pinned file, a symbolic link at its
// place refused (see readIn).
func (p *Pinned) Read(limit int64) ([]byte, error) {
	if p.err != nil {
		return nil, p.err
	}
	return readIn(p.dir, p.name, p.path, limit, true)
}

// Open opens the pinned file for reading, as Read reads it, whatever its
// size: for a reader that streams it. Read from it through
// io.LimitReader when its size matters: a file may grow.
func (p *Pinned) Open() (*os.File, error) {
	if p.err != nil {
		return nil, p.err
	}
	return openIn(p.dir, p.name, p.path, -1, true)
}

// Read returns the contents of path, a regular file (as Open checks) of
// at most limit bytes (limit >= 0; limit < 0: any size), and an *Error
// otherwise. It reads at most limit+1 bytes whatever the file's size says.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path, limit)
}

// ReadFrom reads all of r, the opened file path, but refuses more than
// limit bytes (limit >= 0) with an *Error, having read at most limit+1;
// limit < 0 reads any size. An r that has a Stat method (an *os.File) is
// read into one buffer of the size it says, not one grown as it is read,
// whose copies would cost that size twice more.
func ReadFrom(r io.Reader, path string, limit int64) ([]byte, error) {
	if limit < 0 {
		limit = math.MaxInt64 - 1
	}
	size := 512
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < math.MaxInt {
			size = int(min(fi.Size(), limit)) + 1 // and the read that finds the end
		}
	}
	// As os.ReadFile reads.
	data := make([]byte, 0, size)
	lr := io.LimitReader(r, limit+1)
	for {
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{Path: path, Err: bare(err)}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // longer than it said: grown
		}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	return data, nil
}

// bare is err without the operation and path of an *fs.PathError: the
// *Error says the path.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
