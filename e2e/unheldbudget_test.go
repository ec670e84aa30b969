package e2e_test

import (
	"fmt"
	"slices"
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

// TestPricesWithoutGateway: the config's prices, in a run where no
// scenario has a gateway to apply them, get one warning at prices: for the
// run, however many scenarios it runs; a maxCost the agent reported no
// cost for fails saying that a gateway with prices would count it.
func TestPricesWithoutGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := "name: %s\nagent: {name: mock, args: [agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {usage: {maxCost: 1}}}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"acprun.yaml":     "prices:\n  gpt-5: {input: 1, output: 2}\n",
		"s.yaml":          fmt.Sprintf(scenario, "a") + "---\n" + fmt.Sprintf(scenario, "b"),
	})
	res, out := runResults(t, dir, "s.yaml")
	const warning = "acprun.yaml:2:3: warning: prices: no scenario of this run has a gateway, so the prices price nothing; " +
		"a gateway counts what the agents' model requests cost (gateway: meter, in a scenario or the config's defaults, or run --gateway meter)\n"
	if res.code != 1 || strings.Count(res.stderr, warning) != 1 {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and once:\n%s", res.code, res.stderr, warning)
	}
	const failure = "s.yaml:4:48: usage.maxCost: the agent reported no cost; a gateway (gateway: meter, with the config file's prices) counts what its model requests cost"
	if len(out.Scenarios) != 2 {
		t.Fatalf("%d scenarios in the results, want 2", len(out.Scenarios))
	}
	for i, sc := range out.Scenarios { // b's maxCost is 5 lines below a's
		want := strings.Replace(failure, ":4:", fmt.Sprintf(":%d:", 4+5*i), 1)
		if len(sc.Turns) != 1 || !slices.Contains(sc.Turns[0].Failures, want) {
			t.Errorf("scenario %s: turns %+v, want the failure %q", sc.Name, sc.Turns, want)
		}
	}
}

// TestValidatePricesWithoutGateway: validate and run --dry-run warn about
// the config's prices that no scenario's gateway applies as run does,
// once, at prices:, and still exit 0, each naming the scenarios as it
// sees them (validate: "in the files validated", not "of this run");
// with --gateway meter, which gives every scenario a gateway, neither
// does.
func TestValidatePricesWithoutGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := "name: %s\nagent: {name: mock, args: [agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"acprun.yaml":     "prices:\n  gpt-5: {input: 1, output: 2}\n",
		"s.yaml":          fmt.Sprintf(scenario, "a") + "---\n" + fmt.Sprintf(scenario, "b"),
	})
	const warning = "acprun.yaml:2:3: warning: prices: no scenario %s has a gateway, so the prices price nothing; " +
		"a gateway counts what the agents' model requests cost (gateway: meter, in a scenario or the config's defaults, or run --gateway meter)\n"
	for _, tt := range []struct {
		args  []string
		which string // how the warning names the scenarios
		want  int    // how many times the warning is printed
	}{
		{[]string{"validate", "s.yaml"}, "in the files validated", 1},
		{[]string{"run", "--dry-run", "s.yaml"}, "of this run", 1},
		{[]string{"validate", "--gateway", "meter", "s.yaml"}, "in the files validated", 0},
		{[]string{"run", "--dry-run", "--gateway", "meter", "s.yaml"}, "of this run", 0},
	} {
		res := acprun(t, dir, tt.args...)
		warning := fmt.Sprintf(warning, tt.which)
		if res.code != exitOK || strings.Count(res.stderr, warning) != tt.want || strings.Count(res.stderr, "prices: no scenario") != tt.want {
			t.Errorf("acprun %s: exit %d, stderr:\n%s\nwant 0 and %d times:\n%s", strings.Join(tt.args, " "), res.code, res.stderr, tt.want, warning)
		}
	}
}
