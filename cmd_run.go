package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/output/outfile"
	"github.com/acprun/acprun/runner"
)

// runCmd is `acprun run PATHS…`.
type runCmd struct {
	Paths          []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	Prompt         string   `placeholder:"FILE|-" help:"Replace the turns of the one selected scenario with one turn whose prompt is the text of FILE, or of stdin for - (e.g. from cron: make-prompt | acprun run nightly.yaml --prompt -)."`
	JSON           string   `name:"json" short:"o" default:"acprun-results.json" placeholder:"FILE" help:"Write the JSON results to FILE (- for stdout, which then carries nothing else)."`
	Transcripts    string   `placeholder:"DIR" help:"Write every message both ways, per scenario, as JSONL files in DIR (agent env values redacted)."`
	NoText         bool     `help:"Keep no message or thought text in the results, only its chunk counts, except for turns whose expectations or judge read it: memory stays flat however much the agents say."`
	AllowAll       bool     `help:"Answer every permission request with allow (for quick experiments; named in the results)." xor:"policy"`
	DenyAll        bool     `help:"Answer every permission request with deny (named in the results)." xor:"policy"`
	TurnTimeout    duration `placeholder:"DUR" help:"Override every turn's timeout (e.g. 2m)."`
	IdleTimeout    duration `placeholder:"DUR" help:"Override every scenario's idle timeout: cancel a turn when the agent sends nothing for this long."`
	Timeout        duration `placeholder:"DUR" help:"Time limit for the whole run; running turns are cancelled, scenarios not started are listed as errors."`
	Jobs           int      `short:"j" placeholder:"N" help:"Scenarios to run in parallel (default: number of CPUs)."`
	Repeat         int      `placeholder:"N" default:"1" help:"Run every scenario N times; the summary gives the pass rate, pass@k and pass^k."`
	DryRun         bool     `help:"Print the resolved plan (agent command, cwd, timeouts, rules) and run nothing."`
	KeepWorkspaces bool     `help:"Keep the workspaces of passing attempts too (those of failing ones are always kept; their paths are in the results)."`
	WorkspaceDir   string   `placeholder:"DIR" help:"Make workspaces in DIR (created if missing) instead of the system's temp directory."`
	JUnit          string   `name:"junit" placeholder:"FILE" help:"Also write JUnit XML to FILE (one testsuite per scenario file; - for stdout)."`
	HTML           string   `name:"html" placeholder:"FILE" help:"Also write a self-contained HTML report to FILE (as acprun report does; - for stdout)."`
	Events         string   `placeholder:"FILE" help:"Write JSONL events to FILE as they happen (one line flushed per event; - for stdout)."`
	Quiet          bool     `short:"q" help:"No progress output; only the summary."`
	Verbose        bool     `short:"v" help:"Stream the agents' text, thoughts and tool calls as they arrive, and turns, permission decisions and warnings, each line labelled [scenario@agent]."`
	selection
}

// Help is the long help of run.
func (c *runCmd) Help() string {
	return `Runs every scenario: starts its agent, opens one session, sends each turn's prompt,
answers permission requests by the scenario's rules, and checks the expectations.
The JSON results (keyed by stop reason) go to --json; a summary goes to stderr.

Output files (--json, --junit, --html, --events; --transcripts is a directory) are
checked before any agent starts. Missing parent directories are created; a
symlink is written through to its target; a device or FIFO (/dev/null,
/dev/stdout, a named pipe) is written in place; a regular file is replaced
atomically and keeps its mode (a new one gets 0644 less the umask). "-" is stdout, for one flag at most;
GitHub annotations then go to stderr.

Exit codes:
  0    every scenario passed
  1    some scenario failed an expectation or ended in an error outcome
  2    usage, scenario-file or output-path errors (nothing ran)
  3    an agent could not be started, initialized or authenticated
  4    acprun could not write its results, JUnit, HTML report, events or
       transcripts, or failed internally; the summary still goes to stderr
  5    no scenario selected (see --allow-empty)
  130  interrupted (SIGINT/SIGTERM); the results written are partial
When several apply, the exit code is the first of 4, 130, 3, 1.`
}

// files returns the run's output files that are set, in the order they
// are written.
func (c *runCmd) files() []outfile.Target {
	var out []outfile.Target
	for _, f := range []outfile.Target{{Flag: "-o", Path: c.JSON}, {Flag: "--junit", Path: c.JUnit}, {Flag: "--html", Path: c.HTML}, {Flag: "--events", Path: c.Events}} {
		if f.Path != "" {
			out = append(out, f)
		}
	}
	return out
}

// toStdout reports whether some machine output goes to stdout.
func (c *runCmd) toStdout(g *globals) bool {
	return slices.ContainsFunc(c.files(), func(f outfile.Target) bool { return outfile.IsStdout(g.Stdout, f.Path) })
}

// checkOutputFlags rejects combinations of output flags that cannot work:
// two outputs on stdout, a directory on stdout, one file for two outputs.
func (c *runCmd) checkOutputFlags(g *globals) error {
	if c.Transcripts == outfile.Stdout {
		return errors.New("--transcripts -: transcripts need a directory (one file per scenario), not stdout")
	}
	return outfile.CheckTargets(g.Stdout, c.files())
}

// checkOutputPaths checks that every output file and the transcripts
// directory can be written, before any agent starts: it creates missing
// parent directories and tries a temporary file where each will go.
func (c *runCmd) checkOutputPaths() error {
	for _, f := range c.files() {
		if f.Path == outfile.Stdout {
			continue
		}
		if err := outfile.Check(f.Path); err != nil {
			return fmt.Errorf("%s %s: %w", f.Flag, f.Path, err)
		}
	}
	if c.Transcripts != "" {
		if err := outfile.CheckDir(c.Transcripts); err != nil {
			return fmt.Errorf("--transcripts %s: %w", c.Transcripts, err)
		}
	}
	return nil
}

// Run runs the scenarios.
func (c *runCmd) Run(ctx context.Context, g *globals) error {
	if err := c.checkOutputFlags(g); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if c.Repeat < 1 {
		return exitError{code: exitUsage, err: fmt.Errorf("--repeat %d: want at least 1", c.Repeat)}
	}
	scs, err := c.pick(g, c.Paths)
	if err != nil {
		return err
	}
	if c.Prompt != "" {
		if scs, err = c.withPrompt(g, scs); err != nil {
			return err
		}
	}
	opts := c.options(g)
	if c.DryRun {
		return output.Plan(g.Stdout, runner.DryRun(opts, scs))
	}
	if err := c.checkOutputPaths(); err != nil {
		return exitError{code: exitUsage, err: err}
	}
	if c.WorkspaceDir != "" {
		dir, err := workspaceDir(c.WorkspaceDir)
		if err != nil {
			return exitError{code: exitUsage, err: fmt.Errorf("--workspace-dir %s: %w", c.WorkspaceDir, err)}
		}
		opts.WorkspaceDir = dir
	}
	if c.Timeout.d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout.d, runner.ErrRunTimeout)
		defer cancel()
	}
	var observers []runner.Observer
	progress := output.NewProgress(g.Stderr, len(scs)*c.Repeat, output.ProgressOptions{
		Terminal: isTerminal(g.Stderr), Quiet: c.Quiet, Verbose: c.Verbose,
	})
	observers = append(observers, progress)
	var events *output.Events
	switch c.Events {
	case "":
	case outfile.Stdout:
		events = output.NewEvents(g.Stdout)
	default:
		if events, err = output.CreateEvents(ctx, c.Events); err != nil {
			return exitError{code: exitUsage, err: fmt.Errorf("--events %s: %w", c.Events, err)}
		}
	}
	if events != nil {
		defer events.Close() // a no-op once writeOutputs has closed it
		observers = append(observers, events)
	}
	opts.Observer = output.Observers(observers...)
	rep, err := runner.Run(ctx, opts, scs)
	progress.Finish()
	if err != nil {
		return exitError{code: exitOutput, err: err}
	}
	if err := c.writeOutputs(g, rep, events); err != nil {
		return err
	}
	return exitError{code: exitCode(ctx, rep)}
}

// writeOutputs writes every output of a finished run, whatever fails, and
// the summary; it says what was lost after the summary, so that it is the
// last thing on the screen.
func (c *runCmd) writeOutputs(g *globals, rep runner.Report, events *output.Events) error {
	wctx, stop := abortContext(g.Abort)
	defer stop()
	var lost []string
	written := false
	// Streamed: the results may hold megabytes of agent text.
	if err := writeOutputFrom(wctx, g, c.JSON, func(w io.Writer) error { return output.JSON(w, rep) }); err != nil {
		lost = append(lost, fmt.Sprintf("-o %s: %v; the results were not written", c.JSON, err))
	} else {
		written = true
	}
	if c.JUnit != "" {
		data, err := encode(func(w io.Writer) error { return output.JUnit(w, rep) })
		if err == nil {
			err = writeOutput(wctx, g, c.JUnit, data)
		}
		if err != nil {
			lost = append(lost, fmt.Sprintf("--junit %s: %v; the JUnit report was not written", c.JUnit, err))
		}
	}
	if c.HTML != "" {
		data, err := encode(func(w io.Writer) error {
			return htmlreport.Write(w, output.NewResults(rep), htmlOptions(recordedTranscripts))
		})
		if err == nil {
			err = writeOutput(wctx, g, c.HTML, data)
		}
		if err != nil {
			lost = append(lost, fmt.Sprintf("--html %s: %v; the HTML report was not written", c.HTML, err))
		}
	}
	if events != nil {
		if err := events.Close(); err != nil {
			lost = append(lost, fmt.Sprintf("--events %s: %v; the events file is incomplete", c.Events, err))
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		annotations := g.Stdout
		if c.toStdout(g) {
			annotations = g.Stderr // stdout carries the machine output alone
		}
		if err := output.GitHub(annotations, os.Getenv("GITHUB_STEP_SUMMARY"), rep); err != nil {
			fmt.Fprintf(g.Stderr, "acprun: github summary: %v\n", err)
		}
	}
	if err := output.Text(g.Stderr, rep); err != nil {
		return exitError{code: exitOutput, err: fmt.Errorf("summary: %w", err)}
	}
	if written && c.JSON != outfile.Stdout && !c.Quiet {
		fmt.Fprintf(g.Stderr, "results: %s\n", c.JSON)
	}
	if len(lost) > 0 {
		for _, msg := range lost {
			fmt.Fprintf(g.Stderr, "acprun: %s\n", msg)
		}
		return exitError{code: exitOutput}
	}
	return nil
}

// options are the runner's options the flags give, for the run and for
// --dry-run's plan alike. They make nothing: the workspace directory is
// added by Run.
func (c *runCmd) options(g *globals) runner.Options {
	opts := runner.Options{
		Transcripts: c.Transcripts,
		NoText:      c.NoText,
		Overrides:   c.overrides(),
		Policy:      c.policy(),
		Abort:       g.Abort,
		Version:     version,
		Parallel:    c.Jobs,
		Repeat:      c.Repeat,

		KeepWorkspaces: c.KeepWorkspaces,
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	return opts
}

// overrides are the limits the flags impose on every scenario: the same
// for the run and for --dry-run's plan.
func (c *runCmd) overrides() runner.Overrides {
	return runner.Overrides{TurnTimeout: c.TurnTimeout.d, IdleTimeout: c.IdleTimeout.d}
}

// policy is the policy --allow-all or --deny-all puts in place of every
// scenario's; nil when neither is given.
func (c *runCmd) policy() *approve.Policy {
	switch {
	case c.AllowAll:
		return approve.AllowAll()
	case c.DenyAll:
		return approve.DenyAll()
	}
	return nil
}

// workspaceDir makes the --workspace-dir directory if it is missing and
// returns its absolute path, so that the paths in the results can be used
// from anywhere.
func workspaceDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return abs, outfile.CheckDir(abs)
}
