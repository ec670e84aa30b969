package main

import (
	"context"
	"io"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/scenario"
)

// listCmd is `acprun list PATHS…`.
type listCmd struct {
	Paths []string `arg:"" name:"path" help:"Scenario files, directories (searched for *.yaml and *.yml) or globs."`
	JSON  bool     `name:"json" help:"Print the selection as a JSON array on stdout (see the long help for its fields)."`
	selection
	gatewayFlags `set:"gatewayDoes=List the scenarios as run --gateway MODE loads them, with acprun's model gateway between each agent and its model provider"`
}

// Help is the long help of list.
func (c *listCmd) Help() string {
	return `Prints the scenarios that "acprun run" would run with the same paths and
selection flags, one per line: file:line, name, @agent, [tags]. Runs nothing.
A ${VAR} that is unset here is a warning, as in validate: a run that selects
its scenario (--dry-run too) stops on it.

With --json, stdout is one JSON array, one object per scenario (and per
--agent), in the order a run would start them, every key always present:
  name         the scenario's name
  description  its description ("" when none)
  file         the scenario file, as the path that found it
  line, column where the scenario starts in it
  agent        the named agent it runs against ("" when it gives its command)
  tags         its tags ([] when none)
  turns        how many turns it has
  vars         the values of a parametrised scenario by name ({} when none)
For example: acprun list --json tests/ | jq -r '.[].name'

Exit codes:
  0    the selection was listed
  2    usage or scenario-file errors
  5    no scenario selected (see --allow-empty)`
}

// Run lists the selected scenarios.
func (c *listCmd) Run(ctx context.Context, g *globals) error {
	if err := c.gatewayFlags.check(); err != nil {
		return err
	}
	c.selection.gateway = c.gatewayFlags
	scs, err := c.pick(g, c.Paths)
	if err != nil {
		return err
	}
	// A variable unset here stops a run of its scenario, not the listing.
	printWarnings(g, scs, scenario.UnsetWarnings(scs))
	entries := make([]output.ListEntry, 0, len(scs))
	for _, sc := range scs {
		entries = append(entries, output.ListEntry{
			Name: sc.Name, Description: sc.Description, File: sc.File, Line: sc.Pos.Line, Column: sc.Pos.Col,
			Agent: sc.Agent.Name, Tags: sc.Tags, Turns: len(sc.Turns), Vars: sc.VarValues(),
		})
	}
	g.redactor(scs).Value(entries) // a description may hold a secret, or a ${VAR} its value
	if c.JSON {
		return g.toStdout(ctx, termtext.JSONEscapes, func(w io.Writer) error { return output.ListJSON(w, entries) })
	}
	return output.List(g.Stdout, entries)
}
