package sessionstate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/sessionstate"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/testkit"
)

func open(t *testing.T, path string, mode sessionstate.Mode) *sessionstate.File {
	t.Helper()
	f, err := sessionstate.Open(context.Background(), path, mode, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestPutGetAcrossOpens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".acprun", "state.json") // the directory is made
	f := open(t, path, sessionstate.Fail)
	key := sessionstate.Key("nightly", "mock")
	if _, ok := f.Get(key); ok {
		t.Fatal("a new state file has an entry")
	}
	at := time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)
	want := sessionstate.Entry{SessionID: "s-1", Scenario: "nightly", Agent: "mock", Cwd: "/p", Method: "session/new", UpdatedAt: at}
	if err := f.Put(t.Context(), key, want); err != nil {
		t.Fatal(err)
	}
	other := sessionstate.Key("weekly", "mock")
	if err := f.Put(t.Context(), other, sessionstate.Entry{SessionID: "s-2"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g := open(t, path, sessionstate.Fail)
	defer g.Close()
	got, ok := g.Get(key)
	if !ok || got != want {
		t.Errorf("Get after reopening = %+v, %v; want %+v", got, ok, want)
	}
	if e, _ := g.Get(other); e.SessionID != "s-2" {
		t.Errorf("the other scenario's entry = %+v", e)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"state.json", "state.json.lock"}) {
		t.Errorf("files beside the state file: %v (a temporary file left behind?)", names)
	}
}

func TestFailWhenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path, sessionstate.Fail)
	defer f.Close()
	_, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil)
	var be *sessionstate.BusyError
	if !errors.As(err, &be) {
		t.Fatalf("second Open: %v, want a BusyError", err)
	}
	if be.PID != os.Getpid() || be.Path != path {
		t.Errorf("BusyError = %+v, want the path and pid %d", be, os.Getpid())
	}
	for _, want := range []string{path, "pid ", "--lock wait"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// TestCloseReleasesDespiteACopy: Close releases the lock even while a copy
// of its descriptor lives on (a child another goroutine is forking holds
// one until its exec), so the next Open does not find the file busy.
func TestCloseReleasesDespiteACopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path, sessionstate.Fail)
	fd, err := sessionstate.DupLock(f)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	g.Close()
}

func TestWaitForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path, sessionstate.Fail)
	if err := f.Put(t.Context(), "k", sessionstate.Entry{SessionID: "first"}); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan int, 1)
	opened := make(chan *sessionstate.File, 1)
	errc := make(chan error, 1)
	go func() {
		g, err := sessionstate.Open(context.Background(), path, sessionstate.Wait, func(pid int) { waiting <- pid })
		if err != nil {
			errc <- err
			return
		}
		opened <- g
	}()
	if pid := <-waiting; pid != os.Getpid() {
		t.Errorf("waiting for pid %d, want %d", pid, os.Getpid())
	}
	select {
	case <-opened:
		t.Fatal("Open returned while the lock was held")
	default:
	}
	f.Close()
	select {
	case g := <-opened:
		defer g.Close()
		if e, _ := g.Get("k"); e.SessionID != "first" {
			t.Errorf("the waiter reads %+v, want what the holder wrote", e)
		}
	case err := <-errc:
		t.Fatal(err)
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path, sessionstate.Fail)
	defer f.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	_, err := sessionstate.Open(ctx, path, sessionstate.Wait, func(int) { cancel(stop) })
	if !errors.Is(err, stop) {
		t.Errorf("Open: %v, want the context's cause", err)
	}
}

func TestCorruptFile(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"syntax", "{\n  \"version\": 1,\n  \"sessions\": {\"a\": }\n}\n", []string{"state.json:3:", "invalid character"}},
		{"type", "{\"version\": 1, \"sessions\": []}", []string{`state.json:1:28: not a valid acprun state file: "sessions" is an array, want an object of sessions by scenario and agent; fix it, or delete it`}},
		{"array", "[1,2]", []string{`state.json:1:1: not a valid acprun state file: the file holds an array, want an object with "version" and "sessions"; fix it, or delete it`}},
		{"version", "{\"version\": 1.5}", []string{`state.json:1:15: not a valid acprun state file: "version" is the number 1.5, want a whole number;`}},
		{"session", "{\"version\": 1, \"sessions\": {\"s.1 @ mock\": true}}", []string{`state.json:1:46: not a valid acprun state file: the session "s.1 @ mock" is true or false, want an object with "sessionId"`}},
		// In characters, as every file:line:col of acprun, not in bytes.
		{"accent", "{\"version\": 1, \"sessions\": {\"é @ mock\": 7}}", []string{`state.json:1:41: not a valid acprun state file: the session "é @ mock" is a number, want an object`}},
		{"entry field", "{\"version\": 1, \"sessions\": {\"s.1 @ mock\": {\"sessionId\": 7}}}", []string{`state.json:1:57: not a valid acprun state file: "sessionId" of the session "s.1 @ mock" is a number, want a string;`}},
		{"time", "{\"version\": 1, \"sessions\": {\"s @ mock\": {\"updatedAt\": \"noon\"}}}", []string{`state.json: not a valid acprun state file: an "updatedAt" is "noon", not a time (RFC 3339`}},
		{"empty", "", []string{"state.json:1:1: not a valid acprun state file: it is empty, and acprun never writes an empty one; fix it, or delete it"}},
		{"blank", "\n  \n", []string{"state.json:2:3: not a valid acprun state file: it is empty, and acprun never writes an empty one;"}},
		{"not a state file", "{\"foo\": 1}", []string{`no "version"`}},
		{"newer", "{\"version\": 9, \"sessions\": {}}", []string{"newer acprun"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil)
			if _, ok := errors.AsType[*srcerr.Error](err); !ok {
				t.Fatalf("Open: %v, want an *srcerr.Error", err)
			}
			for _, w := range append(tt.want, "delete it") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestNotARegularFile: a state file that is not a regular file (a FIFO,
// a link, to /dev/zero) or is too large is refused at once, before a byte
// is read, naming the file and what it is; the lock is released.
func TestNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo, zero, huge := filepath.Join(dir, "fifo.json"), filepath.Join(dir, "zero.json"), filepath.Join(dir, "huge.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, sessionstate.MaxBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: "state file " + fifo + ": not a regular file (a FIFO): give a file",
		zero: "state file " + zero + " is a symbolic link (to /dev/zero), which acprun does not follow there (an agent may have put it); remove the link, or give session.stateFile the path it leads to",
		huge: "state file " + huge + ": larger than 64 MiB, the most acprun reads of it",
	} {
		_, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil)
		if err == nil || err.Error() != want {
			t.Errorf("Open = %v, want %s", err, want)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		open(t, path, sessionstate.Fail).Close() // would be busy if the failed Open kept the lock
	}
}

func TestCorruptFileReleasesTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil); err == nil {
		t.Fatal("no error for a corrupt file")
	}
	if err := os.WriteFile(path, []byte(`{"version":1,"sessions":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, sessionstate.Fail) // would be busy if the failed Open kept the lock
	f.Close()
}

func TestHoldTakesTurns(t *testing.T) {
	f := open(t, filepath.Join(t.TempDir(), "state.json"), sessionstate.Fail)
	defer f.Close()
	release, err := f.Hold(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.Hold(context.Background(), "other key")
	if err != nil {
		t.Fatal(err)
	}
	other()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Hold(ctx, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("Hold of a held key with an ended context: %v", err)
	}
	got := make(chan func(), 1)
	go func() {
		r, err := f.Hold(context.Background(), "k")
		if err == nil {
			got <- r
		}
	}()
	release()
	(<-got)()
}

// TestPlantedLinkIsReplaced: a symlink put in the state file's place after
// Open (an agent whose cwd holds it, pointing it at a file of the user's)
// is replaced by the state file, not followed: the file it points at is
// as it was.
func TestPlantedLinkIsReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".acprun", "state.json")
	victim := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, sessionstate.Fail)
	defer f.Close()
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := f.Put(t.Context(), sessionstate.Key("s", "mock"), sessionstate.Entry{SessionID: "s-1"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the file the planted link points at was written: %q", data)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the state file is %v, %v; want a regular file", fi, err)
	}
}

// TestPlantedDirectoryFIFO: the state file's directory replaced after
// Open by a symlink to a FIFO (an agent whose cwd holds .acprun) neither
// hangs Put, which syncs the directory it pinned rather than open the
// FIFO, nor moves the state: it is written in the directory of Open.
func TestPlantedDirectoryFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".acprun", "state.json")
	f := open(t, path, sessionstate.Fail)
	defer f.Close()
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(filepath.Dir(path), moved); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- f.Put(t.Context(), sessionstate.Key("s", "mock"), sessionstate.Entry{SessionID: "s-1"})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second): // a failsafe: Put returns at once
		os.OpenFile(fifo, os.O_WRONLY, 0) // let the stuck open return
		t.Fatal("Put opened the FIFO put in the place of the state file's directory")
	}
	if data, err := os.ReadFile(filepath.Join(moved, "state.json")); err != nil || !strings.Contains(string(data), `"s-1"`) {
		t.Errorf("the state file in the directory of Open: %q, %v", data, err)
	}
}

// TestPlantedLockIsReplaced: what an agent put in the place of the lock
// file between two runs (.acprun is in its cwd) and is not a plain file of
// acprun's is replaced by a new lock file, never opened: the file a link
// or a second name leads to is as it was, a dangling link's target is not
// made, and Warnings says what was replaced.
func TestPlantedLockIsReplaced(t *testing.T) {
	tests := []struct {
		name  string
		plant func(lock, victim string) error
		want  string
	}{
		{"symlink", func(lock, victim string) error { return os.Symlink(victim, lock) }, "was a symbolic link to "},
		{"dangling symlink", func(lock, victim string) error { return os.Symlink(victim+".new", lock) }, "was a symbolic link to "},
		{"relative symlink", func(lock, _ string) error { return os.Symlink("state.json", lock) }, "was a symbolic link to state.json,"},
		{"hard link", func(lock, victim string) error { return os.Link(victim, lock) }, "was a second name of another file (a hard link)"},
		{"fifo", func(lock, _ string) error { return syscall.Mkfifo(lock, 0o644) }, "was a FIFO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".acprun", "state.json")
			victim := filepath.Join(dir, "bashrc") // the same file system, for the hard link
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			state := `{"version": 1, "sessions": {"s @ mock": {"sessionId": "s-1"}}}`
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(state), 0o644); err != nil {
				t.Fatal(err)
			}
			lock := sessionstate.LockPath(path)
			if err := tt.plant(lock, victim); err != nil {
				t.Fatal(err)
			}
			f := open(t, path, sessionstate.Fail)
			defer f.Close()
			if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
				t.Errorf("the file the planted lock led to holds %q", data)
			}
			if _, err := os.Lstat(victim + ".new"); err == nil {
				t.Errorf("the target of the dangling link was made")
			}
			if data, _ := os.ReadFile(path); string(data) != state {
				t.Errorf("the state file holds %q", data)
			}
			if e, _ := f.Get("s @ mock"); e.SessionID != "s-1" {
				t.Errorf("Get = %+v, want the recorded session", e)
			}
			if fi, err := os.Lstat(lock); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("the lock file is %v, %v; want a regular file", fi, err)
			}
			if data, _ := os.ReadFile(lock); strings.TrimSpace(string(data)) != strconv.Itoa(os.Getpid()) {
				t.Errorf("the lock file holds %q, want this process's pid", data)
			}
			ws := f.Warnings()
			if len(ws) != 1 || !strings.HasPrefix(ws[0], "state file "+path+": its lock "+lock+" "+tt.want) || !strings.HasSuffix(ws[0], ": replaced by a new one, without opening what was there") {
				t.Errorf("Warnings = %q, want one saying %s %s… was replaced", ws, lock, tt.want)
			}
			if _, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil); !errors.As(err, new(*sessionstate.BusyError)) {
				t.Errorf("second Open: %v, want a BusyError: the new lock file is the one held", err)
			}
		})
	}
}

// TestOwnLockIsKept: a lock file of acprun's own is opened as it is, and
// Open says nothing about it.
func TestOwnLockIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	open(t, path, sessionstate.Fail).Close()
	before, err := os.Stat(sessionstate.LockPath(path))
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, path, sessionstate.Fail)
	defer f.Close()
	after, err := os.Stat(sessionstate.LockPath(path))
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the lock file was replaced (%v)", err)
	}
	if ws := f.Warnings(); len(ws) > 0 {
		t.Errorf("Warnings = %q, want none", ws)
	}
}

// TestLinkInPlaceIsRefused: a symlink in the place of the state file or
// of its directory when the run starts is not followed: Open fails naming
// the link and what to do, and nothing is read, made or written where it
// leads.
func TestLinkInPlaceIsRefused(t *testing.T) {
	t.Run("directory", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(dir, ".acprun")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, ".acprun", "state.json")
		_, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil)
		want := "state file " + path + ": its directory " + filepath.Join(dir, ".acprun") + " is a symbolic link (to " + elsewhere + "), which acprun does not follow there (an agent may have put it); remove the link, or give session.stateFile the path it leads to"
		if err == nil || err.Error() != want {
			t.Errorf("Open = %v, want %s", err, want)
		}
		if names, _ := os.ReadDir(elsewhere); len(names) > 0 {
			t.Errorf("files made where the link leads: %v", names)
		}
	})
	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		victim := filepath.Join(t.TempDir(), "settings.json")
		state := `{"version": 1, "sessions": {}}`
		if err := os.WriteFile(victim, []byte(state), 0o644); err != nil { // a valid state file, even
			t.Fatal(err)
		}
		path := filepath.Join(dir, "state.json")
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
		_, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil)
		want := "state file " + path + " is a symbolic link (to " + victim + "), which acprun does not follow there"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Open = %v, want %s…", err, want)
		}
		if _, err := sessionstate.Open(context.Background(), path, sessionstate.Fail, nil); errors.As(err, new(*sessionstate.BusyError)) {
			t.Errorf("the failed Open kept the lock")
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced (%v, %v); want it left for the user", fi, err)
		}
	})
}

// TestPutTellsItsTemporaryFile: Put tells ctx's outfile.WithTemps hook
// the path of the state file's temporary file before it makes it (the
// run's guard removes it if acprun is killed mid-write), even once ctx
// has ended.
func TestPutTellsItsTemporaryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path, sessionstate.Fail)
	defer f.Close()
	ctx, check := testkit.TempsOf(t, path)
	if err := f.Put(ctx, "k", sessionstate.Entry{SessionID: "s-1"}); err != nil {
		t.Fatal(err)
	}
	check()
}

// TestIdentity: the spellings of one state file share its identity, the
// symlinks of its directory's ancestors resolved, made or not; a symlink
// in the place of its directory or of the file is not resolved (Open
// refuses it), so a spelling through one is a file of its own.
func TestIdentity(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"real/st", "real/dirlink-target"} {
		if err := os.MkdirAll(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"link": "real", "real/dirlink": "dirlink-target", "real/st/file-link.json": "state.json"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ path, want string }{
		{"real/st/state.json", "real/st/state.json"},
		{"link/st/state.json", "real/st/state.json"},
		{"link/new/deeper/state.json", "real/new/deeper/state.json"}, // made by Open
		{"link/dirlink/state.json", "real/dirlink/state.json"},       // Open refuses it
		{"link/st/file-link.json", "real/st/file-link.json"},         // Open refuses it
		{"missing/st/state.json", "missing/st/state.json"},
	}
	for _, tt := range tests {
		if got, want := sessionstate.Identity(filepath.Join(base, tt.path)), filepath.Join(base, tt.want); got != want {
			t.Errorf("Identity(%s) = %s, want %s", tt.path, got, want)
		}
	}
	if got := sessionstate.Identity("/state.json"); got != "/state.json" {
		t.Errorf("Identity(/state.json) = %s", got)
	}
}
