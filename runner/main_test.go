package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/mockagent"
	"github.com/acprun/acprun/replay"
)

// agentEnv, set to 1 in a process's environment, makes this test binary
// the mock agent instead of the tests, as os/exec's tests make theirs a
// helper process: `runner.test mock-agent SCRIPT` plays SCRIPT on stdin
// and stdout as `acprun mock-agent SCRIPT` does. TestMain sets it for the
// processes the tests start, so that a scenario's `acprun mock-agent`
// (acprun is Options.Self, this binary by default) runs the mock agent of
// this build without building acprun.
const agentEnv = "ACPRUN_RUNNER_TEST_AGENT"

// TestMain is, as acprun is, the sandbox's helper when started as
// `runner.test __sandbox-exec …` (a sandboxed scenario's agent and
// terminals go through it), and plays the mock agent when agentEnv says
// so; else it runs the tests under testkit.Main, with agentEnv set for what
// they start.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		code, err := sandbox.Exec(os.Args[2:])
		fmt.Fprintf(os.Stderr, "acprun: %v\n", err)
		os.Exit(code)
	}
	if os.Getenv(agentEnv) == "1" {
		os.Exit(playMockAgent(os.Args[1:]))
	}
	os.Setenv(agentEnv, "1")
	// An agent built with -race would otherwise linger a second at exit.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	// The tests wait on their agents (this binary again, started under the
	// race detector), shell scripts and git more than they compute.
	testkit.MainParallel(m, nil, 8)
}

// agentBin is this test binary, which plays the mock agent when started
// as `agentBin mock-agent SCRIPT` by a test, and replays a transcript as
// `agentBin replay PATH` (see agentEnv).
func agentBin(t testing.TB) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// playMockAgent is `acprun mock-agent SCRIPT` (args: mock-agent SCRIPT)
// with the same signals, stdin and exit codes: 0 at the end of stdin, 130
// after SIGINT or SIGTERM (unless the script ignores SIGTERM), 2 for a bad
// script, 3 when the agent failed.
func playMockAgent(args []string) int {
	if len(args) == 2 && args[0] == "replay" {
		return playReplay(args[1])
	}
	if len(args) != 2 || args[0] != "mock-agent" {
		fmt.Fprintf(os.Stderr, "runner.test as the mock agent: want mock-agent SCRIPT or replay TRANSCRIPT, got %q\n", args)
		return 2
	}
	s, err := mockagent.Load(args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "acprun: %v\n", err)
		return 2
	}
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if s.IgnoreSigterm {
		signal.Ignore(syscall.SIGTERM)
		sigs = sigs[:1]
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()
	// Non-blocking, so that closing stdin ends a pending Read, as acprun's
	// mock-agent does.
	var stdin io.Reader = os.Stdin
	if syscall.SetNonblock(syscall.Stdin, true) == nil {
		stdin = os.NewFile(uintptr(syscall.Stdin), "/dev/stdin")
	}
	err = mockagent.Run(ctx, s, stdin, os.Stdout, os.Stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return 130
	}
	fmt.Fprintf(os.Stderr, "acprun: %v\n", err)
	return 3
}

// playReplay plays the transcript at path as `acprun replay PATH` does,
// for a scenario whose agent is agent: {replay: PATH}.
func playReplay(path string) int {
	rec, err := replay.Load(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "acprun: %v\n", err)
		return 2
	}
	if err := replay.Run(context.Background(), rec, os.Stdin, os.Stdout, os.Stderr, replay.Options{Redact: replay.RedactorOf(os.Environ())}); err != nil {
		fmt.Fprintf(os.Stderr, "acprun: %v\n", err)
		return 3
	}
	return 0
}
