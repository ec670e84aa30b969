// Package hook runs the commands a scenario gives around its agent
// session (setup, verify, teardown): one shell line at a time, each a
// process of package proc in its own process group, with a deadline, and
// the last bytes of its stdout and stderr kept apart; what the caller
// looks for in stdout (Command.StdoutContains, StdoutMatches) is looked
// for in all of it, as it is read.
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
//   - stdout and stderr are read by Run itself: past proc.DrainDelay
//     after the leader exits, only until their pipes are empty, so a
//     process that left the group and still holds them cannot keep Run
//     waiting.
//
// So Run returns about Timeout + KillGrace + proc.DrainDelay after it
// started at the latest (the time to read what the pipes still hold
// aside).
package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/terminal"
	"github.com/acprun/acprun/internal/textfind"
)

// DefaultLimit is how many bytes of each of stdout and stderr are kept
// when a Command sets no Limit.
const DefaultLimit = 64 << 10

// KillGrace is how long a command has between SIGTERM and SIGKILL when it
// is stopped (timeout, or ctx's end): time to remove a lock file or a
// container.
const KillGrace = time.Second

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
	// StdoutContains and StdoutMatches (nil: none) are looked for in the
	// whole of stdout as it is read, however long, not only in the part
	// kept (Limit): see Result.StdoutContains and Result.StdoutMatched.
	// Each pattern takes stdout as one text, as MatchString would.
	StdoutContains []string
	StdoutMatches  []*regexp.Regexp
	// Sandbox, when set, runs the shell inside a sandbox (see
	// proc.Config.Sandbox).
	Sandbox proc.Wrap
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
	// Duration is from the command's start to its end (and its output's);
	// 0 for a command that never started, whatever the checks before took.
	Duration time.Duration
	// Stdout and Stderr are the last bytes of each stream (see
	// Command.Limit); StdoutBytes and StderrBytes are their full sizes.
	Stdout, Stderr           string
	StdoutBytes, StderrBytes int64
	// Truncated is set when Stdout or Stderr lost bytes from its start.
	Truncated bool
	// StdoutContains[i] reports whether Command.StdoutContains[i] appeared
	// anywhere in stdout; StdoutMatched[i], whether
	// Command.StdoutMatches[i] matched it. Both are set once the command
	// started.
	StdoutContains []bool
	StdoutMatched  []bool
	// Err says why the command could not start, or that ctx ended
	// (interrupted; it wraps ctx.Err()). It is nil when the command ran
	// to an exit or was stopped by Timeout.
	Err error
}

// ErrNotStarted is what Result.Err wraps when ctx had ended before Run
// started the command: it never ran.
var ErrNotStarted = errors.New("interrupted before the start")

// started, when set, is told the process group id of each command Run
// starts (tests).
var started func(pgid int)

// Run runs c and waits for it (see the package doc for how it ends).
func Run(ctx context.Context, c Command) (res Result) {
	switch {
	case strings.TrimSpace(c.Run) == "":
		return Result{Err: errors.New("empty command")}
	case c.Timeout <= 0:
		return Result{Err: fmt.Errorf("timeout %v: want more than 0", c.Timeout)}
	}
	if err := ctx.Err(); err != nil {
		return Result{Err: fmt.Errorf("%w: %w", ErrNotStarted, err)}
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
	find := textfind.New(c.StdoutContains, c.StdoutMatches)
	stdout, err := proc.NewOutputTo(limit, find)
	if err != nil {
		find.Close()
		return Result{Err: err}
	}
	// find is closed once stdout was read to its end: nothing writes to it
	// after that.
	closeFind := func() ([]bool, []bool) {
		<-stdout.ReadDone()
		return find.Close()
	}
	stderr, err := proc.NewOutput(limit)
	if err != nil {
		stdout.File().Close()
		closeFind()
		return Result{Err: err}
	}
	begin := time.Now()
	p, err := proc.Start(proc.Config{Args: []string{terminal.Shell, "-c", c.Run}, Dir: c.Dir, Env: c.Env, Sandbox: c.Sandbox,
		Stdout: stdout.File(), Stderr: stderr.File(), Readers: []proc.Reader{stdout, stderr}, Reap: true})
	if err != nil {
		closeFind()
		return Result{Err: fmt.Errorf("start: %w", err)}
	}
	defer func() { res.Duration = time.Since(begin) }()
	if started != nil {
		started(p.Pid())
	}

	timer := time.NewTimer(c.Timeout)
	defer timer.Stop()
	select {
	case <-p.Exited():
	case <-timer.C:
		res.TimedOut = stop(p, ctx.Done())
	case <-ctx.Done():
		if stop(p, nil) {
			res.Err = fmt.Errorf("interrupted: %w", ctx.Err())
		}
	}
	<-p.Done() // what left the group was killed, the output drained
	res.StdoutContains, res.StdoutMatched = closeFind()

	res.ExitCode, res.Signal = p.ExitStatus()
	out, errs := stdout.Tail(), stderr.Tail()
	res.Stdout, res.StdoutBytes = string(out.Bytes()), out.Total()
	res.Stderr, res.StderrBytes = string(errs.Bytes()), errs.Total()
	res.Truncated = out.Truncated() || errs.Truncated()
	return res
}

// stop ends a command that is still running: SIGTERM to its group, then
// SIGKILL after KillGrace, or as soon as hurry is closed. It returns
// false when the leader had exited anyway (an exit that came at the same
// time as the deadline is an exit, not a stop), and waits until it has.
func stop(p *proc.Process, hurry <-chan struct{}) bool {
	select {
	case <-p.Exited():
		return false
	default:
	}
	p.Signal(unix.SIGTERM)
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	select {
	case <-p.Exited():
		return true
	case <-grace.C:
	case <-hurry:
	}
	p.Kill()
	<-p.Exited()
	return true
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
