package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalShellReads: terminal commands are judged as /bin/sh reads
// them. A line continuation inside "…" joins $ and (, a \# in a
// double-quoted script is no comment, a { in an assignment is text
// (X={ touch … } echo hi runs touch), and a redirection target's
// continuations are removed (".e\<newline>nv" is .env): each is denied, and
// none runs; an allowed line with continuations runs. explain agrees.
func TestTerminalShellReads(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "echo \"$\\\n(touch PWNED_1)\"", waitForExit: true}
      - terminal: {command: "bash -c \"echo hi \\#; touch PWNED_2\"", waitForExit: true}
      - terminal: {command: "X={ touch PWNED_3 } echo hi", waitForExit: true}
      - terminal: {command: "echo SECRET=1 > \".e\\\nnv\"", waitForExit: true}
      - terminal: {command: "echo \"a \\\nb\" \\\n  c > ok.txt", waitForExit: true}
`,
		"s.yaml": `name: shell reads
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - command: "echo *"
  deny:
    - command: "touch *"
    - path: "**/.env"
turns:
  - prompt: hi
    expect: {denied: 4}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	notRun(t, dir, "PWNED_1", "PWNED_2", "PWNED_3", "}", ".env")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "a b c\n" {
		t.Errorf("ok.txt = %q, %v; want the allowed command run", got, err)
	}
	cs := creates(t, out.Scenarios[0])
	want := []struct{ decision, rule string }{{"deny", "s.yaml:8"}, {"deny", "s.yaml:8"}, {"deny", "s.yaml:8"}, {"deny", "s.yaml:9"}, {"allow", "s.yaml:6"}}
	if len(cs) != len(want) {
		t.Fatalf("terminal/create records = %+v, want %d", cs, len(want))
	}
	for i, w := range want {
		if cs[i].Decision != w.decision || cs[i].Rule != w.rule {
			t.Errorf("terminal/create %d (%q): %s by %q, want %s by %q (%s)", i+1, cs[i].Command, cs[i].Decision, cs[i].Rule, w.decision, w.rule, cs[i].Refused)
		}
	}
	for i, c := range cs[:4] {
		ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", c.Command)
		if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule "+want[i].rule) {
			t.Errorf("explain %q: exit %d, want 1, denied by %s\n%s%s", c.Command, ex.code, want[i].rule, ex.stdout, ex.stderr)
		}
	}
}

// TestTerminalProgramWord: a terminal/create with args runs its command as
// the program, whatever a shell would make of that word: "A=1" with args
// echo hi runs the program A=1 (here a script on the agent's PATH), so
// the rules judge 'A=1' echo hi, which `echo *` does not allow, and it
// does not run.
func TestTerminalProgramWord(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - terminal: {command: \"A=1\", args: [echo, hi], waitForExit: true}\n      - terminal: {command: echo, args: [\"A=1\", hi], waitForExit: true}\n",
		"bin/A=1":         "#!/bin/sh\ntouch \"$(dirname \"$0\")/../PWNED\"\n",
		"s.yaml": `name: program word
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {PATH: "` + dir + `/bin:${PATH}"}}
permissions:
  default: deny
  allow:
    - command: "echo *"
turns:
  - prompt: hi
    expect: {denied: 1}
`,
	})
	if err := os.Chmod(filepath.Join(dir, "bin", "A=1"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, out := runResults(t, dir, "s.yaml")
	notRun(t, dir, "PWNED")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	cs := creates(t, out.Scenarios[0])
	want := []struct{ command, decision string }{{"'A=1' echo hi", "deny"}, {"echo A=1 hi", "allow"}}
	if len(cs) != len(want) {
		t.Fatalf("terminal/create records = %+v, want %d", cs, len(want))
	}
	for i, w := range want {
		if cs[i].Command != w.command || cs[i].Decision != w.decision {
			t.Errorf("terminal/create %d: %q %s, want %q %s", i+1, cs[i].Command, cs[i].Decision, w.command, w.decision)
		}
	}
}

// TestTerminalShellReadsDialects: lines that bash and dash read as
// different commands, or that hide a command from a simple reading, are
// denied, and none runs: a script in $'…' (dash: $(…)), quotes in $((…))
// (dash ends it at the first )), bash's (( after if (not two subshells),
// a case in $(…), coproc { …; }, a brace expansion as the command, and a
// redirection after cd.
func TestTerminalShellReadsDialects(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"secrets/key": "orig\n",
		"allow.mock.yaml": `turns:
  - steps:
      - terminal: {command: "bash -c $'(echo touch PWNED_1)'", waitForExit: true}
      - terminal: {command: "echo hi || echo $((echo ' )); touch PWNED_2; echo ' ))'", waitForExit: true}
      - terminal:
          command: |-
            bash -c 'if ((echo <<echo)); then echo hi; fi
            touch PWNED_3
            echo'
          waitForExit: true
      - terminal: {command: "echo $((1+2)) > ok.txt", waitForExit: true}
`,
		"allow.yaml": `name: allow echo only
agent: {command: [acprun, mock-agent, allow.mock.yaml]}
permissions:
  default: deny
  allow:
    - command: ["echo *", "1+2"]
turns:
  - prompt: hi
    expect: {denied: 3}
`,
		"deny.mock.yaml": `turns:
  - steps:
      - terminal: {command: "echo \"$(case a in a) touch PWNED_4;; esac)\"", waitForExit: true}
      - terminal: {command: "bash -c 'coproc { touch PWNED_5; }; wait'", waitForExit: true}
      - terminal: {command: "bash -c '{touch,PWNED_6}'", waitForExit: true}
      - terminal: {command: "cd secrets && echo stolen > key", waitForExit: true}
      - terminal: {command: "cd secrets && cat key > ../copy.txt", waitForExit: true}
`,
		"deny.yaml": `name: deny touch and secrets
agent: {command: [acprun, mock-agent, deny.mock.yaml]}
permissions:
  default: allow
  deny:
    - command: "touch *"
    - path: "secrets/**"
turns:
  - prompt: hi
    expect: {denied: 5}
`,
	})
	res := acprun(t, dir, "run", "allow.yaml", "deny.yaml", "-o", "res.json")
	notRun(t, dir, "PWNED_1", "PWNED_2", "PWNED_3", "PWNED_4", "PWNED_5", "PWNED_6", "copy.txt")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "secrets", "key")); err != nil || string(got) != "orig\n" {
		t.Errorf("secrets/key = %q, %v; want it unchanged", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "3\n" {
		t.Errorf("ok.txt = %q, %v; want the allowed command run", got, err)
	}
	// codex's shell call runs in its rawInput.workdir.
	writeFiles(t, dir, map[string]string{"req.json": `{"sessionId":"s1","toolCall":{"toolCallId":"t1","kind":"execute","title":"cat < passwd",` +
		`"rawInput":{"command":["bash","-lc","cat < passwd"],"workdir":"/etc"}},` +
		`"options":[{"optionId":"a","name":"a","kind":"allow_once"},{"optionId":"r","name":"r","kind":"reject_once"}]}`})
	ex := acprun(t, dir, "explain", "--deny", "path:/etc/**", "--allow", "execute", "--request", "req.json")
	if ex.code != 1 || !strings.Contains(ex.stdout, "/etc/passwd") {
		t.Errorf("explain a read of passwd in workdir /etc: exit %d, want 1 (denied, /etc/passwd)\n%s%s", ex.code, ex.stdout, ex.stderr)
	}
	for _, line := range []string{"bash -c $'(echo touch PWNED_1)'", "cd secrets && echo stolen > key"} {
		ex := acprun(t, dir, "explain", "deny.yaml", "--kind", "execute", "--command", line)
		if ex.code != 1 {
			t.Errorf("explain %q: exit %d, want 1 (denied)\n%s%s", line, ex.code, ex.stdout, ex.stderr)
		}
	}
}

// TestTerminalRedirectionAgainstWord: a redirection written against a word
// ends it, as in bash and dash: `cd>/dev/null DIR` changes the directory
// (its relative targets are unresolvable, so a path allow does not allow
// them) and `rm>/dev/null x` runs rm (denied by rm *); neither runs, and
// `echo hi>out.txt` stays allowed.
func TestTerminalRedirectionAgainstWord(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	outside := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"victim": "keep\n",
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "cd>/dev/null ` + outside + ` && echo pwned > key", waitForExit: true}
      - terminal: {command: "rm>/dev/null -f victim", waitForExit: true}
      - terminal: {command: "!>/dev/null rm -f victim", waitForExit: true}
      - terminal: {command: "echo hi>out.txt", waitForExit: true}
`,
		"s.yaml": `name: redirection against a word
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - {command: "*", path: "**"}
  deny:
    - command: "rm *"
turns:
  - prompt: hi
    expect: {denied: 3}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	notRun(t, outside, "key")
	if _, err := os.Stat(filepath.Join(dir, "victim")); err != nil {
		t.Errorf("victim: %v; want it kept (rm was denied)", err)
	}
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(got) != "hi\n" {
		t.Errorf("out.txt = %q, %v; want the allowed command run", got, err)
	}
	cs := creates(t, out.Scenarios[0])
	want := []struct{ decision, rule string }{{"deny", ""}, {"deny", "s.yaml:8"}, {"deny", "s.yaml:8"}, {"allow", "s.yaml:6"}}
	if len(cs) != len(want) {
		t.Fatalf("terminal/create records = %+v, want %d", cs, len(want))
	}
	for i, w := range want {
		if cs[i].Decision != w.decision || cs[i].Rule != w.rule {
			t.Errorf("terminal/create %d (%q): %s by %q, want %s by %q (%s)", i+1, cs[i].Command, cs[i].Decision, cs[i].Rule, w.decision, w.rule, cs[i].Refused)
		}
	}
}

// TestTerminalZshFlags: zsh's parameter flag (e) runs code, so a zsh script
// with one is unresolvable: `echo *` does not allow it, given as a line or
// as an argv, and it does not run. Parentheses, braces and [[ in quotes
// are text: such a script is allowed and runs.
func TestTerminalZshFlags(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("no zsh")
	}
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"victim":  "keep\n",
		"victim2": "keep\n",
		"victim3": "keep\n",
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: zsh, args: ["-c", "echo ${(e)${:-'$(rm -f victim)'}}"], waitForExit: true}
      - terminal: {command: "zsh -c \"echo \\${(e)\\${:-'\\$(rm -f victim2)'}}\"", waitForExit: true}
      - terminal: {command: zsh, args: ["-lc", "echo $(echo x)# ; echo ${(e):-'$(rm -f victim3)'}"], waitForExit: true}
      - terminal: {command: zsh, args: ["-lc", "echo plain > ok.txt"], waitForExit: true}
      - terminal: {command: zsh, args: ["-lc", "echo 'feat(api): {x}' \"[[y]] (z)\" > ok2.txt"], waitForExit: true}
`,
		"s.yaml": `name: zsh flags
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - command: "echo *"
turns:
  - prompt: hi
    expect: {denied: 3}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	for _, f := range []string{"victim", "victim2", "victim3"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v; want it kept (the zsh script was denied)", f, err)
		}
	}
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "plain\n" {
		t.Errorf("ok.txt = %q, %v; want the plain zsh script run", got, err)
	}
	// Parentheses, braces and [[ in quotes are text to zsh as to bash.
	if got, err := os.ReadFile(filepath.Join(dir, "ok2.txt")); err != nil || string(got) != "feat(api): {x} [[y]] (z)\n" {
		t.Errorf("ok2.txt = %q, %v; want the zsh script with quoted parentheses run", got, err)
	}
	for i, c := range creates(t, out.Scenarios[0])[:3] {
		if c.Decision != "deny" || !strings.Contains(c.Refused, "zsh") {
			t.Errorf("terminal/create %d (%q): %s (%s), want denied as an unresolvable zsh script", i+1, c.Command, c.Decision, c.Refused)
		}
	}
}
