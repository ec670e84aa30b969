package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAgentModelAndConfig: agent.model and agent.config are read with the
// position of each value, interpolated; a named agent's settings are the
// base that a scenario's change id by id, and an empty value leaves a
// setting out (a named agent's too).
func TestAgentModelAndConfig(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine:
    command: [mine]
    model: big
    config: {effort: low, thinking: true}
`)
	tests := []struct {
		name      string
		src       string
		model     string
		modelPos  string
		config    []scenario.ConfigSetting
		wantNoPos bool
	}{
		{
			name: "own agent",
			src: `name: x
agent:
  command: [a]
  model: ${MODEL:-fast}
  config:
    effort: high
    thinking: false
    level: 3
    gone: "${EMPTY}"
permissions: {}
turns: [{prompt: hi}]
`,
			model: "fast", modelPos: "/s/x.yaml:4:10",
			config: []scenario.ConfigSetting{
				{ID: "effort", Value: "high", Pos: scenario.Pos{File: "/s/x.yaml", Line: 6, Col: 13}},
				{ID: "thinking", Value: "false", Pos: scenario.Pos{File: "/s/x.yaml", Line: 7, Col: 15}},
				{ID: "level", Value: "3", Pos: scenario.Pos{File: "/s/x.yaml", Line: 8, Col: 12}},
			},
		},
		{
			name: "named agent as it is",
			src: `name: x
agent: mine
permissions: {}
turns: [{prompt: hi}]
`,
			model: "big", modelPos: "/cfg/acprun.yaml:4:12",
			config: []scenario.ConfigSetting{
				{ID: "effort", Value: "low", Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 5, Col: 22}},
				{ID: "thinking", Value: "true", Pos: scenario.Pos{File: "/cfg/acprun.yaml", Line: 5, Col: 37}},
			},
		},
		{
			name: "named agent changed",
			src: `name: x
agent: {name: mine, model: "${EMPTY}", config: {effort: max, extra: "on", thinking: "${EMPTY}"}}
permissions: {}
turns: [{prompt: hi}]
`,
			config: []scenario.ConfigSetting{
				{ID: "effort", Value: "max", Pos: scenario.Pos{File: "/s/x.yaml", Line: 2, Col: 57}},
				{ID: "extra", Value: "on", Pos: scenario.Pos{File: "/s/x.yaml", Line: 2, Col: 69}},
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
