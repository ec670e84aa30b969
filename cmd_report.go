package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// reportCmd is `acprun report FILES… -o FILE`.
type reportCmd struct {
	Files           []string  `arg:"" name:"file" help:"Results files written by acprun run (or merge); several are merged, as by acprun merge."`
	Output          string    `name:"output" short:"o" default:"acprun-report.html" placeholder:"FILE" help:"Write the HTML report to FILE (default: ${default}; - for stdout)."`
	Transcripts     string    `placeholder:"DIR" help:"Read the scenarios' transcripts from DIR (as written by run --transcripts) instead of the paths the results record."`
	TranscriptBytes byteCount `placeholder:"N" default:"2097152" help:"Embed at most N bytes of each transcript (default 2 MiB), its first and last messages; the page says what was cut. 0 embeds none: the viewer names the file and counts its messages."`
}

// Help is the long help of report.
func (c *reportCmd) Help() string {
	return `Renders results as one self-contained HTML page: counts, stop reasons,
pass rates (--repeat, --agent), and every scenario's failures, turns, tool
calls, diffs, permission decisions, client requests and usage, failed
scenarios first, with filters by status, tag and agent and a search. It opens
in any browser and loads nothing from the network.

Several results files (the shards of one run) are merged first, as acprun merge
merges them. A transcript viewer is added for every scenario whose transcript
is found: at the path the results record (a relative path from the directory
the run ran in, the results' dir, else from the working directory or the
results file's directory), or in --transcripts DIR. A file that is not a transcript (each line a record as run --transcripts
writes it) is not embedded: a warning names it and says what is wrong. Agent text is shown as text, never run; values of secret-looking
variables of the current environment are redacted too.

Exit codes:
  0    the report was written (whatever the scenarios' statuses)
  2    a file is missing, unreadable or not acprun results, or -o cannot be
       written, another acprun command is writing it, or it is one of the
       files or a transcript the report embeds (nothing written)
  4    the report could not be written
  130  -o is a FIFO that no process read before an interrupt (Ctrl-C):
       nothing written`
}

// Run renders the report.
func (c *reportCmd) Run(ctx context.Context, g *globals) error {
	pin, err := pinOutput(ctx, c.Output, "report: ")
	if err != nil {
		return err
	}
	defer pin.Close()
	out := outfile.Target{Flag: "-o", Path: c.Output, What: "the report"}
	if err := outfile.CheckInputs(g.Stdout, []outfile.Target{out}, resultsInputs(c.Files, "a results file report reads")); err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("report: %w", err)}
	}
	if c.Transcripts != "" {
		if fi, err := inputfile.Stat(c.Transcripts); err != nil {
			return exitError{code: exitUsage, err: fmt.Errorf("report: --transcripts %w", err)} // "PATH: why"
		} else if !fi.IsDir() {
			return exitError{code: exitUsage, err: fmt.Errorf("report: --transcripts %s: not a directory", c.Transcripts)}
		}
	}
	rep, err := report.MergeFiles(c.Files)
	if err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("report: %w", err)}
	}
	var dirs []string
	for _, f := range c.Files {
		dirs = append(dirs, filepath.Dir(f))
	}
	opts := htmlOptions(rep, report.TranscriptFinder(c.Transcripts, rep.Dir, dirs))
	if err := outfile.CheckInputs(g.Stdout, []outfile.Target{out}, transcriptInputs(rep, opts.Transcripts)); err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("report: %w", err)}
	}
	opts.Sources = c.Files
	opts.Warn = func(msg string) { fmt.Fprintf(g.Stderr, "acprun: report: warning: %s\n", msg) }
	opts.TranscriptBytes = c.TranscriptBytes.n
	if err := g.writeFile(ctx, g.Stderr, out, pin, true, termtext.MarkupEscapes, func(w io.Writer) error { return htmlreport.Write(w, rep, opts) }); err != nil {
		return exitError{code: writeExit(err), err: fmt.Errorf("report: -o %s: %w; the report %s", c.Output, err, unwritten(err, "is incomplete", "was not written"))}
	}
	if c.Output != outfile.Stdout {
		fmt.Fprintln(g.Stderr, reportLine(c.Output, rep))
	}
	return nil
}

// resultsInputs are the results files files that merge or report reads,
// each being what.
func resultsInputs(files []string, what string) []outfile.Input {
	ins := make([]outfile.Input, len(files))
	for i, f := range files {
		ins[i] = outfile.Input{Path: f, What: what}
	}
	return ins
}

// transcriptInputs are the transcripts of rep's scenarios that find
// finds, which the report embeds.
func transcriptInputs(rep report.Report, find func(report.Result) string) []outfile.Input {
	var ins []outfile.Input
	for _, r := range rep.Scenarios {
		ins = append(ins, outfile.Input{Path: find(r), What: "a transcript the report embeds"})
	}
	return ins
}

// reportLine is what report says on stderr once it wrote the report of
// rep to file: the file, and the scenarios counted as run's summary counts
// them (every status the results have: invalid, interrupted, not run…).
func reportLine(file string, rep report.Report) string {
	s := report.Summarize(rep)
	scenarios := "scenarios"
	if s.Scenarios == 1 {
		scenarios = "scenario"
	}
	return fmt.Sprintf("report: %s (%d %s: %s)", file, s.Scenarios, scenarios, output.Counts(s))
}

// htmlOptions are the options of the HTML report of rep, of run --html
// and of report: the values of secret-looking variables of acprun's own
// environment are redacted, on top of what the run redacted, but for
// those that are no secrets in rep (runner.ResultsRedactor).
func htmlOptions(rep report.Report, transcripts func(report.Result) string) htmlreport.Options {
	return htmlreport.Options{
		Transcripts:     transcripts,
		TranscriptBytes: htmlreport.DefaultTranscriptBytes,
		Redactor:        runner.ResultsRedactor(rep, os.Environ()),
		Now:             time.Now(),
	}
}
