package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/acprun/acprun/internal/srcerr"
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
		var perr *srcerr.Error
		if errors.As(err, &perr) {
			return usageError(g, err) // one positioned error per line, each with its source line
		}
		return exitError{code: exitUsage, err: err}
	}
	if s.IgnoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	stdin := g.Stdin
	if f, ok := stdin.(*os.File); ok && f == os.Stdin {
		stdin = interruptibleStdin(f)
	}
	err = mockagent.Run(ctx, s, stdin, g.Stdout, g.Stderr)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return exitError{code: exitInterrupted}
	}
	return exitError{code: exitAgent, err: err}
}

// interruptibleStdin returns stdin in non-blocking mode, so that the Go
// runtime polls it and closing it ends a pending Read: otherwise a SIGTERM
// could not stop the agent while the client keeps its stdin open. A
// terminal is left as it is (the mode would outlive the process).
func interruptibleStdin(f *os.File) io.Reader {
	if term.IsTerminal(int(f.Fd())) {
		return f
	}
	if err := syscall.SetNonblock(syscall.Stdin, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(syscall.Stdin), "/dev/stdin")
}
