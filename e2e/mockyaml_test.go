package e2e_test

import (
	"strings"
	"testing"
)

// TestMockAgentYAMLSyntaxError: `acprun mock-agent SCRIPT` reports a YAML
// syntax error of the script at the offending token, line and column, under
// the name the user gave, as validate does for scenario files; it exits 2
// and plays nothing. Under the error, its source line with a caret under
// the column.
func TestMockAgentYAMLSyntaxError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.mock.yaml": "agentInfo: {name: fake}\nturns:\n  - steps:\n      - text: hi\n    stopReason: end_turn\n" +
			"  - steps: [{text: \"bye}]\n",
	})
	res := acprun(t, dir, "mock-agent", "bad.mock.yaml")
	if res.code != 2 {
		t.Errorf("exit %d, want 2", res.code)
	}
	want := "bad.mock.yaml:6:20: YAML syntax: found unexpected end of stream while scanning a quoted scalar; " +
		"the quoted string that starts here is never closed\n" +
		"    6 |   - steps: [{text: \"bye}]\n" +
		"      |                    ^\n"
	if res.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, want)
	}
	if strings.TrimSpace(res.stdout) != "" {
		t.Errorf("stdout: %q, want nothing", res.stdout)
	}
}
