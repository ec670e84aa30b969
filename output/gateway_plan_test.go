package output_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// TestPlanGateway: the plan shows each scenario's gateway after its
// sandbox (its mode, where the cassettes are, each variable pointed at it
// with its upstream, a password in it hidden, and key) and its budgets'
// maxRequests; a scenario without a gateway shows none.
func TestPlanGateway(t *testing.T) {
	requests, turnRequests := int64(20), int64(3)
	p := minimal()
	p.Budget = &scenario.UsageExpect{MaxRequests: &requests}
	p.Turns[0].Budget = &scenario.UsageExpect{MaxRequests: &turnRequests}
	replay := &scenario.Gateway{Mode: "replay", Dir: "/s/cassettes", Timing: true, Currency: "EUR",
		Prices: map[string]gateway.Price{"m": {Input: 1, Output: 2}},
		Targets: []scenario.GatewayTarget{
			{Env: "OPENCODE_CONFIG_CONTENT", JSONPath: []string{"provider", "openai", "options", "baseURL"}, KeyEnv: "OPENAI_API_KEY"},
			{Env: "MY_URL"},
		}}
	record := &scenario.Gateway{Mode: "record", Dir: "/s/tapes", Targets: []scenario.GatewayTarget{{Env: "ANTHROPIC_BASE_URL", Upstream: "https://me:s3cret@proxy.example/anthropic", KeyEnv: "ANTHROPIC_API_KEY"}}}
	meter := &scenario.Gateway{Mode: "meter", Dir: "/s/cassettes"}
	var buf bytes.Buffer
	withRecord, withMeter := minimal(), minimal()
	p.Gateway, withRecord.Gateway, withMeter.Gateway = replay, record, meter
	if err := output.Plan(&buf, []runner.ScenarioPlan{p, minimal(), withRecord, withMeter}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for line := range strings.Lines(buf.String()) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "gateway:") || strings.HasPrefix(line, "    ") || strings.HasPrefix(l, "budget:") || strings.HasPrefix(l, "turn 1:") {
			got = append(got, strings.TrimRight(line, "\n"))
		}
	}
	want := []string{
		"  budget:   maxRequests 20 (for the whole scenario; the turn that passes it is cancelled)",
		"  gateway:  replay: answers from the cassettes under /s/cassettes with no network and a dummy key, at the recorded pace; prices for 1 model, in EUR",
		"    OPENCODE_CONFIG_CONTENT provider.openai.options.baseURL (key OPENAI_API_KEY)",
		"    MY_URL",
		`  turn 1:   "hi" (timeout 10m0s, expect end_turn, budget maxRequests 3)`,
		`  turn 1:   "hi" (timeout 10m0s, expect end_turn)`,
		"  gateway:  record: forwards each model request to its upstream and keeps the exchange, redacted, in a cassette under /s/tapes",
		"    ANTHROPIC_BASE_URL → https://me:xxxxx@proxy.example/anthropic (key ANTHROPIC_API_KEY)",
		`  turn 1:   "hi" (timeout 10m0s, expect end_turn)`,
		"  gateway:  meter, not needed: the agent has no base-URL variable (give gateway.env)",
		`  turn 1:   "hi" (timeout 10m0s, expect end_turn)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gateway lines of the plan (-want +got):\n%s\nplan:\n%s", diff, buf.String())
	}
}
