package scenario_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/scenario"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(scenario.JSONSchema()))
	if err != nil {
		t.Fatalf("JSONSchema() is not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("scenario.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("scenario.schema.json")
	if err != nil {
		t.Fatalf("compile JSONSchema(): %v", err)
	}
	return sch
}

func TestJSONSchemaTopLevelKeys(t *testing.T) {
	var schema struct {
		Schema               string                     `json:"$schema"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(scenario.JSONSchema(), &schema); err != nil {
		t.Fatalf("JSONSchema() is not valid JSON: %v", err)
	}
	if schema.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %q, want draft 2020-12", schema.Schema)
	}
	if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Errorf("additionalProperties = %v, want false", schema.AdditionalProperties)
	}
	for _, key := range []string{"name", "description", "tags", "agent", "timeout", "turnTimeout", "idleTimeout",
		"cancelGrace", "killGrace", "continueAfterCancel", "client", "permissions", "expect", "turns",
		"workspace", "setup", "verify", "teardown"} {
		if _, ok := schema.Properties[key]; !ok {
			t.Errorf("JSONSchema() has no property %q", key)
		}
	}
	compileSchema(t)
}

// yamlDocs returns the non-empty documents of a YAML file as JSON values.
func yamlDocs(t *testing.T, data []byte) []any {
	t.Helper()
	var docs []any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
}

func TestJSONSchemaAcceptsValidFiles(t *testing.T) {
	sch := compileSchema(t)
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata files: %v", err)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, doc := range yamlDocs(t, data) {
				if err := sch.Validate(doc); err != nil {
					t.Errorf("document %d: %v", i, err)
				}
			}
		})
	}
}

func TestJSONSchemaRejects(t *testing.T) {
	sch := compileSchema(t)
	tests := []struct{ name, src string }{
		{"unknown key", "name: x\nagent: a\nturns: [{promt: hi}]\n"},
		{"missing name", "agent: a\nturns: [{prompt: hi}]\n"},
		{"bad kind", "name: x\nagent: a\npermissions: {allow: [{kind: exec}]}\nturns: [{prompt: hi}]\n"},
		{"rule without matcher", "name: x\nagent: a\npermissions: {allow: [{always: true}]}\nturns: [{prompt: hi}]\n"},
		{"duration without unit", "name: x\nagent: a\ntimeout: '90'\nturns: [{prompt: hi}]\n"},
		{"two keys in a part", "name: x\nagent: a\nturns: [{prompt: [{text: a, file: b}]}]\n"},
		{"denied and maxDenied", "name: x\nagent: a\nexpect: {denied: 1, maxDenied: 2}\nturns: [{prompt: hi}]\n"},
		{"workspace with from and git", "name: x\nagent: a\nworkspace: {from: a, git: b}\nturns: [{prompt: hi}]\n"},
		{"ref without git", "name: x\nagent: a\nworkspace: {from: a, ref: main}\nturns: [{prompt: hi}]\n"},
		{"setup with expect", "name: x\nagent: a\nsetup: [{run: a, expect: {exitCode: 0}}]\nturns: [{prompt: hi}]\n"},
		{"verify without run", "name: x\nagent: a\nverify: [{timeout: 1m}]\nturns: [{prompt: hi}]\n"},
		{"exit code out of range", "name: x\nagent: a\nverify: [{run: a, expect: {exitCode: 256}}]\nturns: [{prompt: hi}]\n"},
		{"empty toolCalls", "name: x\nagent: a\nturns: [{prompt: hi, expect: {toolCalls: {}}}]\n"},
		{"bad count", "name: x\nagent: a\nturns: [{prompt: hi, expect: {toolCalls: {count: {edit: '<2'}}}}]\n"},
		{"bad status", "name: x\nagent: a\nturns: [{prompt: hi, expect: {toolCalls: {status: done}}}]\n"},
		{"count that could never fail", "name: x\nagent: a\nturns: [{prompt: hi, expect: {toolCalls: {count: {edit: '>= 0'}}}}]\n"},
		{"notices.max that could never fail", "name: x\nagent: a\nexpect: {notices: {max: error}}\nturns: [{prompt: hi}]\n"},
		{"absolute files path", "name: x\nagent: a\nexpect: {files: {exists: [/etc/passwd]}}\nturns: [{prompt: hi}]\n"},
		{"files path with ..", "name: x\nagent: a\nexpect: {files: {contains: {../x: y}}}\nturns: [{prompt: hi}]\n"},
		{"negative maxCost", "name: x\nagent: a\nexpect: {usage: {maxCost: -1}}\nturns: [{prompt: hi}]\n"},
		{"judge without rubric", "name: x\nagent: a\nexpect: {judge: {agent: claude}}\nturns: [{prompt: hi}]\n"},
		{"cancelCause without stopReason", "name: x\nagent: a\nturns: [{prompt: hi, expect: {cancelCause: turnTimeout}}]\n"},
		{"maxDenied too large", "name: x\nagent: a\nexpect: {maxDenied: 3000000000}\nturns: [{prompt: hi}]\n"},
		{"empty tag", "name: x\nagent: a\ntags: [smoke, '']\nturns: [{prompt: hi}]\n"},
		{"tag with a comma", "name: x\nagent: a\ntags: 'smoke,nightly'\nturns: [{prompt: hi}]\n"},
		{"blank tag", "name: x\nagent: a\ntags: [smoke, ' ']\nturns: [{prompt: hi}]\n"},
		{"tag with a space", "name: x\nagent: a\ntags: [smoke, 'c d']\nturns: [{prompt: hi}]\n"},
		{"tag with a tab", "name: x\nagent: a\ntags: \"a\\tb\"\nturns: [{prompt: hi}]\n"},
		{"tag with a bidi control", "name: x\nagent: a\ntags: [\"a\\u202eb\"]\nturns: [{prompt: hi}]\n"},
		{"name with a line separator", "name: \"a\\u2028b\"\nagent: a\nturns: [{prompt: hi}]\n"},
		{"name with a bidi control", "name: \"a \\u202eb\"\nagent: a\nturns: [{prompt: hi}]\n"},
		{"vars value with a line separator", "name: x\nagent: a\nvars: {a: [ok, \"x\\u2028y\"]}\nturns: [{prompt: hi}]\n"},
		{"vars value with a control character", "name: x\nagent: a\nvars: {a: [ok, \"x\\ty\"]}\nturns: [{prompt: hi}]\n"},
		{"cancelCause of the run", "name: x\nagent: a\nturns: [{prompt: hi, expect: {stopReason: cancelled, cancelCause: interrupt}}]\n"},
		{"prompt of white space", "name: x\nagent: a\nturns: [{prompt: \"\\n \"}]\n"},
		{"empty matches", "name: x\nagent: a\nturns: [{prompt: hi, expect: {text: {matches: ''}}}]\n"},
		{"empty stdout matches", "name: x\nagent: a\nverify: [{run: a, expect: {stdout: {matches: ''}}}]\nturns: [{prompt: hi}]\n"},
		{"empty agent name matches", "name: x\nagent: a\nexpect: {agent: {name: {matches: ''}}}\nturns: [{prompt: hi}]\n"},
		{"empty file matches", "name: x\nagent: a\nturns: [{prompt: hi, expect: {files: {matches: {a: ''}}}}]\n"},
		{"blank path pattern", "name: x\nagent: a\npermissions: {allow: [{path: ' '}]}\nturns: [{prompt: hi}]\n"},
		{"blank command pattern", "name: x\nagent: a\npermissions: {allow: [{command: [' ']}]}\nturns: [{prompt: hi}]\n"},
		{"stop reason skipped", "name: x\nagent: a\nturns: [{prompt: hi, expect: {stopReason: skipped}}]\n"},
		{"stop reasons with skipped", "name: x\nagent: a\nturns: [{prompt: hi, expect: {stopReason: [end_turn, skipped]}}]\n"},
		{"MCP server without a command", "name: x\nagent: {command: [a], mcpServers: [{name: m}]}\nturns: [{prompt: hi}]\n"},
		{"MCP server env as a mapping", "name: x\nagent: {command: [a], mcpServers: [{name: m, command: c, env: {K: v}}]}\nturns: [{prompt: hi}]\n"},
		{"MCP server of an unknown type", "name: x\nagent: {command: [a], mcpServers: [{name: m, type: ws, url: 'http://x'}]}\nturns: [{prompt: hi}]\n"},
		{"MCP server url that is no URL", "name: x\nagent: {command: [a], mcpServers: [{name: m, type: http, url: mcp.example.com}]}\nturns: [{prompt: hi}]\n"},
		{"stdio MCP server with a url", "name: x\nagent: {command: [a], mcpServers: [{name: m, command: c, url: 'http://x'}]}\nturns: [{prompt: hi}]\n"},
		{"MCP header without a value", "name: x\nagent: {command: [a], mcpServers: [{name: m, type: sse, url: 'http://x', headers: [{name: A}]}]}\nturns: [{prompt: hi}]\n"},
		{"text around a number's template", "name: x\nagent: a\nvars: {c: [1]}\nverify: [{run: a, expect: {exitCode: '{{.c}}0'}}]\nturns: [{prompt: hi}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, doc := range yamlDocs(t, []byte(tt.src)) {
				if err := sch.Validate(doc); err == nil {
					t.Errorf("schema accepts %q, want an error", tt.src)
				}
			}
		})
	}
}

func TestConfigJSONSchema(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(scenario.ConfigJSONSchema()))
	if err != nil {
		t.Fatalf("ConfigJSONSchema() is not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("config.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatalf("compile ConfigJSONSchema(): %v", err)
	}
	good := `defaults:
  agent: {name: mock, args: [x.mock.yaml]}
  timeout: 10m
  client: {readOnly: true}
  permissions: {default: deny, allow: [{kind: read}]}
  workspace: {git: ./repo, ref: main}
  setup: [make deps]
  verify: [{run: make test, expect: {stdout: {contains: ok}}}]
  teardown: [make clean]
agents:
  mine: {description: Mine., command: [a, b], env: {A: "1"}, cwd: w, auth: k, mode: m, mcpServers: []}
  claude: {env: {K: v}}
`
	for _, d := range yamlDocs(t, []byte(good)) {
		if err := sch.Validate(d); err != nil {
			t.Errorf("schema rejects a valid config: %v", err)
		}
	}
	// Keys left empty, as when every entry under them is commented out,
	// which the loader takes.
	if _, err := scenario.LoadConfigBytes("c.yaml", []byte("defaults:\nagents:\nprices:\n"), opts); err != nil {
		t.Errorf("acprun does not load a config with empty keys: %v", err)
	}
	for _, d := range yamlDocs(t, []byte("defaults:\nagents:\nprices:\n")) {
		if err := sch.Validate(d); err != nil {
			t.Errorf("schema rejects a config with empty keys: %v", err)
		}
	}
	for _, bad := range []string{
		"timeout: 1m\n",
		"defaults: {turns: []}\n",
		"agents: {mine: {comand: [a]}}\n",
		"agents: {'my agent': {command: [a]}}\n",
		"defaults: {agent: {name: a, command: [b]}}\n",
		"defaults: {agent: {command: [b], args: [c]}}\n",
		"defaults: {setup: [{run: a, expect: {}}]}\n",
		"defaults: {workspace: {ref: main}}\n",
		"defaults: {turnTimeout: '{{.limit}}'}\n",
		"agents: {mine: {env: {A: b}}}\n", // no command, and no built-in agent of that name
		"currency: ' '\n",
		"currency: 5\n",
		"currency: true\n",
	} {
		for _, d := range yamlDocs(t, []byte(bad)) {
			if err := sch.Validate(d); err == nil {
				t.Errorf("schema accepts %q, want an error", bad)
			}
		}
	}
}

// TestJSONSchemaAcceptsTemplates: where a scenario with vars may give a
// key's value as a template ({{.NAME}} alone for a number or boolean, in a
// string for a duration or a value from a list), acprun loads it and the
// schema takes it.
func TestJSONSchemaAcceptsTemplates(t *testing.T) {
	sch := compileSchema(t)
	for _, keys := range []string{
		`verify: [{run: "exit {{.code}}", timeout: "{{.limit}}", expect: {exitCode: "{{.code}}"}}]`,
		`turnTimeout: "{{.limit}}"`,
		`timeout: "{{ .minutes }}m"`,
		`turns: [{prompt: hi, timeout: "{{.limit}}"}]`,
		`setup: [{run: "true", timeout: "{{.limit}}"}]`,
		`retries: "{{.code}}"`,
		`continueAfterCancel: "{{.strict}}"`,
		`client: {fs: "{{.strict}}", terminal: "{{.strict}}", readOnly: "{{.strict}}"}`,
		`expect: {denied: "{{.code}}"}`,
		`expect: {maxDenied: "{{.code}}", usage: {maxTotalTokens: "{{.code}}", maxCost: "{{.code}}"}}`,
		`budget: {maxTotalTokens: "{{.code}}", maxCost: "{{.code}}", maxRequests: "{{.code}}"}` + "\n" +
			`gateway: {mode: "{{.mode}}", env: "{{.env}}", upstream: "{{.url}}", key: "{{ .key }}"}`,
		`sandbox: "{{.strict}}"`,
		`sandbox: {network: "{{.network}}", ports: ["{{.port}}"], verify: "{{.strict}}", level: "{{.sandbox}}"}`,
		`sandbox: {network: "{{.strict}}"}`,
		`sandbox: {network: "{{.network}}", ports: "{{.port}}"}`,
		`agent: {command: [a], reuse: "{{.strict}}"}`,
		`permissions: {default: "{{.answer}}", enforce: "{{.strict}}", answerDelay: "{{.limit}}", allow: [{kind: "{{.kind}}", always: "{{.strict}}"}, {kind: ["{{.kind}}"]}]}`,
		`turns: [{prompt: hi, expect: {denied: "{{.code}}", stopReason: "{{.stop}}", toolCalls: {status: "{{.status}}", count: {"{{.kind}}": "{{.code}}"}}}}]`,
		`turns: [{prompt: hi, expect: {maxDenied: "{{.code}}", stopReason: ["{{.stop}}"]}}]`,
		`expect: {notices: {max: "{{.level}}"}, passRate: "{{.rate}}"}` + "\n" + `retries: 2`,
		`turns: [{prompt: hi, expect: {stopReason: cancelled, cancelCause: "{{.cause}}"}}]` + "\n" + `session: {resume: "{{.strict}}"}`,
	} {
		src := `name: s
vars: {code: [0, 1], limit: [5s], minutes: [2], strict: [true, false], answer: [deny], kind: [edit], stop: [end_turn], status: [completed], level: [warning], mode: [meter], env: [MY_BASE_URL], url: ["https://api.example.com/v1"], key: [MY_KEY], port: [443], sandbox: [best-effort], network: ["on"], rate: [0.5], cause: [turnTimeout]}
` + keys + "\n"
		for _, key := range []string{"agent: {command: [a]}", "permissions: {default: deny}", "turns: [{prompt: hi}]"} {
			if name, _, _ := strings.Cut(key, " "); !strings.Contains(keys, name) {
				src += key + "\n"
			}
		}
		t.Run(keys, func(t *testing.T) {
			if _, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts); err != nil {
				t.Fatalf("acprun does not load it:\n%v", err)
			}
			for _, doc := range yamlDocs(t, []byte(src)) {
				if err := sch.Validate(doc); err != nil {
					t.Errorf("the schema rejects it: %v", err)
				}
			}
		})
	}
}

// TestJSONSchemaAgreesWithLoader: what acprun loads, the schema it prints
// takes. The loader reads any scalar but null where it wants a string
// (name: 2024 is the name "2024"), an empty list of tags or examples, and
// a number without a fraction where it wants a whole number (retries: 2.0
// is 2), as JSON Schema counts integers.
func TestJSONSchemaAgreesWithLoader(t *testing.T) {
	sch := compileSchema(t)
	for _, keys := range []string{
		"name: 2024",
		"name: true",
		"name: 1.5",
		"description: 5",
		"tags: []",
		"tags: [5, true]",
		"tags: 2024",
		"agent: {command: [a, 5, true], env: {A: 5}, auth: 5, mode: 5, model: true}",
		"agent: {command: 5}",
		"permissions: {allow: [{tool: 5}, {title: [true]}, {path: 5}, {command: [5]}], deny: [{input: {n: 5}}]}",
		"permissions: {allow: [{command: x, examples: {match: [], noMatch: []}}]}",
		"turns: [{prompt: 5}]",
		"turns: [{prompt: [{text: true}]}]",
		"answers: [{match: 5, values: {a: 1}}]",
		"turns: [{prompt: hi, expect: {stopReason: [5], text: {contains: 5, matches: 5, notContains: [true], notMatches: [6]}}}]",
		"sandbox: {write: [5], hide: 5}",
		"setup: [5, {run: true}]\nverify: [5, {run: a, expect: {stdout: {contains: [5], matches: 5}}}]\nteardown: [5]",
		"turns: [{prompt: hi, expect: {toolCalls: {used: [5]}, files: {exists: 5, contains: {a: 5}, matches: {a: 5}}, permissions: {requested: 5}}}]",
		"expect: {judge: {agent: {command: [a]}, rubric: 5, pass: 5}, agent: {name: 5, version: 5}}",
		"session: {resume: true, stateFile: 5}",
		"gateway: {mode: meter, env: 5, key: true, upstream: \"https://a.b\", dir: 5}",
		"agent: {command: [a], mcpServers: [{name: f, command: y, args: null, env: [{name: A, value: 5}], _meta: {a: 1}}, {name: w, type: sse, url: \"HTTPS://a.b/sse\", headers: null}]}",
		"timeout: \"+5m\"\npermissions: {default: deny, answerDelay: \"+1s\"}",
		"retries: 2.0",
		"retries: 1e1",
		"expect: {maxDenied: 2.0, usage: {maxTotalTokens: 1e3}}",
		"turns: [{prompt: hi, expect: {denied: 1.0, toolCalls: {count: {edit: 1.0}}}}]",
		"verify: [{run: a, expect: {exitCode: 1.0}}]",
		"sandbox: {ports: [443.0]}",
	} {
		t.Run(keys, func(t *testing.T) {
			src := keys + "\n"
			for _, key := range []string{"name: s", "agent: {command: [a]}", "permissions: {default: deny}", "turns: [{prompt: hi}]"} {
				if name, _, _ := strings.Cut(key, " "); !strings.Contains("\n"+keys, "\n"+name) {
					src += key + "\n"
				}
			}
			if _, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts); err != nil {
				t.Errorf("acprun does not load it:\n%v", err)
			}
			for _, doc := range yamlDocs(t, []byte(src)) {
				if err := sch.Validate(doc); err != nil {
					t.Errorf("the schema rejects it: %v", err)
				}
			}
		})
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(scenario.ConfigJSONSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("config.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	csch, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := "agents: {mine: {description: 5, command: [a, 5], env: {A: 5}, auth: 5, mode: true, model: 5}}\ncurrency: '5'\n"
	if _, err := scenario.LoadConfigBytes("c.yaml", []byte(cfg), opts); err != nil {
		t.Errorf("acprun does not load the config:\n%v", err)
	}
	for _, doc := range yamlDocs(t, []byte(cfg)) {
		if err := csch.Validate(doc); err != nil {
			t.Errorf("the config schema rejects it: %v", err)
		}
	}
}

// TestJSONSchemaRetriesSaysWhatRunsAgain: the description an editor shows
// for retries (in a scenario, and in the config's defaults) says what the
// runner runs again, an attempt that errored or was invalid, and that one
// that failed an expectation is not; it said "an attempt that failed or
// errored".
func TestJSONSchemaRetriesSaysWhatRunsAgain(t *testing.T) {
	const want = "Run an attempt that errored (the agent crashed or hung, its setup failed) or was invalid (it measured nothing) again, " +
		"up to this many times, each in a fresh workspace; one that failed an expectation is not run again. " +
		"Every try is kept in the results; the attempt passes if a try passes (marked flaky). Default 0."
	for name, schema := range map[string][]byte{"scenario": scenario.JSONSchema(), "config": scenario.ConfigJSONSchema()} {
		var doc any
		if err := json.Unmarshal(schema, &doc); err != nil {
			t.Fatal(err)
		}
		var found []string
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if r, ok := v["retries"].(map[string]any); ok {
					found = append(found, r["description"].(string))
				}
				for _, e := range v {
					walk(e)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		walk(doc)
		if len(found) == 0 {
			t.Errorf("%s schema: no retries", name)
		}
		for _, d := range found {
			if d != want {
				t.Errorf("%s schema: retries says %q, want %q", name, d, want)
			}
		}
	}
}
