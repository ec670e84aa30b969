// Package sessionstate keeps the state file of scenarios that continue
// their agent's session from one run to the next (a scenario's
// session.resume): for each scenario and agent, the id of the session it
// had last, so that the next run can load or resume it.
//
// The state file is JSON, written whole to a temporary file in the same
// directory, synced and renamed over the old one, so a reader (or a run
// that crashed mid-write) never sees a torn file:
//
//	{
//	  "version": 1,
//	  "sessions": {
//	    "nightly triage @ claude": {"sessionId": "…", "scenario": "nightly triage", "agent": "claude", …}
//	  }
//	}
//
// Entries are keyed by Key(scenario, agent), so several scenarios (and one
// scenario run against several agents) share one file.
//
// A run holds the file's lock from Open to Close: an flock(2) on a lock
// file beside it (PATH.lock, which stays; the state file itself is
// replaced on every write, so it cannot carry the lock). The lock file
// holds the pid of the run that has it, for the message of a run that
// finds it taken. Open either waits for the lock (Wait) or fails at once
// with a *BusyError (Fail).
package sessionstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/srcerr"
)

// Version is the version of the state file format this package writes and
// reads.
const Version = 1

// Mode says what Open does when another process holds the lock.
type Mode string

// Lock modes.
const (
	Wait Mode = "wait" // block until the other run releases it (or ctx ends)
	Fail Mode = "fail" // return a *BusyError at once
)

// Entry is what the state file records for one scenario and agent.
type Entry struct {
	// SessionID is the session the scenario had when its last run ended.
	SessionID string `json:"sessionId"`
	Scenario  string `json:"scenario"`
	Agent     string `json:"agent"`
	// File is the scenario file, as the run named it.
	File string `json:"file,omitempty"`
	// Cwd is the session's working directory: a session is continued only
	// in the same one.
	Cwd string `json:"cwd"`
	// Method is how the last run opened the session: session/new,
	// session/load or session/resume.
	Method    string    `json:"method"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Key is the key of a scenario's entry: its name and its agent (the named
// agent, or the command line of one given by its command).
func Key(scenario, agent string) string { return scenario + " @ " + agent }

// document is the state file's contents.
type document struct {
	Version  int              `json:"version"`
	Sessions map[string]Entry `json:"sessions"`
}

// File is an open state file whose lock this process holds. Its methods
// may be called from several goroutines.
type File struct {
	path string
	lock *os.File
	pin  *outfile.Pinned // path as it was when opened, before any agent ran

	warnings []string // what Open replaced, for the caller to tell

	mu     sync.Mutex
	doc    document
	closed bool

	holdMu sync.Mutex
	holds  map[string]chan struct{} // key → a 1-buffered semaphore
}

// BusyError is Open's error in Fail mode when another process holds the
// lock.
type BusyError struct {
	Path string // the state file
	PID  int    // the holder's pid, as its lock file says; 0 if unknown
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("state file %s is locked by %s: try again once it has finished, or use --lock wait to wait for it", e.Path, outfile.Holder(e.PID))
}

// Identity is what identifies the state file at path (absolute and
// clean) whatever the spelling: path with the symbolic links of its
// directory's ancestors resolved, those not made yet kept as written under
// the nearest one that is. A link in the place of the directory or of the
// file is not resolved, since Open refuses it: a spelling through one is
// a file of its own. A run locks each state file once, by its identity,
// and in the order of their identities, the same in every run.
func Identity(path string) string {
	dir := filepath.Dir(path)
	parent := filepath.Dir(dir)
	if parent == dir {
		return path // in the root directory, which has no ancestors
	}
	real, err := outfile.RealPath(parent)
	if err != nil { // a loop of links: as written
		real = parent
	}
	return filepath.Join(real, filepath.Base(dir), filepath.Base(path))
}

// LockPath is the lock file of the state file at path.
func LockPath(path string) string { return path + ".lock" }

// Open takes the lock of the state file at path and reads the file (a
// missing one is empty). Missing parent directories are created. When
// another process holds the lock, mode says whether to wait for it or to
// return a *BusyError; before waiting, waiting (when not nil) is called
// with the holder's pid (0 if unknown). The wait ends early, with ctx's
// cause, when ctx ends. A file that is not a state file is an
// *srcerr.Error (see corrupt).
//
// The state file's directory, its lock file and the file itself are where
// an agent may write (its cwd holds .acprun/ by default), so none of them
// is taken through a symlink: one in the place of the directory or of the
// file is an error saying so; anything in the place of the lock file that
// is not a plain file of acprun's (a symlink, a hard link to another file)
// is replaced by a new lock file, never opened, and Warnings says so.
func Open(ctx context.Context, path string, mode Mode, waiting func(pid int)) (*File, error) {
	dir, err := outfile.OpenDir(filepath.Dir(path))
	if le, ok := errors.AsType[*outfile.LinkError](err); ok {
		return nil, fmt.Errorf("state file %s: its directory %w; %s", path, le, linkAdvice)
	}
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	lockPath := LockPath(path)
	lf, replaced, err := outfile.OpenOwnIn(dir, filepath.Base(lockPath), lockPath)
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("state file %s: lock: %w", path, err)
	}
	if err := lock(ctx, lf, path, mode, waiting); err != nil {
		dir.Close()
		return nil, err // lock closed lf or handed it to its waiter
	}
	// The holder's pid, for the message of a run that finds the lock
	// taken: written only to a file of acprun's own (OpenOwnIn).
	if err := lf.Truncate(0); err == nil {
		_, _ = lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // only a hint for others' messages
	}
	// Pinned before any agent starts: an agent whose cwd holds the state
	// file (beside the scenario by default) may put a symlink in its place
	// (.acprun/state.json -> ~/.bashrc) or in its directory's; the file
	// written is still the one of the directory opened now.
	pin, err := outfile.PinIn(ctx, dir, path)
	if err != nil {
		dir.Close()
		unlockClose(lf)
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	f := &File{path: path, lock: lf, pin: pin, holds: map[string]chan struct{}{}}
	if replaced != "" {
		f.warnings = append(f.warnings, fmt.Sprintf("state file %s: its lock %s", path, replaced))
	}
	if err := f.read(dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// linkAdvice is what to do about a symlink in the place of the state file
// or of its directory, which Open does not follow.
const linkAdvice = "remove the link, or give session.stateFile the path it leads to"

// lock takes the flock of lf. On an error lf is closed, now or, for a wait
// given up, once the waiting flock returns.
func lock(ctx context.Context, lf *os.File, path string, mode Mode, waiting func(pid int)) error {
	fd := int(lf.Fd())
	err := flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		lf.Close()
		return fmt.Errorf("state file %s: lock: %w", path, err)
	}
	pid := holderPID(lf)
	if mode == Fail {
		lf.Close()
		return &BusyError{Path: path, PID: pid}
	}
	if waiting != nil {
		waiting(pid)
	}
	done := make(chan error, 1)
	go func() { done <- flock(fd, syscall.LOCK_EX) }()
	select {
	case err := <-done:
		if err != nil {
			lf.Close()
			return fmt.Errorf("state file %s: lock: %w", path, err)
		}
		return nil
	case <-ctx.Done():
		// flock cannot be interrupted: let it finish in the background and
		// drop the lock it gets.
		go func() {
			if <-done == nil {
				unlockClose(lf)
			} else {
				lf.Close()
			}
		}()
		return fmt.Errorf("state file %s: waiting for the lock: %w", path, context.Cause(ctx))
	}
}

// flock is flock(2), retried when a signal interrupts it.
func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// holderPID reads the pid the lock's holder wrote in the lock file; 0 when
// there is none.
func holderPID(lf *os.File) int {
	buf := make([]byte, 32)
	n, _ := lf.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// MaxBytes is the most of a state file Open reads: hundreds of thousands
// of entries.
const MaxBytes = 64 << 20

// read loads the state file from dir, its directory: a regular file of at
// most MaxBytes (inputfile: never waiting on a FIFO, never reading without
// end), and not a symbolic link.
func (f *File) read(dir *os.Root) error {
	name := filepath.Base(f.path)
	data, err := inputfile.ReadInNoLink(dir, name, f.path, MaxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.doc = document{Version: Version, Sessions: map[string]Entry{}}
		return nil
	case errors.Is(err, inputfile.ErrLink):
		if target, lerr := dir.Readlink(name); lerr == nil {
			return fmt.Errorf("state file %w; %s", &outfile.LinkError{Path: f.path, Target: target}, linkAdvice)
		}
		return fmt.Errorf("state file %s: %w", f.path, inputfile.Bare(err)) // swapped while read
	case err != nil:
		return fmt.Errorf("state file %s: %w", f.path, inputfile.Bare(err))
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return decodeError(f.path, data, err)
	}
	switch {
	case doc.Version == 0 && doc.Sessions == nil:
		return corrupt(f.path, nil, -1, `no "version" and no "sessions"`)
	case doc.Version > Version:
		return corrupt(f.path, nil, -1, fmt.Sprintf("version %d was written by a newer acprun (this one reads version %d)", doc.Version, Version))
	}
	if doc.Sessions == nil {
		doc.Sessions = map[string]Entry{}
	}
	doc.Version = Version
	f.doc = doc
	return nil
}

// corrupt is Open's error when the state file at path cannot be read as
// one: msg, with what to do, at the character before byte offset off of
// its data (json's Offset is just past the one it stopped at), or about
// the whole file when off < 0.
func corrupt(path string, data []byte, off int64, msg string) *srcerr.Error {
	msg = "not a valid acprun state file: " + msg + "; fix it, or delete it to start new sessions (it only records which session each scenario had last)"
	if off < 0 {
		return &srcerr.Error{File: path, Msg: msg}
	}
	return srcerr.AtOffset(path, data, int(off)-1, msg)
}

// decodeError is corrupt for err, from decoding the state file's data,
// said in the file's own terms.
func decodeError(path string, data []byte, err error) *srcerr.Error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var pe *time.ParseError
	switch {
	case errors.As(err, &se) && len(bytes.TrimSpace(data)) == 0:
		// Written whole or not at all, it is never empty: someone else
		// emptied it.
		return corrupt(path, data, se.Offset, "it is empty, and acprun never writes an empty one")
	case errors.As(err, &se):
		return corrupt(path, data, se.Offset, err.Error())
	case errors.As(err, &te):
		return corrupt(path, data, te.Offset, typeMessage(te))
	case errors.As(err, &pe):
		return corrupt(path, nil, -1, fmt.Sprintf(`an "updatedAt" is %q, not a time (RFC 3339, as 2006-01-02T15:04:05Z)`, pe.Value))
	}
	return corrupt(path, nil, -1, err.Error())
}

// typeMessage says in the state file's own terms which value of it has
// the wrong JSON type and what it should be: "sessions" is an array,
// want an object of sessions by scenario and agent.
func typeMessage(te *json.UnmarshalTypeError) string {
	got := "a " + te.Value // string, number, object, bool, or "number 1.5"
	switch {
	case te.Value == "array" || te.Value == "object":
		got = "an " + te.Value
	case te.Value == "bool":
		got = "true or false"
	case strings.HasPrefix(te.Value, "number "):
		got = "the " + te.Value
	}
	var want string
	switch te.Type {
	case reflect.TypeFor[document]():
		want = `an object with "version" and "sessions"`
	case reflect.TypeFor[map[string]Entry]():
		want = "an object of sessions by scenario and agent"
	case reflect.TypeFor[Entry]():
		want = `an object with "sessionId", "scenario", "agent", "cwd"…`
	case reflect.TypeFor[time.Time]():
		want = "a time (RFC 3339, as 2006-01-02T15:04:05Z)"
	default:
		switch te.Type.Kind() {
		case reflect.Int:
			want = "a whole number"
		case reflect.String:
			want = "a string"
		default:
			want = te.Type.Kind().String() // not reached: the document holds no other
		}
	}
	// te.Field is the path to the value, its keys joined with dots; a
	// session's key (a scenario's name) may hold dots itself.
	what := "the file holds " + got
	switch rest, inSessions := strings.CutPrefix(te.Field, "sessions."); {
	case te.Field == "":
	case !inSessions:
		what = fmt.Sprintf("%q is %s", te.Field, got)
	case te.Type == reflect.TypeFor[Entry]() || !strings.Contains(rest, "."):
		what = fmt.Sprintf("the session %q is %s", rest, got)
	default:
		i := strings.LastIndexByte(rest, '.')
		what = fmt.Sprintf("%q of the session %q is %s", rest[i+1:], rest[:i], got)
	}
	return what + ", want " + want
}

// Warnings say what Open found in the place of the lock file and
// replaced (see Open), for the caller to tell the user.
func (f *File) Warnings() []string { return f.warnings }

// Path is the state file's path, as given to Open.
func (f *File) Path() string { return f.path }

// Get returns the entry of key, if the file has one with a session id.
func (f *File) Get(key string) (Entry, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.doc.Sessions[key]
	return e, ok && e.SessionID != ""
}

// Put records e under key and writes the file, with ctx's
// outfile.WithTemps hook (the run's guard hears of its temporary file);
// ctx's end does not stop it.
func (f *File) Put(ctx context.Context, key string, e Entry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("state file %s: closed", f.path)
	}
	old, had := f.doc.Sessions[key]
	f.doc.Sessions[key] = e
	if err := f.write(ctx); err != nil {
		if had {
			f.doc.Sessions[key] = old
		} else {
			delete(f.doc.Sessions, key)
		}
		return err
	}
	return nil
}

// write replaces the state file with the document as acprun's output
// files are replaced (a temporary file beside it, synced and renamed over
// it, keeping its mode; what was put at its place since Open replaced,
// not followed: see outfile.Pinned), then syncs the directory so that the
// rename survives a crash. The caller holds f.mu.
func (f *File) write(ctx context.Context) error {
	data, err := json.MarshalIndent(f.doc, "", "  ")
	if err == nil {
		err = f.pin.WriteFrom(ctx, func(w io.Writer) error {
			_, err := w.Write(append(data, '\n'))
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("state file %s: %w", f.path, err)
	}
	f.pin.SyncDir() // the directory pinned, never what its path leads to now
	return nil
}

// Hold makes this process's users of key take turns: it returns once no
// other holder of key remains (or with ctx's cause when ctx ends first),
// and the release function lets the next one in. The attempts of one
// scenario (--repeat) thus continue one another's session in turn.
func (f *File) Hold(ctx context.Context, key string) (release func(), err error) {
	f.holdMu.Lock()
	sem, ok := f.holds[key]
	if !ok {
		sem = make(chan struct{}, 1)
		f.holds[key] = sem
	}
	f.holdMu.Unlock()
	select {
	case sem <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-sem }) }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Close releases the lock. The state file stays as last written.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	if f.pin != nil {
		f.pin.Close()
	}
	return unlockClose(f.lock)
}

// unlockClose releases lf's flock, then closes lf. Closing alone is not
// enough: a child this process is forking at the same moment holds a copy
// of the descriptor until its exec, and the lock would live on until then.
func unlockClose(lf *os.File) error {
	flock(int(lf.Fd()), syscall.LOCK_UN)
	return lf.Close()
}
