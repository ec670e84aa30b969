package e2e_test

import (
	"strings"
	"testing"
)

// TestValidateGlobs: a glob that is malformed or could never match what it
// seems to say is refused before anything runs: in a file by validate
// (exit 2, at the value), and in --allow and --deny by run and explain
// (exit 2, naming the flag).
func TestValidateGlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps:\n      - text: hi\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, m.mock.yaml]}
permissions:
  deny:
    - path: "src/{a,b}/**"
    - {tool: "[", path: "**/[z-a]"}
turns: [{prompt: hi}]
`,
		"ok.yaml": "name: ok\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nturns: [{prompt: hi}]\n",
	})
	r := acprun(t, dir, "validate", "s.yaml")
	for _, want := range []string{
		`s.yaml:5:13: bad pattern "src/{a,b}/**": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)`,
		`s.yaml:6:14: bad pattern "[": [...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character`,
		`s.yaml:6:25: bad pattern "**/[z-a]": range z-a is empty, so [...] matches nothing: write a-z`,
	} {
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("validate: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "ok.yaml", "--deny", "read:**/[z-a]"},
			`acprun: --deny 'read:**/[z-a]': path: bad pattern "**/[z-a]": range z-a is empty, so [...] matches nothing: write a-z`},
		{[]string{"explain", "ok.yaml", "--allow", "edit:{a,b"},
			`acprun: --allow 'edit:{a,b': path: bad pattern "{a,b": {a,b} is not a glob here: write one pattern for each`},
		{[]string{"run", "ok.yaml", "--deny", "title:[Bb]ash"},
			`acprun: --deny 'title:[Bb]ash': title: bad pattern "[Bb]ash": [...] is not a glob here`},
	} {
		r := acprun(t, dir, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}
