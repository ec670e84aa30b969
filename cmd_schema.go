package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
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
defaults). Exit 0; 2 when -o cannot be written or another acprun command is
writing it (nothing written); 4 when writing it failed; 130 when -o is a FIFO
that no process read before an interrupt (Ctrl-C).`
}

// Run prints the schema.
func (c *schemaCmd) Run(ctx context.Context, g *globals) error {
	schema := scenario.JSONSchema()
	if c.Config {
		schema = scenario.ConfigJSONSchema()
	}
	pin, err := pinOutput(ctx, c.Output, "")
	if err != nil {
		return err
	}
	defer pin.Close()
	out := outfile.Target{Flag: "-o", Path: c.Output, What: "the schema"}
	err = g.writeFile(ctx, g.Stderr, out, pin, true, termtext.JSONEscapes, func(w io.Writer) error { _, err := w.Write(schema); return err })
	if err != nil && c.Output != outfile.Stdout {
		return exitError{code: writeExit(err), err: fmt.Errorf("-o %s: %w; the schema %s", c.Output, err, unwritten(err, "is incomplete", "was not written"))}
	}
	return err
}
