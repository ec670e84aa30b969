package runner

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
)

// TestToolCallUpdatedInLaterTurn: a tool call belongs to the turn it was
// announced in; an update in a later turn completes that call (a late
// status) and a permission request in a later turn is about it (the policy
// sees its announced kind, and the call did not run unasked), instead of
// making a call of the later turn with no kind or title. The scenario sees one call per id, with the last
// status it reached; the later turn sees none.
func TestToolCallUpdatedInLaterTurn(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: "go test ./...", kind: execute, status: in_progress}
      - tool_call: {toolCallId: e1, title: "Edit a.go", kind: edit, status: pending}
      - text: started tests
  - steps:
      - tool_call_update: {toolCallId: t1, status: completed}
      - permission: {toolCallId: e1}
      - tool_call_update: {toolCallId: e1, status: completed}
      - text: tests done
`, `name: tc
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  deny: [{kind: edit}]
turns:
  - prompt: start
    expect: {toolCalls: {count: {execute: 1, edit: 1}, sequence: [execute, edit]}}
  - prompt: finish
    expect:
      toolCalls: {count: {execute: 0, other: 0}, notUsed: [other]}
      permissions: {requested: [edit]}
expect:
  toolCalls: {count: {execute: 1, edit: 1, other: 0}, status: completed, sequence: [execute, edit], notUsed: [other]}
`)
		if res.Status != report.StatusPassed {
			t.Errorf("status %s (%q, %q), want passed", res.Status, res.Error, res.Failures)
		}
		want := [][]string{
			{"t1 | execute | go test ./... | in_progress | completed", "e1 | edit | Edit a.go | pending | completed"},
			nil,
		}
		if diff := cmp.Diff(want, reporttest.ToolCallsByTurn(res)); diff != "" {
			t.Errorf("tool calls by turn (-want +got):\n%s", diff)
		}
		wantPerm := []report.Permission{{ToolCallID: "e1", Title: "Edit a.go", Kind: "edit", Decision: "deny", Outcome: "selected"}}
		if diff := cmp.Diff(wantPerm, res.Turns[1].Permissions, cmpopts.IgnoreFields(report.Permission{}, "Rule", "OptionID", "Reason")); diff != "" {
			t.Errorf("turn 2's permissions (-want +got):\n%s", diff)
		}
		if len(res.Violations) != 0 {
			t.Errorf("violations %q, want none", res.Violations)
		}
		// e1 asked, in turn 2: it did not run unasked, but it ran denied.
		wantWarn := []string{`turn 1: tool call e1 ("Edit a.go") ran although its permission request was denied; ` +
			`the policy would have denied it (deny rule s.yaml:5): the policy had no effect on it`}
		if diff := cmp.Diff(wantWarn, relWarnings(res)); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
}

// TestToolCallIDAnnouncedAgain: a tool_call with the id of an earlier
// turn's call is a new call of its turn, as agents that number their
// calls per turn (call_1 in every turn, the ACP SDKs' example agents) mean
// it; its updates and permission request go to it, and the earlier
// turn's call keeps what it was.
func TestToolCallIDAnnouncedAgain(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `turns:
  - steps:
      - tool_call: {toolCallId: call_1, title: "Read a.go", kind: read, status: pending}
      - tool_call_update: {toolCallId: call_1, status: completed}
      - text: read
  - steps:
      - tool_call: {toolCallId: call_1, title: "Edit a.go", kind: edit, status: pending}
      - permission: {toolCallId: call_1}
      - tool_call_update: {toolCallId: call_1, status: completed}
      - text: edited
`, `name: again
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: read
    expect: {toolCalls: {count: {read: 1, edit: 0}}}
  - prompt: edit
    expect:
      toolCalls: {count: {edit: 1, read: 0}, status: completed}
      permissions: {requested: [edit]}
expect:
  toolCalls: {count: {read: 1, edit: 1}, status: completed, sequence: [read, edit]}
`)
		if res.Status != report.StatusPassed {
			t.Errorf("status %s (%q, %q), want passed", res.Status, res.Error, res.Failures)
		}
		want := [][]string{
			{"call_1 | read | Read a.go | completed | "},
			{"call_1 | edit | Edit a.go | completed | "},
		}
		if diff := cmp.Diff(want, reporttest.ToolCallsByTurn(res)); diff != "" {
			t.Errorf("tool calls by turn (-want +got):\n%s", diff)
		}
		if len(res.Violations) != 0 || len(res.Warnings) != 0 {
			t.Errorf("violations %q, warnings %q; want none", res.Violations, res.Warnings)
		}
	})
}

// TestToolCallWithoutID: each tool_call without a toolCallId (none, or "")
// is a call of its own, counted and recorded with "" for its id; a
// tool_call_update without one is ignored; each is a protocol violation.
// (A permission request's: TestRecordedSessionWithoutID.)
func TestToolCallWithoutID(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `default:
  steps:
    - update: {sessionUpdate: tool_call, title: "rm a", kind: execute, status: completed}
    - update: {sessionUpdate: tool_call, title: "rm b", kind: execute, status: completed}
    - update: {sessionUpdate: tool_call, toolCallId: "", title: "rm c", kind: execute, status: in_progress}
    - update: {sessionUpdate: tool_call_update, status: failed}
    - update: {sessionUpdate: tool_call, toolCallId: "", title: "rm d", kind: execute, status: completed}
    - text: done
`, `name: e
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: go
    expect:
      toolCalls: {count: {execute: "<=1"}}
`)
		want := [][]string{{
			" | execute | rm a | completed | ",
			" | execute | rm b | completed | ",
			" | execute | rm c | in_progress | ",
			" | execute | rm d | completed | ",
		}}
		if diff := cmp.Diff(want, reporttest.ToolCallsByTurn(res)); diff != "" {
			t.Errorf("tool calls (-want +got):\n%s", diff)
		}
		if res.Status != report.StatusFailed || len(res.Turns[0].Failures) != 1 || !strings.Contains(res.Turns[0].Failures[0], "toolCalls.count: 4 tool calls match") {
			t.Errorf("status %s, failures %q; want failed on a count of 4", res.Status, res.Turns[0].Failures)
		}
		wantViolations := []string{
			`session/update tool_call "rm a": no toolCallId, which is required; recorded as a tool call of its own`,
			`session/update tool_call "rm b": no toolCallId, which is required; recorded as a tool call of its own`,
			`session/update tool_call "rm c": no toolCallId, which is required; recorded as a tool call of its own`,
			`session/update tool_call_update: no toolCallId, which is required; ignored, as it updates no tool call that can be told`,
			`session/update tool_call "rm d": no toolCallId, which is required; recorded as a tool call of its own`,
		}
		if diff := cmp.Diff(wantViolations, res.Violations); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
	})
}
