package e2e_test

import (
	"strings"
	"testing"
)

// TestSecretsAsWrittenRedacted: a problem's source line shows an env
// value [REDACTED] however the file spells it: with a ' doubled in single quotes,
// with escapes in double quotes, or folded over lines (each line of it
// then). Only the value as read, and its JSON and %q forms, were looked
// for: the line showed the secret as written.
func TestSecretsAsWrittenRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rest = "turns: [{prompt: hi}]\n"
	tests := []struct {
		name, file string
		line       string // the problem's source line, redacted
		leak       []string
	}{
		{"doubled", "name: doubled\nagent: {command: [a], env: {DB_PASSWORD: 'Tr0ub4dor''s-Horse-99'}, bogus: 1}\n" + rest,
			"    2 | agent: {command: [a], env: {DB_PASSWORD: '[REDACTED]'}, bogus: 1}\n", []string{"Tr0ub4dor"}},
		{"hex", "name: hex\nagent: {command: [a], env: {DB_PASSWORD: \"Tr0ub4dor\\x73-Horse-99\"}, bogus: 1}\n" + rest,
			"    2 | agent: {command: [a], env: {DB_PASSWORD: \"[REDACTED]\"}, bogus: 1}\n", []string{"Tr0ub4dor"}},
		{"unicode", "name: unicode\nagent: {command: [a], env: {DB_PASSWORD: \"Tr0ub4dor\\u0073-Horse\\U0000003999\\e\"}, bogus: 1}\n" + rest,
			"{DB_PASSWORD: \"[REDACTED]\"}, bogus: 1}\n", []string{"Tr0ub4dor"}},
		{"mcp", "name: mcp\nagent: {command: [a], mcpServers: [{name: m, type: http, url: 'http://x', headers: [{name: Authorization, value: \"Bearer Tr0ub4dor\\x73-Horse-99\"}], bogus: 1}]}\n" + rest,
			"[REDACTED]\"}], bogus: 1}]}\n", []string{"Tr0ub4dor"}},
		{"folded", "name: folded\nagent: {command: [a], env: {DB_PASSWORD: first-half-of-it\n  second-half-of-it}, bogus: 1}\n" + rest,
			"    3 |   [REDACTED]}, bogus: 1}\n", []string{"half-of-it"}},
	}
	// A config agent's, in the config's own problem.
	cfgDir := dir + "/cfg"
	writeFiles(t, cfgDir, map[string]string{
		"acprun.yaml": "agents:\n  mine: {command: [a], env: {K: 'Tr0ub4dor''s-Horse-99'}, bogus: 1}\n",
		"s.yaml":      "name: s\nagent: mine\n" + rest,
	})
	res := acprun(t, cfgDir, "validate", "s.yaml")
	if want := "  mine: {command: [a], env: {K: '[REDACTED]'}, bogus: 1}\n"; res.code != 2 || strings.Contains(res.stdout+res.stderr, "Tr0ub4dor") || !strings.Contains(res.stderr, want) {
		t.Errorf("config: exit %d, want 2 and the problem with its line redacted (%q):\n%s%s", res.code, want, res.stdout, res.stderr)
	}
	for _, tt := range tests {
		writeFiles(t, dir, map[string]string{tt.name + ".yaml": tt.file})
		res := acprun(t, dir, "validate", tt.name+".yaml")
		leaked := false
		for _, l := range tt.leak {
			leaked = leaked || strings.Contains(res.stdout+res.stderr, l)
		}
		if res.code != 2 || leaked || !strings.Contains(res.stderr, tt.line) {
			t.Errorf("%s: exit %d, want 2 and the problem with its line redacted (%q):\n%s%s", tt.name, res.code, tt.line, res.stdout, res.stderr)
		}
	}
}

// TestTemplatedSecretsAsWrittenRedacted: an env value written with
// {{.NAME}} or ${VAR} that acprun fills in is [REDACTED] in a problem's
// source line as the file writes it, references and escapes and all, in
// validate, run and explain; a value that is a reference alone, which
// shows no part of the secret, is kept readable. A rendered template had
// no spelling: the line showed the secret's text around the template.
func TestTemplatedSecretsAsWrittenRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rest = "turns: [{prompt: hi}]\n"
	tests := []struct {
		name, file string
		line       string // the problem's source line, redacted
	}{
		{"hex", "name: hex\nvars: {lang: [go, rust]}\nagent: {command: [a], env: {DB_PASSWORD: \"Tr0ub4dor\\x73-{{.lang}}-99\"}, bogus: 1}\n" + rest,
			"    3 | agent: {command: [a], env: {DB_PASSWORD: \"[REDACTED]\"}, bogus: 1}\n"},
		{"plain", "name: plain\nvars: {lang: [go]}\nagent:\n  command: [a]\n  env:\n    DB_PASSWORD: Tr0ub4dor-{{.lang}}-99 {{.nope}}\n" + rest,
			"    6 |     DB_PASSWORD: [REDACTED]\n"},
		{"var", "name: var\nagent: {command: [a], env: {DB_PASSWORD: \"Tr0ub4dor-${HOME}-99\"}, bogus: 1}\n" + rest,
			"    2 | agent: {command: [a], env: {DB_PASSWORD: \"[REDACTED]\"}, bogus: 1}\n"},
		{"mcp", "name: mcp\nvars: {lang: [go]}\nagent: {command: [a], mcpServers: [{name: m, type: http, url: 'http://x', headers: [{name: Authorization, value: \"Bearer Tr0ub4dor\\x73-{{.lang}}\"}], bogus: 1}]}\n" + rest,
			"[REDACTED]\"}], bogus: 1}]}\n"},
		{"reference", "name: reference\nvars: {lang: [go]}\nagent: {command: [a], env: {TOKEN: \"${HOME}\", LANG: \"{{.lang}}\"}, bogus: 1}\n" + rest,
			"    3 | agent: {command: [a], env: {TOKEN: \"${HOME}\", LANG: \"{{.lang}}\"}, bogus: 1}\n"},
	}
	for _, tt := range tests {
		writeFiles(t, dir, map[string]string{tt.name + ".yaml": tt.file})
		for _, args := range [][]string{
			{"validate", tt.name + ".yaml"},
			{"run", tt.name + ".yaml", "--dry-run"},
			{"explain", tt.name + ".yaml", "--kind", "execute", "--command", "ls"},
		} {
			res := acprun(t, dir, args...)
			if res.code != 2 || strings.Contains(res.stdout+res.stderr, "Tr0ub4dor") || !strings.Contains(res.stderr, tt.line) {
				t.Errorf("%s: %s: exit %d, want 2 and the problem with its line redacted (%q):\n%s%s", tt.name, args[0], res.code, tt.line, res.stdout, res.stderr)
			}
		}
	}
}
