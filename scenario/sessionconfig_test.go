package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAgentModelAndConfig: agent.model, agent.mode and agent.config are
// read with the position of each value, interpolated; a named agent's settings are the
// base that a scenario's change id by id, and an empty value leaves a
// setting out (a named agent's too).
func TestAgentModelAndConfig(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine:
    command: [mine]
    model: big
    config: {effort: low, thinking: true}
    mode: code
`)
	tests := []struct {
		name      string
		src       string
		model     string
		modelPos  string
		mode      string
		modePos   string
		config    []scenario.ConfigSetting
		wantNoPos bool
	}{
		{
			name: "own agent",
			src: `name: x
agent:
  command: [a]
  model: ${MODEL:-fast}
  mode: plan
  config:
    effort: high
    thinking: false
    level: 3
    gone: "${EMPTY}"
permissions: {}
turns: [{prompt: hi}]
`,
			model: "fast", modelPos: "/s/x.yaml:4:10", mode: "plan", modePos: "/s/x.yaml:5:9",
			config: []scenario.ConfigSetting{
				{ID: "effort", Value: "high", Pos: scenario.Pos{File: "/s/x.yaml", Line: 7, Col: 13}},
				{ID: "thinking", Value: "false", Pos: scenario.Pos{File: "/s/x.yaml", Line: 8, Col: 15}},
				{ID: "level", Value: "3", Pos: scenario.Pos{File: "/s/x.yaml", Line: 9, Col: 12}},
			},
		},
		{
			name: "named agent as it is",
			src: `name: x
agent: mine
permissions: {}
turns: [{prompt: hi}]
`,
			model: "big", modelPos: "/cfg/acprun.yaml:4:12", mode: "code", modePos: "/cfg/acprun.yaml:6:11",
			config: []scenario.ConfigSetting{
				{ID: "effort", Value: "low", Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 5, Col: 22}},
				{ID: "thinking", Value: "true", Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 5, Col: 37}},
			},
		},
		{
			name: "named agent changed",
			src: `name: x
agent: {name: mine, model: "${EMPTY}", mode: "", config: {effort: max, extra: "on", thinking: "${EMPTY}"}}
permissions: {}
turns: [{prompt: hi}]
`,
			config: []scenario.ConfigSetting{
				{ID: "effort", Value: "max", Pos: scenario.Pos{File: "/s/x.yaml", Line: 2, Col: 67}},
				{ID: "extra", Value: "on", Pos: scenario.Pos{File: "/s/x.yaml", Line: 2, Col: 79}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := loadAt(t, cfg, "/s/x.yaml", tt.src)[0].Agent
			if a.Model != tt.model {
				t.Errorf("Model = %q, want %q", a.Model, tt.model)
			}
			if got := a.ModelPos; (tt.modelPos == "" && got != scenario.Pos{}) || (tt.modelPos != "" && got.String() != tt.modelPos) {
				t.Errorf("ModelPos = %v, want %q", got, tt.modelPos)
			}
			if a.Mode != tt.mode {
				t.Errorf("Mode = %q, want %q", a.Mode, tt.mode)
			}
			if got := a.ModePos; (tt.modePos == "" && got != scenario.Pos{}) || (tt.modePos != "" && got.String() != tt.modePos) {
				t.Errorf("ModePos = %v, want %q", got, tt.modePos)
			}
			if diff := cmp.Diff(tt.config, a.Config); diff != "" {
				t.Errorf("Config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAgentConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"not a mapping", "agent: {command: [a], config: [effort]}\n",
			[]string{`bad.yaml:2:31: expected a mapping, got a list`}},
		{"a list value", "agent: {command: [a], config: {effort: [high]}}\n",
			[]string{`bad.yaml:2:40: config option "effort": expected a value (a string, number or true/false), got a list`}},
		{"a null value", "agent: {command: [a], config: {effort: null}}\n",
			[]string{`bad.yaml:2:40: config option "effort": expected a value (a string, number or true/false), got null`}},
		{"an empty id", "agent: {command: [a], config: {\"\": high}}\n",
			[]string{`bad.yaml:2:32: config option id is empty`}},
		{"a duplicate id", "agent: {command: [a], config: {effort: high, effort: low}}\n",
			[]string{`bad.yaml:2:46: duplicate key "effort" (first at line 2)`}},
		{"a model that is no string", "agent: {command: [a], model: {name: m}}\n",
			[]string{`bad.yaml:2:30: expected a string, got a mapping`}},
		{"an unset variable", "agent: {command: [a], model: \"${NOPE}\"}\n",
			[]string{`bad.yaml:2:31: environment variable NOPE is not set (write ${NOPE:-default} to give a default)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: x\n" + tt.src + "permissions: {}\nturns: [{prompt: hi}]\n"
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMcpServerPos: where each server of agent.mcpServers was given is
// kept beside the servers, a named agent's from its config, for the
// runner's messages about them.
func TestMcpServerPos(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine:
    command: [mine]
    mcpServers:
      - {name: cfg, type: http, url: "http://x", headers: []}
`)
	scs := loadAt(t, cfg, "/s/x.yaml", `name: own
agent:
  command: [a]
  mcpServers:
    - {name: one, command: /one, args: [], env: []}
    - name: two
      type: http
      url: http://two
      headers: []
permissions: {}
turns: [{prompt: hi}]
---
name: named
agent: mine
permissions: {}
turns: [{prompt: hi}]
---
name: none
agent: {command: [a]}
permissions: {}
turns: [{prompt: hi}]
`)
	at := func(file string, line, col int) scenario.Pos { return scenario.Pos{File: file, Line: line, Col: col} }
	want := [][]scenario.Pos{
		{at("/s/x.yaml", 5, 7), at("/s/x.yaml", 6, 7)},
		{at("/cfg/acprun.yaml", 5, 9)},
		nil,
	}
	for i, sc := range scs {
		if diff := cmp.Diff(want[i], sc.Agent.McpServerPos); diff != "" {
			t.Errorf("%s: McpServerPos (-want +got):\n%s", sc.Name, diff)
		}
	}
}
