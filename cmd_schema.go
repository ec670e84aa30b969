package main

import "github.com/acprun/acprun/scenario"

// schemaCmd is `acprun schema`.
type schemaCmd struct {
	Config bool `help:"Print the schema of the config file (acprun.yaml) instead."`
}

// Help is the long help of schema.
func (c *schemaCmd) Help() string {
	return `Prints a JSON Schema of the scenario format. Point yaml-language-server at it for
completion and checks in your editor:

  acprun schema > acprun.schema.json
  # in a scenario file:
  # yaml-language-server: $schema=./acprun.schema.json

With --config, the schema of the config file (acprun.yaml: named agents and
defaults).`
}

// Run prints the schema.
func (c *schemaCmd) Run(g *globals) error {
	schema := scenario.JSONSchema()
	if c.Config {
		schema = scenario.ConfigJSONSchema()
	}
	_, err := g.Stdout.Write(schema)
	return err
}
