//go:build linux

package reap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// maxRounds bounds the scans of one Kill. A round kills every marked
// process the scan found alive; only a child forked before its parent was
// killed, and missed by the scan, is left for the next round, so a round
// is needed per generation of such forks: a few, even for a fork loop.
const maxRounds = 100

// Flags of /proc/PID/stat: a process on its way out, a kernel thread.
const (
	pfExiting = 0x4
	pfKthread = 0x00200000
)

// Kill kills (SIGKILL) every process marked with m or with a Sub of m,
// and returns them in the order /proc lists them. It scans /proc again
// after every round of kills, until a scan finds no marked process alive
// (at most maxRounds scans). A process already dying (a zombie, exiting,
// SIGKILL pending) counts as gone: it can run no more code. The processes
// are signalled through pidfds where the kernel has them (Linux 5.3), so a
// process id reused meanwhile is never hit. Kill does not reap: a killed
// process is reaped by its parent, or by init.
func (m Mark) Kill() []Process { return m.kill(0) }

// KillOutside is Kill for the marked processes that are not in process
// group pgid: those that left the group of a process that goes on running
// (an agent process kept for the next scenario, see runner). The group's
// own members are left alone.
func (m Mark) KillOutside(pgid int) []Process { return m.kill(pgid) }

// kill is Kill leaving out the members of process group keep (0: none).
func (m Mark) kill(keep int) []Process {
	if m == "" {
		return nil
	}
	var killed []Process
	seen := map[int]bool{}
	var unsure time.Time         // when a scan first found a process in an exec
	noEnv := map[int]time.Time{} // when a scan first read a process's environment empty, its arguments not
	// Only the rounds that killed count against maxRounds: a scan that
	// found a process in the middle of an exec waits for it, bounded by
	// maxExecWait, however slowly the machine runs the exec.
	for rounds := 0; rounds < maxRounds; {
		alive, unknown := 0, 0
		list := pids()
		for i, f := range m.scanAll(list, keep) {
			switch f.verdict {
			case unread:
				unknown++
			case noEnviron:
				first, ok := noEnv[list[i]]
				if !ok {
					first = time.Now()
					noEnv[list[i]] = first
				}
				if time.Since(first) < maxNoEnvWait {
					unknown++ // perhaps an exec between its arguments and its environment
				}
			case hit:
				alive++
				if pid := list[i]; !seen[pid] {
					seen[pid] = true
					killed = append(killed, f.p)
				}
			}
		}
		if alive == 0 && unknown > 0 {
			// Caught in the middle of an exec: look again once it is done.
			if unsure.IsZero() {
				unsure = time.Now()
			}
			if time.Since(unsure) < maxExecWait {
				time.Sleep(execPoll)
				continue
			}
		}
		if alive == 0 {
			break
		}
		rounds++
	}
	return killed
}

// found is what a scan did with one process.
type found struct {
	p       Process
	verdict verdict
}

// scanAll kills the processes of list that carry the mark, as scan.kill
// does, and returns what it did with each, in the order of list. It
// shares list among up to scanWorkers goroutines, a part each: a scan
// makes a few system calls for every process of the system, on the way
// from the agent's exit to the results, when the agent's core is free.
func (m Mark) scanAll(list []int, keep int) []found {
	out := make([]found, len(list))
	workers := min(runtime.GOMAXPROCS(0), scanWorkers, 1+len(list)/minScanPart)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(list)/workers, (w+1)*len(list)/workers
		part := func() {
			s := scan{mark: m, keep: keep, buf: make([]byte, 16<<10)}
			for i := lo; i < hi; i++ {
				out[i].p, out[i].verdict = s.kill(list[i])
			}
		}
		if w == workers-1 {
			part() // the last part on this goroutine
			continue
		}
		wg.Go(part)
	}
	wg.Wait()
	return out
}

// A scan shares its processes among at most scanWorkers goroutines, each
// with at least minScanPart processes: fewer are not worth a goroutine.
const (
	scanWorkers = 4
	minScanPart = 32
)

// A process in the middle of an exec has neither environment nor command
// line to read, from when its old memory is gone until the new program's
// is set up (its interpreter loaded): Kill scans again every execPoll,
// for at most maxExecWait, until the exec is done and its environment
// tells. The exec sets the arguments a moment before the environment: a
// process whose arguments read but whose environment reads empty is looked
// at again too, for at most maxNoEnvWait, after which it is taken for a
// process without an environment (a few daemons; init is never scanned).
const (
	execPoll     = time.Millisecond
	maxExecWait  = 2 * time.Second
	maxNoEnvWait = 100 * time.Millisecond
)

// pids lists the processes in /proc, acprun itself and init left out.
func pids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	self := os.Getpid()
	var out []int
	for _, name := range names {
		if pid, err := strconv.Atoi(name); err == nil && pid != self && pid != 1 {
			out = append(out, pid)
		}
	}
	return out
}

// A verdict is what kill did with a process.
type verdict int

const (
	miss      verdict = iota // not marked, or dying already
	hit                      // marked, and killed
	unread                   // alive, but its environment and arguments read empty
	noEnviron                // alive, its arguments read but its environment empty
)

// scan is one Kill's reading of /proc.
type scan struct {
	mark Mark
	keep int    // a process group whose members are left alone; 0 for none
	buf  []byte // for environments, grown as needed
}

// kill kills process pid when it carries the mark and is not dying
// already.
func (s *scan) kill(pid int) (Process, verdict) {
	if v := s.marked(pid); v != hit {
		return Process{}, v
	}
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == nil:
		defer unix.Close(fd)
	case errors.Is(err, unix.ESRCH):
		return Process{}, miss
	default:
		fd = -1 // no pidfds: signal by id
	}
	// Checked again with the pidfd open: what it reads now is the
	// process the pidfd signals, or that process is gone and the signal
	// fails. A process caught in an exec now is looked at again.
	if v := s.marked(pid); v != hit {
		return Process{}, v
	}
	if dying(pid) {
		return Process{}, miss
	}
	if s.keep != 0 && pgrp(pid) == s.keep {
		return Process{}, miss
	}
	p := Process{Pid: pid, Command: cmdline(pid)}
	if fd >= 0 {
		err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	} else {
		err = unix.Kill(pid, unix.SIGKILL)
	}
	if err != nil {
		return Process{}, miss
	}
	return p, hit
}

// marked says whether process pid's environment holds the mark (or a Sub
// of it): hit, or miss; unread when it read empty although the process
// lives, is no kernel thread and has no command line either: it is in
// the middle of an exec; noEnviron when its command line reads: it is at
// the end of an exec, or has no environment. An environment that cannot
// be read (another user's process) holds nothing.
func (s *scan) marked(pid int) verdict {
	for range 3 { // an empty read may be an exec's moment: read again
		env, err := s.environ(pid)
		switch {
		case err != nil:
			return miss
		case len(env) > 0:
			for kv := range bytes.SplitSeq(env, []byte{0}) {
				if v, ok := bytes.CutPrefix(kv, []byte(Var+"=")); ok && s.mark.covers(string(v)) {
					return hit
				}
			}
			return miss
		case dying(pid) || kernelThread(pid):
			return miss
		case len(cmdline(pid)) > 0:
			return noEnviron
		}
	}
	return unread // in the middle of an exec
}

// environ reads process pid's environment in one read: the kernel reads
// it from the process's memory as of that read, so an exec between two
// reads cannot cut it short.
func (s *scan) environ(pid int) ([]byte, error) {
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/environ", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Pread(fd, s.buf, 0)
		for err == unix.EINTR {
			n, err = unix.Pread(fd, s.buf, 0)
		}
		if err != nil {
			return nil, err
		}
		if n < len(s.buf) || len(s.buf) >= maxEnviron {
			return s.buf[:n], nil
		}
		s.buf = make([]byte, 4*len(s.buf))
	}
}

// maxEnviron bounds the environment read of a process; Set puts the mark
// first, so a longer one is cut after it.
const maxEnviron = 64 << 20

// dying reports whether process pid is gone or on its way out: a zombie,
// exiting, or with SIGKILL pending.
func dying(pid int) bool {
	state, flags, ok := stat(pid)
	if !ok {
		return true
	}
	if state == "Z" || state == "X" || flags&pfExiting != 0 {
		return true
	}
	masks, err := SignalMasks(pid)
	const sigkill = 1 << (unix.SIGKILL - 1)
	return err != nil || (masks["SigPnd"]|masks["ShdPnd"])&sigkill != 0
}

// pgrp is process pid's process group; 0 when it cannot be read.
func pgrp(pid int) int {
	fields, _ := ProcStat(pid)
	if len(fields) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(fields[2])
	return g
}

// kernelThread reports whether process pid is a kernel thread.
func kernelThread(pid int) bool {
	_, flags, ok := stat(pid)
	return ok && flags&pfKthread != 0
}

// stat reads the state (R, S, Z…) and flags of process pid; ok is false
// when the process is gone. A stat that cannot be parsed reads as running.
func stat(pid int) (state string, flags uint64, ok bool) {
	fields, err := ProcStat(pid)
	if err != nil {
		return "", 0, false
	}
	if len(fields) < 7 {
		return "R", 0, true
	}
	flags, _ = strconv.ParseUint(fields[6], 10, 64)
	return fields[0], flags, true
}

// cmdline is process pid's command line, its arguments joined by spaces.
func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}
