package e2e_test

import (
	"strings"
	"testing"
)

// TestEmptyAgentValues: an empty agent model, mode, auth or cwd (with no
// named agent's value to drop) is an error at the value, and so is an
// empty --model, --mode or --auth (exit 2), where each used to act as if
// it were left out.
func TestEmptyAgentValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"ok.yaml":     "name: ok\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"em.yaml": `name: em
agent: {command: [acprun, mock-agent, s.mock.yaml], model: "", mode: "", auth: "", cwd: "${EMPTY_HERE:-}"}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "validate", "em.yaml")
	for _, w := range []string{
		`em.yaml:2:60: model is empty: give the id of a model the agent offers, or leave model out for the agent's default`,
		`em.yaml:2:70: mode is empty: give the id of a session mode the agent offers`,
		`em.yaml:2:80: auth is empty: give the id of an auth method the agent offers, or leave auth out to skip authenticate`,
		`em.yaml:2:89: cwd is empty (is the variable that gives it unset?): give a directory, or leave cwd out for the scenario file's directory`,
	} {
		if res.code != 2 || !strings.Contains(res.stderr, w) {
			t.Errorf("validate: exit %d, want 2 and %q:\n%s", res.code, w, res.stderr)
		}
	}
	for _, flag := range []string{"--model", "--mode", "--auth"} {
		res := acprun(t, dir, "run", "ok.yaml", flag, "")
		if want := "acprun: " + flag + ` "": the `; res.code != 2 || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "is empty (is the variable that gives it unset?)") {
			t.Errorf("run %s '': exit %d, want 2 and %q:\n%s", flag, res.code, want, res.stderr)
		}
	}
}
