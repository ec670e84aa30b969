package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/yamlnode"
	"github.com/acprun/acprun/mockagent"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// validateCmd is `acprun validate PATHS…`.
type validateCmd struct {
	Paths []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	configFlag
	Strict       bool `help:"Also check what a run would need: that every agent command (judges' too) resolves to an executable and that every mock agent script parses."`
	gatewayFlags `set:"gatewayDoes=Check the scenarios as run --gateway MODE loads them, with acprun's model gateway between each agent and its model provider"`
}

// Help is the long help of validate.
func (c *validateCmd) Help() string {
	return `Parses and checks every scenario, reports every error at once as
file:line:col: message (with the source line and a caret under the column), and
runs nothing. Exit 0 when all are valid, 2 otherwise, and 5 when the paths hold
no scenario files.

Every agent cwd must exist. A ${VAR} that is unset here is a warning: a run
stops on it only when it selects a scenario that uses it.

With --strict, validate also checks what a run needs: every ${VAR} is set, and
what a run would otherwise find only when it starts the agent (exit 3): each agent's
command resolves to an executable ("acprun" is acprun itself, a bare name is
looked up in PATH, a path is relative to the agent's cwd) and each mock agent
script (acprun mock-agent SCRIPT, agent: {name: mock, args: [SCRIPT]}) exists
and parses. Each problem is reported at the word of the agent's command it is
about (its command or args item; the agent value for a named agent's command).`
}

// Run validates the files.
func (c *validateCmd) Run(g *globals) error {
	if err := c.gatewayFlags.check(); err != nil {
		return err
	}
	cfg, err := c.config()
	if err != nil {
		return usageError(g, err)
	}
	opts := scenario.LoadOptions{Config: cfg, DeferUnset: true}
	c.gatewayFlags.setIn(&opts)
	scs, warnings, err := scenario.Load(c.Paths, opts)
	// Every scenario may run: those without permissions are warned about,
	// and so are the variables that are unset here (a run that selects
	// their scenarios stops on them), unless --strict makes them errors.
	warnings = append(warnings, scenario.NoPermissionsWarnings(scs)...)
	if !c.Strict {
		warnings = append(warnings, scenario.UnsetWarnings(scs)...)
	}
	printWarnings(g, scenario.SortWarnings(warnings))
	if err != nil {
		return usageError(g, err)
	}
	if len(scs) == 0 {
		return exitError{code: exitEmpty, err: errors.New("no scenarios: " + scenario.NoScenarioFiles(c.Paths))}
	}
	if c.Strict {
		if errs := strictErrors(scs); len(errs) > 0 {
			return usageError(g, errs)
		}
	}
	files := map[string]bool{}
	turns := 0
	for _, sc := range scs {
		files[sc.File] = true
		turns += len(sc.Turns)
	}
	return output.Validated(g.Stdout, len(scs), turns, len(files))
}

// strictErrors are the problems validate --strict finds beyond the
// files' own: an agent command that does not resolve to an executable
// and a mock agent script that is missing or does not parse, resolved as
// a run resolves them (runner.ResolveCommand). Each is at the word of the
// command, in the scenario (or its judge), that it is about. A variable
// that is unset is one too, at its use; the agents of its scenario are
// not checked, their values being incomplete.
func strictErrors(scs []*scenario.Scenario) scenario.Errors {
	errs := slices.Clone(scenario.UnsetErrors(scs))
	self, _ := os.Executable()               // as runner.Run takes it
	scripts := map[string]error{}            // parsed once, by path
	sources := map[string]*yamlnode.Reader{} // the files of the errors, read once
	for _, sc := range scs {
		if len(sc.Unset) > 0 {
			continue
		}
		agents := []*scenario.Agent{&sc.Agent}
		judges := []*scenario.Judge{sc.Expect.Judge}
		for i := range sc.Turns {
			judges = append(judges, sc.Turns[i].Expect.Judge)
		}
		for _, j := range judges {
			if j != nil {
				agents = append(agents, &j.Agent)
			}
		}
		for _, a := range agents {
			for _, e := range checkAgent(sc, a, self, scripts) {
				if sources[e.File] == nil {
					data, _ := inputfile.Read(e.File, scenario.MaxFileBytes)
					sources[e.File] = &yamlnode.Reader{Src: data}
				}
				e.Source = sources[e.File].Line(e.Line)
				errs = append(errs, e)
			}
		}
	}
	slices.SortStableFunc(errs, srcerr.Compare)
	return slices.CompactFunc(errs, func(a, b *srcerr.Error) bool { return *a == *b })
}

// checkAgent returns the problems of one agent's command, started by
// self, each at the word of the command it is about (at the agent when
// that word comes from a named agent).
func checkAgent(sc *scenario.Scenario, a *scenario.Agent, self string, scripts map[string]error) []*srcerr.Error {
	argv := a.Command
	if len(argv) == 0 {
		return nil // an error of the file already
	}
	cmd := runner.ResolveCommand(argv, sc.File, a.Cwd, self)
	if cmd.Script == "" {
		if e := runner.CheckProgram(a, cmd.Argv[0], a.Cwd); e != nil {
			return []*srcerr.Error{problem(e.Pos, e.Msg)}
		}
		return nil
	}
	err, seen := scripts[cmd.Script]
	if !seen {
		_, err = mockagent.Load(cmd.Script)
		scripts[cmd.Script] = err
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return []*srcerr.Error{problem(a.WordPos(2), fmt.Sprintf("mock script %s does not exist (looked for it next to %s and in the agent's cwd %s)", argv[2], sc.File, a.Cwd))}
	}
	var out []*srcerr.Error
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		out = append(out, problem(a.WordPos(2), fmt.Sprintf("mock script %s does not parse: %v", argv[2], e)))
	}
	return out
}

// problem is the error msg at pos.
func problem(pos scenario.Pos, msg string) *srcerr.Error {
	return &srcerr.Error{File: pos.File, Line: pos.Line, Col: pos.Col, Msg: msg}
}
