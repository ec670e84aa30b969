package scenario_test

import (
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestAgentReuse reads agent.reuse from a scenario, a named agent of the
// config and the config's default agent, with where it was set; a
// scenario's own value wins.
func TestAgentReuse(t *testing.T) {
	cfg := loadConfig(t, `agents:
  shared: {command: [shared-agent], reuse: true}
defaults:
  agent: {command: [default-agent], reuse: true}
`)
	scens := loadWith(t, cfg, `name: own
agent: {command: [a], reuse: true}
turns: [{prompt: hi}]
---
name: named
agent: shared
turns: [{prompt: hi}]
---
name: named-off
agent: {name: shared, reuse: false}
turns: [{prompt: hi}]
---
name: default
turns: [{prompt: hi}]
---
name: none
agent: {command: [b]}
turns: [{prompt: hi}]
`)
	want := []struct {
		reuse bool
		pos   scenario.Pos
	}{
		{true, scenario.Pos{File: "/s/x.yaml", Line: 2, Col: 30}},
		{true, scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 44}},
		{false, scenario.Pos{File: "/s/x.yaml", Line: 10, Col: 30}},
		{true, scenario.Pos{File: "/cfg/acprun.yaml", Line: 4, Col: 44}},
		{false, scenario.Pos{}},
	}
	for i, s := range scens {
		if s.Agent.Reuse != want[i].reuse || s.Agent.ReusePos != want[i].pos {
			t.Errorf("%s: reuse %v at %v; want %v at %v", s.Name, s.Agent.Reuse, s.Agent.ReusePos, want[i].reuse, want[i].pos)
		}
	}
}

func TestAgentReuseErrors(t *testing.T) {
	_, _, err := scenario.LoadBytes("bad.yaml", []byte("name: x\nagent: {command: [a], reuse: yes please}\nturns: [{prompt: hi}]\n"), opts)
	got := errorLines(t, err)
	if want := `bad.yaml:2:30: expected true or false, got the string "yes please"`; len(got) != 1 || got[0] != want {
		t.Errorf("errors = %q; want %q", got, want)
	}
}
