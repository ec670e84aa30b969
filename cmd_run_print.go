// run --print: the agent's reply on stdout, as `claude -p` prints it.

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// checkPrintFlags rejects the flags --print cannot go with: it needs
// stdout to itself, the reply's text, and a run.
func (c *runCmd) checkPrintFlags(g *globals) error {
	if !c.Print {
		return nil
	}
	for _, f := range c.files() {
		if outfile.IsStdout(g.Stdout, f.Path) {
			return fmt.Errorf("--print writes the agent's reply to stdout, and %s %s would write there too: give %[1]s a file", f.Flag, f.Path)
		}
	}
	switch {
	case c.DryRun:
		return errors.New("--dry-run prints the plan on stdout and runs nothing, so there is no reply for --print: leave one of them out")
	case c.NoText:
		return errors.New("--print prints the reply's text, which --no-text does not keep: leave one of them out")
	}
	return nil
}

// checkPrintSelection rejects --print for a run of more than one attempt:
// it prints one reply.
func (c *runCmd) checkPrintSelection(scs []*scenario.Scenario) error {
	if !c.Print || len(scs)*c.Repeat.n <= 1 {
		return nil
	}
	var what []string
	if len(scs) > 1 {
		what = append(what, fmt.Sprintf("%d scenarios (scenario × agent)", len(scs)))
	}
	if c.Repeat.n > 1 {
		what = append(what, fmt.Sprintf("--repeat %d", c.Repeat.n))
	}
	return fmt.Errorf("--print prints the reply of one run of one scenario, and this run has %s: select one scenario and one agent, without --repeat",
		strings.Join(what, " and "))
}

// replyTo is how --print writes the reply, for where stdout goes.
type replyTo int

const (
	// replyBytes writes the reply as it is, byte for byte: a file, or a
	// pipe outside GitHub Actions.
	replyBytes replyTo = iota
	// replyTerminal writes it as terminalText makes it.
	replyTerminal
	// replyStepLog writes it with what a GitHub Actions step's log would
	// run as a workflow command broken by a zero-width space
	// (termtext.PlainEscapes): under GitHub Actions, to anything but a
	// regular file, since that may be the step's log.
	replyStepLog
)

// replyDest is how --print writes the reply to stdout (github: GitHub
// Actions runs acprun): escaped for a terminal; its workflow commands
// broken under GitHub Actions when stdout is not a regular file (a pipe is
// the step's log, or may lead to it; a redirect to a file is not); byte
// for byte otherwise.
func replyDest(stdout any, github bool) replyTo {
	switch {
	case isTerminal(stdout):
		return replyTerminal
	case github && !isRegularFile(stdout):
		return replyStepLog
	}
	return replyBytes
}

// isRegularFile reports whether s is an *os.File open on a regular file.
func isRegularFile(s any) bool {
	f, ok := s.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// printReply writes the reply of the run's one attempt to w, as to says:
// the text the agent sent in its last turn, ended by a newline. It writes
// nothing when that turn did not run (an earlier turn failed, or the
// attempt never started) or the agent said nothing in it; the exit code
// says whether the attempt passed. A retried try's reply is not the
// attempt's: the last try's is. The agent is not trusted to drive a
// terminal (terminalText) nor to write workflow commands in a GitHub
// Actions step's log (termtext.PlainEscapes).
func printReply(w io.Writer, rep report.Report, to replyTo) error {
	for _, r := range rep.Scenarios {
		if !r.Verdict() || len(r.Turns) == 0 {
			continue
		}
		last := r.Turns[len(r.Turns)-1]
		if last.StopReason == report.OutcomeSkipped || last.Text == "" {
			return nil
		}
		text := last.Text
		if to == replyTerminal {
			text = terminalText(text)
		}
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if to == replyStepLog {
			cw := termtext.NewCommandWriter(w, termtext.PlainEscapes)
			if _, err := io.WriteString(cw, text); err != nil {
				return err
			}
			return cw.Flush()
		}
		_, err := io.WriteString(w, text)
		return err
	}
	return nil
}

// terminalText is text, an agent's reply, made fit for a terminal: its
// line breaks (a CRLF as one) and tabs kept, and every other control
// character (the escape of a sequence that would retitle the terminal,
// clear it or write its clipboard; a carriage return that would overwrite
// a line), bidi control and invalid byte written as a Go escape
// (termtext.Escape), as acprun shows any text of an agent's.
func terminalText(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = termtext.Escape(l, true)
	}
	return strings.Join(lines, "\n")
}
