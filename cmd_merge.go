package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// mergeCmd is `acprun merge FILES… -o FILE`.
type mergeCmd struct {
	Files  []string `arg:"" name:"file" help:"Results files written by acprun run (or merge), e.g. one per shard."`
	Output string   `name:"output" short:"o" default:"acprun-results.json" placeholder:"FILE" help:"Write the merged results to FILE (default: ${default}; - for stdout)."`
}

// Help is the long help of merge.
func (c *mergeCmd) Help() string {
	return `Combines the JSON results of several runs, typically the shards of one run
(--shard), into the results of the whole: scenarios sorted by file, line, agent
(in the order of the shards' --agent) and attempt; byStopReason and summary computed again; the earliest startedAt
and the longest durationMs. Values of secret-looking variables of the current
environment are redacted, as report does. A summary goes to stderr, coloured as run colours
its own (--color; NO_COLOR when not empty). -o is written as run writes its
outputs (parents created, symlinks followed, devices and FIFOs written in
place, regular files replaced atomically).

Exit codes, as the combined run would have exited:
  0    every scenario passed
  1    some scenario failed an expectation or ended in an error outcome (not
       counting the attempts of a scenario that met its minimum pass rate)
  2    a file is missing, unreadable or not acprun results, shards were
       balanced from different --balance-from files, or -o cannot be
       written, another acprun command is writing it, or it is one of the
       files (nothing written)
  3    an agent could not be started, initialized or authenticated
  4    the merged results could not be written; the summary still goes to
       stderr
  7    some scenario measured nothing (invalid)
  130  some shard was interrupted; the results are partial. Or -o is a FIFO
       that no process read before an interrupt (Ctrl-C): nothing written
When several apply, the exit code is the first of 4, 130, 3, 7, 1.`
}

// Run merges the files.
func (c *mergeCmd) Run(ctx context.Context, g *globals) error {
	pin, err := pinOutput(ctx, c.Output, "merge: ")
	if err != nil {
		return err
	}
	defer pin.Close()
	out := outfile.Target{Flag: "-o", Path: c.Output, What: "the merged results"}
	if err := outfile.CheckInputs(g.Stdout, []outfile.Target{out}, resultsInputs(c.Files, "a results file merge reads")); err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("merge: %w", err)}
	}
	rep, err := report.MergeFiles(c.Files)
	if err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("merge: %w", err)}
	}
	// Redacted as report's page is: a shard may hold a secret of this
	// environment that its own run was not told of.
	runner.ResultsRedactor(rep, os.Environ()).Value(&rep)
	writeErr := g.writeFile(ctx, g.Stderr, out, pin, true, termtext.JSONEscapes, func(w io.Writer) error { return report.Write(w, rep) })
	// A summary that cannot be written to stderr loses nothing merged: the
	// exit code stays the merged run's, as run's does.
	_ = output.Lines(g.Stderr, rep)
	_ = output.Text(g.Stderr, rep)
	if writeErr != nil {
		return exitError{code: writeExit(writeErr), err: fmt.Errorf("merge: -o %s: %w; the merged results %s", c.Output, writeErr, unwritten(writeErr, "are incomplete", "were not written"))}
	}
	if c.Output != outfile.Stdout {
		fmt.Fprintf(g.Stderr, "results: %s\n", c.Output)
	}
	return exitError{code: exitCode(rep)}
}
