package e2e_test

import (
	"strings"
	"testing"
)

// TestValidateNestedDefault: a ${…} inside a ${VAR:-default}, which would
// reach the agent as written, is refused by validate (exit 2) at its ${.
func TestValidateNestedDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps:\n      - text: hi\n",
		"s.yaml":      "name: s\nagent:\n  command: [acprun, mock-agent, m.mock.yaml]\n  env: {B: \"${ACPRUN_UNSET_X:-${HOME}}\"}\nturns: [{prompt: hi}]\n",
	})
	r := acprun(t, dir, "validate", "--strict", "s.yaml")
	want := "s.yaml:4:31: ${ inside the default of ${ACPRUN_UNSET_X:-…}: a default is taken literally, not expanded: write the value itself"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("validate: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
}
