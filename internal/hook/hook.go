// Package hook runs the commands a scenario gives around its agent
// session (setup, verify, teardown): one shell line at a time, each in its
// own process group, with a deadline, and the last bytes of its stdout and
// stderr kept apart.
//
// Run never leaves anything behind and never hangs:
//   - when the command's leader process exits, its whole process group is
//     killed (SIGKILL), so the background children it started die with it;
//   - on its timeout, or when its ctx ends, the group gets SIGTERM, and
//     SIGKILL after KillGrace if the leader has not exited by then (a ctx
//     that ends during the grace of a timeout cuts it short);
//   - every process of the command carries a mark of its own (see package
//     reap), inside the mark of Env: once the leader has exited, the
//     processes that left the group (setsid, daemons) and carry the mark
//     are killed too;
//   - stdout and stderr are read by Run itself and drained for at most
//     DrainDelay after the leader exits, so a process that left the group
//     and still holds the pipes cannot keep Run waiting.
//
// So Run returns at most Timeout + KillGrace + DrainDelay after it started.
package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/terminal"
	"golang.org/x/sys/unix"
)

// DefaultLimit is how many bytes of each of stdout and stderr are kept
// when a Command sets no Limit.
const DefaultLimit = 64 << 10

// KillGrace is how long a command has between SIGTERM and SIGKILL when it
// is stopped (timeout, or ctx's end): time to remove a lock file or a
// container.
const KillGrace = time.Second

// DrainDelay is how long Run keeps reading stdout and stderr after the
// leader exited and its group was killed, waiting for the ends of the
// pipes: only a process that left the group can hold them open longer.
const DrainDelay = 200 * time.Millisecond

// Command is what to run.
type Command struct {
	// Run is a shell line, run as /bin/sh -c Run.
	Run string
	// Dir is the working directory; "" is acprun's.
	Dir string
	// Env is the complete environment, but for reap.Var, which is set to
	// a mark of the command's own, inside the one Env holds; nil is an
	// empty one, never acprun's by accident.
	Env []string
	// Timeout bounds the command; it must be > 0.
	Timeout time.Duration
	// Limit is how many bytes of each of stdout and stderr are kept: the
	// last ones, cut at a UTF-8 character boundary. 0 means DefaultLimit.
	Limit int
}

// Result is how it went.
type Result struct {
	// ExitCode is nil when the command was killed by a signal or did not
	// start.
	ExitCode *int
	// Signal names the signal that killed the leader, as terminal and the
	// runner name them: "SIGTERM", "SIGKILL".
	Signal string
	// TimedOut is set when Timeout stopped the command.
	TimedOut bool
	// Duration is from the start to the end of Run.
	Duration time.Duration
	// Stdout and Stderr are the last bytes of each stream (see
	// Command.Limit); StdoutBytes and StderrBytes are their full sizes.
	Stdout, Stderr           string
	StdoutBytes, StderrBytes int64
	// Truncated is set when Stdout or Stderr lost bytes from its start.
	Truncated bool
	// Err says why the command could not start, or that ctx ended
	// (interrupted; it wraps ctx.Err()). It is nil when the command ran
	// to an exit or was stopped by Timeout.
	Err error
}

// started, when set, is told the process group id of each command Run
// starts (tests).
var started func(pgid int)

// Run runs c and waits for it (see the package doc for how it ends).
func Run(ctx context.Context, c Command) Result {
	begin := time.Now()
	res := run(ctx, c)
	res.Duration = time.Since(begin)
	return res
}

func run(ctx context.Context, c Command) Result {
	switch {
	case strings.TrimSpace(c.Run) == "":
		return Result{Err: errors.New("empty command")}
	case c.Timeout <= 0:
		return Result{Err: fmt.Errorf("timeout %v: want more than 0", c.Timeout)}
	}
	if err := ctx.Err(); err != nil {
		return Result{Err: fmt.Errorf("interrupted before the start: %w", err)}
	}
	if c.Dir != "" {
		// exec would blame /bin/sh for a missing directory.
		fi, err := os.Stat(c.Dir)
		if err != nil {
			return Result{Err: fmt.Errorf("working directory: %w", err)}
		}
		if !fi.IsDir() {
			return Result{Err: fmt.Errorf("working directory %s: not a directory", c.Dir)}
		}
	}
	limit := c.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	stdout, err := newStream(limit)
	if err != nil {
		return Result{Err: err}
	}
	stderr, err := newStream(limit)
	if err != nil {
		stdout.abort()
		return Result{Err: err}
	}
	mark := reap.Of(c.Env).Sub()
	cmd := &exec.Cmd{
		Path:        terminal.Shell,
		Args:        []string{terminal.Shell, "-c", c.Run},
		Dir:         c.Dir,
		Env:         mark.Set(c.Env),
		Stdout:      stdout.w, // *os.File: handed to the child, no copying goroutine
		Stderr:      stderr.w,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	stdout.w.Close()
	stderr.w.Close()
	if err != nil {
		stdout.r.Close()
		stderr.r.Close()
		return Result{Err: fmt.Errorf("start: %w", err)}
	}
	g := &group{pgid: cmd.Process.Pid}
	if started != nil {
		started(g.pgid)
	}
	go stdout.read()
	go stderr.read()
	exited := make(chan struct{})
	go func() {
		waitLeader(cmd, g.leaderExited)
		close(exited)
	}()

	var res Result
	timer := time.NewTimer(c.Timeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		res.TimedOut = stop(g, exited, ctx.Done())
	case <-ctx.Done():
		if stop(g, exited, nil) {
			res.Err = fmt.Errorf("interrupted: %w", ctx.Err())
		}
	}
	mark.Kill() // what left the group; its pipes close with it

	drained := make(chan struct{}) // closed after DrainDelay, for both streams
	drain := time.AfterFunc(DrainDelay, func() { close(drained) })
	defer drain.Stop()
	stdout.finish(drained)
	stderr.finish(drained)

	res.ExitCode, res.Signal = exitStatus(cmd.ProcessState)
	res.Stdout, res.StdoutBytes = stdout.tail()
	res.Stderr, res.StderrBytes = stderr.tail()
	res.Truncated = int64(len(res.Stdout)) < res.StdoutBytes || int64(len(res.Stderr)) < res.StderrBytes
	return res
}

// exitStatus is how the leader ended: its exit code, or the name of the
// signal that killed it.
func exitStatus(ps *os.ProcessState) (*int, string) {
	if ps == nil { // Wait failed: the leader is gone, how is not known
		return nil, "unknown"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, unix.SignalName(ws.Signal())
	}
	code := ps.ExitCode()
	return &code, ""
}

// stop ends a command that is still running: SIGTERM to its group, then
// SIGKILL after KillGrace, or as soon as hurry is closed. It returns
// false when the leader had exited anyway (an exit that came at the same
// time as the deadline is an exit, not a stop), and waits until it has.
func stop(g *group, exited <-chan struct{}, hurry <-chan struct{}) bool {
	select {
	case <-exited:
		return false
	default:
	}
	g.signal(unix.SIGTERM)
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	select {
	case <-exited:
		return true
	case <-grace.C:
	case <-hurry:
	}
	g.signal(unix.SIGKILL)
	<-exited
	return true
}

// group is a command's process group, which may be signalled only until
// its leader is reaped: after that its id may belong to someone else.
type group struct {
	mu   sync.Mutex
	pgid int
	gone bool
}

func (g *group) signal(sig unix.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		_ = unix.Kill(-g.pgid, sig)
	}
}

// leaderExited kills the group of the leader, which has exited but is not
// reaped yet, so nothing else can have its id.
func (g *group) leaderExited() {
	g.mu.Lock()
	defer g.mu.Unlock()
	_ = unix.Kill(-g.pgid, unix.SIGKILL)
	g.gone = true
}

// stream is the pipe of stdout or stderr and the tail of what came
// through it.
type stream struct {
	r, w  *os.File
	limit int
	done  chan struct{} // read returned

	// Written by read only, read after done is closed.
	buf   []byte // the last bytes; at most 2*limit
	total int64
}

func newStream(limit int) (*stream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	return &stream{r: r, w: w, limit: limit, done: make(chan struct{})}, nil
}

// abort closes a stream that was never used.
func (s *stream) abort() {
	s.r.Close()
	s.w.Close()
}

// read keeps the last bytes of the pipe until its end, or until finish
// stops it.
func (s *stream) read() {
	defer close(s.done)
	b := make([]byte, 32<<10)
	for {
		n, err := s.r.Read(b)
		if n > 0 {
			s.total += int64(n)
			s.buf = append(s.buf, b[:n]...)
			if len(s.buf) > 2*s.limit {
				s.buf = s.buf[:copy(s.buf, s.buf[len(s.buf)-s.limit:])]
			}
		}
		if err != nil {
			return
		}
	}
}

// finish waits for the end of the pipe until drained is closed, then stops
// reading: whoever still holds the pipe left the process group.
func (s *stream) finish(drained <-chan struct{}) {
	select {
	case <-s.done:
	case <-drained:
		_ = s.r.SetReadDeadline(time.Now())
		<-s.done
	}
	s.r.Close()
}

// tail returns the last limit bytes read, less the rest of a character
// the cut went through, and how many bytes were read in all.
func (s *stream) tail() (string, int64) {
	b := s.buf
	if len(b) > s.limit {
		b = b[len(b)-s.limit:]
	}
	if int64(len(b)) < s.total {
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return string(b), s.total
}

// Tail returns the last n lines of the output, stderr after stdout (the
// two are read apart, so their order in time is unknown; errors are
// usually on stderr, and last), for failure messages. Trailing newlines
// are left out; n <= 0 gives "".
func (r Result) Tail(n int) string {
	if n <= 0 {
		return ""
	}
	var lines []string
	for _, s := range []string{r.Stdout, r.Stderr} {
		if s = strings.TrimRight(s, "\n"); s != "" {
			lines = append(lines, strings.Split(s, "\n")...)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
