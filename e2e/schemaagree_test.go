package e2e_test

import (
	"strings"
	"testing"
)

// TestSchemaTakesWhatValidateTakes: a scenario or config that acprun
// validate accepts, the JSON Schema acprun schema prints (for editors)
// accepts too: a number or boolean where a string goes (name: 2024 is the
// name "2024"), an empty list of tags, and a whole number written with a
// fraction (retries: 2.0), which JSON Schema counts as an integer.
func TestSchemaTakesWhatValidateTakes(t *testing.T) {
	t.Parallel()
	scenarioSchema := schemaOf(t, "schema")
	configSchema := schemaOf(t, "schema", "--config")
	for _, tc := range []struct{ name, file, text string }{
		{"a number as the name", "s.yaml", "name: 2024\nagent: {command: [a, 5]}\ntags: []\npermissions: {default: deny}\nturns: [{prompt: 42}]\n"},
		{"a boolean as a tag", "s.yaml", "name: s\ndescription: 5\nagent: {command: [a], mode: true}\ntags: [true, 7]\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"},
		{"whole numbers written with a fraction", "s.yaml", "name: s\nagent: {command: [a]}\nretries: 2.0\npermissions: {default: deny}\nexpect: {maxDenied: 1e1}\nverify: [{run: a, expect: {exitCode: 1.0}}]\nturns: [{prompt: hi}]\n"},
		{"a duration with a plus sign", "s.yaml", "name: s\nagent: {command: [a]}\ntimeout: '+5m'\npermissions: {default: deny, answerDelay: '+1s'}\nturns: [{prompt: hi}]\n"},
		{"numbers in the config", "acprun.yaml", "agents: {mine: {command: [a], auth: 5, model: 4.5}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args, sch := []string{"validate", "s.yaml"}, scenarioSchema
			if tc.file == "acprun.yaml" {
				writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
				args, sch = []string{"validate", "--config", "acprun.yaml", "s.yaml"}, configSchema
			}
			writeFiles(t, dir, map[string]string{tc.file: tc.text})
			if res := acprun(t, dir, args...); res.code != 0 || res.stderr != "" {
				t.Fatalf("acprun validate: exit %d, stderr:\n%s", res.code, res.stderr)
			}
			if err := sch.Validate(schemaInstance(t, tc.text)); err != nil {
				t.Errorf("acprun validate takes it, the schema does not:\n%s\n%v", tc.text, err)
			}
		})
	}
}

// TestSchemaRefusesWhatValidateRefuses: a mistake acprun validate refuses
// by its shape alone (a prompt of white space, an empty regular
// expression that could never fail, a blank path pattern, the stop reason
// skipped, which no turn that ran has, an MCP server of the wrong shape),
// the schema refuses too, so that an editor marks it.
func TestSchemaRefusesWhatValidateRefuses(t *testing.T) {
	t.Parallel()
	sch := schemaOf(t, "schema")
	for _, keys := range []string{
		"turns: [{prompt: \" \"}]",
		"turns: [{prompt: hi, expect: {text: {matches: ''}}}]",
		"permissions: {allow: [{path: ' '}]}\nturns: [{prompt: hi}]",
		"turns: [{prompt: hi, expect: {stopReason: skipped}}]",
		"agent: {command: [a], mcpServers: [{name: m, command: c, env: {K: v}}]}\nturns: [{prompt: hi}]",
		"agent: {command: [a], mcpServers: [{name: m, type: http, url: mcp.example.com}]}\nturns: [{prompt: hi}]",
	} {
		t.Run(keys, func(t *testing.T) {
			dir := t.TempDir()
			text := "name: s\n" + keys + "\n"
			if !strings.HasPrefix(keys, "agent:") {
				text = "name: s\nagent: {command: [a]}\n" + keys + "\n"
			}
			writeFiles(t, dir, map[string]string{"s.yaml": text})
			if res := acprun(t, dir, "validate", "s.yaml"); res.code != exitUsage {
				t.Fatalf("acprun validate: exit %d, want %d; stderr:\n%s", res.code, exitUsage, res.stderr)
			}
			if err := sch.Validate(schemaInstance(t, text)); err == nil {
				t.Errorf("acprun validate refuses it, the schema does not:\n%s", text)
			}
		})
	}
}

// TestConfigSchemaAgreesWithValidate: a config whose keys are left empty
// (every entry commented out) loads, and its schema takes it; a config
// agent without a command, which only one named like a built-in agent may
// leave out, is refused by both.
func TestConfigSchemaAgreesWithValidate(t *testing.T) {
	t.Parallel()
	sch := schemaOf(t, "schema", "--config")
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"defaults:\n#  timeout: 5m\nagents:\nprices:\n", true},
		{"agents: {claude: {env: {A: b}}}\n", true},
		{"agents: {mine: {env: {A: b}}}\n", false},
		{"currency: 5\n", false},
		{"currency: true\n", false},
		{"currency: '5'\n", true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"acprun.yaml": tc.text, "s.yaml": "name: s\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
			res := acprun(t, dir, "validate", "s.yaml")
			if ok := res.code == 0; ok != tc.ok {
				t.Errorf("acprun validate: exit %d, stderr:\n%s", res.code, res.stderr)
			}
			if err := sch.Validate(schemaInstance(t, tc.text)); (err == nil) != tc.ok {
				t.Errorf("schema: %v, want accepted %v", err, tc.ok)
			}
		})
	}
}

// TestSchemaRetriesSaysWhatARunDoes: what acprun schema says of retries
// (the hover text of an editor) is what a run does: an attempt that
// failed an expectation is not run again, one that errored is. The
// schema said "run an attempt that failed or errored again".
func TestSchemaRetriesSaysWhatARunDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name, script string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, " + script + "]}\npermissions: {default: deny}\nretries: 1\n" +
			"turns: [{prompt: hi, expect: {text: {contains: hello}}}]\n"
	}
	writeFiles(t, dir, map[string]string{
		"bye.mock.yaml":   "turns:\n  - steps: [{text: bye}]\n",
		"crash.mock.yaml": "turns:\n  - steps: [{exit: 3}]\n",
		"s.yaml":          scenario("fails", "bye.mock.yaml") + "---\n" + scenario("errors", "crash.mock.yaml"),
	})
	_, out := runResults(t, dir, "s.yaml")
	tries := map[string]int{}
	for _, sc := range out.Scenarios {
		tries[sc.Name]++
	}
	if tries["fails"] != 1 || tries["errors"] != 2 {
		t.Fatalf("tries %v, want fails once and errors twice", tries)
	}
	for _, args := range [][]string{{"schema"}, {"schema", "--config"}} {
		res := acprun(t, dir, args...)
		if res.code != 0 {
			t.Fatalf("acprun %s: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
		}
		if !strings.Contains(res.stdout, "Run an attempt that errored (the agent crashed or hung, its setup failed) or was invalid") ||
			!strings.Contains(res.stdout, "one that failed an expectation is not run again") || strings.Contains(res.stdout, "failed or errored again") {
			t.Errorf("acprun %s: retries does not say that a failed attempt is not run again", strings.Join(args, " "))
		}
	}
}
