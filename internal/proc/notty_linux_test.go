package proc_test

import (
	"strconv"
	"testing"

	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/reap"
)

// TestOwnSession: every process Start starts, sandboxed or not, leads a
// session of its own, and so a process group of its own, with no
// controlling terminal: its session id and process group id are its pid,
// its tty_nr 0.
func TestOwnSession(t *testing.T) {
	p := start(t, proc.Config{Args: []string{"sleep", "1000"}})
	f, err := reap.ProcStat(p.Pid())
	if err != nil || len(f) < 5 {
		t.Fatalf("/proc/%d/stat: %q, %v", p.Pid(), f, err)
	}
	pid := strconv.Itoa(p.Pid())
	if pgrp, sid, tty := f[2], f[3], f[4]; pgrp != pid || sid != pid || tty != "0" {
		t.Errorf("process %s: process group %s, session %s, tty_nr %s; want %s, %s, 0", pid, pgrp, sid, tty, pid, pid)
	}
}
