package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// creates returns the terminal/create records of a scenario's first turn.
func creates(t *testing.T, sc report.Result) []report.ClientRequest {
	t.Helper()
	var out []report.ClientRequest
	for _, r := range sc.Turns[0].ClientRequests {
		if r.Method == "terminal/create" {
			out = append(out, r)
		}
	}
	return out
}

// TestTerminalEnvPolicy: the env an agent gives terminal/create is put to
// the rules as assignments written before the command, as
// `BASH_ENV=… bash -c 'echo hi'` would be: a deny rule on BASH_ENV refuses
// it (the script BASH_ENV names never runs), an allow rule holds for the
// same line with the assignments in front, and the results record the
// command with them, secrets redacted. explain, given the recorded
// command, answers as run did.
func TestTerminalEnvPolicy(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	pwned := filepath.Join(dir, "PWNED")
	const secret = "tok-5ecret-value-9"
	writeFiles(t, dir, map[string]string{
		"evil.sh": "touch " + pwned + "\n",
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: bash, args: ["-c", "echo hi"], env: {BASH_ENV: ` + filepath.Join(dir, "evil.sh") + `}, waitForExit: true}
      - terminal: {command: 'echo "$GREETING" > greeting.txt', env: {GREETING: ` + secret + `}, waitForExit: true}
`,
		"s.yaml": `name: term-env
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {MY_TOKEN: ` + secret + `}}
permissions:
  default: deny
  allow:
    - kind: execute
      command: "echo *"
  deny:
    - command: ["LD_PRELOAD=*", "BASH_ENV=*", "touch *"]
turns:
  - prompt: hi
    expect: {denied: 1}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the script BASH_ENV named ran: %s exists", pwned)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "greeting.txt")); err != nil || string(got) != secret+"\n" {
		t.Errorf("greeting.txt = %q, %v; want the allowed command run with its env", got, err)
	}
	cs := creates(t, out.Scenarios[0])
	if len(cs) != 2 {
		t.Fatalf("terminal/create records = %+v, want 2", cs)
	}
	denied := "BASH_ENV=" + filepath.Join(dir, "evil.sh") + " bash -c 'echo hi'"
	if c := cs[0]; c.Command != denied || c.Decision != "deny" || c.Rule != "s.yaml:9" || c.TerminalID != "" {
		t.Errorf("first terminal/create recorded as %+v, want %q denied by s.yaml:9", c, denied)
	}
	if c := cs[1]; c.Command != `GREETING=[REDACTED] echo "$GREETING" > greeting.txt` || c.Decision != "allow" || c.Rule != "s.yaml:6" {
		t.Errorf("second terminal/create recorded as %+v, want allowed by s.yaml:6, the secret redacted", c)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "out.json")); strings.Contains(string(data), secret) {
		t.Errorf("the results hold the secret")
	}

	ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", denied)
	if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule s.yaml:9") {
		t.Errorf("explain of the recorded command: exit %d, want 1, denied by s.yaml:9\n%s%s", ex.code, ex.stdout, ex.stderr)
	}
}

// TestTerminalWrapperDeny: a deny rule on a command also holds behind a
// wrapper with options that take an argument (nice -n 5, env -u HOME,
// exec -a x) and behind timeout, xargs, find -exec and stdbuf: acprun
// refuses those terminals, and none of their files is created. explain
// agrees.
func TestTerminalWrapperDeny(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	lines := map[string]string{
		"NICE":    "nice -n 5 touch NICE",
		"ENVU":    "env -u HOME touch ENVU",
		"EXEC":    "exec -a x touch EXEC",
		"TIMEOUT": "timeout 5 touch TIMEOUT",
		"XARGS":   "echo XARGS | xargs -n 1 touch",
		"FIND":    "find . -maxdepth 0 -exec touch FIND ';'",
		"STDBUF":  "stdbuf -o 0 touch STDBUF",
		"WATCH":   "timeout 1 watch -n 5 -x touch WATCH",
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range lines {
			if !yield(n) {
				return
			}
		}
	})
	script := "turns:\n  - steps:\n      - terminal: {command: 'nice -n 5 ls', waitForExit: true}\n"
	for _, n := range names {
		script += "      - terminal: {command: \"" + lines[n] + "\", waitForExit: true}\n"
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": script,
		"s.yaml": `name: wrappers
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  deny:
    - command: "touch *"
turns: [{prompt: hi}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%q ran: %s exists", lines[n], n)
		}
	}
	sc := out.Scenarios[0]
	if sc.Allowed != 1 || sc.Denied != len(lines) {
		t.Errorf("allowed/denied = %d/%d, want 1/%d", sc.Allowed, sc.Denied, len(lines))
	}
	for _, c := range creates(t, sc)[1:] {
		if c.Decision != "deny" || c.Rule != "s.yaml:6" || c.TerminalID != "" {
			t.Errorf("%q recorded as %+v, want denied by s.yaml:6", c.Command, c)
		}
	}
	for _, line := range []string{"sudo -u root touch x", "doas -u root touch x", "setsid touch x", "flock /tmp/l -c 'touch x'"} {
		ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", line)
		if ex.code != 1 || !strings.Contains(ex.stdout, "decision: DENY by deny rule s.yaml:6") {
			t.Errorf("explain %q: exit %d, want 1, denied by s.yaml:6\n%s%s", line, ex.code, ex.stdout, ex.stderr)
		}
	}
}

// TestSharedOptionID: an agent that gives its reject option the id of its
// allow option is not answered with that id, which it may take for the
// allow: the denial is answered cancelled, counted as denied, and the
// shared id is reported as a protocol violation.
func TestSharedOptionID(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: rm -rf /, kind: execute, rawInput: {command: rm -rf /}}
      - permission: {toolCallId: t1}
        options:
          - {optionId: go, name: Reject, kind: reject_once}
          - {optionId: go, name: Allow, kind: allow_once}
        allowed: [{text: "RAN rm -rf"}]
        rejected: [{text: "skipped"}]
        cancelled: [{text: "cancelled"}]
`, `name: dupopt
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {stopReason: cancelled, denied: 1}
`)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	sc := out.Scenarios[0]
	tr := sc.Turns[0]
	if tr.Text != "cancelled" || len(tr.Permissions) != 1 || tr.Permissions[0].Outcome != "cancelled" || tr.Permissions[0].OptionID != "" {
		t.Errorf("text %q, permissions %+v; want the denial answered cancelled", tr.Text, tr.Permissions)
	}
	if sc.Allowed != 0 || sc.Denied != 1 || !strings.Contains(res.stdout+res.stderr, "0 allowed, 1 denied") {
		t.Errorf("allowed/denied = %d/%d, want 0/1\n%s%s", sc.Allowed, sc.Denied, res.stdout, res.stderr)
	}
	want := `protocol violation: session/request_permission t1: two options share optionId "go" (of kinds "reject_once" and "allow_once"): each option needs an id of its own`
	if !slices.Contains(sc.Warnings, want) || !strings.Contains(res.stderr, want) {
		t.Errorf("warnings %q, stderr:\n%s\nwant %q", sc.Warnings, res.stderr, want)
	}
}
