//go:build linux

package reap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxRounds bounds the scans of one Kill. A round kills every marked
// process the scan found alive; only a child forked before its parent was
// killed, and missed by the scan, is left for the next round, so a round
// is needed per generation of such forks: a few, even for a fork loop.
const maxRounds = 100

// pfExiting is the flag of /proc/PID/stat set on a process on its way out.
const pfExiting = 0x4

// Kill kills (SIGKILL) every process marked with m or with a Sub of m,
// and returns them in the order they were found. It scans /proc again
// after every round of kills, until a scan finds no marked process alive
// (at most maxRounds scans). A process already dying (a zombie, exiting,
// SIGKILL pending) counts as gone: it can run no more code. The processes
// are signalled through pidfds where the kernel has them (Linux 5.3), so a
// process id reused meanwhile is never hit. Kill does not reap: a killed
// process is reaped by its parent, or by init.
func (m Mark) Kill() []Process {
	if m == "" {
		return nil
	}
	var killed []Process
	seen := map[int]bool{}
	for range maxRounds {
		alive := 0
		for _, pid := range pids() {
			p, ok := m.kill(pid)
			if !ok {
				continue
			}
			alive++
			if !seen[pid] {
				seen[pid] = true
				killed = append(killed, p)
			}
		}
		if alive == 0 {
			break
		}
	}
	return killed
}

// pids lists the processes in /proc, acprun itself left out.
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
		if pid, err := strconv.Atoi(name); err == nil && pid != self {
			out = append(out, pid)
		}
	}
	return out
}

// kill kills process pid when it carries m and is not dying already, and
// reports whether it did.
func (m Mark) kill(pid int) (Process, bool) {
	if !m.marks(pid) {
		return Process{}, false
	}
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == nil:
		defer unix.Close(fd)
	case errors.Is(err, unix.ESRCH):
		return Process{}, false
	default:
		fd = -1 // no pidfds: signal by id
	}
	// Checked again with the pidfd open: what it reads now is the
	// process the pidfd signals, or that process is gone and the signal
	// fails.
	if !m.marks(pid) || dying(pid) {
		return Process{}, false
	}
	p := Process{Pid: pid, Command: cmdline(pid)}
	if fd >= 0 {
		err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	} else {
		err = unix.Kill(pid, unix.SIGKILL)
	}
	return p, err == nil
}

// marks reports whether process pid's environment holds m (or a Sub of
// it). An environment that cannot be read (another user's process, a
// zombie's, which is empty) holds nothing.
func (m Mark) marks(pid int) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(Var+"=")); ok && m.covers(string(v)) {
			return true
		}
	}
	return false
}

// dying reports whether process pid is gone or on its way out: a zombie,
// exiting, or with SIGKILL pending.
func dying(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')') // the command name may hold anything
	if i < 0 {
		return false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 7 {
		return false
	}
	if fields[0] == "Z" || fields[0] == "X" {
		return true
	}
	if flags, _ := strconv.ParseUint(fields[6], 10, 64); flags&pfExiting != 0 {
		return true
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true
	}
	const sigkill = 1 << (unix.SIGKILL - 1)
	for line := range strings.SplitSeq(string(status), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64); err == nil && mask&sigkill != 0 {
			return true
		}
	}
	return false
}

// cmdline is process pid's command line, its arguments joined by spaces.
func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}
