package runner

import (
	"cmp"
	"context"
	"fmt"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// This file enforces budgets (budget: {maxCost, maxTotalTokens}, per
// scenario and per turn) while the agent runs: the cost is checked at each
// usage_update of the running turn, and a turn that passes a budget is
// cancelled the way a timeout cancels it (cancelCause budget); the tokens
// are checked when a turn's answer reports them, the only time ACP does,
// and so, with a gateway, is the cost of the model requests it priced (the
// gateway refuses a request only before it starts, so what the last one
// admitted spent is judged there). Either way the turn fails naming the budget, and the turns after it do
// not run. Whether the cancel or the agent's own answer ended the turn
// first, the verdict is the same: it follows from what the agent reported
// before its answer. The update that passes a maxCost marks the turn
// cancelled where it stands in the stream, so the requests after it are
// answered cancelled, and the turn is cancelled (cancelCause budget) even
// when its answer came before the runner saw the budget passed. Its answer
// is never said to ignore the cancel (cancelIgnored): where the agent read
// the cancel is not in its stream, and the same messages (a replay's, sent
// at once) must give the same result however fast the runner wrote it. An
// answer already handled gets no session/cancel. A cost
// reported after a turn's answer is the session's: it counts against the
// scenario's maxCost before the next prompt and at the end
// (sessionOverBudget).

// errBudget is the cause of a turn's context when the agent's reported
// spending passes a budget.
var errBudget error = &stopCause{"budget", report.CauseBudget}

// budgetWatch watches one turn's spending against the scenario's and the
// turn's budgets. cost runs in the session's handler, under the session's
// lock, which also guards passed.
type budgetWatch struct {
	scenario, turn *scenario.UsageExpect // nil: none
	currency       string                // what maxCost is in (Scenario.CostCurrency)
	costBefore     costValue             // the agent's cumulative cost as it reported it before the turn (costTally.agent)
	tokensBefore   int64                 // the tokens of the earlier turns
	cancel         context.CancelCauseFunc
	passed         string // the failure, once a budget was passed
}

// watchBudget is the watch of turn i (from 0), nil when neither the
// scenario nor the turn has a budget.
func (r *scenarioRun) watchBudget(i int) *budgetWatch {
	sb, tb := r.sc.Budget, r.sc.Turns[i].Budget
	if sb == nil && tb == nil {
		return nil
	}
	b := &budgetWatch{scenario: sb, turn: tb, currency: r.sc.CostCurrency(), costBefore: r.costs(i).agent}
	for _, t := range r.res.Turns {
		tokens, _ := turnTokens(t.Usage) // none counts as 0
		b.tokensBefore += tokens
	}
	return b
}

// spend checks a usage_update of the turn that came before its answer.
// A cost in another currency than the budgets' is not compared with them
// (acprun converts no currencies; unheldBudgets says so), nor is the
// turn's when the cost before it was in another. The caller holds the
// session's lock.
func (t *turnState) spend(u *acp.UsageUpdate) {
	b := t.budget
	if b == nil || u.Cost == nil || b.passed != "" || !scenario.SameCurrency(u.Cost.Currency, b.currency) {
		return
	}
	total := u.Cost.Amount
	turnCost := total
	if total >= b.costBefore.amount { // cumulative, as ACP has it; else the agent reports each turn's own
		turnCost = total - b.costBefore.amount
	}
	turnKnown := scenario.SameCurrency(b.costBefore.currency, b.currency)
	switch {
	case b.scenario != nil && b.scenario.MaxCost != nil && roundCost(total) > *b.scenario.MaxCost:
		b.passed = fmt.Sprintf("%s: budget.maxCost: the agent reported a session cost of %s, over the scenario's budget of %s; acprun stopped the scenario there",
			cmp.Or(b.scenario.MaxCostPos, b.scenario.Pos), formatCost(total, cmp.Or(u.Cost.Currency, b.currency)), formatCost(*b.scenario.MaxCost, b.currency))
	case b.turn != nil && b.turn.MaxCost != nil && turnKnown && roundCost(turnCost) > *b.turn.MaxCost:
		b.passed = fmt.Sprintf("%s: budget.maxCost: the turn cost %s, over its budget of %s; acprun stopped the scenario there",
			cmp.Or(b.turn.MaxCostPos, b.turn.Pos), formatCost(turnCost, cmp.Or(u.Cost.Currency, b.currency)), formatCost(*b.turn.MaxCost, b.currency))
	default:
		return
	}
	// Cancelled here, in the update's place in the stream: every request of
	// the turn after it is answered cancelled, whenever the runner gets to
	// send session/cancel (see awaitAnswer).
	t.markCancelled()
	b.cancel(errBudget)
}

// sessionOverBudget says how the session's cumulative cost, as the agent
// last reported it in the turns through index through (from 1) after a
// turn's answer, passed the scenario's budget.maxCost; "" when it did not,
// or the scenario has no maxCost. A cost reported before a turn's answer
// is checked as it comes (spend); one reported after it is no turn's but
// the session's: the runner checks it before the next prompt, once
// everything the agent sent is handled, and at the end.
func (r *scenarioRun) sessionOverBudget(through int) string {
	b := r.sc.Budget
	if b == nil || b.MaxCost == nil {
		return ""
	}
	c := r.costs(through)
	if !c.agent.ok || !c.agentLate || !scenario.SameCurrency(c.agent.currency, c.currency) || roundCost(c.agent.amount) <= *b.MaxCost {
		return "" // a cost in another currency is not compared (unheldBudgets says so)
	}
	return fmt.Sprintf("%s: budget.maxCost: the agent reported a session cost of %s after the answer of turn %d, over the scenario's budget of %s",
		cmp.Or(b.MaxCostPos, b.Pos), formatCost(c.agent.amount, cmp.Or(c.agent.currency, c.currency)), c.agentTurn, formatCost(*b.MaxCost, c.currency))
}

// costs tallies the costs of the turns played through index through (from
// 1): through i, those before turn i from 0.
func (r *scenarioRun) costs(through int) costTally {
	if r.sess == nil {
		return costTally{}
	}
	return tallyCosts(r.sess.turnCosts(through), r.sc.CostCurrency())
}

// sessionSpent is the session's total cost, which the scenario's
// expect.usage.maxCost judges: what the gateway priced of the attempt's
// model requests when it priced some (those made between turns too; the
// agent's own cost reports are that same spending), else what the
// agent's reports add up to over the turns (costTally).
func (r *scenarioRun) sessionSpent() costValue {
	if sp := r.gatewaySpent(); sp != nil && sp.Priced > 0 {
		return costValue{sp.Cost, r.sc.Gateway.Currency, true}
	}
	return r.costs(len(r.sc.Turns)).total
}

// turnSpent is the own cost of turn i (from 0), played.
func (r *scenarioRun) turnSpent(i int) turnSpend {
	c := r.costs(i + 1)
	if n := len(c.turns); n > 0 {
		return c.turns[n-1]
	}
	return turnSpend{}
}

// turnCosts are the costs the turns played through index through (from 1)
// reported, in order.
func (s *session) turnCosts(through int) []turnCost {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []turnCost
	for _, t := range s.turns {
		if t.rec.Index <= through {
			// promptUsage has a cost only from the gateway: ACP's prompt answer has none.
			out = append(out, turnCost{t.rec.Index, costIn(t.promptUsage), costIn(t.usage), costIn(t.lateUsage)})
		}
	}
	return out
}

// watch makes b the budget watch of the running turn t.
func (s *session) watch(t *turnState, b *budgetWatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.budget = b
}

// budgetFailure says how the turn whose record is rec passed a budget: its
// cost during the turn, or once answered its tokens and, with a gateway
// that had spent sp by then (nil without one), the cost of the model
// requests it priced, the last one's included; "" when it did not.
func (s *session) budgetFailure(t *turnState, rec *report.TurnResult, sp *gateway.Spent) string {
	s.mu.Lock()
	b := t.budget
	passed := ""
	if b != nil {
		passed = b.passed
	}
	gwStart := t.gwStart
	s.mu.Unlock()
	if b == nil || passed != "" {
		return passed
	}
	tokens, _ := turnTokens(rec.Usage) // counted as the expectations count them; none as 0
	switch {
	case b.turn != nil && b.turn.MaxTotalTokens != nil && tokens > *b.turn.MaxTotalTokens:
		return fmt.Sprintf("%s: budget.maxTotalTokens: the turn used %d tokens, over its budget of %d; acprun stopped the scenario there",
			cmp.Or(b.turn.MaxTokensPos, b.turn.Pos), tokens, *b.turn.MaxTotalTokens)
	case b.scenario != nil && b.scenario.MaxTotalTokens != nil && b.tokensBefore+tokens > *b.scenario.MaxTotalTokens:
		return fmt.Sprintf("%s: budget.maxTotalTokens: the turns so far used %d tokens, over the scenario's budget of %d; acprun stopped the scenario there",
			cmp.Or(b.scenario.MaxTokensPos, b.scenario.Pos), b.tokensBefore+tokens, *b.scenario.MaxTotalTokens)
	case sp == nil:
		return ""
	}
	// As the gateway's admission has them (admitModelRequest): the turn's
	// requests since it began, the scenario's since the attempt did.
	return cmp.Or(costPassed(b.turn, "the turn's", b.currency, *sp, gwStart), costPassed(b.scenario, "the scenario's", b.currency, *sp, gateway.Spent{}))
}

// unheldBudgets are the warnings of the budgets that held nothing in the
// attempt, each at the first budget of its kind: a maxCost when no cost
// of it is known (the agent reported none, and no gateway priced its
// requests) or the agent's came in another currency than maxCost's, a
// maxTotalTokens when no turn's tokens are (neither the agent's usage nor
// a gateway's). None when no turn was answered.
func (r *scenarioRun) unheldBudgets() []string {
	answered, tokens := false, false
	for _, t := range r.res.Turns {
		if t.StopReason == "" || report.IsOutcome(t.StopReason) {
			continue
		}
		answered = true
		if _, ok := turnTokens(t.Usage); ok {
			tokens = true
		}
	}
	if !answered {
		return nil
	}
	var ws []string
	if pos, ok := firstBudget(r.sc, func(b *scenario.UsageExpect) (scenario.Pos, bool) { return b.MaxCostPos, b.MaxCost != nil }); ok {
		switch spent := r.sessionSpent(); {
		case !spent.ok:
			ws = append(ws, fmt.Sprintf("%s: budget.maxCost: the agent reported no cost in the turns it answered, so the budget held nothing; %s", pos, gatewayCounts))
		case !scenario.SameCurrency(spent.currency, r.sc.CostCurrency()):
			ws = append(ws, fmt.Sprintf("%s: budget.maxCost: %s", pos, otherCurrency("the agent's cost", spent.currency, r.sc.CostCurrency(), "the budget held nothing")))
		}
	}
	if pos, ok := firstBudget(r.sc, func(b *scenario.UsageExpect) (scenario.Pos, bool) { return b.MaxTokensPos, b.MaxTotalTokens != nil }); ok && !tokens {
		ws = append(ws, fmt.Sprintf("%s: budget.maxTotalTokens: the agent reported no token usage in the turns it answered, so the budget held nothing; %s", pos, gatewayCountsTokens))
	}
	return ws
}

// firstBudget is where the first budget of sc that has is written, the
// scenario's before its turns'; false when none has.
func firstBudget(sc *scenario.Scenario, has func(*scenario.UsageExpect) (scenario.Pos, bool)) (scenario.Pos, bool) {
	budgets := []*scenario.UsageExpect{sc.Budget}
	for _, t := range sc.Turns {
		budgets = append(budgets, t.Budget)
	}
	for _, b := range budgets {
		if b == nil {
			continue
		}
		if pos, ok := has(b); ok {
			return cmp.Or(pos, b.Pos), true
		}
	}
	return scenario.Pos{}, false
}
