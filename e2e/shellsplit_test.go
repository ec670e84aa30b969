package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestShellSplitTerminalDenied: command lines that hide a denied command
// from a reading of the line that is not the shell's own are denied, and
// acprun's terminal never runs them: `\>|` is an escaped > and a pipe,
// dash (/bin/sh on Debian) reads $'\' as $ and a plain quote and &> as &
// and >, and bash ends a here-document at E\<newline>OF. explain, given
// each line, answers as run did; an allowed echo still runs.
func TestShellSplitTerminalDenied(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	file := func(name string) string { return filepath.Join(dir, name) }
	lines := map[string]string{ // file the hidden touch makes → the line
		"PIPE":    `echo a\>|touch ` + file("PIPE"),
		"AMP":     `echo a\>&touch ` + file("AMP"),
		"ANSI":    `echo $'\' ; touch ` + file("ANSI") + ` ; echo ''`,
		"REDIR":   `echo hi &>/dev/null touch ` + file("REDIR"),
		"HEREDOC": "cat <<EOF\nbody\nE\\\nOF\ntouch " + file("HEREDOC") + "\nEOF\n",
	}
	var steps strings.Builder
	for _, name := range []string{"PIPE", "AMP", "ANSI", "REDIR"} {
		line, _ := json.Marshal(lines[name])
		steps.WriteString("      - terminal: {command: " + string(line) + ", waitForExit: true}\n")
	}
	script, _ := json.Marshal(lines["HEREDOC"])
	steps.WriteString("      - terminal: {command: bash, args: [-c, " + string(script) + "], waitForExit: true}\n")
	steps.WriteString("      - terminal: {command: \"echo ok > ok.txt\", waitForExit: true}\n")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n" + steps.String(),
		"s.yaml": `name: hidden
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow: [{command: ["echo *", "cat *"]}]
  deny: [{command: "touch *"}]
turns:
  - prompt: go
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for name := range lines {
		if _, err := os.Stat(file(name)); err == nil {
			t.Errorf("the denied command ran: %s exists", name)
		}
	}
	if _, err := os.Stat(file("ok.txt")); err != nil {
		t.Errorf("the allowed echo did not run: %v", err)
	}
	var decisions []string
	for _, r := range readResults(t, file("out.json")).Scenarios[0].Turns[0].ClientRequests {
		if r.Method == "terminal/create" {
			decisions = append(decisions, r.Decision)
		}
	}
	if want := "deny deny deny deny deny allow"; strings.Join(decisions, " ") != want {
		t.Errorf("terminal/create decisions %q, want %q", decisions, want)
	}
	for name, line := range lines {
		if got := explainDecision(t, acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", line)); got.verdict != "deny" {
			t.Errorf("explain %s line %q: %+v, want deny", name, line, got)
		}
	}
}
