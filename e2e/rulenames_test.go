package e2e_test

import (
	"strings"
	"testing"
)

// TestRulesOnOneLineNamedByColumn: of rules written on one line
// (allow: [{kind: read}, {kind: edit}]), the results and -v name the one
// that decided by its column too; they named both "s.yaml:4". A rule on a
// line of its own keeps its file and line.
func TestRulesOnOneLineNamedByColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: e1, title: Edit a.txt, kind: edit}
      - permission: {toolCallId: e1}
      - tool_call: {toolCallId: d1, title: Delete b.txt, kind: delete}
      - permission: {toolCallId: d1}
`,
		"s.yaml": `name: rules
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  allow: [{kind: read}, {kind: edit}]
  deny:
    - kind: delete
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml", "-v")
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 || len(out.Scenarios[0].Turns[0].Permissions) != 2 {
		t.Fatalf("exit %d, want one turn with two permission requests\n%s", res.code, res.stderr)
	}
	ps := out.Scenarios[0].Turns[0].Permissions
	if ps[0].Decision != "allow" || ps[0].Rule != "s.yaml:4:25" || ps[1].Decision != "deny" || ps[1].Rule != "s.yaml:6" {
		t.Errorf("decided %s by %q and %s by %q; want allow by s.yaml:4:25 and deny by s.yaml:6", ps[0].Decision, ps[0].Rule, ps[1].Decision, ps[1].Rule)
	}
	if !strings.Contains(res.stderr, "rule s.yaml:4:25)") {
		t.Errorf("-v does not name the rule s.yaml:4:25:\n%s", res.stderr)
	}
}
