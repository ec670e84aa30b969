package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentIdsAndPathsOnOneLine: a tool call id and the name of a file
// the agent created, both with a line break before "::error::forged",
// stay on the line of the warning or failure that names them, the line
// break written \x0a (docs/results.md, "What is printed"), on stderr, in
// the GitHub annotations and in the step summary: no line of acprun's
// output begins with what follows the agent's line break.
func TestAgentIdsAndPathsOnOneLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns:\n  - steps:\n" +
			`      - tool_call: {toolCallId: "call\n::error::forged", title: Run, kind: execute, status: completed}` + "\n" +
			`      - writeFile: {path: "bad\n::error::forged.txt", content: x}` + "\n",
		"src/keep.txt": "x\n",
		"s.yaml": "name: nl\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nworkspace: {from: src}\npermissions: {default: deny}\n" +
			"turns:\n  - prompt: hi\n    expect:\n      files: {unchanged: ['*.txt']}\n",
	})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="},
		"run", "s.yaml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, exitFailed, res.stderr)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`warning: turn 1: tool call call\x0a::error::forged ("Run") ran without a permission request;`,
		`files.unchanged: 1 path matching "*.txt" was changed: bad\x0a::error::forged.txt` + "\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	for name, out := range map[string]string{"stderr": res.stderr, "annotations": res.stdout, "step summary": string(md)} {
		if n, esc := strings.Count(out, "::error::forged"), strings.Count(out, `\x0a::error::forged`); n == 0 || n != esc {
			t.Errorf("%s: %d of %d ::error::forged follow \\x0a, want all:\n%s", name, esc, n, out)
		}
	}
}
