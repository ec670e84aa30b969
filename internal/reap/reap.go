// Package reap finds and kills the processes a scenario started that
// outlived their process group: daemons that double-forked and called
// setsid, `setsid cmd &` in a terminal or a hook, nohup'd servers.
//
// Everything acprun starts for a scenario (its agent, the agent's
// terminals, setup, verify and teardown commands, the git commands of its
// workspace) carries a Mark in its environment, in the variable Var;
// children inherit it, whatever process group or session they move to.
// Mark.Kill scans /proc for the processes
// that carry the mark (or a mark made from it with Sub) and kills them
// with SIGKILL, scanning again until none is left alive, so a process
// that forks while it is being killed is caught too. The marks of a run's
// scenarios are Subs of the run's, which the run's guard (StartGuard)
// kills once acprun has exited, however it exited.
//
// What is guaranteed, and where:
//   - Linux: every process of acprun's user whose environment, as it was
//     when the process last called exec, holds the mark is killed. Not
//     found are a process that exec'd with an environment without the mark
//     (env -i, or a program that rebuilds its environment from scratch), a
//     process that changed its user id or made itself non-dumpable (its
//     environment cannot be read), and a process in another PID namespace.
//     Such a process is still killed when it stayed in its process group.
//     A process caught in the middle of an exec, whose environment cannot
//     be read for that moment, is looked at again until its exec is done
//     (for at most 2s; at most 100ms when its arguments read already,
//     since a few processes have no environment at all). Init is never
//     killed.
//   - Other systems: marks are set, Kill does nothing; only the process
//     groups are killed.
package reap

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Var is the environment variable that holds the mark.
const Var = "ACPRUN_RUN_ID"

// Mark is a value of Var that names the processes of one run, of one
// scenario attempt in it, or of one command in that. The zero Mark marks nothing and kills
// nothing.
type Mark string

// New returns a new random mark.
func New() Mark { return Mark(random()) }

// Sub returns a new mark inside m: the processes marked with it are killed
// by its own Kill and by m's. A Sub of the zero Mark is a new mark.
func (m Mark) Sub() Mark {
	if m == "" {
		return New()
	}
	return m + "." + Mark(random()[:8])
}

// Of returns the mark set in env ("" when it has none); the last
// definition wins, as in exec.
func Of(env []string) Mark {
	var m Mark
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, Var+"="); ok {
			m = Mark(v)
		}
	}
	return m
}

// Set returns a copy of env with Var set to m, first, and every other
// definition of Var removed. The zero Mark returns env as it is.
func (m Mark) Set(env []string) []string {
	if m == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	out = append(out, Var+"="+string(m))
	for _, kv := range env {
		if !strings.HasPrefix(kv, Var+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// covers reports whether a process whose Var is v was marked by m or by a
// Sub of it.
func (m Mark) covers(v string) bool {
	return v == string(m) || strings.HasPrefix(v, string(m)+".")
}

// Process is a process Kill killed.
type Process struct {
	Pid int
	// Command is its command line, arguments joined by spaces.
	Command string
}

// ProcStat reads the fields of process pid's /proc/PID/stat that follow
// its command name (which may hold anything): state ppid pgrp session
// tty_nr tpgid flags … (proc(5)); none when the line does not parse. Its
// error is the read's: the process is gone, or there is no /proc.
func ProcStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, nil
	}
	return strings.Fields(string(b[i+1:])), nil
}

// SignalMasks reads the signal masks of process pid's /proc/PID/status
// by name (SigPnd, ShdPnd, SigBlk, SigIgn, SigCgt: bit n-1 for signal n),
// with every other field whose value reads as a hexadecimal number. Its
// error is the read's.
func SignalMasks(pid int) (map[string]uint64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	masks := map[string]uint64{}
	for line := range strings.SplitSeq(string(status), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64); err == nil {
				masks[name] = m
			}
		}
	}
	return masks, nil
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
