// Package terminal runs the commands an agent asks the client to run
// (ACP's terminal/* methods): each in its own process group, with its
// stdout and stderr interleaved into one bounded output buffer.
//
// A Terminal's output keeps at most its limit of bytes; older bytes are
// dropped from the beginning, at a UTF-8 character boundary. When the
// command's leader process exits, the whole process group is killed, so
// the background children it left behind are gone too; the output pipe
// is read by the Terminal itself, so a process that escaped the group and
// still holds the pipe cannot keep Wait or Close waiting (the output is
// drained for at most drainDelay after the exit). Every process of a
// terminal carries a mark of its own (see package reap), inside the mark
// of its Config's Env: when the leader exits, the processes that left the
// group (setsid) and carry the mark are killed too.
//
// A Manager hands out terminals by id and kills them all on request.
package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/shellquote"
)

// DefaultOutputLimit is the output kept when a Config sets no limit.
const DefaultOutputLimit = 4 << 20

// drainDelay is how long a Terminal keeps reading its output after the
// process group was killed, waiting for the end of the pipe: only a
// process that left the group can hold it open longer.
const drainDelay = 200 * time.Millisecond

// Shell runs a command line given without arguments.
const Shell = "/bin/sh"

// Config says what to run.
type Config struct {
	// Command is the program, or, when Args is empty and Command holds
	// anything but a plain program name (blanks, quotes, shell operators),
	// a shell line run by `/bin/sh -c`.
	Command string
	Args    []string
	// Env is the complete environment, but for reap.Var, which is set to
	// a mark of the terminal's own, inside the one Env holds. A program
	// without a slash is looked up in its PATH.
	Env []string
	// Dir is the working directory.
	Dir string
	// OutputLimit is the most output bytes kept; 0 means
	// DefaultOutputLimit.
	OutputLimit int
}

// ExitStatus is how a command ended: an exit code, or the signal that
// killed it.
type ExitStatus struct {
	Code   *int   // nil when killed by a signal
	Signal string // e.g. "SIGKILL"; "" when it exited
}

// Terminal is one running (or finished) command.
type Terminal struct {
	cmd  *exec.Cmd
	pid  int // also the process group id
	mark reap.Mark
	out  *os.File

	mu         sync.Mutex
	buf        outputBuffer
	leaderGone bool // the leader exited; its group was killed
	status     ExitStatus
	exited     bool

	readerDone chan struct{} // the output reader stopped
	done       chan struct{} // exited and output drained
}

// Argv returns the argv Start runs for cfg: the command and its arguments,
// or Shell -c with the command line.
func Argv(cfg Config) []string {
	if len(cfg.Args) == 0 && needsShell(cfg.Command) {
		return []string{Shell, "-c", cfg.Command}
	}
	return append([]string{cfg.Command}, cfg.Args...)
}

// needsShell reports whether a command given without arguments is more than
// a program name.
func needsShell(command string) bool {
	return command != "" && !programName.Plain(command)
}

// programName is a command a shell would read as one program name: no =
// (a first word with one is an assignment), no glob or ~.
var programName = shellquote.Quoter{Keep: "_-./+,:@%^"}

// Start starts the command in its own process group.
func Start(cfg Config) (*Terminal, error) {
	if strings.TrimSpace(cfg.Command) == "" {
		return nil, errors.New("empty command")
	}
	argv := Argv(cfg)
	path, err := lookPath(argv[0], cfg.Env, cfg.Dir)
	if err != nil {
		return nil, err
	}
	limit := cfg.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	// Both streams go to the same *os.File: exec hands the descriptor to
	// the child and starts no copying goroutine of its own.
	mark := reap.Of(cfg.Env).Sub()
	cmd := &exec.Cmd{
		Path:        path,
		Args:        argv,
		Env:         mark.Set(cfg.Env),
		Dir:         cfg.Dir,
		Stdout:      pw,
		Stderr:      pw,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	t := &Terminal{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		mark:       mark,
		out:        pr,
		buf:        outputBuffer{limit: limit},
		readerDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
	go t.read()
	go t.wait()
	return t, nil
}

// lookPath finds a program without a slash in the PATH of env (the
// parent's PATH when env has none); relative PATH entries are relative
// to dir.
func lookPath(name string, env []string, dir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	pathEnv, ok := "", false
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, "PATH="); found {
			pathEnv, ok = v, true // the last one wins, as in exec
		}
	}
	if !ok {
		pathEnv = os.Getenv("PATH")
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// read copies the pipe into the buffer until its end, or until wait closes
// it.
func (t *Terminal) read() {
	defer close(t.readerDone)
	b := make([]byte, 32<<10)
	for {
		n, err := t.out.Read(b)
		if n > 0 {
			t.mu.Lock()
			t.buf.write(b[:n])
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait waits for the leader and kills its group (waitLeader) and the
// processes that left it, then drains the output.
func (t *Terminal) wait() {
	t.waitLeader()
	t.mark.Kill()
	st := exitStatus(t.cmd.ProcessState)

	timer := time.NewTimer(drainDelay)
	select {
	case <-t.readerDone:
	case <-timer.C:
		// Someone outside the group holds the pipe: stop reading.
		_ = t.out.SetReadDeadline(time.Now())
		<-t.readerDone
	}
	timer.Stop()
	t.out.Close()

	t.mu.Lock()
	t.status, t.exited = st, true
	t.mu.Unlock()
	close(t.done)
}

// leaderExited kills the process group of the leader, which has exited.
func (t *Terminal) leaderExited() {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = unix.Kill(-t.pid, unix.SIGKILL)
	t.leaderGone = true
}

func exitStatus(ps *os.ProcessState) ExitStatus {
	if ps == nil {
		return ExitStatus{Signal: "unknown"}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Signal: unix.SignalName(ws.Signal())}
	}
	code := ps.ExitCode()
	return ExitStatus{Code: &code}
}

// Pid returns the leader's process id, which is also the process group id.
func (t *Terminal) Pid() int { return t.pid }

// Output returns the output kept so far, whether older output was dropped,
// and the exit status once the command has exited and its output was
// drained (nil before).
func (t *Terminal) Output() (output string, truncated bool, status *ExitStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf.bytes()
	if !t.exited {
		// A character may be half read: keep its start for the next call.
		b = trimPartialRune(b)
	} else {
		st := t.status
		status = &st
	}
	return string(b), t.buf.truncated, status
}

// Done is closed once the command has exited and its output was drained.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Wait waits until the command has exited and its output was drained, or
// until ctx ends.
func (t *Terminal) Wait(ctx context.Context) (ExitStatus, error) {
	select {
	case <-t.done:
	case <-ctx.Done():
		return ExitStatus{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, nil
}

// Kill sends SIGKILL to the command's process group. The Terminal stays
// valid: its output and exit status can still be read.
func (t *Terminal) Kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.leaderGone {
		_ = unix.Kill(-t.pid, unix.SIGKILL)
	}
}

// Close kills the command's process group and waits until it is gone and
// its output drained.
func (t *Terminal) Close() {
	t.Kill()
	<-t.done
}

// outputBuffer keeps the last limit bytes written to it, cut at a UTF-8
// character boundary. data[start:] is the content; the dropped prefix is
// reclaimed once it outgrows the content, so writes cost O(1) per byte.
type outputBuffer struct {
	limit     int
	data      []byte
	start     int
	truncated bool
	// skip is how many more continuation bytes of a character cut in two
	// may still be dropped (a cut may end exactly at the end of a write).
	skip int
}

func (b *outputBuffer) write(p []byte) {
	b.data = append(b.data, p...)
	if len(b.data)-b.start > b.limit {
		b.start = len(b.data) - b.limit
		b.truncated = true
		b.skip = utf8.UTFMax - 1
	}
	// Drop the rest of a character cut in two.
	for b.skip > 0 && b.start < len(b.data) {
		if utf8.RuneStart(b.data[b.start]) {
			b.skip = 0
			break
		}
		b.start++
		b.skip--
	}
	if b.start > 0 && b.start >= len(b.data)-b.start {
		n := copy(b.data, b.data[b.start:])
		b.data = b.data[:n]
		b.start = 0
	}
}

func (b *outputBuffer) bytes() []byte { return b.data[b.start:] }

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// ErrUnknown is returned for a terminal id the Manager does not know
// (never created, or released).
var ErrUnknown = errors.New("unknown terminal")

// ErrClosed is returned by Manager.Create after Close.
var ErrClosed = errors.New("terminals closed")

// Manager tracks terminals by id. Its methods may be called from many
// goroutines at once.
type Manager struct {
	mu     sync.Mutex
	next   int
	terms  map[string]*Terminal
	closed bool
}

// NewManager returns an empty Manager.
func NewManager() *Manager { return &Manager{terms: map[string]*Terminal{}} }

// Create starts a command and returns its new id ("term-1", "term-2", …).
func (m *Manager) Create(cfg Config) (string, *Terminal, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", nil, ErrClosed
	}
	t, err := Start(cfg)
	if err != nil {
		return "", nil, err
	}
	m.next++
	id := fmt.Sprintf("term-%d", m.next)
	m.terms[id] = t
	return id, t, nil
}

// Get returns the terminal with the id.
func (m *Manager) Get(id string) (*Terminal, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[id]
	if !ok {
		return nil, fmt.Errorf("%q: %w", id, ErrUnknown)
	}
	return t, nil
}

// Release kills the terminal's process group, waits until it is gone and
// forgets the id.
func (m *Manager) Release(id string) (*Terminal, error) {
	m.mu.Lock()
	t, ok := m.terms[id]
	delete(m.terms, id)
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%q: %w", id, ErrUnknown)
	}
	t.Close()
	return t, nil
}

// KillAll kills every terminal's process group; the terminals stay known.
func (m *Manager) KillAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.terms {
		t.Kill()
	}
}

// Running counts the terminals, released ones left out, whose command is
// still running.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, t := range m.terms {
		t.mu.Lock()
		if !t.leaderGone {
			n++
		}
		t.mu.Unlock()
	}
	return n
}

// Close kills every terminal, waits until they are gone and forgets them.
// Create fails afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	terms := m.terms
	m.terms = map[string]*Terminal{}
	m.mu.Unlock()
	for _, t := range terms {
		t.Kill()
	}
	for _, t := range terms {
		<-t.done
	}
}
