package main

import "github.com/acprun/acprun/output"

// listCmd is `acprun list PATHS…`.
type listCmd struct {
	Paths []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	selection
}

// Help is the long help of list.
func (c *listCmd) Help() string {
	return `Prints the scenarios that "acprun run" would run with the same paths and
selection flags, one per line: file:line, name, tags. Runs nothing.

Exit codes:
  0    the selection was listed
  2    usage or scenario-file errors
  5    no scenario selected (see --allow-empty)`
}

// Run lists the selected scenarios.
func (c *listCmd) Run(g *globals) error {
	scs, err := c.pick(g, c.Paths)
	if err != nil {
		return err
	}
	entries := make([]output.ListEntry, 0, len(scs))
	for _, sc := range scs {
		entries = append(entries, output.ListEntry{Name: sc.Name, File: sc.File, Line: sc.Pos.Line, Agent: sc.Agent.Name, Tags: sc.Tags})
	}
	return output.List(g.Stdout, entries)
}
