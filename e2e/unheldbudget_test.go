package e2e_test

import (
	"strings"
	"testing"
)

// TestBudgetTheAgentNeverReported: a config's defaults.budget maxCost on
// an agent that reports no cost, without a gateway, held nothing; the run
// passes as before, and says so in a warning at the budget, in the
// summary and the results, rather than seem to have held it.
func TestBudgetTheAgentNeverReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n    usage: {inputTokens: 10, outputTokens: 10}\n",
		"acprun.yaml":     "defaults:\n  budget: {maxCost: 0.5}\n",
		"s.yaml":          "name: a\nagent: {name: mock, args: [agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	want := "acprun.yaml:2:21: budget.maxCost: the agent reported no cost in the turns it answered, so the budget held nothing; " +
		"a gateway (gateway: meter, with the config file's prices) counts what its model requests cost"
	if res.code != 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and:\n%s", res.code, res.stderr, want)
	}
	if len(out.Scenarios) != 1 || !strings.Contains(strings.Join(out.Scenarios[0].Warnings, "\n"), want) {
		t.Errorf("results: %+v, want the warning", out.Scenarios)
	}
}
