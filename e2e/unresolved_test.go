package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalUnresolvedCommands: a terminal command in which bash runs a
// variable's value as code (an indirection, a prompt expansion), or whose
// env makes bash run code, is refused under an allow list that allows
// its text, and a deny rule matches it; an array subscript or substring
// offset holding a variable is a command the allow list must allow. None
// of the refused commands runs; one with constant subscripts and offsets
// does. explain agrees.
func TestTerminalUnresolvedCommands(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: 'bash -c "echo \${x:=''a[\$(touch PWNED_D)]''} \${a[x]}"', waitForExit: true}
      - terminal: {command: bash, args: ["-c", "echo ${x:='$(touch PWNED_E)'} ${x@P}"], waitForExit: true}
      - terminal: {command: "bash -c 'echo ${!x}'", env: {x: 'a[$(touch PWNED_B)]'}, waitForExit: true}
      - terminal: {command: "bash -c 'echo hi'", env: {SHELLOPTS: xtrace, PS4: '$(touch PWNED_P)'}, waitForExit: true}
      - terminal: {command: "bash -c 'echo ${a[0]} ${x:0:3} ${!BASH_VERS*} ${#x} > ok.txt'", env: {x: abcdef}, waitForExit: true}
`,
		"s.yaml": `name: unresolved
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - kind: execute
      command: "echo *"
  deny:
    - command: "touch *"
turns:
  - prompt: hi
    expect: {denied: 4}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	notRun(t, dir, "PWNED_D", "PWNED_E", "PWNED_B", "PWNED_P")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "abc BASH_VERSINFO BASH_VERSION 6\n" {
		t.Errorf("ok.txt = %q, %v; want the allowed command run", got, err)
	}
	cs := creates(t, out.Scenarios[0])
	want := []struct{ decision, rule string }{{"deny", ""}, {"deny", "s.yaml:9"}, {"deny", "s.yaml:9"}, {"deny", "s.yaml:9"}, {"allow", "s.yaml:6"}}
	if len(cs) != len(want) {
		t.Fatalf("terminal/create records = %+v, want %d", cs, len(want))
	}
	for i, w := range want {
		if cs[i].Decision != w.decision || cs[i].Rule != w.rule {
			t.Errorf("terminal/create %d (%s): %s by %q, want %s by %q (%s)", i+1, cs[i].Command, cs[i].Decision, cs[i].Rule, w.decision, w.rule, cs[i].Refused)
		}
	}
	if !strings.Contains(cs[0].Refused, `no allow rule allows command "x"`) {
		t.Errorf("first terminal/create refused with %q, want it to name the subscript x", cs[0].Refused)
	}

	for _, line := range []string{
		`echo ${x:='a[$(rm y)]'}; echo ${!x}`,
		`echo ${x:='$(rm y)'} ${x@P}`,
		cs[2].Command,
	} {
		ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", line)
		if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule s.yaml:9") || !strings.Contains(ex.stdout, "unresolvable") {
			t.Errorf("explain %q: exit %d, want 1, denied by s.yaml:9 as unresolvable\n%s%s", line, ex.code, ex.stdout, ex.stderr)
		}
	}
}

// TestTildePathPermission: a permission request whose path starts with ~
// is not taken for a path under the cwd: an allow of "**" does not allow
// it, an absolute deny rule denies it. explain agrees.
func TestTildePathPermission(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - permission: {toolCallId: t1, title: Edit, kind: edit, rawInput: {file_path: "~/.bashrc"}}
      - permission: {toolCallId: t2, title: Edit, kind: edit, rawInput: {file_path: "src/a.go"}}
`,
		"s.yaml": `name: tilde
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - {kind: [edit, execute], path: "**"}
  deny:
    - {path: "/root/**"}
turns:
  - prompt: hi
    expect: {denied: 1}
`,
		"req.json": `{"sessionId":"s","toolCall":{"toolCallId":"a","kind":"edit","rawInput":{"file_path":"~/.bashrc"}},"options":[]}`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	perms := out.Scenarios[0].Turns[0].Permissions
	if len(perms) != 2 || perms[0].Decision != "deny" || perms[0].Rule != "s.yaml:8" || perms[1].Decision != "allow" {
		t.Errorf("permissions = %+v, want ~/.bashrc denied by s.yaml:8, src/a.go allowed", perms)
	}
	ex := acprun(t, dir, "explain", "s.yaml", "--request", "req.json")
	if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule s.yaml:8") ||
		!strings.Contains(ex.stdout, `path "~/.bashrc" (unresolvable: it matches every deny path pattern and no allow one) matches none of ["**"]`) {
		t.Errorf("explain: exit %d, want 1, denied by s.yaml:8\n%s%s", ex.code, ex.stdout, ex.stderr)
	}
}

// TestTerminalScriptLines: deny rules see the commands of a script as
// bash reads it: after a comment's newline, and a script with escapes in
// $'…' (which bash decodes, and acprun does not) is unresolvable. Neither
// runs.
func TestTerminalScriptLines(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "bash -c 'echo x # a comment\ntouch PWNED_C'", waitForExit: true}
      - terminal: {command: "bash -c $'echo x #\\ntouch PWNED_N'", waitForExit: true}
      - terminal: {command: "bash -c 'echo x # a comment\necho y' > ok.txt", waitForExit: true}
`,
		"s.yaml": `name: scripts
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  deny:
    - command: "touch *"
turns:
  - prompt: hi
    expect: {denied: 2}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	notRun(t, dir, "PWNED_C", "PWNED_N")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "x\ny\n" {
		t.Errorf("ok.txt = %q, %v; want the allowed command run", got, err)
	}
	cs := creates(t, out.Scenarios[0])
	if len(cs) != 3 || cs[0].Rule != "s.yaml:6" || cs[1].Rule != "s.yaml:6" || cs[2].Decision != "allow" {
		t.Errorf("terminal/create records = %+v, want the first two denied by s.yaml:6, the third allowed", cs)
	}
	for _, c := range cs[:min(2, len(cs))] {
		ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", c.Command)
		if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule s.yaml:6") {
			t.Errorf("explain %q: exit %d, want 1, denied by s.yaml:6\n%s%s", c.Command, ex.code, ex.stdout, ex.stderr)
		}
	}
}

// notRun fails the test for each of the files, which refused commands
// would have made, that exists in dir.
func notRun(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, name := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("a refused command ran: %s exists", name)
		}
	}
}

// TestTerminalExpandedCommandWord: under a deny rule, a terminal command
// whose command word the shell expands (an empty variable before the
// program, a substitution, a glob) is denied as unresolvable, in a line
// and in a bash -c script, and so are a trap's action, an alias to the
// program, a shell reading its script from a pipe (also one a wrapper
// starts with no command), and git's alias of a shell line; none of them
// runs; arithmetic, whose text shows up as commands, names no program and
// runs. explain agrees.
func TestTerminalExpandedCommandWord(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: '$E touch PWNED_A', waitForExit: true}
      - terminal: {command: '${E}touch PWNED_B', waitForExit: true}
      - terminal: {command: 'bash -c "\$(echo touch) PWNED_C"', waitForExit: true}
      - terminal: {command: '/*/tou?h PWNED_G', waitForExit: true}
      - terminal: {command: "trap 'touch PWNED_T' EXIT", waitForExit: true}
      - terminal: {command: "alias t=touch\nt PWNED_L", waitForExit: true}
      - terminal: {command: "echo touch PWNED_S | sh", waitForExit: true}
      - terminal: {command: "echo touch PWNED_U | unshare", waitForExit: true}
      - terminal: {command: "git -c alias.t='!touch PWNED_K' t", waitForExit: true}
      - terminal: {command: 'n=3; echo $((n*2)) $(( $n + 1 )) > ok.txt', waitForExit: true}
`,
		"s.yaml": `name: expanded
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  deny:
    - command: "touch *"
turns:
  - prompt: hi
    expect: {denied: 9}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	notRun(t, dir, "PWNED_A", "PWNED_B", "PWNED_C", "PWNED_G", "PWNED_T", "PWNED_L", "PWNED_S", "PWNED_U", "PWNED_K")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "6 4\n" {
		t.Errorf("ok.txt = %q, %v; want the arithmetic run", got, err)
	}
	cs := creates(t, out.Scenarios[0])
	if len(cs) != 10 {
		t.Fatalf("terminal/create records = %+v, want 10", cs)
	}
	for i, c := range cs[:9] {
		if c.Decision != "deny" || c.Rule != "s.yaml:6" {
			t.Errorf("terminal/create %d (%s): %s by %q (%s), want denied by s.yaml:6", i+1, c.Command, c.Decision, c.Rule, c.Refused)
		}
	}
	if cs[9].Decision != "allow" {
		t.Errorf("terminal/create 10 (%s): %s (%s), want allowed", cs[9].Command, cs[9].Decision, cs[9].Refused)
	}
	ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", "$X -rf /")
	if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule s.yaml:6") ||
		!strings.Contains(ex.stdout, "its command word $X holds a parameter expansion") {
		t.Errorf("explain: exit %d, want 1, denied by s.yaml:6 for its command word\n%s%s", ex.code, ex.stdout, ex.stderr)
	}
}
