package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report/reporttest"
)

// End-to-end tests of tool call identity: a toolCallId names one call in
// the session, whichever turn speaks of it; a call without one is a call
// of its own, and a protocol violation.

// TestToolCallAcrossTurns: a long-running call started in turn 1 and
// finished in turn 2 is one call, of turn 1, completed late; a permission
// request in turn 2 about a call of turn 1 is decided on that call (its
// kind; the call did not run unasked), and explain --transcript agrees.
// Turn 2 has no call of its own, and the scenario's toolCalls count each
// call once, by its last status; the HTML report shows no call that was
// never announced.
func TestToolCallAcrossTurns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: "go test ./...", kind: execute, status: in_progress}
      - tool_call: {toolCallId: e1, title: "Edit a.go", kind: edit, status: pending}
      - text: started tests
  - steps:
      - tool_call_update: {toolCallId: t1, status: completed}
      - permission: {toolCallId: e1}
        rejected: [{tool_call_update: {toolCallId: e1, status: failed}}]
      - text: tests done
`, "s.yaml": `name: tc
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  deny: [{kind: edit}]
turns:
  - prompt: start
  - prompt: finish
    expect: {toolCalls: {count: {other: 0}}, permissions: {requested: [edit]}, denied: 1}
expect:
  toolCalls: {count: {execute: 1, edit: 1}, sequence: [execute, edit], notUsed: [other]}
`})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", filepath.Join(dir, "tr"), "--html", "report.html")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	want := [][]string{
		{"t1 | execute | go test ./... | in_progress | completed", "e1 | edit | Edit a.go | pending | failed"},
		nil,
	}
	if diff := cmp.Diff(want, reporttest.ToolCallsByTurn(sc)); diff != "" {
		t.Errorf("tool calls by turn (-want +got):\n%s", diff)
	}
	if len(sc.Warnings) != 0 { // e1 asked, in turn 2: it did not run unasked
		t.Errorf("warnings %q, want none", sc.Warnings)
	}
	// The request alone (explain --request) names no kind: only merged
	// onto the call of turn 1 is it denied.
	if checked, alone := checkExplainAgrees(t, dir, out.Scenarios); checked != 1 || len(alone) != 1 {
		t.Errorf("%d permission requests checked, %q decided otherwise alone; want 1 and 1", checked, alone)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "never announced") || strings.Count(string(html), "→ completed (late)") != 1 {
		t.Errorf("the HTML report shows a call never announced, or not t1 completed late once")
	}

	// The scenario's status: a call that failed in turn 2 did not end completed.
	res, out, _ = runOne(t, `turns:
  - steps: [{tool_call: {toolCallId: t1, title: "go test ./...", kind: execute, status: in_progress}}]
  - steps: [{tool_call_update: {toolCallId: t1, status: completed}}]
`, `name: tc
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: start
  - prompt: finish
expect:
  toolCalls: {count: {execute: 1}, status: completed}
`)
	if res.code != exitOK || len(out.Scenarios[0].Failures) != 0 {
		t.Errorf("status: exit %d, failures %q; want 0 and none\n%s", res.code, out.Scenarios[0].Failures, res.stderr)
	}
}

// TestToolCallWithoutID: four tool calls without a usable toolCallId are
// four calls, each recorded, and counted by toolCalls; each is a protocol
// violation, named in the results and among the warnings.
func TestToolCallWithoutID(t *testing.T) {
	t.Parallel()
	scenario := `name: e
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: go
    expect:
      toolCalls: {count: {execute: "<=1"}}
`
	res, out, _ := runOne(t, `default:
  steps:
    - update: {sessionUpdate: tool_call, title: "rm a", kind: execute, status: completed}
    - update: {sessionUpdate: tool_call, title: "rm b", kind: execute, status: completed}
    - update: {sessionUpdate: tool_call, toolCallId: "", title: "rm c", kind: execute, status: completed}
    - update: {sessionUpdate: tool_call, toolCallId: "", title: "rm d", kind: execute, status: completed}
    - text: done
`, scenario)
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	want := [][]string{{
		" | execute | rm a | completed | ",
		" | execute | rm b | completed | ",
		" | execute | rm c | completed | ",
		" | execute | rm d | completed | ",
	}}
	if diff := cmp.Diff(want, reporttest.ToolCallsByTurn(sc)); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	wantFailure := "turn 1: " + lineCol("s.yaml", scenario, strings.Index(scenario, `"<=1"`)) +
		`: toolCalls.count: 4 tool calls match "execute", want at most 1 (execute "rm a", execute "rm b", execute "rm c", execute "rm d")`
	if len(sc.Failures) != 1 || sc.Failures[0] != wantFailure {
		t.Errorf("failures %q, want %q", sc.Failures, wantFailure)
	}
	violation := `session/update tool_call "rm a": no toolCallId, which is required; recorded as a tool call of its own`
	if len(sc.Violations) != 4 || sc.Violations[0] != violation {
		t.Errorf("violations %q, want 4, the first %q", sc.Violations, violation)
	}
	if !strings.Contains(res.stderr, "protocol violation: "+violation) {
		t.Errorf("stderr lacks the violation:\n%s", res.stderr)
	}
}
