package runner

import (
	"strings"
	"testing"
)

// TestToolNamesDecideAndRecord: a permission request is decided on the
// tool name it gives, else on the name its tool call was announced with
// (a later tool_call_update's name replacing it), and the results record
// the name of each tool call and permission request.
func TestToolNamesDecideAndRecord(t *testing.T) {
	t.Parallel()
	rep := runOne(t, `
turns:
  - steps:
      - tool_call: {toolCallId: a, title: Create issue, name: mcp__github__create_issue}
      - permission: {toolCallId: a}
        allowed: [{text: "a: allowed. "}]
        rejected: [{text: "a: rejected. "}]
      - tool_call: {toolCallId: b, title: Read notes, name: mcp__github__get_file}
      - tool_call_update: {toolCallId: b, name: Read}
      - permission: {toolCallId: b}
        allowed: [{text: "b: allowed. "}]
        rejected: [{text: "b: rejected. "}]
      - tool_call: {toolCallId: c, title: Run, name: mcp__github__run}
      - permission: {toolCallId: c, name: Bash}
        allowed: [{text: "c: allowed. "}]
        rejected: [{text: "c: rejected. "}]
      - permission: {toolCallId: d, title: nameless}
        allowed: [{text: "d: allowed."}]
        rejected: [{text: "d: rejected."}]
`, `name: names
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  allow:
    - tool: [Read, bash]
  deny:
    - tool: "mcp__github__*"
    - {tool: "*", title: nameless}
turns:
  - prompt: go
`)
	sc := rep.Scenarios[0]
	turn := sc.Turns[0]
	if want := "a: rejected. b: allowed. c: allowed. d: allowed."; turn.Text != want {
		t.Errorf("text = %q, want %q", turn.Text, want)
	}
	var names, rules []string
	for _, p := range turn.Permissions {
		names = append(names, p.Name)
		rules = append(rules, p.Rule)
	}
	if got, want := strings.Join(names, ","), "mcp__github__create_issue,Read,Bash,"; got != want {
		t.Errorf("permission names = %q, want %q", got, want)
	}
	file := sc.File
	if got, want := strings.Join(rules, ","), file+":8,"+file+":6,"+file+":6,"; got != want {
		t.Errorf("rules = %q, want %q", got, want)
	}
	names = nil
	for _, c := range turn.ToolCalls {
		names = append(names, c.Name)
	}
	if got, want := strings.Join(names, ","), "mcp__github__create_issue,Read,Bash,"; got != want {
		t.Errorf("tool call names = %q, want %q", got, want)
	}
}
