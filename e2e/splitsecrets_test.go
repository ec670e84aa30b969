package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretSplitByTheShell: a secret with shell operators in it (a
// password), written unquoted in a shell line, is split by the policy
// between commands and paths, none of which holds it whole; no part of it
// shows in the results, JUnit, HTML report, events, transcript, -v and
// summary, nor in what acprun explain prints of such a request.
func TestSecretSplitByTheShell(t *testing.T) {
	t.Parallel()
	const part = "XKEYX2" // what the shell leaves whole of the secret
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": `turns:
  - steps:
      - permission: {toolCallId: p1, title: Bash, kind: execute, rawInput: {command: "mysql -ppa55;word|XKEYX2&x db"}}
      - permission: {toolCallId: p2, title: Bash, kind: execute, rawInput: {command: "echo hi >pa55;word|XKEYX2&x"}}
      - terminal: {command: "echo pa55;word|XKEYX2&x"}
`,
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {DB_PASSWORD: "pa55;word|XKEYX2&x"}}
permissions: {default: deny, allow: [{command: "echo *"}]}
turns: [{prompt: go}]
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "out.json", "--junit", "j.xml", "--html", "r.html",
		"--events", "ev.jsonl", "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("run: exit %d, want 0:\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout+res.stderr, part) || !strings.Contains(res.stderr, `allows commands "[REDACTED]", "[REDACTED]", "x"`) {
		t.Errorf("run printed a part of the secret, or not its commands redacted:\n%s", res.stderr)
	}
	for _, name := range []string{"out.json", "j.xml", "r.html", "ev.jsonl", "tr/s.jsonl"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), part) {
			t.Errorf("%s holds a part of the secret:\n%s", name, data)
		}
	}
	res = acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", "mysql -ppa55;word|XKEYX2&x db")
	if strings.Contains(res.stdout+res.stderr, part) || !strings.Contains(res.stdout, `commands: "mysql -p[REDACTED]", "[REDACTED]"`) {
		t.Errorf("explain printed a part of the secret, or not its commands redacted:\n%s%s", res.stdout, res.stderr)
	}
}
