package e2e_test

import (
	"strings"
	"testing"
	"unicode"
)

// TestValidateEscapesControls: values of a scenario, a config file or a mock
// script that hold control characters (an escape sequence, a bell, a
// carriage return, a C1 CSI) and that an error or a warning quotes reach
// acprun's stderr escaped, as \x1b: the terminal never gets an escape
// sequence from acprun's messages, nor from the quoted source lines.
func TestValidateEscapesControls(t *testing.T) {
	t.Parallel()
	const turns = "turns: [{prompt: hi}]\n"
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  []string // parts of stderr
	}{
		{
			name: "scenario",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [a], cwd: \"./\\e[31mnope\"}\n" +
				"retries: !!int \"1\\e[2J\"\nvars: [{v: \"x\\a\"}, {v: \"x\\a\"}]\nworkspace: \"./\\u009bws\"\n" +
				"sandbox: {write: [\"~\\r\"]}\nturns: [{prompt: \"{{\\e]0;t\\a}}\"}]\n"},
			want: []string{
				`/\x1b[31mnope does not exist`, `got 1\x1b[2J`, `the values v=x\x07 are given twice`,
				`/\x9bws does not exist`, `sandbox write path ~\x0d: only ~`, `bad template {{\x1b]0;t\x07}}`,
			},
		},
		{
			name: "warning",
			files: map[string]string{
				"ws/.keep":          "",
				"\x1b[31mcwd/.keep": "",
				"s.yaml":            "name: s\nagent: {command: [a], cwd: \"./\\e[31mcwd\"}\nworkspace: ws\n" + turns,
			},
			want: []string{`warning: agent.cwd `, `/\x1b[31mcwd is outside the workspace`},
		},
		{
			name: "config",
			files: map[string]string{
				"c.yaml": "agents:\n  m: {command: [a], cwd: \"\\e[31m\"}\n",
				"s.yaml": "name: s\nagent: m\n" + turns,
			},
			args: []string{"--config", "c.yaml"},
			want: []string{`/\x1b[31m does not exist`},
		},
		{
			name: "mock script",
			files: map[string]string{
				"m.mock.yaml": "protocolVersion: !!int \"1\\e[2J\"\n",
				"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\n" + turns,
			},
			args: []string{"--strict"},
			want: []string{`protocolVersion: integer out of range: 1\x1b[2J`},
		},
		{
			name:  "missing mock script",
			files: map[string]string{"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, \"\\e[31mm.mock.yaml\"]}\n" + turns},
			args:  []string{"--strict"},
			want:  []string{`mock script \x1b[31mm.mock.yaml does not exist`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := validateFiles(t, tt.files, tt.args...)
			if strings.ContainsFunc(strings.ReplaceAll(r.stderr, "\n", ""), unicode.IsControl) {
				t.Errorf("validate's stderr holds a raw control character:\n%q", r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("validate: exit %d, stderr:\n%s\nwant it to hold %q", r.code, r.stderr, w)
				}
			}
		})
	}
}

// validateFiles runs acprun validate ARGS s.yaml in a new directory that
// holds files.
func validateFiles(t *testing.T, files map[string]string, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return acprun(t, dir, append(append([]string{"validate"}, args...), "s.yaml")...)
}

// TestFileNamesEscaped: a scenario file whose name holds control
// characters (one an agent left among the scenarios, whose directory is
// its cwd by default) is named escaped, as \x1b, wherever acprun names
// it: list's lines, run's failures and warnings, validate's errors.
func TestFileNamesEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"ok/evil\x1b[31m.yaml": "name: evil\nagent: {command: [acprun, mock-agent, ../m.mock.yaml]}\n" +
			"turns: [{prompt: hi, expect: {text: {contains: zzz}}}]\n",
		"bad/bad\x1b]0;T\x07.yaml": "name: bad\nagent: {command: [a]}\nturns: [{prompt: hi, bogus: 1}]\n",
	})
	raw := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) })
	}
	for _, tt := range []struct {
		args []string
		code int
		want string // in stdout and stderr
	}{
		{[]string{"list", "ok"}, exitOK, `ok/evil\x1b[31m.yaml:1` + "\tevil"},
		{[]string{"run", "ok", "-o", "out.json"}, exitFailed, `ok/evil\x1b[31m.yaml:3:30: text does not contain "zzz"`},
		{[]string{"validate", "bad"}, exitUsage, `bad/bad\x1b]0;T\x07.yaml:3:22: unknown key "bogus"`},
	} {
		res := acprun(t, dir, tt.args...)
		out := res.stdout + res.stderr
		if res.code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("acprun %v: exit %d, output:\n%s\nwant exit %d and %q", tt.args, res.code, out, tt.code, tt.want)
		}
		if raw(out) {
			t.Errorf("acprun %v: a raw control character reached the output:\n%q", tt.args, out)
		}
	}
}
