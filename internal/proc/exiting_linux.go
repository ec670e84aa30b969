package proc

import (
	"strconv"

	"github.com/acprun/acprun/internal/reap"
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
	f, err := reap.ProcStat(p.pid)
	if err != nil {
		return true
	}
	if len(f) < 7 {
		return false
	}
	if s := f[0]; s == "Z" || s == "X" || s == "x" {
		return true
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&pfExiting != 0
}
