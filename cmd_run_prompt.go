// run --prompt: one-shot runs of a prompt without a scenario file, and the
// turns of one scenario replaced by prompts from files or stdin.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// stdinPrompt is the value of --prompt that reads the prompt from stdin.
const stdinPrompt = "-"

// oneShot reports whether the run has no scenario file: --prompt's values
// are then the prompts' texts, sent to --agent.
func (c *runCmd) oneShot() bool { return len(c.Paths) == 0 }

// scenarios loads and selects the scenarios to run: those of the paths,
// or without paths the one-shot scenario of --prompt (scenario.OneShot),
// against each --agent. Without paths or --prompt there is nothing to run.
func (c *runCmd) scenarios(g *globals) ([]*scenario.Scenario, error) {
	if !c.oneShot() {
		return c.pick(g, c.Paths)
	}
	if len(c.Prompt) == 0 && c.resultsLookLikeScenarios() {
		path := approve.QuoteWord(c.JSON)
		return nil, exitError{code: exitUsage, err: fmt.Errorf(
			"nothing to run: %s, the value of -o (--output, --json), names the results file, but it looks like scenarios: did you mean acprun run %[1]s -o FILE? (if -o came from an empty variable, quote it: -o \"$VAR\")", path)}
	}
	if len(c.Prompt) == 0 {
		return nil, exitError{code: exitUsage, err: errors.New(
			"nothing to run: give scenario files or directories (acprun run suite/), or a prompt for an agent (acprun run --agent claude --prompt TEXT)")}
	}
	cfg, err := c.config(g)
	if err != nil {
		return nil, usageError(g, nil, err)
	}
	lopts := c.loadOptions(cfg)
	agent := ""
	if agents := words(c.Agent); len(agents) > 0 {
		agent = agents[0] // the others are the matrix's, as with a file
	}
	sc, warnings, err := scenario.OneShot(agent, lopts)
	var loaded []*scenario.Scenario // none when loading failed
	if err == nil {
		loaded = []*scenario.Scenario{sc}
	}
	c.warnLoaded(g, loaded, warnings, err)
	if err != nil {
		if agent != "" {
			err = fmt.Errorf("--agent %s: %w", approve.QuoteArgv([]string{agent}), err)
		}
		return nil, usageError(g, nil, err)
	}
	return c.choose(g, loaded, nil, lopts)
}

// resultsLookLikeScenarios reports whether the results file of -o (or of
// --json, which takes it on run, while list and probe take --json alone)
// names scenarios instead: a directory, or a file ending in .yaml or .yml.
func (c *runCmd) resultsLookLikeScenarios() bool {
	if ext := filepath.Ext(c.JSON); ext == ".yaml" || ext == ".yml" {
		return true
	}
	fi, err := os.Stat(c.JSON)
	return err == nil && fi.IsDir()
}

// withPrompt replaces the turns of the one selected scenario (against
// each --agent, every copy alike) with one turn per --prompt, in order.
// More than one scenario selected is a usage error, found before stdin is
// read; none (--allow-empty) reads nothing. An interrupt (ctx) while stdin
// is read exits 130, having run nothing.
func (c *runCmd) withPrompt(ctx context.Context, g *globals, scs []*scenario.Scenario) ([]*scenario.Scenario, error) {
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
	prompts := make([]scenario.Prompt, len(c.Prompt))
	for i, v := range c.Prompt {
		p, err := c.readPrompt(ctx, g, v)
		switch {
		case errors.Is(err, errInterrupted):
			return nil, exitError{code: exitInterrupted, err: errors.New("--prompt -: interrupted while reading stdin; nothing ran")}
		case err != nil:
			return nil, exitError{code: exitUsage, err: err}
		}
		prompts[i] = p
	}
	out := make([]*scenario.Scenario, len(scs))
	for i, sc := range scs {
		out[i] = sc.WithPrompts(prompts)
	}
	return out, nil
}

// checkPrompts rejects --prompt values that cannot be read, before
// anything else: an empty one (an unset variable: --prompt "$PROMPT"), as
// for the flags that name files, and stdin twice.
func (c *runCmd) checkPrompts() error {
	stdin := 0
	for _, v := range c.Prompt {
		switch {
		case v == "" && c.oneShot():
			return errors.New(`--prompt "": the prompt is empty (is the variable that gives it unset?): give its text, or - to read it from stdin`)
		case v == "":
			return errors.New(`--prompt "": the path is empty (is the variable that gives it unset?): give a file (or - for stdin), or leave the flag out`)
		case v == stdinPrompt:
			stdin++
		}
	}
	if stdin > 1 {
		return errors.New("--prompt - reads stdin, which holds one prompt: give - to one --prompt only")
	}
	return nil
}

// readPrompt reads one --prompt value: stdin for - (until ctx ends),
// else its text in a one-shot run, else the file it names (relative to
// the working directory).
func (c *runCmd) readPrompt(ctx context.Context, g *globals, value string) (scenario.Prompt, error) {
	switch {
	case value == stdinPrompt:
		g.noteStdin("acprun", "the prompt")
		stdin := g.stdin(ctx)
		defer stdin.Close()
		text, err := scenario.ReadPrompt(stdin)
		if err != nil {
			return scenario.Prompt{}, fmt.Errorf("--prompt -: stdin %w", err)
		}
		return scenario.Prompt{Text: text, Pos: scenario.Pos{File: "--prompt -"}}, nil
	case c.oneShot():
		text, err := scenario.ReadPrompt(strings.NewReader(value))
		if err != nil {
			return scenario.Prompt{}, fmt.Errorf("--prompt %s: the text %w", approve.QuoteArgv([]string{value}), err)
		}
		if fi, err := os.Stat(value); err == nil && fi.Mode().IsRegular() && !strings.Contains(value, "\n") {
			fmt.Fprintf(g.Stderr, "acprun: warning: --prompt %s is sent as the prompt's text, though a file has that name: to send the file, give --prompt - < %[1]s\n",
				approve.QuoteArgv([]string{value}))
		}
		return scenario.Prompt{Text: text, Pos: scenario.OneShotPos}, nil
	}
	text, err := scenario.ReadPromptFile(value)
	if err != nil {
		hint := ""
		if _, statErr := os.Stat(value); errors.Is(statErr, os.ErrNotExist) {
			hint = " (with a scenario file, --prompt takes a file holding the prompt, or - to read it from stdin; " +
				"the text itself only without one: acprun run --agent NAME --prompt TEXT)"
		}
		return scenario.Prompt{}, fmt.Errorf("--prompt %s: the file %w%s", approve.QuoteArgv([]string{value}), err, hint)
	}
	return scenario.Prompt{Text: text, Pos: scenario.Pos{File: "--prompt " + approve.QuoteArgv([]string{value})}}, nil
}

// listNames is names joined with ", ", the first n of them and how many
// more.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
