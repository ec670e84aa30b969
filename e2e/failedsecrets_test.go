package e2e_test

import (
	"strings"
	"testing"
)

// loadSecret is the value of an env variable of the agent of a scenario
// file that does not load, in the test below.
const loadSecret = "sk-live-1234567890abcdef"

// TestFailedScenarioSecretsRedacted: the problems of scenario files that
// do not load are printed redacted of the secrets of the scenarios as far
// as they were read, the failing file's own among them: a source line that
// repeats an agent's env value (a template error in a prompt, an unknown
// key) shows it [REDACTED], whether the value is defined before or after
// that line, or in another file of the same load that has no problem.
// They were printed in clear: a file that does not load gives no
// scenarios, and so no secrets to redact.
func TestFailedScenarioSecretsRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const mock = "permissions: {default: allow}\n"
	writeFiles(t, dir, map[string]string{
		"tmpl/s.yaml": "name: tmpl\nvars: [{x: one}]\nagent: {command: [my-agent], env: {API_KEY: \"" + loadSecret + "\"}}\n" + mock +
			"turns: [{prompt: \"use " + loadSecret + " {{oops\"}]\n",
		"after/s.yaml": "name: after\n" + mock + "turns: [{prompt: \"use " + loadSecret + "\", bogus: 1}]\n" +
			"agent: {command: [my-agent], env: {API_KEY: \"" + loadSecret + "\"}}\n",
		"two/a.yaml": "name: a\nagent: {command: [my-agent], env: {API_KEY: \"" + loadSecret + "\"}}\n" + mock + "turns: [{prompt: hi}]\n",
		"two/b.yaml": "name: b\nagent: {command: [my-agent]}\n" + mock + "turns: [{prompt: \"use " + loadSecret + "\", bogus: 1}]\n",
	})
	tests := []struct {
		path string
		line string // the problem's source line, redacted
	}{
		{"tmpl", "    5 | turns: [{prompt: \"use [REDACTED] {{oops\"}]\n"},
		{"after", "    3 | turns: [{prompt: \"use [REDACTED]\", bogus: 1}]\n"},
		{"two", "    4 | turns: [{prompt: \"use [REDACTED]\", bogus: 1}]\n"},
	}
	for _, tt := range tests {
		for _, args := range [][]string{
			{"validate", tt.path},
			{"list", tt.path},
			{"run", tt.path},
			{"run", "--dry-run", tt.path},
			{"explain", tt.path + "/s.yaml", "--kind", "read"},
		} {
			if args[0] == "explain" && tt.path == "two" {
				continue // explain reads one file
			}
			res := acprun(t, dir, args...)
			if res.code != 2 || strings.Contains(res.stderr+res.stdout, loadSecret) || !strings.Contains(res.stderr, tt.line) {
				t.Errorf("acprun %s: exit %d, want 2 and the problem with its line redacted (%q):\n%s%s", strings.Join(args, " "), res.code, tt.line, res.stdout, res.stderr)
			}
		}
	}
}
