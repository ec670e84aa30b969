package runner

import (
	"cmp"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
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
// run, and the scenario fails naming the budget, with no other failure.
func TestBudget(t *testing.T) {
	tests := []struct {
		name    string
		budgets string // the scenario's budget key, or "" for none
		turn2   string // turn 2's budget, or ""
		cause   string // turn 2's cancel cause
		fail    string // turn 2's one failure; "" when the scenario passes
	}{
		{name: "scenario cost", budgets: "budget: {maxCost: 0.25}\n", cause: "budget",
			fail: "s.yaml:4:19: budget.maxCost: the agent reported a session cost of 0.3 USD, over the scenario's budget of 0.25; acprun stopped the scenario there"},
		{name: "turn cost", turn2: "    budget: {maxCost: 0.15}\n", cause: "budget",
			fail: "s.yaml:9:23: budget.maxCost: the turn cost 0.2 USD, over its budget of 0.15; acprun stopped the scenario there"},
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
// the turn's: it stops nothing.
func TestWithinBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `turns:
  - steps: [{usage_update: {used: 1, size: 9, cost: {amount: 0.2, currency: USD}}}]
    usage: {inputTokens: 10, outputTokens: 10}
    after: [{usage_update: {used: 1, size: 9, cost: {amount: 5, currency: USD}}}]
`, `name: thrifty
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxCost: 0.25, maxTotalTokens: 20}
turns:
  - prompt: one
    budget: {maxCost: 0.2, maxTotalTokens: 20}
`)
		if res.Status != report.StatusPassed || res.Turns[0].CancelCause != "" {
			t.Errorf("status %s, turn %+v; want passed, not cancelled\nfailures: %q", res.Status, res.Turns[0], res.Failures)
		}
	})
}
