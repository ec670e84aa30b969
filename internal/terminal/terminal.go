// Package terminal runs the commands an agent asks the client to run
// (ACP's terminal/* methods): each a process of package proc, in its own
// process group, with its stdout and stderr interleaved into one bounded
// output buffer.
//
// A Terminal's output keeps at most its limit of bytes; older bytes are
// dropped from the beginning, at a UTF-8 character boundary. When the
// command's leader process exits, the whole process group is killed, so
// the background children it left behind are gone too, and so are the
// processes that left the group (setsid) and carry the terminal's mark
// (see package reap), which is inside the mark of its Config's Env. A
// process that escaped both and still holds the output pipe cannot keep
// Wait or Close waiting: past proc.DrainDelay after the exit, the output
// is read only until its pipe is empty.
//
// A Manager hands out terminals by id and kills them all on request. It
// holds their output within a budget: a terminal is refused that could
// take its terminals past it, each counted at its limit until its exit
// was reported (MarkReported), so that whether one is refused does not
// depend on how fast the commands before it ran.
package terminal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/shellquote"
)

// DefaultOutputLimit is the output kept when a Config sets no limit.
const DefaultOutputLimit = 4 << 20

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
	// Dir is the working directory, held open: on Linux the command
	// starts in that very directory, whatever its path leads to by then;
	// elsewhere in the directory its path names. nil is acprun's.
	Dir *os.File
	// OutputLimit is the most output bytes kept (0 keeps none); nil
	// means DefaultOutputLimit.
	OutputLimit *int
	// Sandbox, when set, runs the command (its program resolved) inside
	// the agent's sandbox (see proc.Config.Sandbox).
	Sandbox proc.Wrap
}

// ExitStatus is how a command ended: an exit code, or the signal that
// killed it.
type ExitStatus struct {
	Code   *int   // nil when killed by a signal
	Signal string // e.g. "SIGKILL"; "" when it exited
}

// Terminal is one running (or finished) command: its process (Pid,
// Kill, Done, …) and its output.
type Terminal struct {
	*proc.Process
	out      *proc.Output
	limit    int         // the most output bytes kept
	reported atomic.Bool // see MarkReported
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
	dir := ""
	if cfg.Dir != nil {
		dir = heldDir(cfg.Dir)
		defer runtime.KeepAlive(cfg.Dir) // open until the command has started
	}
	path, err := lookPath(argv[0], cfg.Env, dir)
	if err != nil {
		return nil, err
	}
	limit := cfg.outputLimit()
	out, err := proc.NewOutput(limit)
	if err != nil {
		return nil, err
	}
	p, err := proc.Start(proc.Config{Path: path, Args: argv, Env: cfg.Env, Dir: dir, Sandbox: cfg.Sandbox,
		Stdout: out.File(), Stderr: out.File(), Readers: []proc.Reader{out}, Reap: true}) // both streams to one pipe, interleaved
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	return &Terminal{Process: p, out: out, limit: limit}, nil
}

// outputLimit is the most output bytes the terminal keeps.
func (cfg Config) outputLimit() int {
	if cfg.OutputLimit != nil {
		return max(*cfg.OutputLimit, 0)
	}
	return DefaultOutputLimit
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
		d = cmp.Or(d, ".")
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

// Output returns the output kept so far, whether older output was dropped,
// and the exit status once the command has exited and its output was
// drained (nil before).
func (t *Terminal) Output() (output string, truncated bool, status *ExitStatus) {
	done := isClosed(t.Done()) // before the tail: once done, it is whole
	tail := t.out.Tail()
	b := tail.Bytes()
	if done {
		st := t.status()
		status = &st
	} else {
		// A character may be half read: keep its start for the next call.
		b = trimPartialRune(b)
	}
	output, cut := validTail(string(b), t.limit)
	return output, tail.Truncated() || cut, status
}

// validTail returns s as valid UTF-8 (each run of bytes that are no
// character replaced by U+FFFD) of at most limit bytes: where the
// replacements make it longer, its first characters are dropped, and cut
// says so.
func validTail(s string, limit int) (tail string, cut bool) {
	s = strings.ToValidUTF8(s, string(utf8.RuneError))
	for len(s) > limit {
		_, n := utf8.DecodeRuneInString(s)
		s, cut = s[n:], true
	}
	return s, cut
}

// MarkReported records that whoever runs the terminal was told its
// command ended (given the exit status Wait or Output returned): from then
// on the terminal counts in its Manager's budget for the output it holds,
// no longer for its limit.
func (t *Terminal) MarkReported() { t.reported.Store(true) }

// held is how many bytes of output the terminal counts for in its
// Manager's budget: its limit, which its output may grow to, until its
// exit was reported (MarkReported), then what it holds. A command that
// has ended unreported still counts at its limit: when it ended is the
// command's own timing, which a refusal must not depend on.
func (t *Terminal) held() int {
	if t.reported.Load() && isClosed(t.Done()) {
		return t.out.Held()
	}
	return t.limit
}

// Wait waits until the command has exited and its output was drained, or
// until ctx ends.
func (t *Terminal) Wait(ctx context.Context) (ExitStatus, error) {
	select {
	case <-t.Done():
		return t.status(), nil
	case <-ctx.Done():
		return ExitStatus{}, ctx.Err()
	}
}

func (t *Terminal) status() ExitStatus {
	code, sig := t.ExitStatus()
	return ExitStatus{Code: code, Signal: sig}
}

// Close kills the command's process group and waits until it is gone and
// its output drained.
func (t *Terminal) Close() {
	t.Kill()
	<-t.Done()
}

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

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// ErrUnknown is returned for a terminal id the Manager does not know
// (never created, or released).
var ErrUnknown = errors.New("unknown terminal")

// ErrClosed is returned by Manager.Create after Close.
var ErrClosed = errors.New("terminals closed")

// BudgetError is returned by Manager.Create for a terminal whose output
// limit would take the output its terminals count for past the Manager's
// budget.
type BudgetError struct {
	Held   int // what the terminals count for: see Manager.Held
	Limit  int // the output limit of the terminal refused
	Budget int
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the terminals count for %d bytes of output; %d more would pass their budget of %d", e.Held, e.Limit, e.Budget)
}

// Manager tracks terminals by id. Its methods may be called from many
// goroutines at once.
type Manager struct {
	mu     sync.Mutex
	next   int
	terms  map[string]*Terminal
	closed bool
	budget int
}

// NewManager returns an empty Manager whose terminals may hold at most
// budget bytes of output in all (see Create).
func NewManager(budget int) *Manager {
	return &Manager{terms: map[string]*Terminal{}, budget: budget}
}

// Create starts a command and returns its new id ("term-1", "term-2", …).
// It refuses, with a *BudgetError, a command whose output limit would
// take what the terminals count for (Held) past the budget: the agent must
// release terminals first, or ask for a smaller limit.
func (m *Manager) Create(cfg Config) (string, *Terminal, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", nil, ErrClosed
	}
	if held, limit := m.heldLocked(), cfg.outputLimit(); held+limit > m.budget {
		return "", nil, &BudgetError{Held: held, Limit: limit, Budget: m.budget}
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
// It returns the ids, in the order they were created, of the terminals
// whose command was still running when it killed them.
func (m *Manager) KillAll() (running []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := 1; i <= m.next; i++ {
		id := fmt.Sprintf("term-%d", i)
		t, ok := m.terms[id]
		if !ok {
			continue
		}
		if !isClosed(t.Exited()) {
			running = append(running, id)
		}
		t.Kill()
	}
	return running
}

// Held is how many bytes of output the terminals, released ones left
// out, count for in the budget: each its limit, which its output may grow
// to, until its exit was reported (MarkReported), then what it holds.
func (m *Manager) Held() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.heldLocked()
}

func (m *Manager) heldLocked() int {
	n := 0
	for _, t := range m.terms {
		n += t.held()
	}
	return n
}

// Running counts the terminals, released ones left out, whose command is
// still running.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, t := range m.terms {
		if !isClosed(t.Exited()) {
			n++
		}
	}
	return n
}

// Close kills every terminal, waits until they are gone and forgets them.
// Create fails afterwards. It returns the ids, in the order they were
// created, of the terminals (released ones left out) whose command was
// still running when it killed them.
func (m *Manager) Close() (running []string) {
	m.mu.Lock()
	m.closed = true
	terms := m.terms
	m.terms = map[string]*Terminal{}
	next := m.next
	m.mu.Unlock()
	for i := 1; i <= next; i++ {
		id := fmt.Sprintf("term-%d", i)
		t, ok := terms[id]
		if !ok {
			continue
		}
		if !isClosed(t.Exited()) {
			running = append(running, id)
		}
		t.Kill()
	}
	for _, t := range terms {
		<-t.Done()
	}
	return running
}
