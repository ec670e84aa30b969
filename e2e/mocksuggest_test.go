package e2e_test

import (
	"strings"
	"testing"
)

// TestMockScriptTypoSuggested: a mistyped step or key in a mock agent
// script says the one meant, as a scenario's does (`did you mean`), where
// validate, run and the mock agent itself report it; a word near none
// still lists them all.
func TestMockScriptTypoSuggested(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{tex: hi}]}]\n",
		"b.mock.yaml": "turn: []\n",
		"c.mock.yaml": "turns: [{steps: [{zzzzz: hi}]}]\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
	})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "s.yaml"}, `mock script a.mock.yaml does not parse: a.mock.yaml:1:19: unknown step "tex" (did you mean "text"?)`},
		{[]string{"run", "s.yaml"}, `a.mock.yaml:1:19: unknown step "tex" (did you mean "text"?)`},
		{[]string{"mock-agent", "b.mock.yaml"}, `b.mock.yaml:1:1: unknown key "turn" in script (did you mean "turns"?)`},
		{[]string{"mock-agent", "c.mock.yaml"}, `c.mock.yaml:1:19: unknown step "zzzzz" (want one of: text, thought, user, `},
	} {
		res := acprun(t, dir, tt.args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) {
			t.Errorf("acprun %q: exit %d, stderr:\n%s\nwant exit %d and:\n%s", tt.args, res.code, res.stderr, exitUsage, tt.want)
		}
	}
}
