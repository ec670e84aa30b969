// Package proc starts the processes acprun runs for a scenario (its agent,
// the agent's terminals, setup, verify and teardown commands, the git
// commands of its workspace) and supervises them, one way for all:
//   - each starts in a session of its own (setsid), and so in a process
//     group of its own, with no controlling terminal, with the environment
//     and working directory it is given: whatever it runs cannot open the
//     terminal acprun may run in (/dev/tty fails with ENXIO), to prompt a
//     person who is not there and wait for keystrokes, to write to it past
//     acprun, or to push input into it (TIOCSTI);
//   - when its leader exits, the whole group is killed (SIGKILL) before the
//     leader is reaped, so that the group's id cannot have been reused;
//     once the leader is reaped the group is never signalled again;
//   - with Config.Reap it carries a mark of its own (see package reap),
//     inside the mark of its environment, and the processes that left the
//     group (setsid, daemons) and carry the mark are killed once the leader
//     has exited;
//   - its output pipes are read to their ends; past DrainDelay after that,
//     reading stops as soon as a pipe is empty: everything the group wrote
//     is read however slow the machine, and a process that left the group
//     and still holds a pipe cannot keep anyone waiting;
//   - on Linux it is killed (SIGKILL) when acprun dies, however acprun
//     dies (see dieWithAcprun); Start must not be called from a goroutine
//     locked to its thread (runtime.LockOSThread) that may end locked;
//   - an Output keeps a bounded tail of what it read, cut at a UTF-8
//     character boundary.
package proc

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acprun/acprun/internal/reap"
)

// DrainDelay is how long the output pipes of a process are read after its
// leader exited and its group was killed, waiting for their ends, before
// a pipe that is empty is taken for held by a process that left the
// group: reading stops then. Everything read is kept.
const DrainDelay = 200 * time.Millisecond

// maxDrain bounds the reading of a pipe that is never empty after the
// leader's exit: a process that left the group writes to it without end.
const maxDrain = 10 * time.Second

// drainPoll is how often a pipe that still holds bytes past DrainDelay is
// looked at again.
const drainPoll = 10 * time.Millisecond

// Config says what to start.
type Config struct {
	// Path is the program; "" is Args[0], looked up in acprun's PATH when
	// it has no slash.
	Path string
	// Args is the command line, Args[0] included.
	Args []string
	// Env is the complete environment (but for reap.Var, see Reap).
	Env []string
	// Dir is the working directory; "" is acprun's.
	Dir string
	// Stdin, Stdout and Stderr are handed to the process (nil: the null
	// device). Start closes them, once the process has its own copies or
	// has failed to start. Stdout and Stderr may be one file.
	Stdin, Stdout, Stderr *os.File
	// Readers read the other ends of the pipes the process writes to:
	// once its leader has exited (and its mark was swept), they read to
	// their ends, and are stopped past DrainDelay once their pipe is empty
	// (see DrainDelay); Done is closed once they all have stopped.
	Readers []Reader
	// Reap gives the process a mark of its own, inside the one Env holds:
	// once the leader has exited, the processes that carry it are killed.
	// Without it, the marks in Env are the caller's to sweep.
	Reap bool
	// Sandbox, when set, puts the command in a sandbox: Start runs the
	// command line, environment and files it returns for Args (Path first,
	// when set) and Env (marked, with Reap), with Env's mark (reap.Var)
	// set in that environment too: the processes that run the sandbox
	// carry the command's mark, whatever environment they start with.
	Sandbox Wrap
}

// Wrap returns the command line and environment that run argv with env
// inside a sandbox, and the files to hand the process as its descriptors
// 3, 4, … (sandbox.Applied.Wrap); Start closes them once the process has
// its own copies. The environment is the process's own, which need not be
// env (the command inside may get env by other means). An error starts
// nothing.
type Wrap func(argv, env []string) (argv2, env2 []string, files []*os.File, err error)

// Reader reads a pipe a process writes to (an Output, an acp.Conn).
type Reader interface {
	// ReadDone is closed once reading has stopped.
	ReadDone() <-chan struct{}
	// ReadToEnd is called once the leader has exited: from then on the
	// reader reads the pipe as fast as it can, without holding back for
	// whoever consumes what it read, so that what the process wrote
	// before it exited is read before DrainDelay ends.
	ReadToEnd()
	// StopReading stops reading; what was read is kept.
	StopReading()
	// Unread is how many bytes the pipe holds that were not read yet
	// (see PipeUnread).
	Unread() int
}

// Process is a process in a session, and a process group, of its own.
type Process struct {
	cmd     *exec.Cmd
	pid     int // also the process group id
	mark    reap.Mark
	readers []Reader

	mu   sync.Mutex
	gone bool // the leader exited: its group was killed, its id may be reused

	exited chan struct{} // closed once the leader was reaped
	done   chan struct{} // closed once its marks were swept and its output read
	code   *int
	signal string
}

// Start starts a process as cfg says. On Linux the process is killed
// when the thread that called Start exits: it must not be a goroutine's
// locked thread (runtime.LockOSThread) that may end (see dieWithAcprun).
func Start(cfg Config) (*Process, error) {
	var extra []*os.File // the sandbox's
	defer func() {
		for _, f := range append([]*os.File{cfg.Stdin, cfg.Stdout, cfg.Stderr}, extra...) {
			if f != nil {
				f.Close() // Stdout and Stderr may be one file: closed twice
			}
		}
	}()
	if len(cfg.Args) == 0 {
		return nil, errors.New("empty command")
	}
	var mark reap.Mark
	if cfg.Reap {
		mark = reap.Of(cfg.Env).Sub()
		cfg.Env = mark.Set(cfg.Env)
	}
	if cfg.Sandbox != nil {
		argv := slices.Clone(cfg.Args)
		if cfg.Path != "" {
			argv[0] = cfg.Path
		}
		// The command's environment, marked, goes to the sandbox; the
		// process started gets the one Wrap returns (its helper's: not
		// the command's), with the same mark.
		wrapped, env, files, err := cfg.Sandbox(argv, cfg.Env)
		if err != nil {
			return nil, err // Wrap's errors name the sandbox
		}
		cfg.Args, cfg.Path, extra = wrapped, wrapped[0], files
		cfg.Env = reap.Of(cfg.Env).Set(env)
		if cfg.Env == nil {
			cfg.Env = []string{} // not acprun's: exec.Cmd's nil Env is the parent's
		}
	}
	cmd := &exec.Cmd{Path: cfg.Path, Args: cfg.Args}
	if cfg.Path == "" {
		cmd = exec.Command(cfg.Args[0], cfg.Args[1:]...)
	}
	p := &Process{cmd: cmd, mark: mark, readers: cfg.Readers, exited: make(chan struct{}), done: make(chan struct{})}
	cmd.Env, cmd.Dir = cfg.Env, cfg.Dir
	// Files, not other readers or writers: exec hands them to the child
	// and starts no copying goroutine of its own.
	if cfg.Stdin != nil {
		cmd.Stdin = cfg.Stdin
	}
	if cfg.Stdout != nil {
		cmd.Stdout = cfg.Stdout
	}
	if cfg.Stderr != nil {
		cmd.Stderr = cfg.Stderr
	}
	cmd.ExtraFiles = extra
	// A new session, with no controlling terminal, is a new process group
	// too, whose id is the leader's pid (setpgid would fail in it).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	dieWithAcprun(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.pid = cmd.Process.Pid
	go p.wait()
	return p, nil
}

// wait waits for the leader and kills its group (waitLeader), sweeps its
// mark, then waits for the readers to read their ends (see drain).
func (p *Process) wait() {
	defer close(p.done)
	p.waitLeader()
	p.code, p.signal = exitStatus(p.cmd.ProcessState)
	close(p.exited)
	p.mark.Kill() // what left the group; its pipes close with it
	for _, r := range p.readers {
		r.ReadToEnd()
	}

	drain(p.readers)
}

// drain waits for the readers to read their pipes to the end, and returns
// once they all have stopped. Past DrainDelay, whoever still holds a pipe
// left the group: its reader is stopped as soon as the pipe is empty, so
// that what the group wrote is read however long it takes, and only what
// a process that left the group writes later may be left unread. A pipe
// still not empty after maxDrain is given up on.
func drain(readers []Reader) {
	expired, stop1 := after(DrainDelay)
	defer stop1()
	cutOff, stop2 := after(maxDrain)
	defer stop2()
	for _, r := range readers {
		drainOne(r, expired, cutOff)
	}
	for _, r := range readers {
		<-r.ReadDone()
	}
}

// drainOne waits for r to read its pipe to the end; once expired is
// closed it stops r as soon as the pipe is empty, once cutOff is at once.
func drainOne(r Reader, expired, cutOff <-chan struct{}) {
	select {
	case <-r.ReadDone():
		return
	case <-expired:
	}
	poll := time.NewTicker(drainPoll)
	defer poll.Stop()
	for r.Unread() > 0 {
		select {
		case <-r.ReadDone():
			return
		case <-cutOff:
			r.StopReading()
			return
		case <-poll.C:
		}
	}
	r.StopReading() // whoever still holds its pipe left the group
}

// after returns a channel closed once d has passed, and a function that
// stops the timer.
func after(d time.Duration) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	t := time.AfterFunc(d, func() { close(ch) })
	return ch, func() { t.Stop() }
}

// leaderExited kills the group of the leader, which has exited but is
// not reaped yet, so that nothing else can have its id.
func (p *Process) leaderExited() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = unix.Kill(-p.pid, unix.SIGKILL)
	p.gone = true
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

// Pid is the leader's process id, which is also its process group id.
func (p *Process) Pid() int { return p.pid }

// Exited is closed once the leader has exited, its group was killed and
// the leader reaped; ExitStatus is known from then on.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Done is closed once the leader has exited, the processes of its mark
// were killed (Config.Reap) and the readers have stopped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitStatus reports how the leader ended: its exit code, or the signal
// that killed it ("SIGKILL"; "unknown" when it could not be learnt). Both
// are zero until Exited is closed.
func (p *Process) ExitStatus() (code *int, signal string) {
	select {
	case <-p.exited:
		return p.code, p.signal
	default:
		return nil, ""
	}
}

// Signal sends sig to the process group, unless its leader has exited:
// then the group was killed already.
func (p *Process) Signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		_ = unix.Kill(-p.pid, sig) // ESRCH: the group is already gone
	}
}

// Kill sends SIGKILL to the process group (see Signal).
func (p *Process) Kill() { p.Signal(unix.SIGKILL) }
