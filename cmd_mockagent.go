package main

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

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
		return usageError(g, nil, err)
	}
	if s.IgnoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	err = mockagent.Run(ctx, s, g.stdin(ctx), g.Stdout, g.Stderr)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return exitError{code: exitInterrupted}
	}
	if _, ok := errors.AsType[*srcerr.Error](err); ok {
		return usageError(g, nil, err) // a setting of the script it cannot follow (sessions:)
	}
	return exitError{code: exitAgent, err: err}
}
