package testkit

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/reap"
)

// Stat is what /proc/PID/stat says of a process.
type Stat struct {
	State string // R, S, D, Z (zombie), X (dead)…; "" when the line does not parse
	Pgrp  int    // process group
	Flags uint64 // the kernel's PF_* flags
}

// pfExiting is the flag PF_EXITING, set on a process on its way out.
const pfExiting = 0x4

// ReadStat reads process pid's /proc/PID/stat. Its error is the read's:
// the process is gone, or there is no /proc.
func ReadStat(pid int) (Stat, error) {
	fields, err := reap.ProcStat(pid)
	if err != nil {
		return Stat{}, err
	}
	if len(fields) < 7 {
		return Stat{}, nil
	}
	pgrp, _ := strconv.Atoi(fields[2])
	flags, _ := strconv.ParseUint(fields[6], 10, 64)
	return Stat{State: fields[0], Pgrp: pgrp, Flags: flags}, nil
}

// Ending reports whether the process is a zombie, dead or exiting.
func (s Stat) Ending() bool {
	return s.State == "Z" || s.State == "X" || s.Flags&pfExiting != 0
}

// Dying reports whether process pid is gone or on its way out: a zombie,
// exiting, or with SIGKILL pending, or SIGTERM pending that it neither
// blocks, ignores nor catches. A killed process counts as dead however
// long the kernel takes to tear it down, so a check does not depend on the
// machine's speed.
func Dying(pid int) bool {
	st, err := ReadStat(pid)
	if err != nil {
		return true
	}
	if st.State == "" {
		return false
	}
	if st.Ending() {
		return true
	}
	masks, err := reap.SignalMasks(pid)
	if err != nil {
		return true
	}
	bit := func(sig syscall.Signal) uint64 { return 1 << (uint(sig) - 1) }
	pending := masks["SigPnd"] | masks["ShdPnd"]
	handled := masks["SigBlk"] | masks["SigIgn"] | masks["SigCgt"]
	return pending&bit(syscall.SIGKILL) != 0 ||
		pending&bit(syscall.SIGTERM) != 0 && handled&bit(syscall.SIGTERM) == 0
}

// Cmdline is process pid's command line, its arguments joined by spaces.
func Cmdline(pid int) string {
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
}

// Environ is process pid's environment, NAME=value strings.
func Environ(pid int) ([]string, error) {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(env), "\x00"), "\x00"), nil
}

// Processes lists, in pid order, the processes of /proc that match
// selects; it skips the test where there is no /proc.
func Processes(t testing.TB, match func(pid int) bool) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && match(pid) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// InDir selects, for Processes, the processes whose working directory is
// dir or inside it.
func InDir(dir string) func(pid int) bool {
	return func(pid int) bool {
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		return err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/"))
	}
}

// WithEnv selects, for Processes, the processes whose environment holds
// kv (NAME=value).
func WithEnv(kv string) func(pid int) bool {
	return func(pid int) bool {
		env, err := Environ(pid)
		return err == nil && slices.Contains(env, kv)
	}
}

// InGroup selects, for Processes, the members of process group pgid that
// are neither zombies nor ending.
func InGroup(pgid int) func(pid int) bool {
	return func(pid int) bool {
		st, err := ReadStat(pid)
		return err == nil && st.State != "" && st.Pgrp == pgid && !st.Ending()
	}
}

// Leftovers lists the processes match selects that are not Dying, each as
// "pid (command line)", and kills them when the test ends: what a test
// that nothing may be left behind reports.
func Leftovers(t testing.TB, match func(pid int) bool) []string {
	t.Helper()
	var live []string
	for _, pid := range Processes(t, match) {
		if Dying(pid) {
			continue
		}
		live = append(live, fmt.Sprintf("%d (%s)", pid, Cmdline(pid)))
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	return live
}
