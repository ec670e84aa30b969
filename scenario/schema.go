package scenario

import _ "embed"

//go:embed schema.json
var schemaJSON []byte

// JSONSchema returns a JSON Schema (draft 2020-12) of the scenario file
// format, for editors: with yaml-language-server, start a scenario file with
//
//	# yaml-language-server: $schema=path/to/acprun-scenario.schema.json
//
// The schema checks the shape of one document (one scenario); Load checks
// more (files that must exist, regexps, rule examples, unique names).
func JSONSchema() []byte {
	return append([]byte(nil), schemaJSON...)
}
