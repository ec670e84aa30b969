package runner

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// The tests of this file play what an agent sends and does after a
// prompt's answer (the mock agent's after: steps) in two orders: at once,
// when acprun may handle it before or after the runner has taken the
// answer, and after a pause of the agent's, which in the bubble's time
// comes after the runner has taken the answer and checked what it could.
// The results and the verdict must be the same either way: they follow
// from the agent's output, never from which goroutine got there first.

// afterOrders are the two orders: a step put first in after:.
var afterOrders = []struct{ name, pause string }{
	{"at once", ""},
	{"after a pause", "      - sleep: 20ms\n"},
}

// forEachOrder runs f in a synctest bubble with the pause step of each
// order ("" or a sleep step, to put first in after:).
func forEachOrder(t *testing.T, f func(t *testing.T, pause string)) {
	for _, o := range afterOrders {
		t.Run(o.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { f(t, o.pause) })
		})
	}
}

// relFailures are the scenario's failures with the scenario's directory
// taken out of their positions.
func relFailures(res report.Result) []string { return relMessages(res, res.Failures) }

// relWarnings are the scenario's warnings so.
func relWarnings(res report.Result) []string { return relMessages(res, res.Warnings) }

// relMessages are msgs, of scenario res, with the scenario's directory
// taken out of their positions.
func relMessages(res report.Result, msgs []string) []string {
	var got []string
	for _, f := range msgs {
		got = append(got, strings.ReplaceAll(f, filepath.Dir(res.File)+"/", ""))
	}
	return got
}

// TestLateToolCallUpdateIsNotTheTurns: a tool_call_update after the
// answer that changes the call's kind, title, status and input is kept
// apart: the turn's toolCalls checks and record have the call as it was at
// the answer, the late values beside it; the scenario's checks see them.
func TestLateToolCallUpdateIsNotTheTurns(t *testing.T) {
	t.Parallel()
	forEachOrder(t, func(t *testing.T, pause string) {
		res := playInBubble(t, `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: Look around, kind: read, status: pending}
      - text: working
    after:
`+pause+`      - tool_call_update: {toolCallId: t1, kind: execute, title: "rm -rf /", status: completed, rawInput: {command: "rm -rf /"}}
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny, allow: [{kind: read}]}
turns:
  - prompt: go
    expect: {toolCalls: {notUsed: [execute], used: ["Look around"]}}
expect: {toolCalls: {used: [execute, "rm -rf /"], status: completed}}
`)
		if res.Status != report.StatusPassed {
			t.Errorf("status %s, failures %q; want passed", res.Status, res.Failures)
		}
		want := []report.ToolCall{{ID: "t1", Title: "Look around", Kind: "read", Status: "pending", Announced: true,
			LateStatus: "completed", LateTitle: "rm -rf /", LateKind: "execute", LateRawInput: []byte(`{"command":"rm -rf /"}`)}}
		if diff := gocmp.Diff(want, res.Turns[0].ToolCalls); diff != "" {
			t.Errorf("turn 1's tool calls (-want +got):\n%s", diff)
		}
	})
}

// TestLateUsageIsNotTheTurns: a usage_update after the answer is the
// session's, not the turn's: the turn's usage.maxCost checks, and its
// usage records, the cost reported before the answer; the late one is
// recorded apart (lateUsage).
func TestLateUsageIsNotTheTurns(t *testing.T) {
	t.Parallel()
	forEachOrder(t, func(t *testing.T, pause string) {
		res := playInBubble(t, `turns:
  - steps:
      - usage_update: {used: 100, size: 1000, cost: {amount: 0.1, currency: USD}}
      - text: cheap
    after:
`+pause+`      - usage_update: {used: 200, size: 1000, cost: {amount: 5.0, currency: USD}}
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {usage: {maxCost: 1}}
`)
		if res.Status != report.StatusPassed {
			t.Errorf("status %s, failures %q; want passed", res.Status, res.Failures)
		}
		tr := res.Turns[0]
		want := struct{ Usage, LateUsage *report.Usage }{
			&report.Usage{ContextUsed: 100, ContextSize: 1000, Cost: 0.1, Currency: "USD"},
			&report.Usage{ContextUsed: 200, ContextSize: 1000, Cost: 5, Currency: "USD"},
		}
		if diff := gocmp.Diff(want, struct{ Usage, LateUsage *report.Usage }{tr.Usage, tr.LateUsage}); diff != "" {
			t.Errorf("turn 1's usage (-want +got):\n%s", diff)
		}
	})
}

// TestLateCostPassesTheScenarioBudget: a session cost the agent reports
// after a turn's answer counts against the scenario's budget.maxCost: over
// it, no further prompt is sent, the turns after are skipped and the
// scenario fails naming the budget; after the last turn, it fails all the
// same.
func TestLateCostPassesTheScenarioBudget(t *testing.T) {
	t.Parallel()
	const head = `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxCost: 1}
turns:
  - prompt: one
`
	const over = "s.yaml:4:19: budget.maxCost: the agent reported a session cost of 5 USD after the answer of turn 1, over the scenario's budget of 1 USD"
	tests := []struct {
		name, turns string
		prompts     int
		fails       []string
	}{
		{name: "before the next prompt", turns: "  - prompt: two\n", prompts: 1,
			fails: []string{"turn 2: s.yaml:7:5: not run: the session's cost passed the scenario's budget", over + "; acprun sent no further prompt"}},
		{name: "after the last turn", prompts: 1, fails: []string{over}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachOrder(t, func(t *testing.T, pause string) {
				b := startInBubble(t, `turns:
  - steps: [{text: spent}]
    after:
`+pause+`      - usage_update: {used: 1, size: 10, cost: {amount: 5, currency: USD}}
  - steps: [{text: two}]
`, head+tt.turns)
				if err := b.handshake(t.Context()); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				b.r.playTurns(t.Context(), t.Context())
				res := b.finish(t, false)
				if diff := gocmp.Diff(tt.fails, relFailures(res)); diff != "" || res.Status != report.StatusFailed {
					t.Errorf("status %s, failures (-want +got):\n%s", res.Status, diff)
				}
				prompts := 0
				for _, l := range b.sentLines() {
					if strings.Contains(string(l), `"session/prompt"`) {
						prompts++
					}
				}
				if prompts != tt.prompts {
					t.Errorf("%d prompts sent, want %d", prompts, tt.prompts)
				}
			})
		})
	}
}

// TestTurnFilesSeeTheWorkspaceOnceQuiet: a turn's files are checked once
// the agent has been quiet after its answer, before the next prompt, and
// the last turn's once the agent has stopped: a file the agent writes by
// itself right after its answer is seen, whether it writes it at once or
// after a pause, never half written.
func TestTurnFilesSeeTheWorkspaceOnceQuiet(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, turns string }{
		{name: "before the next prompt", turns: "  - prompt: two\n"},
		{name: "the last turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachOrder(t, func(t *testing.T, pause string) {
				res := playInBubble(t, `turns:
  - steps: [{text: turn one}]
    after:
`+pause+`      - writeFile: {path: late.txt, content: "written after the answer\n"}
  - steps: [{text: turn two}]
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {files: {absent: [late.txt]}}
`+tt.turns)
				want := []string{`turn 1: s.yaml:6:31: files.absent: "late.txt" exists (a file of 25 bytes)`}
				if diff := gocmp.Diff(want, relFailures(res)); diff != "" || res.Status != report.StatusFailed {
					t.Errorf("status %s, failures (-want +got):\n%s", res.Status, diff)
				}
			})
		})
	}
}

// TestLateUpdatesLeaveTheTurnAsAnswered: the turn's record at its answer
// and its record once the late updates are in agree on everything the
// turn's checks read: a late tool_call_update, permission request or
// usage_update changes none of it, whichever of the runner and the
// connection gets to the record first.
func TestLateUpdatesLeaveTheTurnAsAnswered(t *testing.T) {
	t.Parallel()
	s := &session{sessionID: "s", policy: &approve.Policy{Default: approve.Allow}, obs: (&observer{}).forJob(Ref{Name: "a"}, redact.New())}
	tr := s.startTurn(1, "one", nil, false)
	kind, title, completed := acp.ToolKind("execute"), "rm -rf /", acp.StatusCompleted
	s.update(acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{Kind: acp.UpdateToolCall,
		ToolCall: &acp.ToolCall{ToolCallID: "t1", Title: "Look around", Kind: "read", Status: acp.StatusPending}}})
	s.update(acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{Kind: acp.UpdateUsageUpdate,
		UsageUpdate: &acp.UsageUpdate{Used: 1, Size: 10, Cost: &acp.Cost{Amount: 0.1, Currency: "USD"}}}})
	answered := s.finish(t.Context(), tr, turnOutcome{stopReason: "end_turn"})

	s.update(acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{Kind: acp.UpdateToolCallUpdate,
		ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t1", Title: &title, Kind: &kind, Status: &completed, RawInput: []byte(`{"command":"rm -rf /"}`)}}})
	s.update(costlyUpdate("s"))
	id := acp.ID{}
	if err := id.UnmarshalJSON([]byte("7")); err != nil {
		t.Fatal(err)
	}
	req := &acp.Request{ID: &id, Method: acp.MethodSessionRequestPermission,
		Params: []byte(`{"sessionId":"s","toolCall":{"toolCallId":"t1","title":"Delete all","kind":"delete"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`)}
	if _, err := s.Handle(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	final := s.snapshot(tr)

	e := scenario.Expect{ToolCalls: &scenario.ToolCallsExpect{NotUsed: []scenario.Located{{Value: "execute"}, {Value: "delete"}}}}
	if f1, f2 := checkTurn(nil, e, &answered), checkTurn(nil, e, &final); len(f1) != 0 || len(f2) != 0 {
		t.Errorf("checkTurn = %q at the answer, %q once the late updates are in; want no failures", f1, f2)
	}
	own := func(c report.ToolCall) report.ToolCall {
		return report.ToolCall{ID: c.ID, Title: c.Title, Name: c.Name, Kind: c.Kind, Status: c.Status, RawInput: c.RawInput, Announced: c.Announced}
	}
	if diff := gocmp.Diff(own(answered.ToolCalls[0]), own(final.ToolCalls[0])); diff != "" {
		t.Errorf("the call as the turn has it changed with late updates (-at the answer +later):\n%s", diff)
	}
	if c := final.ToolCalls[0]; c.LateKind != "delete" || c.LateTitle != "Delete all" || c.LateStatus != "completed" || string(c.LateRawInput) != `{"command":"rm -rf /"}` {
		t.Errorf("late values %q %q %q %s; want delete, Delete all, completed and the late input", c.LateKind, c.LateTitle, c.LateStatus, c.LateRawInput)
	}
	if u := final.Usage; u == nil || u.Cost != 0.1 || final.LateUsage == nil || final.LateUsage.Cost != 3 {
		t.Errorf("usage %+v, late usage %+v; want the cost of 0.1 before the answer, 3 after it", final.Usage, final.LateUsage)
	}
}

// TestLateRequestNeverAnswered: a permission request that comes once the
// agent's input has ended (the last turn's, from an agent that offers no
// session/close, while acprun waits killGrace for it to exit) cannot be
// answered: its record says so (cancelled, as a request the connection
// closed on), it counts in neither allowed nor denied, so expect.maxDenied
// does not fail on it, and the call the agent then ran is one it ran
// without permission.
func TestLateRequestNeverAnswered(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		handshake := rawAgent(
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`},
			[]string{`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`},
			[]string{`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`},
		)
		agent := func(ctx context.Context, in io.Reader, out io.Writer) error {
			if err := handshake(ctx, in, out); err != nil {
				return err
			}
			// Its input has ended: it asks, and goes on unanswered.
			_, err := io.WriteString(out, `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1",`+
				`"toolCall":{"toolCallId":"t9","title":"rm -rf /","kind":"execute","rawInput":{"command":"rm -rf /"}},`+
				`"options":[{"optionId":"a","name":"a","kind":"allow_once"},{"optionId":"r","name":"r","kind":"reject_once"}]}}`+"\n"+
				update(`{"sessionUpdate":"tool_call_update","toolCallId":"t9","status":"completed"}`)+"\n")
			return err
		}
		b := startAgentInBubble(t, t.TempDir(), agent, `name: s
agent: {command: [an-agent]}
permissions: {default: deny}
turns: [{prompt: go}]
expect: {maxDenied: 0}
`, nil)
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		if res.Status != report.StatusPassed || res.Allowed != 0 || res.Denied != 0 {
			t.Errorf("status %s (%q), allowed %d, denied %d; want passed, nothing counted", res.Status, res.Failures, res.Allowed, res.Denied)
		}
		want := []report.Permission{{ToolCallID: "t9", Title: "rm -rf /", Kind: "execute", Commands: []string{"rm -rf /"},
			Decision: "cancelled", Outcome: "cancelled", Reason: "the connection closed before the answer", Late: true}}
		if diff := gocmp.Diff(want, res.Turns[0].Permissions); diff != "" {
			t.Errorf("turn 1's permissions (-want +got):\n%s", diff)
		}
		wantWarn := []string{`turn 1: tool call t9 ("rm -rf /") ran although its permission request was never answered; ` +
			`the policy would have denied it (the default): the policy had no effect on it`}
		if diff := gocmp.Diff(wantWarn, res.Warnings); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
}

// TestAnswerToAnAgentThatWent: a permission request whose agent closed its
// input (it exited, or is exiting) before acprun could write the answer is
// recorded and counted as the policy answered it, as it is when the pipe
// took the line first: which of the two happens is a race between the
// agent's exit and acprun's write, and the same agent output gets the same
// record and verdict every run. (An answer acprun could not write because
// it had closed the agent's input itself is another matter: see
// TestLateRequestNeverAnswered.)
func TestAnswerToAnAgentThatWent(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The handshake, then the prompt: the agent closes its input (as
		// its exit does, EPIPE for acprun's writes), asks, and answers the
		// prompt.
		agent := handshakeAgent(func(line string, in io.Reader, out io.Writer) (bool, error) {
			if !strings.Contains(line, `"session/prompt"`) {
				return false, nil
			}
			in.(*io.PipeReader).CloseWithError(syscall.EPIPE)
			_, err := io.WriteString(out, `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1",`+
				`"toolCall":{"toolCallId":"t9","title":"rm -rf /","kind":"execute","rawInput":{"command":"rm -rf /"}},`+
				`"options":[{"optionId":"a","name":"a","kind":"allow_once"},{"optionId":"r","name":"r","kind":"reject_once"}]}}`+"\n"+
				`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`+"\n")
			return true, err
		})
		b := startAgentInBubble(t, t.TempDir(), agent, `name: s
agent: {command: [an-agent]}
permissions: {default: deny}
turns: [{prompt: go, expect: {denied: 1}}]
`, nil)
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		if res.Status != report.StatusPassed || res.Allowed != 0 || res.Denied != 1 {
			t.Errorf("status %s (%q), allowed %d, denied %d; want passed, 1 denied", res.Status, res.Failures, res.Allowed, res.Denied)
		}
		want := []report.Permission{{ToolCallID: "t9", Title: "rm -rf /", Kind: "execute", Commands: []string{"rm -rf /"},
			Decision: "deny", Outcome: "selected", OptionID: "r", Reason: "no rule matched; default deny"}}
		if diff := gocmp.Diff(want, res.Turns[0].Permissions); diff != "" {
			t.Errorf("turn 1's permissions (-want +got):\n%s", diff)
		}
	})
}
