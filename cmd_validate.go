package main

import (
	"errors"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/scenario"
)

// validateCmd is `acprun validate PATHS…`.
type validateCmd struct {
	Paths  []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	Config string   `placeholder:"FILE" help:"Config file with defaults and named agents (default: acprun.yaml in the working directory, if any)."`
}

// Help is the long help of validate.
func (c *validateCmd) Help() string {
	return `Parses and checks every scenario, reports every error at once as
file:line:col: message (with the source line and a caret under the column), and
runs nothing. Exit 0 when all are valid, 2 otherwise, and 5 when the paths hold
no scenario files.`
}

// Run validates the files.
func (c *validateCmd) Run(g *globals) error {
	cfg, err := loadConfig(c.Config)
	if err != nil {
		return usageError(g, err)
	}
	scs, warnings, err := scenario.Load(c.Paths, scenario.LoadOptions{Config: cfg})
	// Every scenario may run: those without permissions are warned about.
	printWarnings(g, scenario.SortWarnings(append(warnings, scenario.NoPermissionsWarnings(scs)...)))
	if err != nil {
		return usageError(g, err)
	}
	if len(scs) == 0 {
		return exitError{code: exitEmpty, err: errors.New("no scenarios: " + scenario.NoScenarioFiles(c.Paths))}
	}
	files := map[string]bool{}
	turns := 0
	for _, sc := range scs {
		files[sc.File] = true
		turns += len(sc.Turns)
	}
	return output.Validated(g.Stdout, len(scs), turns, len(files))
}
