package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/acprun/acprun/acp"
	"golang.org/x/sys/unix"
)

// stderrTailBytes is how much of an agent's stderr is kept for the results.
const stderrTailBytes = 32 << 10

// drainDelay is how long acprun waits, after the agent exited, for the end
// of its stdout and stderr before it stops reading them itself: a grandchild
// that inherited the pipes must not keep acprun waiting. It bounds only that
// wait: everything read by then is still handled.
const drainDelay = 200 * time.Millisecond

// agentConfig says how to start an agent process.
type agentConfig struct {
	Argv    []string
	Env     []string // the complete environment of the process
	Dir     string   // working directory of the process
	Handler acp.Handler
	Conn    *acp.Options
}

// Agent is one agent subprocess, in its own process group, and the ACP
// connection over its stdin and stdout.
type Agent struct {
	Conn *acp.Conn

	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	// tail keeps what the agent writes to stderr, for the scenario it
	// serves; tailMu guards the pointer and is held from each read of the
	// pipe to its write into the tail (see TakeStderr).
	tailMu sync.Mutex
	tail   *tailBuffer

	exited    chan struct{} // closed once the leader has been waited for
	drained   chan struct{} // closed once the output was read to its end (or given up on)
	state     *os.ProcessState
	stderrEOF chan struct{}
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
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Env = cfg.Env
	cmd.Dir = cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	closeAll(inR, outW, errW) // the child holds its own copies

	a := &Agent{
		cmd:       cmd,
		pgid:      cmd.Process.Pid,
		stdin:     inW,
		stdout:    outR,
		stderr:    errR,
		tail:      newTailBuffer(stderrTailBytes),
		exited:    make(chan struct{}),
		drained:   make(chan struct{}),
		stderrEOF: make(chan struct{}),
	}
	a.Conn = acp.NewConn(outR, inW, cfg.Handler, cfg.Conn)
	go a.drainStderr()
	go a.wait()
	return a, nil
}

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
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// drainStderr reads the agent's stderr into its tail until its end. Each
// read and its write into the tail happen under tailMu, so that TakeStderr
// finds every byte either still in the pipe or in the tail.
func (a *Agent) drainStderr() {
	defer close(a.stderrEOF)
	defer a.stderr.Close()
	buf := make([]byte, 32<<10)
	rc, err := a.stderr.SyscallConn()
	if err != nil { // not a pollable pipe: plain reads
		for {
			n, err := a.stderr.Read(buf)
			a.tailMu.Lock()
			a.tail.Write(buf[:n])
			a.tailMu.Unlock()
			if err != nil {
				return
			}
		}
	}
	for ended := false; !ended; {
		err := rc.Read(func(fd uintptr) bool {
			a.tailMu.Lock()
			defer a.tailMu.Unlock()
			n, err := unix.Read(int(fd), buf)
			switch {
			case n > 0:
				a.tail.Write(buf[:n])
			case err == unix.EAGAIN:
				return false // wait until there is more
			case err != unix.EINTR:
				ended = true // the end of the pipe, or an error
			}
			return true
		})
		if err != nil {
			return // closed (see wait)
		}
	}
}

// TakeStderr returns what the agent wrote to stderr since the last
// TakeStderr (or its start), including what is in the pipe but not read
// yet: everything the agent wrote before the call. What it writes from
// then on goes to a new tail.
func (a *Agent) TakeStderr() string {
	a.tailMu.Lock()
	defer a.tailMu.Unlock()
	if rc, err := a.stderr.SyscallConn(); err == nil {
		buf := make([]byte, 32<<10)
		_ = rc.Control(func(fd uintptr) { // an error: closed, everything was read
			for {
				n, err := unix.Read(int(fd), buf)
				if n > 0 {
					a.tail.Write(buf[:n])
					continue
				}
				if err != unix.EINTR {
					return // empty for now (EAGAIN), ended, or failed
				}
			}
		})
	}
	s := a.tail.String()
	a.tail = newTailBuffer(stderrTailBytes)
	return s
}

// wait reaps the leader, then waits up to drainDelay for the end of its
// pipes (grandchildren may hold them) and stops reading them if it does not
// come; then it waits until everything read has been dispatched.
func (a *Agent) wait() {
	defer close(a.drained)
	_ = a.cmd.Wait() // the exit status is read from ProcessState
	a.state = a.cmd.ProcessState
	close(a.exited)
	t := time.NewTimer(drainDelay)
	defer t.Stop()
	stdoutEOF, stderrEOF := a.Conn.ReadDone(), a.stderrEOF
	for stdoutEOF != nil || stderrEOF != nil {
		select {
		case <-stdoutEOF:
			stdoutEOF = nil
		case <-stderrEOF:
			stderrEOF = nil
		case <-t.C:
			if stdoutEOF != nil {
				a.Conn.StopReading() // what was read is still dispatched
			}
			if stderrEOF != nil {
				a.stderr.Close()
			}
			stdoutEOF, stderrEOF = nil, nil
		}
	}
	<-a.Conn.Done()
}

// Exited is closed once the agent process has exited.
func (a *Agent) Exited() <-chan struct{} { return a.exited }

// ExitStatus reports how the process ended: its exit code, or the signal
// that killed it. It is only meaningful after Exited is closed.
func (a *Agent) ExitStatus() (code *int, signal string) {
	select {
	case <-a.exited:
	default:
		return nil, ""
	}
	if ws, ok := a.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, unix.SignalName(ws.Signal())
	}
	c := a.state.ExitCode()
	return &c, ""
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

// StderrTail returns the last bytes the agent wrote to stderr (since the
// last TakeStderr).
func (a *Agent) StderrTail() string {
	a.tailMu.Lock()
	defer a.tailMu.Unlock()
	return a.tail.String()
}

// Pgid is the agent's process group id.
func (a *Agent) Pgid() int { return a.pgid }

// Close stops the agent: it closes its stdin, waits up to grace for it to
// exit, sends SIGTERM to its process group, waits up to grace again, then
// kills the group. Leftover members of the group are always killed. When ctx
// ends, the waits are cut short. Close waits for the connection's goroutines.
// Everything the agent wrote before it stopped is handled before the
// connection closes; only when ctx ends first is the rest dropped (counted
// by Conn.Dropped). Processes that left the group (daemons, setsid) are
// not killed here: the scenario's end kills them by their mark (package
// reap).
//
// It reports whether the agent had to be killed: it did not exit within
// grace of SIGTERM (and of the end of its input before that).
func (a *Agent) Close(ctx context.Context, grace time.Duration) (killed bool) {
	killed, _ = a.CloseBy(ctx, grace, time.Time{})
	return killed
}

// CloseBy is Close with a deadline that the waits do not outlast: each
// grace is clipped to what is left until deadline, and at the deadline the
// group is killed. A zero deadline is none. late reports that the deadline
// cut a wait short (or had passed already) while the agent still ran.
// The deadline does not cut the handling of what the agent wrote: only
// ctx does.
func (a *Agent) CloseBy(ctx context.Context, grace time.Duration, deadline time.Time) (killed, late bool) {
	return a.CloseAfter(ctx, grace, grace, deadline)
}

// CloseAfter is CloseBy with its own wait between the end of the agent's
// input and SIGTERM: eofWait instead of grace (after a clean end, see
// cleanEndWait). grace is still the wait after SIGTERM.
func (a *Agent) CloseAfter(ctx context.Context, eofWait, grace time.Duration, deadline time.Time) (killed, late bool) {
	a.closeOnce.Do(func() {
		wait := func(grace time.Duration) bool {
			select {
			case <-a.exited:
				return true // already gone: no wait, no signal needed
			default:
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
			a.signalGroup(syscall.SIGTERM)
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

func (a *Agent) finish(ctx context.Context) {
	a.signalGroup(syscall.SIGKILL)
	<-a.exited
	select {
	case <-a.drained:
	case <-ctx.Done(): // stop now: what is not dispatched yet is dropped
	}
	a.Conn.Close()
	<-a.stderrEOF
	<-a.drained
}

func (a *Agent) waitExit(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.exited:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (a *Agent) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-a.pgid, sig) // ESRCH: the group is already gone
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// String returns the tail as valid UTF-8 (invalid bytes become U+FFFD), marked
// when its beginning was cut off.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if !t.cut {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	// The cut may have split a character: drop its continuation bytes.
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return "[…]" + strings.ToValidUTF8(string(b), "\uFFFD")
}
