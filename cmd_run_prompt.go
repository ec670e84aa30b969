// run --prompt: the turns of one scenario replaced by a prompt from a file
// or stdin.

package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// withPrompt replaces the turns of the one selected scenario (against
// each --agent, every copy alike) with one turn sending the text of
// --prompt. More than one scenario selected is a usage error, found
// before stdin is read; none (--allow-empty) reads nothing.
func (c *runCmd) withPrompt(g *globals, scs []*scenario.Scenario) ([]*scenario.Scenario, error) {
	var names []string
	for _, sc := range scs {
		if !slices.Contains(names, sc.Name) {
			names = append(names, sc.Name)
		}
	}
	if len(names) == 0 {
		return scs, nil
	}
	if len(names) > 1 {
		return nil, exitError{code: exitUsage, err: fmt.Errorf(
			"--prompt replaces the turns of one scenario, and %d are selected (%s): choose one with --run, --tag or by naming its file",
			len(names), listNames(names, 5))}
	}
	text, err := c.readPrompt(g)
	if err != nil {
		return nil, exitError{code: exitUsage, err: err}
	}
	pos := scenario.Pos{File: "--prompt " + approve.QuoteArgv([]string{c.Prompt})}
	out := make([]*scenario.Scenario, len(scs))
	for i, sc := range scs {
		out[i] = sc.WithPrompt(text, pos)
	}
	return out, nil
}

// readPrompt reads the text of --prompt: stdin for -, else the file
// (relative to the working directory).
func (c *runCmd) readPrompt(g *globals) (string, error) {
	if c.Prompt == "-" {
		if f, ok := g.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			fmt.Fprintln(g.Stderr, "acprun: reading the prompt from stdin (end it with Ctrl-D)")
		}
		text, err := scenario.ReadPrompt(g.Stdin)
		if err != nil {
			return "", fmt.Errorf("--prompt -: stdin %w", err)
		}
		return text, nil
	}
	text, err := scenario.ReadPromptFile(c.Prompt)
	if err != nil {
		hint := ""
		if _, statErr := os.Stat(c.Prompt); errors.Is(statErr, os.ErrNotExist) {
			hint = " (--prompt takes a file holding the prompt, or - to read it from stdin)"
		}
		return "", fmt.Errorf("--prompt %s: the file %w%s", approve.QuoteArgv([]string{c.Prompt}), err, hint)
	}
	return text, nil
}

// listNames is names joined with ", ", the first n of them and how many
// more.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
