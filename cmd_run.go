package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
)

// runCmd is `acprun run PATHS…`.
type runCmd struct {
	Paths       []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	JSON        string   `name:"json" short:"o" default:"acprun-results.json" placeholder:"FILE" help:"Write the JSON results to FILE (- for stdout, which then carries nothing else)."`
	Transcripts string   `placeholder:"DIR" help:"Write every message both ways, per scenario, as JSONL files in DIR (agent env values redacted)."`
	AllowAll    bool     `help:"Answer every permission request with allow (for quick experiments; named in the results)." xor:"policy"`
	DenyAll     bool     `help:"Answer every permission request with deny (named in the results)." xor:"policy"`
	TurnTimeout duration `placeholder:"DUR" help:"Override every turn's timeout (e.g. 2m)."`
	IdleTimeout duration `placeholder:"DUR" help:"Override every scenario's idle timeout: cancel a turn when the agent sends nothing for this long."`
	Timeout     duration `placeholder:"DUR" help:"Time limit for the whole run; running turns are cancelled, scenarios not started are listed as errors."`
	Jobs        int      `short:"j" placeholder:"N" help:"Scenarios to run in parallel (default: number of CPUs)."`
	Repeat      int      `placeholder:"N" default:"1" help:"Run every scenario N times; the summary gives the pass rate and pass@k."`
	DryRun      bool     `help:"Print the resolved plan (agent command, cwd, timeouts, rules) and run nothing."`
	JUnit       string   `name:"junit" placeholder:"FILE" help:"Also write JUnit XML to FILE (one testsuite per scenario file)."`
	Events      string   `placeholder:"FILE" help:"Write JSONL events to FILE as they happen (one line flushed per event)."`
	Quiet       bool     `short:"q" help:"No progress output; only the summary."`
	Verbose     bool     `short:"v" help:"Print turns, permission decisions and tool calls as they happen."`
	selection
}

// Help is the long help of run.
func (c *runCmd) Help() string {
	return `Runs every scenario: starts its agent, opens one session, sends each turn's prompt,
answers permission requests by the scenario's rules, and checks the expectations.
The JSON results (keyed by stop reason) go to --json; a summary goes to stderr.

Exit codes:
  0    every scenario passed
  1    some scenario failed an expectation or ended in an error outcome
  2    usage or scenario-file errors (nothing ran)
  3    an agent could not be started, initialized or authenticated
  130  interrupted (SIGINT/SIGTERM); the results written are partial`
}

// Run runs the scenarios.
func (c *runCmd) Run(ctx context.Context, g *globals) error {
	scs, lopts, err := c.load(g, c.Paths)
	if err != nil {
		return err
	}
	if scs, err = c.apply(scs); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if scs, err = c.matrix(scs, lopts); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if c.Repeat < 1 {
		return exitError{code: exitUsage, err: fmt.Errorf("--repeat %d: want at least 1", c.Repeat)}
	}
	if c.DryRun {
		return printPlan(g.Stdout, scs, c)
	}
	opts := runner.Options{
		Transcripts: c.Transcripts,
		TurnTimeout: c.TurnTimeout.d,
		IdleTimeout: c.IdleTimeout.d,
		Abort:       g.Abort,
		Version:     version,
		Parallel:    c.Jobs,
		Repeat:      c.Repeat,
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if c.Timeout.d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout.d, runner.ErrRunTimeout)
		defer cancel()
	}
	switch {
	case c.AllowAll:
		opts.Policy = approve.AllowAll()
	case c.DenyAll:
		opts.Policy = approve.DenyAll()
	}
	var observers []runner.Observer
	progress := output.NewProgress(g.Stderr, len(scs)*c.Repeat, output.ProgressOptions{
		Terminal: isTerminal(g.Stderr), Quiet: c.Quiet, Verbose: c.Verbose,
	})
	observers = append(observers, progress)
	if c.Events != "" {
		events, err := output.CreateEvents(c.Events)
		if err != nil {
			return exitError{code: exitUsage, err: fmt.Errorf("--events: %w", err)}
		}
		defer events.Close()
		observers = append(observers, events)
	}
	opts.Observer = output.Observers(observers...)
	rep, err := runner.Run(ctx, opts, scs)
	progress.Finish()
	if err != nil {
		return exitError{code: exitAgent, err: err}
	}
	if err := writeResults(c.JSON, g.Stdout, rep); err != nil {
		return exitError{code: exitFailed, err: fmt.Errorf("write results: %w", err)}
	}
	if c.JUnit != "" {
		var buf bytes.Buffer
		if err := output.JUnit(&buf, rep); err != nil {
			return exitError{code: exitFailed, err: fmt.Errorf("junit: %w", err)}
		}
		if err := writeFileAtomic(c.JUnit, buf.Bytes()); err != nil {
			return exitError{code: exitFailed, err: fmt.Errorf("write junit: %w", err)}
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		annotations := g.Stdout
		if c.JSON == "-" {
			annotations = g.Stderr // stdout carries the JSON alone
		}
		if err := output.GitHub(annotations, os.Getenv("GITHUB_STEP_SUMMARY"), rep); err != nil {
			fmt.Fprintf(g.Stderr, "acprun: github summary: %v\n", err)
		}
	}
	if err := output.Text(g.Stderr, rep); err != nil {
		return err
	}
	if c.JSON != "-" && !c.Quiet {
		fmt.Fprintf(g.Stderr, "results: %s\n", c.JSON)
	}
	return exitError{code: exitCode(ctx, rep)}
}

// exitCode maps a report to the process's exit code.
func exitCode(ctx context.Context, rep runner.Report) int {
	if rep.Interrupted || errors.Is(context.Cause(ctx), errInterrupted) {
		return exitInterrupted
	}
	code := exitOK
	for _, r := range rep.Scenarios {
		if r.StartFailed {
			return exitAgent
		}
		if r.Status != runner.StatusPassed {
			code = exitFailed
		}
	}
	return code
}

// writeResults writes the JSON results to path ("-": stdout) atomically: a
// reader never sees a torn file.
func writeResults(path string, stdout io.Writer, rep runner.Report) error {
	var buf bytes.Buffer
	if err := output.JSON(&buf, rep); err != nil {
		return err
	}
	if path == "-" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic writes data to a temporary file beside path, then renames
// it over path.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
