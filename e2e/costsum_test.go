package e2e_test

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// TestGatewayCostsPerTurn: the costs the gateway priced are each turn's
// own: a turn's expect.usage.maxCost compares its own cost, the
// scenario's the sum of the turns'; and the agent's own cumulative cost
// reports, beside them, count what they grew by in a turn against its
// budget.maxCost.
func TestGatewayCostsPerTurn(t *testing.T) {
	t.Parallel()
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
	usage := `{usage_update: {used: 1, size: 10, cost: {amount: %s, currency: USD}}}`
	for _, tc := range []struct {
		name, agent, rest string
		status            report.Status
		want              []string
	}{{
		name:  "expect.usage",
		agent: "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n",
		rest: "expect: {usage: {maxCost: 0.0003}}\n" +
			"turns: [{prompt: a}, {prompt: b, expect: {usage: {maxCost: 0.0001}}}, {prompt: c, expect: {usage: {maxCost: 0.000105}}}]\n",
		status: report.StatusFailed,
		want: []string{
			"turn 2: s.yaml:6:60: usage.maxCost: the turn cost 0.000105 USD, want at most 0.0001 USD",
			"s.yaml:5:27: usage.maxCost: the session cost 0.000315 USD, want at most 0.0003 USD",
		},
	}, {
		name: "the agent's reports too",
		agent: "turns:\n  - steps: [" + step + ", " + fmt.Sprintf(usage, "0.0004") + "]\n" +
			"  - steps: [" + step + ", " + fmt.Sprintf(usage, "0.0008") + "]\n",
		rest:   "turns: [{prompt: a}, {prompt: b, budget: {maxCost: 0.00045}, expect: {usage: {maxCost: 0.000105}}}]\n",
		status: report.StatusPassed,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// 10 input and 5 output tokens a request: 0.000105 a request.
			res, r, _ := runMetered(t, "claude-test: {input: 3, output: 15}", tc.agent, "permissions: {default: deny}\n"+tc.rest)
			if r.Status != tc.status {
				t.Errorf("status %s, want %s\n%s", r.Status, tc.status, res.stderr)
			}
			if diff := gocmp.Diff(tc.want, r.Failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			for _, tr := range r.Turns {
				if u := tr.Usage; u == nil || u.Currency != "USD" || u.Cost != 0.000105 {
					t.Errorf("turn %d usage %+v, want its own request's cost, 0.000105 USD exactly (no float noise)", tr.Index, u)
				}
			}
		})
	}
}

// runMetered runs s.yaml, a scenario of the mock agent with script agent
// and the rest of its keys after its gateway (metering a fake Anthropic
// API), with the config's prices price (one model's line), and returns
// what acprun printed, the scenario's result and the fake API.
func runMetered(t *testing.T, price, agent, rest string) (result, report.Result, *testkit.AnthropicServer) {
	t.Helper()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":     "prices:\n  " + price + "\n",
		"agent.mock.yaml": agent,
		"s.yaml":          "name: cost\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\ngateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: \"" + up.URL + "\"}\n" + rest,
	})
	res, out := runResults(t, dir, "s.yaml")
	return res, out.Scenarios[0], up
}

// TestGatewayCostWithoutNoise: a turn's cost is what the attempt had spent
// after it less what it had spent before, which in float64 is noisy
// (0.0009 - 0.0006 = 0.00030000000000000003); the results hold the cost
// the requests priced, 0.0003, in every turn.
func TestGatewayCostWithoutNoise(t *testing.T) {
	t.Parallel()
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
	agent := "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n"
	// 10 input and 5 output tokens a request: 0.0003 a request.
	res, r, _ := runMetered(t, "claude-test: {input: 15, output: 30}", agent,
		"permissions: {default: deny}\nturns: [{prompt: a}, {prompt: b}, {prompt: c}]\n")
	for _, tr := range r.Turns {
		if u := tr.Usage; u == nil || u.Cost != 0.0003 {
			t.Errorf("turn %d usage %+v, want cost 0.0003 exactly\n%s", tr.Index, u, res.stderr)
		}
	}
}
