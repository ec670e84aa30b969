package e2e_test

import (
	"strings"
	"testing"
)

// TestCommandErrorsRedactTheEnvironment: the error a command ends with
// (an output it cannot write, a results file it cannot read, a usage
// error) does not
// print the value of a secret-looking variable of acprun's environment
// that a path holds.
func TestCommandErrorsRedactTheEnvironment(t *testing.T) {
	t.Parallel()
	const secret = "supersecretvalue123"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns:\n  - steps: [{text: ok}]\n",
		"s.yaml":       "name: s\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
	})
	for _, args := range [][]string{
		{"run", "s.yaml", "--junit", "/proc/" + secret + ".xml"},
		{"report", "/nonexistent/" + secret + ".json"},
		{"merge", "-o", "/proc/" + secret, "/nonexistent/" + secret + ".json"},
		{"schema", "x" + secret},
		{"run", "s.yaml", "--timeout", secret},
	} {
		res := acprunEnv(t, dir, []string{"MY_API_TOKEN=" + secret}, args...)
		if res.code == 0 || strings.Contains(res.stderr+res.stdout, secret) || !strings.Contains(res.stderr, "[REDACTED]") {
			t.Errorf("acprun %s: exit %d, want an error with the secret redacted:\n%s", args[0], res.code, res.stderr)
		}
	}
}
