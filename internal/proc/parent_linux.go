package proc

import "syscall"

// dieWithAcprun has the kernel send the process SIGKILL when acprun dies,
// however it dies (SIGKILL, the OOM killer, a CI job's timeout): without
// it, an agent that ignores the end of its input would run on, with the
// run's environment, in a process group no one kills.
//
// The kernel sends it when the thread that started the process exits, not
// the process (golang/go#27505). Go ends a thread only when a goroutine
// that locked itself to it (runtime.LockOSThread) returns without
// unlocking: Start must not be called from such a goroutine. None in
// acprun is (the only one that locks its thread is the sandbox helper's,
// in a process of its own, right before its exec), so the thread lives as
// long as acprun does. The signal survives the exec of a command (not that
// of a set-user-ID program; bwrap's --die-with-parent covers a sandbox,
// see package sandbox), and reaches only the process: the rest of its
// group, and what left it, are the run's guard's to kill (see
// reap.StartGuard and docs/reliability.md).
func dieWithAcprun(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
