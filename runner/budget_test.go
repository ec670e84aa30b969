package runner

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	json "github.com/go-json-experiment/json/v1"
	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// spender spends 0.10 in its first turn and goes on to 0.30 in its
// second, where it waits for a cancel (a real agent would go on
// spending); each turn reports 600 tokens.
const spender = `turns:
  - steps:
      - usage_update: {used: 10, size: 100, cost: {amount: 0.10, currency: USD}}
      - text: first
    usage: {inputTokens: 500, outputTokens: 100}
  - steps:
      - usage_update: {used: 20, size: 100, cost: {amount: 0.30, currency: USD}}
      - waitForCancel: true
      - text: stopped
    usage: {inputTokens: 500, outputTokens: 100}
  - steps: [{text: third}]
`

// TestBudget: the turn whose reported spending passes the scenario's or
// its own budget is cancelled (maxCost, at the usage_update that passes
// it) or fails once answered (maxTotalTokens), the turns after it do not
// run, and the scenario fails naming the budget, with no other failure,
// and costs and maxCost in their currency (the config's, USD by default;
// a cost the agent sent without one is taken to be in it).
func TestBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		budgets string // the scenario's budget key, or "" for none
		turn2   string // turn 2's budget, or ""
		cause   string // turn 2's cancel cause
		fail    string // turn 2's one failure; "" when the scenario passes
		bare    bool   // the agent's costs name no currency
	}{
		{name: "scenario cost", budgets: "budget: {maxCost: 0.25}\n", cause: "budget",
			fail: "s.yaml:4:19: budget.maxCost: the agent reported a session cost of 0.3 USD, over the scenario's budget of 0.25 USD; acprun stopped the scenario there"},
		{name: "turn cost", turn2: "    budget: {maxCost: 0.15}\n", cause: "budget",
			fail: "s.yaml:9:23: budget.maxCost: the turn cost 0.2 USD, over its budget of 0.15 USD; acprun stopped the scenario there"},
		{name: "cost without a currency", budgets: "budget: {maxCost: 0.25}\n", cause: "budget", bare: true,
			fail: "s.yaml:4:19: budget.maxCost: the agent reported a session cost of 0.3 USD, over the scenario's budget of 0.25 USD; acprun stopped the scenario there"},
		{name: "scenario tokens", budgets: "budget: {maxTotalTokens: 1000}\n",
			fail: "s.yaml:4:26: budget.maxTotalTokens: the turns so far used 1200 tokens, over the scenario's budget of 1000; acprun stopped the scenario there"},
		{name: "turn tokens", turn2: "    budget: {maxTotalTokens: 500}\n",
			fail: "s.yaml:9:30: budget.maxTotalTokens: the turn used 600 tokens, over its budget of 500; acprun stopped the scenario there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := "name: spend\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
					cmp.Or(tt.budgets, "# no budget\n") + "turnTimeout: 1h\nturns:\n  - prompt: one\n  - prompt: two\n" +
					cmp.Or(tt.turn2, "    # no budget\n") + "    expect: {stopReason: [end_turn, cancelled]}\n  - prompt: three\n"
				script := spender
				if tt.cause == "" { // the tokens come with the answer
					script = strings.Replace(script, "- waitForCancel: true", "- text: on", 1)
				}
				if tt.bare { // taken to be in maxCost's currency, and named so
					script = strings.ReplaceAll(script, ", currency: USD}", "}")
				}
				res := playInBubble(t, script, src)
				t2 := res.Turns[1]
				if t2.CancelCause != tt.cause {
					t.Errorf("turn 2: cancelCause %q, want %q", t2.CancelCause, tt.cause)
				}
				var got []string
				for _, f := range res.Failures {
					got = append(got, strings.ReplaceAll(f, filepath.Dir(res.File)+"/", ""))
				}
				want := []string{"turn 2: " + tt.fail, "turn 3: s.yaml:11:5: not run: turn 2 passed a budget"}
				if diff := gocmp.Diff(want, got); diff != "" || res.Status != report.StatusFailed {
					t.Errorf("status %s, failures (-want +got):\n%s", res.Status, diff)
				}
				if res.Turns[2].StopReason != report.OutcomeSkipped {
					t.Errorf("turn 3: %s, want skipped", res.Turns[2].StopReason)
				}
			})
		})
	}
}

// TestWithinBudget: an agent that stays within its budgets passes, and
// spending reported after a turn's answer (a late usage_update) is not
// the turn's: it passes no budget of the turn's (the scenario's budget
// counts it: see TestLateCostPassesTheScenarioBudget).
func TestWithinBudget(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `turns:
  - steps: [{usage_update: {used: 1, size: 9, cost: {amount: 0.2, currency: USD}}}]
    usage: {inputTokens: 10, outputTokens: 10}
    after: [{usage_update: {used: 1, size: 9, cost: {amount: 5, currency: USD}}}]
`, `name: thrifty
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxTotalTokens: 20}
turns:
  - prompt: one
    budget: {maxCost: 0.2, maxTotalTokens: 20}
`)
		if res.Status != report.StatusPassed || res.Turns[0].CancelCause != "" {
			t.Errorf("status %s, turn %+v; want passed, not cancelled\nfailures: %q", res.Status, res.Turns[0], res.Failures)
		}
	})
}

// TestBudgetTheAgentNeverReported: a budget whose measure the agent never
// reported (no cost, no tokens) and no gateway counted held nothing; the
// scenario passes as before, with a warning at each such budget that says
// so and how to have it held. A budget the agent reported against gets
// none.
func TestBudgetTheAgentNeverReported(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, "turns:\n  - steps: [{text: hi}]\n    usage: {inputTokens: 10, outputTokens: 10}\n", `name: unheld
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxTotalTokens: 100}
turns:
  - prompt: one
    budget: {maxCost: 0.2}
`)
		want := []string{"s.yaml:7:23: budget.maxCost: the agent reported no cost in the turns it answered, so the budget held nothing; " +
			"a gateway (gateway: meter, with the config file's prices) counts what its model requests cost"}
		var got []string
		for _, w := range res.Warnings {
			if strings.Contains(w, "budget") {
				got = append(got, strings.ReplaceAll(w, filepath.Dir(res.File)+"/", ""))
			}
		}
		if diff := gocmp.Diff(want, got); diff != "" || res.Status != report.StatusPassed {
			t.Errorf("status %s, budget warnings (-want +got):\n%s", res.Status, diff)
		}
		res = playInBubble(t, "turns:\n  - steps: [{usage_update: {used: 1, size: 9, cost: {amount: 0.1, currency: USD}}}]\n", `name: tokens
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxCost: 1, maxTotalTokens: 100}
turns:
  - prompt: one
`)
		want = []string{"s.yaml:4:38: budget.maxTotalTokens: the agent reported no token usage in the turns it answered, so the budget held nothing; " +
			"a gateway (gateway: meter) counts the tokens of its model requests"}
		got = nil
		for _, w := range res.Warnings {
			if strings.Contains(w, "budget") {
				got = append(got, strings.ReplaceAll(w, filepath.Dir(res.File)+"/", ""))
			}
		}
		if diff := gocmp.Diff(want, got); diff != "" || res.Status != report.StatusPassed {
			t.Errorf("tokens: status %s, budget warnings (-want +got):\n%s", res.Status, diff)
		}
	})
}

// TestCostInAnotherCurrency: acprun converts no currencies, and maxCost
// is in the scenario's (the config's currency, USD by default): an agent
// that reports its cost in EUR passes no budget with it (its turn is not
// cancelled, the turns after it run, and a warning at the budget says
// why it held nothing), and fails an expect.usage.maxCost saying so,
// instead of comparing 0.3 EUR with a bound in USD.
func TestCostInAnotherCurrency(t *testing.T) {
	t.Parallel()
	const script = `turns:
  - steps: [{usage_update: {used: 1, size: 9, cost: {amount: 0.10, currency: EUR}}}, {text: first}]
  - steps: [{usage_update: {used: 2, size: 9, cost: {amount: 0.30, currency: EUR}}}, {text: second}]
  - steps: [{text: third}]
`
	const mismatch = "came in EUR, and maxCost is in USD (the config file's currency:, USD when it names none); acprun converts no currencies, so "
	tests := []struct {
		name, keys     string
		failures, warn []string
	}{
		{name: "budget", keys: "budget: {maxCost: 0.25}\n",
			warn: []string{"s.yaml:4:19: budget.maxCost: the agent's cost " + mismatch + "the budget held nothing: set currency: EUR in the config file to count costs in EUR"}},
		{name: "expectation", keys: "expect: {usage: {maxCost: 1}}\n",
			failures: []string{"s.yaml:4:27: usage.maxCost: the session's cost " + mismatch + "it did not compare them: set currency: EUR in the config file to count costs in EUR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				res := playInBubble(t, script, "name: euros\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n"+
					tt.keys+"turnTimeout: 1h\nturns:\n  - prompt: one\n  - prompt: two\n  - prompt: three\n")
				clean := func(ss []string) []string {
					var out []string
					for _, s := range ss {
						if strings.Contains(s, "maxCost") {
							out = append(out, strings.ReplaceAll(s, filepath.Dir(res.File)+"/", ""))
						}
					}
					return out
				}
				if diff := gocmp.Diff(tt.failures, clean(res.Failures)); diff != "" {
					t.Errorf("failures (-want +got):\n%s", diff)
				}
				if diff := gocmp.Diff(tt.warn, clean(res.Warnings)); diff != "" {
					t.Errorf("warnings (-want +got):\n%s", diff)
				}
				for _, turn := range res.Turns {
					if turn.StopReason != "end_turn" || turn.CancelCause != "" {
						t.Errorf("turn %d: %s, cancelCause %q; want end_turn, not cancelled", turn.Index, turn.StopReason, turn.CancelCause)
					}
				}
			})
		})
	}
}

// costlyUpdate is a usage_update of session s that reports a cost of 3 USD.
func costlyUpdate(s string) acp.SessionNotification {
	return acp.SessionNotification{SessionID: s, Update: acp.SessionUpdate{Kind: acp.UpdateUsageUpdate,
		UsageUpdate: &acp.UsageUpdate{Used: 20, Size: 100, Cost: &acp.Cost{Amount: 3, Currency: "USD"}}}}
}

// TestBudgetCancelsInStreamOrder: the usage_update that passes the budget
// cancels the turn in its place in the stream: a permission request that
// comes after it is answered cancelled (once session/cancel is out), even
// though the runner has not got round to cancelling the turn, and a tool
// call announced after it is cancelled too. The test plays the runner
// here: it never cancels the turn itself.
func TestBudgetCancelsInStreamOrder(t *testing.T) {
	t.Parallel()
	s := &session{sessionID: "s", policy: &approve.Policy{Default: approve.Allow}, obs: (&observer{}).forJob(Ref{Name: "b"}, redact.New())}
	tr := s.startTurn(1, "one", nil, false)
	maxCost := 1.0
	stopped := make(chan error, 1)
	s.watch(tr, &budgetWatch{scenario: &scenario.UsageExpect{MaxCost: &maxCost}, cancel: func(err error) { stopped <- err }})
	s.update(costlyUpdate("s"))
	if err := <-stopped; !errors.Is(err, errBudget) {
		t.Fatalf("the turn's context was cancelled with %v, want errBudget", err)
	}
	id := acp.ID{}
	_ = json.Unmarshal([]byte("7"), &id)
	req := &acp.Request{ID: &id, Method: acp.MethodSessionRequestPermission,
		Params: []byte(`{"sessionId":"s","toolCall":{"toolCallId":"e1","title":"Edit f.txt","kind":"edit"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`)}
	answer := make(chan any, 1)
	go func() {
		res, _ := s.Handle(context.Background(), req)
		answer <- res
	}()
	s.sentCancel(tr, false) // as the runner does once session/cancel is written
	got, ok := (<-answer).(acp.RequestPermissionResponse)
	if !ok || got.Outcome.Outcome != acp.OutcomeCancelled {
		t.Errorf("the permission request after the budget passed was answered %+v, want cancelled", got)
	}
	rec := s.snapshot(tr)
	if len(rec.Permissions) != 1 || rec.Permissions[0].Decision != "cancelled" || s.allowed != 0 {
		t.Errorf("permissions %+v, %d allowed; want one cancelled, none allowed", rec.Permissions, s.allowed)
	}
	if len(rec.ToolCalls) != 1 || rec.ToolCalls[0].Status != "cancelled" {
		t.Errorf("tool calls %+v, want e1 cancelled", rec.ToolCalls)
	}
}

// TestBudgetPassedBeforeAnswerIsCancelled: a turn that passed its budget
// in the stream before its answer is cancelled even when the answer was
// dispatched by the time the runner looked: the stream decides, not which
// goroutine got there first.
func TestBudgetPassedBeforeAnswerIsCancelled(t *testing.T) {
	t.Parallel()
	tr := newTurnState(&report.TurnResult{Index: 1})
	tr.markCancelled() // by the usage_update before the answer (spend)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errBudget)
	call := answeredPrompt(t)
	var resp acp.PromptResponse
	expired, err := afterAwait(ctx, tr, call, &resp, call.Await(ctx, &resp))
	if !expired || err != nil {
		t.Errorf("afterAwait = expired %v, %v; want the turn cancelled", expired, err)
	}
}

// TestAnswerReadBeforeCancelIsNotIgnored: the agent's answer, read (and
// queued behind the updates before it) when acprun was about to write the
// cancel of a turn that passed its budget, is not a cancel the agent
// ignored: cancelCause budget, no cancelIgnored, no warning. The test holds
// the connection's dispatcher (in its observer) so that the runner sends
// the cancel while the answer waits in the queue, the order that made
// acprun flag it.
func TestAnswerReadBeforeCancelIsNotIgnored(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := startInBubble(t, `turns:
  - steps:
      - text: "a\n"
      - usage_update: {used: 20, size: 100, cost: {amount: 3.0, currency: USD}}
      - text: "b\n"
`, "name: tight\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nbudget: {maxCost: 1.0}\nturns:\n  - prompt: one\n")
		answerRead, cancelSent := make(chan struct{}), make(chan struct{})
		var once1, once2 sync.Once
		b.onLine = func(dir acp.Direction, line []byte) {
			switch {
			case dir == acp.Received && bytes.Contains(line, []byte(`"stopReason"`)):
				once1.Do(func() { close(answerRead) })
			case dir == acp.Sent && bytes.Contains(line, []byte(`"session/cancel"`)):
				once2.Do(func() { close(cancelSent) })
			}
		}
		gate := &gateObserver{gates: map[string]func(){
			// Before the usage_update is handled: the answer is read.
			"a": func() { <-answerRead; synctest.Wait() },
			// After it (the turn's context is cancelled), before the answer
			// is dispatched: the runner writes the cancel.
			"b": func() { <-cancelSent },
		}}
		b.r.jo = (&observer{o: gate}).forJob(b.r.jo.job, b.r.red)
		b.r.sess.obs = b.r.jo
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		tr := res.Turns[0]
		if tr.StopReason != "end_turn" || tr.CancelCause != report.CauseBudget || tr.CancelIgnored {
			t.Errorf("turn: stopReason %s, cancelCause %q, cancelIgnored %v; want end_turn, budget, not ignored", tr.StopReason, tr.CancelCause, tr.CancelIgnored)
		}
		if w := strings.Join(append(tr.Warnings, res.Warnings...), "\n"); strings.Contains(w, "cancelIgnored") {
			t.Errorf("warnings %q flag an ignored cancel", w)
		}
	})
}

// gateObserver is an UpdateObserver whose Update of a text line waits for
// the gate named by the line: it holds the connection's dispatcher there.
type gateObserver struct {
	updateRecorder
	gates map[string]func()
}

func (g *gateObserver) WantsUpdates() bool { return true }
func (g *gateObserver) Update(_ Ref, u Update) {
	if f := g.gates[u.Text]; f != nil && u.Kind == UpdateText {
		f()
	}
}

// TestBudgetAnswerNextIsNotIgnored: the agent's answer that is its very
// next message after the usage_update that passed a budget is not a
// cancel it ignored, even read after acprun wrote session/cancel (here the
// agent waits for it, then ends the turn end_turn): it is decided in the
// stream's order, not by how fast the runner wrote the cancel.
func TestBudgetAnswerNextIsNotIgnored(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `
onCancel: end_turn
turns:
  - steps: [{usage_update: {used: 20, size: 100, cost: {amount: 3.0, currency: USD}}}, {waitForCancel: true}]
`, "name: tight\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nbudget: {maxCost: 1.0}\nturns:\n  - prompt: one\n")
		tr := res.Turns[0]
		if tr.StopReason != "end_turn" || tr.CancelCause != report.CauseBudget || tr.CancelIgnored {
			t.Errorf("turn: stopReason %s, cancelCause %q, cancelIgnored %v; want end_turn, budget, not ignored", tr.StopReason, tr.CancelCause, tr.CancelIgnored)
		}
		if w := strings.Join(append(tr.Warnings, res.Warnings...), "\n"); strings.Contains(w, "cancelIgnored") {
			t.Errorf("warnings %q flag an ignored cancel", w)
		}
	})
}

// TestBudgetFailureGatewayCost: at the turn's end, the cost of the model
// requests the gateway priced passes the turn's maxCost with what it
// spent since the turn began, and the scenario's with all it spent; a
// cost at the budget passes neither, and without a gateway there is none.
func TestBudgetFailureGatewayCost(t *testing.T) {
	t.Parallel()
	budget := func(line int, cost float64) *scenario.UsageExpect {
		return &scenario.UsageExpect{MaxCost: &cost, MaxCostPos: scenario.Pos{File: "s.yaml", Line: line, Col: 23}}
	}
	start := gateway.Spent{Requests: 1, Cost: 0.3}
	for _, tc := range []struct {
		name           string
		scenario, turn *scenario.UsageExpect
		sp             *gateway.Spent
		want           string
	}{
		{"turn", nil, budget(9, 0.5), &gateway.Spent{Requests: 3, Cost: 0.9},
			"s.yaml:9:23: budget.maxCost: the agent's model requests cost 0.6 USD, over the turn's budget of 0.5 USD; acprun stopped the scenario there"},
		{"turn at its budget", nil, budget(9, 0.5), &gateway.Spent{Requests: 3, Cost: 0.8}, ""},
		{"scenario", budget(4, 0.7), budget(9, 0.5), &gateway.Spent{Requests: 2, Cost: 0.75},
			"s.yaml:4:23: budget.maxCost: the agent's model requests cost 0.75 USD, over the scenario's budget of 0.7 USD; acprun stopped the scenario there"},
		{"scenario at its budget", budget(4, 0.7), nil, &gateway.Spent{Requests: 2, Cost: 0.1 + 0.6}, ""},
		{"no gateway", budget(4, 0.7), budget(9, 0.5), nil, ""},
	} {
		s := &session{}
		turn := s.startTurn(2, "go", nil, false)
		s.watch(turn, &budgetWatch{scenario: tc.scenario, turn: tc.turn, currency: scenario.DefaultCurrency})
		s.watchGateway(turn, func(error) {}, start)
		if got := s.budgetFailure(turn, &report.TurnResult{}, tc.sp); got != tc.want {
			t.Errorf("%s: budget failure %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestBudgetCancelAfterMoreIsNotIgnored: the same messages of the agent,
// usage_update over the budget, more text, then end_turn, give the same
// result however the cancel fell among them: here acprun's session/cancel
// is written before the answer is read (the agent waits for it), as
// TestAnswerReadBeforeCancelIsNotIgnored has it the other way round. Where
// the agent read the cancel is not in its stream (a replay plays the same
// messages at once, before or after acprun's cancel as it comes): a turn
// cancelled in the stream for a budget is never cancelIgnored.
func TestBudgetCancelAfterMoreIsNotIgnored(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// onCancel: ignore: the agent sends the same messages however
		// soon the cancel reaches it (end_turn would skip the text).
		res := playInBubble(t, `
onCancel: ignore
turns:
  - steps: [{usage_update: {used: 20, size: 100, cost: {amount: 3.0, currency: USD}}}, {text: "b\n"}, {waitForCancel: true}]
`, "name: tight\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nbudget: {maxCost: 1.0}\nturns:\n  - prompt: one\n")
		tr := res.Turns[0]
		if tr.StopReason != "end_turn" || tr.CancelCause != report.CauseBudget || tr.CancelIgnored || tr.Text != "b\n" {
			t.Errorf("turn: stopReason %s, cancelCause %q, cancelIgnored %v, text %q; want end_turn, budget, not ignored, b", tr.StopReason, tr.CancelCause, tr.CancelIgnored, tr.Text)
		}
		if w := strings.Join(append(tr.Warnings, res.Warnings...), "\n"); strings.Contains(w, "cancelIgnored") {
			t.Errorf("warnings %q flag an ignored cancel", w)
		}
	})
}
