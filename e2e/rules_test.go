package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestRulesValidateSyntaxErrors: `acprun validate` reports a YAML syntax
// error at the offending token, line and column, also in a later document
// of a file and in the config file.
func TestRulesValidateSyntaxErrors(t *testing.T) {
	t.Parallel()
	const head = "name: x\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\n"
	tests := []struct {
		name   string
		files  map[string]string
		args   []string
		wantIn string // a whole line of stderr
	}{
		{
			name: "bad indent",
			files: map[string]string{"s.yaml": head + `turns:
  - prompt: hi
    timeout: 10s
    expect:
      stopReason: end_turn
      text:
        contains: [hi]
     denied: 0
`},
			args: []string{"s.yaml"},
			wantIn: "s.yaml:10:6: YAML syntax: did not find expected key (while parsing a block mapping that starts at line 4, column 5); " +
				"check this line's indentation (it must line up with the keys or list items of its level)",
		},
		{
			name:   "unclosed quote",
			files:  map[string]string{"s.yaml": head + "turns:\n  - prompt: \"hi\n  - prompt: there\n"},
			args:   []string{"s.yaml"},
			wantIn: "s.yaml:4:13: YAML syntax: found unexpected end of stream while scanning a quoted scalar; the quoted string that starts here is never closed",
		},
		{
			name:   "tab indentation",
			files:  map[string]string{"s.yaml": head + "turns:\n\t- prompt: hi\n"},
			args:   []string{"s.yaml"},
			wantIn: "s.yaml:4:1: YAML syntax: found character that cannot start any token; YAML cannot indent with tabs, use spaces",
		},
		{
			name: "bad mapping in the second document",
			files: map[string]string{"s.yaml": head + "turns: [{prompt: one}]\n---\n" +
				"name: y\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nturns:\n  - prompt: two\n   timeout: 5s\n"},
			args: []string{"s.yaml"},
			wantIn: "s.yaml:9:4: YAML syntax: did not find expected '-' indicator (while parsing a block collection that starts at line 8, column 3); " +
				"check this line's indentation (it must line up with the keys or list items of its level)",
		},
		{
			name: "config file",
			files: map[string]string{
				"s.yaml":     head + "turns: [{prompt: hi}]\n",
				"other.yaml": "defaults:\n  timeout: 5m\n  turnTimeout: 1m: x\n",
			},
			args:   []string{"--config", "other.yaml", "s.yaml"},
			wantIn: `other.yaml:3:18: YAML syntax: mapping values are not allowed in this context; quote a value that contains ": ", or check this line's indentation`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			res := acprun(t, dir, append([]string{"validate"}, tt.args...)...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2", res.code)
			}
			if !containsLine(res.stderr, tt.wantIn) {
				t.Errorf("stderr lacks the line\n%s\ngot:\n%s", tt.wantIn, res.stderr)
			}
		})
	}
}

// TestRulesValidateCwd: a session cwd that does not exist is an error of
// validate and run (not a fork/exec failure at run time), at the cwd value
// that gave it: the scenario's, or a config agent's.
func TestRulesValidateCwd(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"own.yaml":    "name: own\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: ./nope}\nturns: [{prompt: hi}]\n",
		"named.yaml":  "name: named\nagent: elsewhere\nturns: [{prompt: hi}]\n",
		"acprun.yaml": "agents:\n  elsewhere:\n    command: [acprun, mock-agent, a.mock.yaml]\n    cwd: gone/away\n",
		"file.yaml":   "name: file\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: a.mock.yaml}\nturns: [{prompt: hi}]\n",
	})
	for _, cmd := range []string{"validate", "run"} {
		t.Run(cmd, func(t *testing.T) {
			res := acprun(t, dir, cmd, "own.yaml", "named.yaml", "file.yaml")
			if res.code != 2 {
				t.Errorf("exit %d, want 2\nstderr:\n%s", res.code, res.stderr)
			}
			for _, want := range []string{
				"acprun.yaml:4:10: agent cwd " + dir + "/gone/away does not exist: create that directory, or change cwd (a relative cwd is relative to " + dir + ")",
				"file.yaml:2:58: agent cwd " + dir + "/a.mock.yaml is not a directory: cwd must name the directory the agent works in (a relative cwd is relative to " + dir + ")",
				"own.yaml:2:58: agent cwd " + dir + "/nope does not exist: create that directory, or change cwd (a relative cwd is relative to " + dir + ")",
			} {
				if !containsLine(res.stderr, want) {
					t.Errorf("stderr lacks the line\n%s\ngot:\n%s", want, res.stderr)
				}
			}
			if strings.Contains(res.stderr, "fork/exec") {
				t.Errorf("the agent was started:\n%s", res.stderr)
			}
		})
	}
}

// TestRulesExplainConfig: explain applies the config file's permissions,
// as run does: acprun.yaml in the working directory, or --config.
func TestRulesExplainConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nturns: [{prompt: hi}]\n",
		"acprun.yaml": `defaults:
  permissions:
    default: deny
    allow:
      - command: "go test *"
`,
		"strict.yaml": `defaults:
  permissions:
    default: deny
    deny:
      - command: "go *"
`,
	})
	goTest := []string{"--kind", "execute", "--command", "go test ./..."}
	res := acprun(t, dir, append([]string{"explain", "s.yaml"}, goTest...)...)
	if res.code != 0 || !strings.Contains(res.stdout, "decision: ALLOW by allow rule acprun.yaml:5") {
		t.Errorf("with acprun.yaml: exit %d, want 0 and allowed by acprun.yaml:5\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, append([]string{"explain", "s.yaml", "--config", "strict.yaml"}, goTest...)...)
	if res.code != 1 || !strings.Contains(res.stdout, "decision: DENY by deny rule strict.yaml:5") {
		t.Errorf("with --config strict.yaml: exit %d, want 1 and denied by strict.yaml:5\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, append([]string{"explain", "s.yaml", "--config", "missing.yaml"}, goTest...)...)
	if res.code != 2 || !strings.Contains(res.stderr, "acprun: --config missing.yaml: no such file or directory") {
		t.Errorf("with a missing --config: exit %d, want 2 naming the file\nstderr:\n%s", res.code, res.stderr)
	}
}

// TestRulesExplainCommandForms: what allow and deny rules see of a command
// line: shell wrappers unwrapped and leading assignments skipped for both,
// assignments denied by name, redirection targets as paths.
func TestRulesExplainCommandForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions:
  default: deny
  allow:
    - kind: execute
      command: "go test *"
  deny:
    - command: "LD_PRELOAD=*"
    - path: "/etc/**"
turns: [{prompt: hi}]
`})
	tests := []struct {
		command  string
		wantCode int
		want     []string
	}{
		{`bash -lc 'go test ./...'`, 0, []string{
			"decision: ALLOW by allow rule s.yaml:6",
			`command "go test ./..." (in "bash -lc 'go test ./...'") matches "go test *"`,
		}},
		{`FOO=bar go test ./...`, 0, []string{"decision: ALLOW by allow rule s.yaml:6"}},
		{`env GOFLAGS=-count=1 go test ./...`, 0, []string{"decision: ALLOW by allow rule s.yaml:6"}},
		{`bash -lc 'go test ./... && rm -rf /'`, 1, []string{
			"decision: DENY by the default",
			`no allow rule allows command "rm -rf /"`,
		}},
		{`A=1 LD_PRELOAD=/tmp/evil.so go test ./...`, 1, []string{"decision: DENY by deny rule s.yaml:9"}},
		{`env LD_PRELOAD=/tmp/evil.so go test ./...`, 1, []string{"decision: DENY by deny rule s.yaml:9"}},
		{`go test ./... > /etc/passwd`, 1, []string{
			`paths:    "/etc/passwd"`,
			"decision: DENY by deny rule s.yaml:10",
			`path "/etc/passwd" matches "/etc/**"`,
		}},
		{`go test ./... 2>&1 >/dev/null`, 0, []string{"decision: ALLOW by allow rule s.yaml:6"}},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			res := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", tt.command)
			if res.code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tt.wantCode, res.stdout, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, res.stdout)
				}
			}
		})
	}
}

// TestRulesTerminalPolicy: the commands an agent runs in a terminal get
// what a permission request for them would: a default-deny scenario
// without allow rules refuses `echo hi > $DIR/PWNED`, which never runs,
// and the results record the refusal with decision deny. --deny-all
// replaces the policy for terminals too, and an env entry that would
// smuggle in another variable is refused.
func TestRulesTerminalPolicy(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	pwned := filepath.Join(dir, "PWNED")
	script := `turns:
  - match: '^pwn$'
    steps:
      - terminal: {command: "echo hi > ` + pwned + `", waitForExit: true}
  - match: '^echo$'
    steps:
      - terminal: {command: "echo ok > ok.txt", waitForExit: true}
  - match: '^env$'
    steps:
      - terminal: {command: "echo $INJ", env: {"INJ=EVIL": x}, waitForExit: true}
`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": script,
		"s.yaml": `name: default-deny
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: pwn
    expect: {text: {contains: ["error: terminal/create: command denied"]}}
---
name: allowed
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow: [{command: "echo *"}]
turns:
  - prompt: echo
    expect: {text: {contains: ["exit: 0"]}}
  - prompt: env
    expect: {text: {contains: ["error: terminal/create: invalid params: env[0]"]}}
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the denied command ran: %s exists", pwned)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	create := func(sc, turn int) report.ClientRequest {
		t.Helper()
		tr := out.Scenarios[sc].Turns[turn]
		if len(tr.ClientRequests) == 0 || tr.ClientRequests[0].Method != "terminal/create" {
			t.Fatalf("scenario %d turn %d: client requests %+v, want a terminal/create", sc, turn, tr.ClientRequests)
		}
		return tr.ClientRequests[0]
	}
	want := report.ClientRequest{Method: "terminal/create", Command: "echo hi > " + pwned, Decision: "deny",
		Reason: "no rule matched; default deny", Refused: "command denied (no rule matched; default deny): echo hi > " + pwned}
	if got := create(0, 0); got != want {
		t.Errorf("default-deny terminal/create recorded as\n%+v\nwant\n%+v", got, want)
	}
	if got := create(1, 0); got.Decision != "allow" || got.Rule != "s.yaml:12" || got.Refused != "" || got.TerminalID == "" {
		t.Errorf("allowed terminal/create recorded as %+v, want allowed by s.yaml:12 and run", got)
	}
	if got := create(1, 1); got.Decision != "" || !strings.Contains(got.Refused, `env[0]: bad environment variable "INJ=EVIL"`) || got.TerminalID != "" {
		t.Errorf("terminal/create with a bad env name recorded as %+v, want refused naming the entry", got)
	}

	os.Remove(filepath.Join(dir, "ok.txt"))
	res = acprun(t, dir, "run", "s.yaml", "--run", "^allowed$", "--deny-all", "-o", "deny-all.json")
	if res.code != 1 {
		t.Errorf("--deny-all: exit %d, want 1 (the echo turn fails)\nstderr:\n%s", res.code, res.stderr)
	}
	out = readResults(t, filepath.Join(dir, "deny-all.json"))
	if got := create(0, 0); got.Decision != "deny" || got.Rule != "--deny-all" || got.Refused == "" {
		t.Errorf("--deny-all terminal/create recorded as %+v, want denied by --deny-all", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.txt")); err == nil {
		t.Errorf("--deny-all: the command ran")
	}
}

// containsLine reports whether text has line as one of its lines.
func containsLine(text, line string) bool {
	for l := range strings.SplitSeq(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
