package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// TestCostInAnotherCurrency: acprun converts no currencies, and maxCost
// is in the config's currency (USD when there is no config or it names
// none). An agent that reports its cost in EUR passes no budget in USD
// with it (a warning at the budget says it held nothing, and why) and
// fails an expect.usage.maxCost saying so, instead of comparing 0.3 EUR
// with 0.25 USD; with currency: EUR in the config the same cost is
// compared, and passes the budget, both named in EUR; so is maxCost in
// the --dry-run plan.
func TestCostInAnotherCurrency(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{usage_update: {used: 1, size: 9, cost: {amount: 0.30, currency: EUR}}}, {text: done}]\n",
		"s.yaml": "name: euros\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"budget: {maxCost: 0.25}\nexpect: {usage: {maxCost: 1}}\nturns: [{prompt: go}]\n",
	}
	const mismatch = "came in EUR, and maxCost is in USD (the config file's currency:, USD when it names none); acprun converts no currencies, so "

	dir := t.TempDir()
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "s.yaml")
	warning := "s.yaml:4:19: budget.maxCost: the agent's cost " + mismatch + "the budget held nothing: set currency: EUR in the config file to count costs in EUR"
	failure := "s.yaml:5:27: usage.maxCost: the session's cost " + mismatch + "it did not compare them: set currency: EUR in the config file to count costs in EUR"
	if res.code != exitFailed || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d, %d results; want 1 and one\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	r := out.Scenarios[0]
	if !slices.Equal(r.Failures, []string{failure}) || !slices.Contains(r.Warnings, warning) || r.Turns[0].CancelCause != "" {
		t.Errorf("failures %q, warnings %q, turn 1 cancelCause %q; want only\n%s\nthe warning\n%s\nand no cancel", r.Failures, r.Warnings, r.Turns[0].CancelCause, failure, warning)
	}
	for _, want := range []string{failure, warning} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}

	dir = t.TempDir()
	files["acprun.yaml"] = "currency: EUR\n"
	writeFiles(t, dir, files)
	res, out = runResults(t, dir, "s.yaml")
	over := "turn 1: s.yaml:4:19: budget.maxCost: the agent reported a session cost of 0.3 EUR, over the scenario's budget of 0.25 EUR; acprun stopped the scenario there"
	if res.code != exitFailed || len(out.Scenarios) != 1 || !slices.Equal(out.Scenarios[0].Failures, []string{over}) {
		t.Errorf("currency: EUR: exit %d, results %+v; want 1 and only the failure %q\n%s", res.code, out.Scenarios, over, res.stderr)
	}
	plan := acprun(t, dir, "run", "s.yaml", "--dry-run")
	if want := "  budget:   maxCost 0.25 EUR (for the whole scenario"; plan.code != exitOK || !strings.Contains(plan.stdout, want) {
		t.Errorf("--dry-run: exit %d, want 0 and %q\n%s%s", plan.code, want, plan.stdout, plan.stderr)
	}
}
