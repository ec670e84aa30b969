package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/acprun/acprun/output"
)

// mergeCmd is `acprun merge FILES… -o FILE`.
type mergeCmd struct {
	Files  []string `arg:"" name:"file" help:"Results files written by acprun run (or merge), e.g. one per shard."`
	Output string   `name:"output" short:"o" default:"acprun-results.json" placeholder:"FILE" help:"Write the merged results to FILE (- for stdout)."`
}

// Help is the long help of merge.
func (c *mergeCmd) Help() string {
	return `Combines the JSON results of several runs, typically the shards of one run
(--shard), into the results of the whole: scenarios sorted by file, line, agent
and attempt; byStopReason and summary computed again; the earliest startedAt
and the longest durationMs. A summary goes to stderr.

Exit codes, as the combined run would have exited:
  0    every scenario passed
  1    some scenario failed an expectation or ended in an error outcome
  2    a file is missing, unreadable or not acprun results (nothing written)
  3    an agent could not be started, initialized or authenticated
  130  some shard was interrupted; the results are partial`
}

// Run merges the files.
func (c *mergeCmd) Run(g *globals) error {
	res, err := output.MergeFiles(c.Files)
	if err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("merge: %w", err)}
	}
	var buf bytes.Buffer
	if err := output.WriteResults(&buf, res); err != nil {
		return exitError{code: exitFailed, err: fmt.Errorf("merge: %w", err)}
	}
	if c.Output == "-" {
		if _, err := g.Stdout.Write(buf.Bytes()); err != nil {
			return exitError{code: exitFailed, err: fmt.Errorf("write results: %w", err)}
		}
	} else if err := writeFileAtomic(c.Output, buf.Bytes()); err != nil {
		return exitError{code: exitFailed, err: fmt.Errorf("write results: %w", err)}
	}
	rep := res.Report()
	if err := output.Text(g.Stderr, rep); err != nil {
		return err
	}
	if c.Output != "-" {
		fmt.Fprintf(g.Stderr, "results: %s\n", c.Output)
	}
	return exitError{code: exitCode(context.Background(), rep)}
}
