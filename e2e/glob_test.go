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

// TestValidateShellNegationAndTrailingSlash: a path glob with the shell's
// [!…] (a literal ! here) and a rule's path with a trailing / (the
// directory alone) would deny nothing they seem to: validate refuses them
// at the value, run and explain in --deny, each with what to write; a
// trailing / in workspace.protect stands for the directory's tree.
func TestValidateShellNegationAndTrailingSlash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps:\n      - text: hi\n",
		"p.yaml": `name: p
agent: {command: [acprun, mock-agent, m.mock.yaml]}
permissions: {default: allow, deny: [{path: "keys/[!.]*"}, {path: "secrets/"}]}
turns: [{prompt: hi}]
`,
		"ok.yaml":  "name: ok\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nworkspace: {from: ws, protect: [tests/]}\nturns: [{prompt: hi}]\n",
		"ws/a.txt": "a\n",
	})
	r := acprun(t, dir, "validate", "p.yaml")
	for _, want := range []string{
		`p.yaml:3:45: bad pattern "keys/[!.]*": [!.] does not negate here, it matches "!" or any of the others: write [^.] for any character but those (or [\!.] to match "!" too)`,
		`p.yaml:3:67: bad pattern "secrets/": a trailing / is dropped, so it matches the directory secrets alone, nothing in it: write secrets/** for the directory and everything in it (or secrets for the directory alone)`,
	} {
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("validate: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "ok.yaml", "--deny", "path:keys/[!.]*", "--kind", "read", "--path", "keys/id_rsa"},
			`acprun: --deny 'path:keys/[!.]*': path: bad pattern "keys/[!.]*": [!.] does not negate here`},
		{[]string{"run", "ok.yaml", "--deny", "read:secrets/"},
			`acprun: --deny read:secrets/: path: bad pattern "secrets/": a trailing / is dropped`},
	} {
		r := acprun(t, dir, tt.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if r := acprun(t, dir, "validate", "ok.yaml"); r.code != exitOK {
		t.Errorf("validate ok.yaml (protect: [tests/]): exit %d, want 0\n%s", r.code, r.stderr)
	}
}
