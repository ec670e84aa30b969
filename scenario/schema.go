package scenario

import (
	_ "embed"
	"sync"

	json "github.com/go-json-experiment/json/v1"
)

//go:embed schema.json
var schemaJSON []byte

// JSONSchema returns a JSON Schema (draft 2020-12) of the scenario file
// format, for editors: with yaml-language-server, start a scenario file with
//
//	# yaml-language-server: $schema=path/to/acprun-scenario.schema.json
//
// The schema checks the shape of one document (one scenario); Load checks
// more (files that must exist, regexps, rule examples, unique names, agent
// names).
func JSONSchema() []byte {
	return append([]byte(nil), schemaJSON...)
}

// ConfigJSONSchema returns a JSON Schema (draft 2020-12) of the config file
// (acprun.yaml), for editors. It is made from JSONSchema: defaults takes
// the scenario's descriptions of its keys.
func ConfigJSONSchema() []byte {
	return append([]byte(nil), configSchema()...)
}

var configSchema = sync.OnceValue(func() []byte {
	var s struct {
		Schema     string         `json:"$schema"`
		Properties map[string]any `json:"properties"`
		Defs       map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		return nil // schema.json is embedded; its tests check it
	}
	// The config has no vars: none of its values is a template.
	s.Defs["template"], s.Defs["templated"] = false, false
	defaults := map[string]any{}
	for _, k := range defaultsKeys {
		defaults[k] = s.Properties[k]
	}
	s.Defs["defaults"] = map[string]any{
		"type":                 []string{"object", "null"}, // defaults: with every key commented out
		"additionalProperties": false,
		"description": "Settings every scenario gets unless it sets them itself; a scenario's key replaces the " +
			"config's as a whole, except that client merges key by key. Relative paths are relative to the config file.",
		"properties": defaults,
	}
	doc := map[string]any{
		"$schema":              s.Schema,
		"title":                "acprun config",
		"description":          "acprun's config file (acprun.yaml): defaults for every scenario and named agents.",
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"defaults": map[string]any{"$ref": "#/$defs/defaults"},
			"agents": map[string]any{
				"type":          []string{"object", "null"},
				"description":   "Named agents by name, for scenarios (agent: NAME), run --agent and probe. An agent named like a built-in one replaces it.",
				"propertyNames": map[string]any{"pattern": agentNameRE.String()},
				"properties":    builtinAgentRefs(),
				// Another agent has no built-in one to take its command from.
				"additionalProperties": map[string]any{
					"$ref":     "#/$defs/namedAgent",
					"required": []string{"command"},
				},
			},
			"prices": map[string]any{
				"type": []string{"object", "null"},
				"description": "What models cost, for the gateway's costs: a model's name, as requests name it, to its price per million tokens. " +
					"acprun has no prices of its own; a model without one is counted but not priced.",
				"additionalProperties": map[string]any{"$ref": "#/$defs/price"},
			},
			"currency": map[string]any{
				"type":        "string",
				"pattern":     `\S`,
				"description": "The currency of prices and of every maxCost (USD, EUR…); default " + DefaultCurrency + ". acprun converts no currencies: a cost reported in another is not compared with a maxCost.",
			},
		},
		"$defs": s.Defs,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil
	}
	return append(b, '\n')
})

// builtinAgentRefs is the schema of the config's agents named like a
// built-in one: a named agent that may leave its command out, changing
// the built-in agent's env, args or other keys.
func builtinAgentRefs() map[string]any {
	props := map[string]any{}
	for _, name := range builtinNames(nil) {
		props[name] = map[string]any{"$ref": "#/$defs/namedAgent"}
	}
	return props
}
