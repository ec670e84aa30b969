package runner

import (
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestGatewayUsageMaxCostPerTurn: a turn's cost the gateway priced is the
// turn's own, not the session's so far: a turn's expect.usage.maxCost
// compares it as it is (not less the turn before's), and the scenario's
// compares the sum of the turns' costs (not the highest turn's).
func TestGatewayUsageMaxCostPerTurn(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
	files := map[string]string{
		"acprun.yaml":     "prices:\n  claude-test: {input: 1, output: 10}\n", // 100 in, 20 out: 0.0003 a request
		"agent.mock.yaml": "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nexpect: {usage: {maxCost: 0.0008}}\npermissions: {default: deny}\n"+
			"turns: [{prompt: a}, {prompt: b, expect: {usage: {maxCost: 0.0002}}}, {prompt: c, expect: {usage: {maxCost: 0.0003}}}]\n", up.URL),
	}
	r := runPriced(t, files)
	var got []string
	for _, f := range r.Failures {
		got = append(got, f[strings.Index(f, "s.yaml:"):])
	}
	want := []string{
		"s.yaml:6:60: usage.maxCost: the turn cost 0.0003 USD, want at most 0.0002 USD",
		"s.yaml:4:27: usage.maxCost: the session cost 0.0009 USD, want at most 0.0008 USD",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if r.Status != report.StatusFailed {
		t.Errorf("status %s, want failed", r.Status)
	}
}

// TestGatewayAndAgentCosts: with a gateway that prices the turns and an
// agent that reports the session's cumulative cost itself, a turn's
// budget.maxCost on the agent's reports counts what the agent's cost grew
// by in the turn, not that less the gateway's price of the turn before.
func TestGatewayAndAgentCosts(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
	usage := `{usage_update: {used: 1, size: 10, cost: {amount: %s, currency: USD}}}`
	files := map[string]string{
		"acprun.yaml": "prices:\n  claude-test: {input: 1, output: 10}\n", // 0.0003 a request
		"agent.mock.yaml": "turns:\n  - steps: [" + step + ", " + fmt.Sprintf(usage, "0.0004") + "]\n" +
			"  - steps: [" + step + ", " + fmt.Sprintf(usage, "0.0008") + "]\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\npermissions: {default: deny}\nexpect: {usage: {maxCost: 0.0006}}\n"+
			"turns: [{prompt: a}, {prompt: b, budget: {maxCost: 0.00045}, expect: {usage: {maxCost: 0.0003}}}]\n", up.URL),
	}
	r := runPriced(t, files)
	// The agent's cost grew by 0.0004 in turn 2, within its budget; the
	// gateway priced each turn 0.0003, 0.0006 in all.
	if r.Status != report.StatusPassed || r.Turns[1].CancelCause != "" {
		t.Errorf("%s, turn 2 cancelCause %q, failures %q; want passed", r.Status, r.Turns[1].CancelCause, r.Failures)
	}
}

// TestGatewaySessionCost: with a gateway that prices the model requests,
// the scenario's expect.usage.maxCost judges what the gateway priced in
// the session: a cost the agent reports itself after an answer is that
// same spending, not more of it.
func TestGatewaySessionCost(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	files := map[string]string{
		"acprun.yaml": "prices:\n  claude-test: {input: 1, output: 10}\n", // 0.0003 a request
		"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\"}}]\n" +
			"    after: [{usage_update: {used: 1, size: 10, cost: {amount: 0.0003, currency: USD}}}]\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nexpect: {usage: {maxCost: 0.0004}}\npermissions: {default: deny}\n"+
			"turns: [{prompt: a}]\n", up.URL),
	}
	if r := runPriced(t, files); r.Status != report.StatusPassed {
		t.Errorf("%s, failures %q; want passed: the session cost 0.0003", r.Status, r.Failures)
	}
}
