package main

import (
	"fmt"
	"io"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/scenario"
)

// schemaCmd is `acprun schema`.
type schemaCmd struct {
	Config bool   `help:"Print the schema of the config file (acprun.yaml) instead."`
	Output string `name:"output" short:"o" default:"-" placeholder:"FILE" help:"Write the schema to FILE instead of stdout (parents created, a file replaced atomically)."`
}

// Help is the long help of schema.
func (c *schemaCmd) Help() string {
	return `Prints a JSON Schema of the scenario format. Point yaml-language-server at it for
completion and checks in your editor:

  acprun schema -o acprun.schema.json
  # in a scenario file:
  # yaml-language-server: $schema=./acprun.schema.json

With --config, the schema of the config file (acprun.yaml: named agents and
defaults). Exit 0, or 4 when -o cannot be written.`
}

// Run prints the schema.
func (c *schemaCmd) Run(g *globals) error {
	schema := scenario.JSONSchema()
	if c.Config {
		schema = scenario.ConfigJSONSchema()
	}
	err := g.writeFile(c.Output, nil, true, func(w io.Writer) error { _, err := w.Write(schema); return err })
	if err != nil && c.Output != outfile.Stdout {
		return exitError{code: exitOutput, err: fmt.Errorf("-o %s: %w; the schema was not written", c.Output, err)}
	}
	return err
}
