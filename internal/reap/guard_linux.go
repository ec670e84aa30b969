//go:build linux

package reap

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func init() {
	if m := os.Getenv(GuardVar); m != "" {
		guard(Mark(m), os.Stdin)
		os.Exit(0)
	}
}

// StartGuard starts the guard of a run whose processes carry m (or a Sub
// of it): the acprun executable exe (this executable again,
// /proc/self/exe, when exe is ""), whose init runs the guard, in a session of its own (a Ctrl-C to acprun's process group does
// not reach it), in /, with no environment but the mark in GuardVar (none
// of the run's secrets; and no Var: neither this run's Kill nor that of an
// acprun that runs this one as its agent kills the guard before it has
// done its work), no output, and as its input a pipe
// whose write end only acprun holds (close-on-exec: no process acprun
// starts inherits it). The guard waits for the end of that input, which
// comes with Close or when acprun exits, however it exits: the kernel
// closes acprun's descriptors. It then kills m (Kill), removes the
// directories given to Remove, and exits.
//
// The kernel kills the processes acprun started itself when it dies (see
// package proc); the guard finds the rest: what they started, in their
// process group or out of it, as long as it carries the mark.
func StartGuard(exe string, m Mark) (*Guard, error) {
	exe = cmp.Or(exe, "/proc/self/exe")
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: exe, Args: []string{"acprun-guard"}, Env: []string{GuardVar + "=" + string(m)},
		Dir: "/", Stdin: r, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("guard: %w", err)
	}
	g := &Guard{w: w, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // reaps it: nothing waits for this
		close(g.exited)
	}()
	return g, nil
}

// guard is the guard's process: it reads in, the paths to remove (see
// pending), until its end, then kills m and removes them. Signals meant
// for acprun's group or terminal do not end it before.
func guard(m Mark, in io.Reader) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	paths := pending(in)
	m.Kill()
	for _, p := range paths {
		_ = RemoveTree(p) // a directory an agent made read-only in it included
	}
}
