package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/acprun/acprun/mockagent"
)

// mockAgentCmd is `acprun mock-agent SCRIPT`: a scripted ACP agent on
// stdin/stdout, for tests, examples and dry runs without an LLM.
type mockAgentCmd struct {
	// Script is the path as given (not made absolute), so that errors
	// name the file as the user wrote it, like those of validate and run.
	Script string `arg:"" help:"YAML script the agent plays (format: see --help)."`
}

// Help is the long help: the whole script format.
func (c *mockAgentCmd) Help() string {
	return "Plays an ACP agent from a YAML script, speaking JSON-RPC on stdin/stdout.\n\n" + mockagent.Reference
}

// Run plays the script on stdin/stdout.
func (c *mockAgentCmd) Run(ctx context.Context, g *globals) error {
	s, err := mockagent.Load(c.Script)
	if err != nil {
		return usageError(g, err)
	}
	if s.IgnoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	err = mockagent.Run(ctx, s, interruptibleStdin(g.Stdin), g.Stdout, g.Stderr)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return exitError{code: exitInterrupted}
	}
	return exitError{code: exitAgent, err: err}
}

// interruptibleStdin returns the process's stdin in non-blocking mode, so
// that the Go runtime polls it and closing it ends a pending Read:
// otherwise a SIGTERM could not stop the agent while the client keeps its
// stdin open. Another reader, and a terminal, are left as they are (the
// mode would outlive the process).
func interruptibleStdin(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok || f != os.Stdin || term.IsTerminal(int(f.Fd())) {
		return r
	}
	if err := syscall.SetNonblock(syscall.Stdin, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(syscall.Stdin), "/dev/stdin")
}
