package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acprun/acprun/acp"
	process "github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/redact"
)

// stderrTailBytes is how much of an agent's stderr is kept for the results.
const stderrTailBytes = 32 << 10

// agentConfig says how to start an agent process.
type agentConfig struct {
	Argv    []string
	Env     []string // the complete environment of the process
	Dir     string   // working directory of the process
	Handler acp.Handler
	Conn    *acp.Options
	// Sandbox, when set, starts the process in its sandbox (see
	// proc.Config.Sandbox).
	Sandbox process.Wrap
}

// Agent is one agent subprocess, in its own process group (see package
// proc: when it exits, its group is killed, and its output read to its
// end, or until its pipe is empty past proc.DrainDelay), and the ACP connection over its stdin and
// stdout. What it writes to stderr is kept for the scenario it serves.
// The processes that left its group are its scenario's to sweep (by the
// mark in its Env).
type Agent struct {
	*process.Process
	Conn *acp.Conn

	stdin     *os.File
	stdout    *os.File // the read end of its stdout, which the Conn reads
	stderr    *process.Output
	closeOnce sync.Once
}

// startAgent starts the agent process and its connection.
func startAgent(cfg agentConfig) (*Agent, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("empty agent command")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	stderr, err := process.NewOutput(stderrTailBytes)
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	a := &Agent{stdin: inW, stdout: outR, stderr: stderr}
	a.Conn = acp.NewConn(outR, inW, cfg.Handler, cfg.Conn)
	a.Process, err = process.Start(process.Config{Args: cfg.Argv, Env: cfg.Env, Dir: cfg.Dir,
		Stdin: inR, Stdout: outW, Stderr: stderr.File(), Sandbox: cfg.Sandbox,
		Readers: []process.Reader{stdoutReader{a.Conn, outR}, stderr}})
	if err != nil {
		a.Conn.Close()
		return nil, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	return a, nil
}

// outputClosed reports whether the agent has closed its stdout: the Conn
// has read to its end, or the pipe's writers are all gone and the Conn has
// yet to come to the end (which the kernel knows before the Conn does).
func (a *Agent) outputClosed() bool {
	return isClosed(a.Conn.ReadDone()) || process.PipeHungUp(a.stdout)
}

// stdoutReader is the agent's stdout as its process drains it: the Conn
// reads it, and its read end tells what the Conn has not read yet.
type stdoutReader struct {
	*acp.Conn
	pipe *os.File
}

// Unread is how many bytes the pipe holds that the Conn has not read yet.
func (r stdoutReader) Unread() int { return process.PipeUnread(r.pipe) }

// mergeEnv overlays env on base (KEY=VALUE entries), replacing variables
// of the same name.
func mergeEnv(base []string, env map[string]string) []string {
	if len(env) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(env))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := env[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// TakeStderr returns what the agent wrote to stderr since the last
// TakeStderr (or its start), including what is in the pipe but not read
// yet: everything the agent wrote before the call, redacted with red (nil:
// not). What it writes from then on goes to a new tail.
func (a *Agent) TakeStderr(red *redact.Redactor) string {
	return stderrText(a.stderr.Take(), red)
}

// StderrTail returns the last bytes the agent wrote to stderr (since the
// last TakeStderr), redacted with red (nil: not).
func (a *Agent) StderrTail(red *redact.Redactor) string {
	return stderrText(a.stderr.Tail(), red)
}

// stderrText is a tail of stderr as valid UTF-8 (invalid bytes become
// U+FFFD), redacted (see redactOutput), and marked when its beginning was
// cut off. Its beginning is a cut too where it follows an earlier tail
// (a pooled agent's share of stderr for a later scenario), and so is its
// end: the tail may be taken while the agent still writes, between two
// reads of one write.
func stderrText(t *process.Tail, red *redact.Redactor) string {
	s := strings.ToValidUTF8(string(t.Bytes()), "\uFFFD")
	mark := ""
	if t.Truncated() {
		mark = "[…]"
	}
	return mark + redactOutput(red, s, t.Truncated() || t.Follows(), true)
}

// redactOutput returns s, what acprun keeps of a process's output (the
// agent's stderr, a setup, verify or teardown command's stdout or stderr,
// a terminal's output), redacted with red (redact.Redactor.Wrapped): a
// long secret wrapped over lines too; with cutStart, where s's beginning
// is a cut, the rest of a secret that the cut went through; with cutEnd,
// where its end may be one, an end that may begin a secret.
func redactOutput(red *redact.Redactor, s string, cutStart, cutEnd bool) string {
	return red.Wrapped(s, cutStart, cutEnd)
}

// exitReason says how the agent ended, once Exited is closed: "the agent
// was killed by SIGKILL", "the agent exited with code 2".
func (a *Agent) exitReason() string {
	code, sig := a.ExitStatus()
	switch {
	case sig != "":
		return fmt.Sprintf("the agent was killed by %s", sig)
	case code != nil:
		return fmt.Sprintf("the agent exited with code %d", *code)
	}
	return "the agent exited"
}

// CloseAfter stops the agent: it closes its stdin, waits up to eofWait for
// it to exit, sends SIGTERM to its process group, waits up to grace, then
// kills the group. Leftover members of the group are always killed. When
// ctx ends, the waits are cut short. CloseAfter waits for the connection's
// goroutines. Everything the agent wrote before it stopped is handled
// before the connection closes; only when ctx ends first is the rest
// dropped (counted by Conn.Dropped). Processes that left the group
// (daemons, setsid) are not killed here: the scenario's end kills them by
// their mark (package reap).
//
// The waits do not outlast deadline: each is clipped to what is left
// until it, and at the deadline the group is killed. A zero deadline is
// none. The deadline does not cut the handling of what the agent wrote:
// only ctx does.
//
// killed reports that the agent had to be killed: it did not exit within
// grace of SIGTERM (and of the end of its input before that). late
// reports that the deadline cut a wait short (or had passed already)
// while the agent still ran.
func (a *Agent) CloseAfter(ctx context.Context, eofWait, grace time.Duration, deadline time.Time) (killed, late bool) {
	a.closeOnce.Do(func() {
		wait := func(grace time.Duration) bool {
			if isClosed(a.Exited()) {
				return true // already gone: no wait, no signal needed
			}
			d := grace
			if !deadline.IsZero() {
				if left := time.Until(deadline); left < d {
					d = max(left, 0)
					late = true // unless the agent exits in time
				}
			}
			exited := d > 0 && a.waitExit(ctx, d)
			if exited {
				late = false
			}
			return exited
		}
		a.stdin.Close()
		if !wait(eofWait) {
			a.Signal(syscall.SIGTERM)
			killed = !wait(grace)
		}
		a.finish(ctx)
	})
	return killed, late
}

// Kill stops the agent at once: SIGKILL to its whole process group. What it
// wrote before is still handled.
func (a *Agent) Kill() {
	a.closeOnce.Do(func() {
		a.stdin.Close()
		a.finish(context.Background())
	})
}

// finish kills the agent's group, waits until everything it wrote was
// handled, or until ctx ends (then the rest is dropped), and closes the
// connection.
func (a *Agent) finish(ctx context.Context) {
	a.Process.Kill()
	<-a.Exited()
	waitFor(ctx, a.Done())      // its output read to its ends, or given up on
	waitFor(ctx, a.Conn.Done()) // and dispatched; when ctx ends first, what is not dispatched yet is dropped
	a.Conn.Close()
	<-a.Done()
}

// exitsWithin reports whether the agent exits, having begun to already
// or within d (a wait that ctx cuts short); it returns once the agent has
// exited (ExitStatus is known) or the wait is over. An agent that closed its
// output or its input may be about to exit (it closed them first): it is
// waited for, its input still open, so that how it ended, not which end
// acprun noticed first, says what became of it, every run.
func (a *Agent) exitsWithin(ctx context.Context, d time.Duration) bool {
	if !a.Exiting() && !a.waitExit(ctx, d) {
		return false
	}
	<-a.Exited()
	return true
}

// endReason says how an agent that exited or closed its output ended. It
// is waited for as exitsWithin says, up to grace or until ctx ends, so that
// the reason is how it exited when it does, every run, not which of its
// ends acprun noticed first.
func (a *Agent) endReason(ctx context.Context, grace time.Duration) string {
	if a.exitsWithin(ctx, grace) {
		return a.exitReason()
	}
	return "the agent closed its output"
}

func (a *Agent) waitExit(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.Exited():
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}
