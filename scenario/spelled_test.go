package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAgentSpelled: an agent keeps the values of its env and of its MCP
// servers' env and headers as their files spell them, where that differs
// from the value (Agent.Spelled): its own, its named agent's (from the
// config file) and, for WithAgent, the scenario agent's own; also when
// the file has problems (ReadScenarios).
func TestAgentSpelled(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine: {command: [prog], env: {CFG_KEY: "cfg\x2dsecret-1"}}
`)
	scs := loadWith(t, cfg, `name: a
agent:
  name: mine
  env: {DB_PASSWORD: 'Tr0ub4dor''s-Horse-99', PLAIN: plain-value}
  mcpServers: [{name: m, type: http, url: "http://x", headers: [{name: Authorization, value: "Bearer t\u006fken-123"}]}]
turns: [{prompt: hi}]
---
name: b
agent: {command: [prog], env: {PLAIN: "plain-value"}}
turns: [{prompt: hi}]
`)
	want := []string{`cfg\x2dsecret-1`, "Tr0ub4dor''s-Horse-99", `Bearer t\u006fken-123`}
	if diff := cmp.Diff(want, scs[0].Agent.Spelled); diff != "" {
		t.Errorf("Spelled (-want +got):\n%s", diff)
	}
	if got := scs[1].Agent.Spelled; got != nil {
		t.Errorf("Spelled of values written as they read = %q, want nil", got)
	}
	other, err := scs[0].WithAgent("claude", scenario.LoadOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, other.Agent.Spelled); diff != "" {
		t.Errorf("Spelled WithAgent (-want +got):\n%s", diff)
	}

	_, _, err = scenario.LoadBytes("s.yaml", []byte("name: bad\nagent: {command: [a], env: {K: 'it''s-a-secret'}, bogus: 1}\nturns: [{prompt: hi}]\n"), opts)
	read := scenario.ReadScenarios(err)
	if len(read) != 1 || !cmp.Equal(read[0].Agent.Spelled, []string{"it''s-a-secret"}) {
		t.Errorf("ReadScenarios of a file with problems: %d scenarios, want 1 with Spelled [it''s-a-secret]", len(read))
	}
}
