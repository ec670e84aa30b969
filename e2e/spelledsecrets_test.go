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
