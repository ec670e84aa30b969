package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerboseAndHTMLTurnDetails: -v and the HTML report show a tool call's
// and a permission's tool name, and the turn's notices and questions with
// how acprun answered them.
func TestVerboseAndHTMLTurnDetails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: b1, title: "ls -la", kind: execute, name: Bash, status: in_progress}
      - permission: {toolCallId: b1}
      - notice: {severity: warning, title: MCP server unavailable}
      - elicit: {message: "Which branch should I use?", fields: {branch: string}}
      - elicit: {message: "Deploy now?", fields: {env: [staging, prod]}}
`,
		"s.yaml": `name: details
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny, allow: [{tool: Bash}]}
answers: [{match: branch, values: {branch: main}}]
turns: [{prompt: go}]
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "out.json", "--html", "report.html")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		`[details] tool call "ls -la" (execute, Bash): in_progress`,
		`[details] permission allow: "ls -la" (execute, Bash; rule s.yaml:3)`,
		`[details] turn 1: notice warning: MCP server unavailable`,
		`[details] turn 1: question "Which branch should I use?" (form): accept {"branch":"main"}`,
		`[details] turn 1: question "Deploy now?" (form): decline`,
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("-v lacks %q:\n%s", want, res.stderr)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<strong>ls -la</strong> <code class="tool">Bash</code>`,
		`<h4>Questions</h4>`, `Which branch should I use?`, `accept <code>{&#34;branch&#34;:&#34;main&#34;}</code>`,
		`<h4>Notices</h4>`, `<strong>MCP server unavailable</strong>`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
