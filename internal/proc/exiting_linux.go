package proc

import (
	"bytes"
	"os"
	"strconv"
)

// pfExiting is the kernel's PF_EXITING flag of a task (include/linux/
// sched.h): set when it starts to exit, before it closes its files.
const pfExiting = 0x4

// Exiting reports whether the leader has exited, or has begun to: its
// exit started before its files were closed, so a pipe it read from that
// refuses writes (EPIPE) with the leader not exiting was closed by a
// leader that lives on. Read from /proc/PID/stat: its state (a zombie) and
// its flags (PF_EXITING).
func (p *Process) Exiting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone { // not reaped before gone is set: the id is still the leader's
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ppid pgrp session tty_nr tpgid flags …; comm may
	// hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 7 {
		return false
	}
	if s := string(f[0]); s == "Z" || s == "X" || s == "x" {
		return true
	}
	flags, err := strconv.ParseUint(string(f[6]), 10, 64)
	return err == nil && flags&pfExiting != 0
}
