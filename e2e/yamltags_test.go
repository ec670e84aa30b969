package e2e_test

import (
	"strings"
	"testing"
)

// TestUnknownYAMLTags: a tag acprun does not read (!include, !env,
// !!binary), which it used to drop and read the value as written, is an
// error at the tag that says what to write instead, in a scenario file, a
// config file and a mock agent's script alike; nothing runs.
func TestUnknownYAMLTags(t *testing.T) {
	t.Parallel()
	const hint = `acprun reads only YAML's own tags (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq); write the value without it: "${VAR}" for an environment variable (where acprun expands them), prompt: [{file: PATH}] for a prompt's text from a file`
	ok := "turns: [{steps: [{text: hello}]}]\n"
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  []string
	}{
		{
			name: "scenario",
			files: map[string]string{
				"a.mock.yaml": ok,
				"s.yaml": `name: inc
agent:
  command: [acprun, mock-agent, a.mock.yaml]
  env: {API_KEY: !env ANTHROPIC_API_KEY}
permissions: {default: deny}
turns:
  - prompt: !include prompt.md
    expect: {text: {contains: hello}}
`,
			},
			args: []string{"run", "s.yaml", "-o", "out.json"},
			want: []string{
				"s.yaml:4:18: unknown YAML tag !env: " + hint + "\n",
				"s.yaml:7:13: unknown YAML tag !include: " + hint + "\n",
			},
		},
		{
			name: "config file",
			files: map[string]string{
				"a.mock.yaml": ok,
				"acprun.yaml": "agents:\n  m: {command: [acprun, mock-agent, a.mock.yaml], env: {K: !env HOME}}\n",
				"s.yaml":      "name: s\nagent: m\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
			},
			args: []string{"run", "s.yaml", "-o", "out.json"},
			want: []string{"acprun.yaml:2:60: unknown YAML tag !env: " + hint + "\n"},
		},
		{
			name:  "mock script",
			files: map[string]string{"a.mock.yaml": "turns: [{steps: [{text: !!binary aGVsbG8=}]}]\n"},
			args:  []string{"mock-agent", "a.mock.yaml"},
			want:  []string{"a.mock.yaml:1:25: unknown YAML tag !!binary: " + hint + "\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			runs := [][]string{tt.args}
			if tt.args[0] == "run" {
				runs = append(runs, []string{"validate", "--strict", "s.yaml"})
			}
			for _, args := range runs {
				res := acprun(t, dir, args...)
				if res.code != exitUsage || strings.TrimSpace(res.stdout) != "" {
					t.Errorf("acprun %s: exit %d, stdout %q; want 2 and nothing run:\n%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
				}
				for _, want := range tt.want {
					if !strings.Contains(res.stderr, want) {
						t.Errorf("acprun %s: stderr lacks %q:\n%s", strings.Join(args, " "), want, res.stderr)
					}
				}
			}
		})
	}
}

// TestYAML11Booleans: a boolean written as YAML 1.1 spells one (yes, on,
// n) or quoted ("true"), which YAML 1.2 reads as a string, is an error
// that quotes the value and says to write true or false, in a scenario
// and a mock agent's script alike, where it used to say only "got a
// string"; run exits 2 before anything runs.
func TestYAML11Booleans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "ignoreEOF: \"true\"\nturns: [{steps: [{text: hello}]}]\n",
		"m.yaml":      "name: mock\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"s.yaml": `name: yes-no
agent: {command: [acprun, mock-agent, a.mock.yaml], reuse: n}
permissions: {default: deny}
continueAfterCancel: yes
sandbox: {verify: "FALSE", network: on}
turns: [{prompt: hi}]
`,
	})
	r := acprun(t, dir, "validate", "m.yaml")
	if w := `m.yaml:2:39: mock script a.mock.yaml does not parse: a.mock.yaml:1:12: ignoreEOF: want true or false, got the string "true" (write true without quotes)`; r.code != exitUsage || !strings.Contains(r.stderr, w) {
		t.Errorf("validate m.yaml: exit %d, want %d and %q:\n%s", r.code, exitUsage, w, r.stderr)
	}
	for _, cmd := range []string{"validate", "run"} {
		r := acprun(t, dir, cmd, "s.yaml")
		for _, w := range []string{
			`s.yaml:2:60: expected true or false, got the string "n" (YAML 1.1's n: write false)`,
			`s.yaml:4:22: expected true or false, got the string "yes" (YAML 1.1's yes: write true)`,
			`s.yaml:5:19: expected true or false, got the string "FALSE" (write false without quotes)`,
		} {
			if r.code != exitUsage || !strings.Contains(r.stderr, w) {
				t.Errorf("%s: exit %d, want %d and %q:\n%s", cmd, r.code, exitUsage, w, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "expected network") {
			t.Errorf("%s: network: on (its own word) refused:\n%s", cmd, r.stderr)
		}
	}
}
