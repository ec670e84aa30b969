package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// fragmentMarker, on the line before a ```yaml block of the docs, says
// that the block shows some keys of a scenario, not a whole one: the test
// adds the keys a scenario needs (name, agent, permissions, turns) that
// it lacks, and checks the rest as written.
const fragmentMarker = "<!-- acprun: fragment -->"

// yamlBlock is one ```yaml block of a Markdown file.
type yamlBlock struct {
	file     string
	line     int // of the block's first line of YAML
	text     string
	fragment bool // after fragmentMarker
}

// TestDocsYAMLValidates checks that every ```yaml block of README.md and
// of docs/*.md validates, through the built binary and against acprun
// schema: a scenario (a fragment once completed), or a config file when
// its first line is "# acprun.yaml". The files the examples name are made
// first, and the variables they use are set.
func TestDocsYAMLValidates(t *testing.T) {
	t.Parallel()
	docs, _ := fs.Glob(os.DirFS(root), "docs/*.md")
	var blocks []yamlBlock
	for _, f := range append([]string{"README.md"}, docs...) {
		blocks = append(blocks, markdownYAML(t, f)...)
	}
	if len(blocks) < 3 {
		t.Fatalf("found %d yaml blocks in the docs; want the README's at least", len(blocks))
	}
	scenarioSchema := schemaOf(t, "schema")
	configSchema := schemaOf(t, "schema", "--config")
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			dir := t.TempDir()
			// What the examples name: session cwd and roots, prompt
			// files, workspace sources, golden files.
			writeFiles(t, dir, map[string]string{
				"repo/.keep": "", "NOTES.md": "notes", "shot.png": "png", "fixtures/repo/.keep": "",
				"golden/out.txt": "out", "prompts/nightly.md": "nightly",
			})
			var env []string
			for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(b.text, -1) {
				env = append(env, m[1]+"=fake-"+m[1])
			}
			text := b.text
			if b.fragment {
				text = completeScenario(t, text)
			}
			args := []string{"validate", "s.yaml"}
			file, sch := "s.yaml", scenarioSchema
			if strings.HasPrefix(text, "# acprun.yaml\n") {
				writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
				args = []string{"validate", "--config", "acprun.yaml", "s.yaml"}
				file, sch = "acprun.yaml", configSchema
			}
			writeFiles(t, dir, map[string]string{file: text})
			res := acprunEnv(t, dir, env, args...)
			if res.code != 0 || res.stderr != "" {
				t.Errorf("acprun %s: exit %d, stderr:\n%s\n%s:\n%s", strings.Join(args, " "), res.code, res.stderr, file, text)
			}
			var doc any
			if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("acprun %s does not take %s: %v", strings.Join(args[:len(args)-1], " "), file, err)
			}
		})
	}
}

// markdownYAML returns the ```yaml blocks of the Markdown file path, relative
// to the module's root.
func markdownYAML(t *testing.T, path string) []yamlBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []yamlBlock
	var cur *yamlBlock
	prev := "" // the last line before the block that is not blank
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```yaml":
			cur = &yamlBlock{file: path, line: n + 1, fragment: prev == fragmentMarker}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case strings.TrimSpace(line) != "":
			prev = strings.TrimSpace(line)
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated yaml block", path, cur.line)
	}
	return blocks
}

// completeScenario adds to the scenario fragment text the keys a
// scenario needs that it lacks.
func completeScenario(t *testing.T, text string) string {
	t.Helper()
	var keys map[string]any
	if err := yaml.Unmarshal([]byte(text), &keys); err != nil {
		t.Fatalf("fragment: %v", err)
	}
	for _, k := range []struct{ key, yaml string }{
		{"name", "name: fragment"}, {"agent", "agent: {command: [a]}"},
		{"permissions", "permissions: {default: deny}"}, {"turns", "turns: [{prompt: hi}]"},
	} {
		if _, ok := keys[k.key]; !ok {
			text = k.yaml + "\n" + text
		}
	}
	return text
}

// schemaOf compiles the JSON Schema that acprun prints with args.
func schemaOf(t *testing.T, args ...string) *jsonschema.Schema {
	t.Helper()
	res := acprun(t, t.TempDir(), args...)
	if res.code != 0 {
		t.Fatalf("acprun %s: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
