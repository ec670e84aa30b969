package mockagent_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/mockagent"
)

const configScript = `configOptions:
  - id: effort
    name: Effort
    category: thought_level
    options: [{value: low, name: Low}, {value: high, name: High}]
  - {id: thinking, type: boolean}
models: {currentModelId: small, availableModels: [{modelId: small}, {modelId: big, name: Big}]}
modes: {availableModes: [{id: ask, name: Ask}]}
turns:
  - steps: [{showConfig: true}]
`

// TestConfigOptionsAndModels: the mock offers its config options and
// models with every session, sets what it is asked to (answering the
// complete state), rejects what it does not offer, and says what is set.
func TestConfigOptionsAndModels(t *testing.T) {
	c, _ := runMock(t, configScript, nil)
	c.initialize()
	var ns acp.NewSessionResponse
	if err := c.call(acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/w"}, &ns); err != nil {
		t.Fatal(err)
	}
	effort := acp.SessionConfigOption{ID: "effort", Name: "Effort", Category: "thought_level", Type: acp.ConfigSelect, CurrentValue: "low",
		Options: &acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "low", Name: "Low"}, {Value: "high", Name: "High"}}}}
	thinking := acp.SessionConfigOption{ID: "thinking", Name: "thinking", Type: acp.ConfigBoolean, CurrentValue: false}
	if diff := cmp.Diff([]acp.SessionConfigOption{effort, thinking}, ns.ConfigOptions); diff != "" {
		t.Errorf("session/new configOptions (-want +got):\n%s", diff)
	}
	wantModels := &acp.SessionModelState{CurrentModelID: "small", AvailableModels: []acp.ModelInfo{{ModelID: "small", Name: "small"}, {ModelID: "big", Name: "Big"}}}
	if diff := cmp.Diff(wantModels, ns.Models); diff != "" {
		t.Errorf("session/new models (-want +got):\n%s", diff)
	}
	sid := ns.SessionID

	var set acp.SetSessionConfigOptionResponse
	if err := c.call(acp.MethodSessionSetConfigOption, acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "effort", Value: "high"}, &set); err != nil {
		t.Fatalf("set effort: %v", err)
	}
	effort.CurrentValue = "high"
	if diff := cmp.Diff(acp.List[acp.SessionConfigOption]{effort, thinking}, set.ConfigOptions); diff != "" {
		t.Errorf("set_config_option answer (-want +got):\n%s", diff)
	}
	if err := c.call(acp.MethodSessionSetConfigOption, acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "thinking", Type: acp.ConfigBoolean, Value: true}, nil); err != nil {
		t.Fatalf("set thinking: %v", err)
	}
	if err := c.call(acp.MethodSessionSetModel, acp.SetSessionModelRequest{SessionID: sid, ModelID: "big"}, nil); err != nil {
		t.Fatalf("set_model: %v", err)
	}
	for _, bad := range []struct {
		what   string
		method string
		params any
	}{
		{"unknown option", acp.MethodSessionSetConfigOption, acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "nope", Value: "x"}},
		{"unknown value", acp.MethodSessionSetConfigOption, acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "effort", Value: "max"}},
		{"boolean without type", acp.MethodSessionSetConfigOption, acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "thinking", Value: true}},
		{"select given a bool", acp.MethodSessionSetConfigOption, acp.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "effort", Type: acp.ConfigBoolean, Value: true}},
		{"unknown model", acp.MethodSessionSetModel, acp.SetSessionModelRequest{SessionID: sid, ModelID: "huge"}},
	} {
		if err := c.call(bad.method, bad.params, nil); codeOf(err) != acp.CodeInvalidParams {
			t.Errorf("%s: error = %v; want code %d", bad.what, err, acp.CodeInvalidParams)
		}
	}
	if _, err := c.prompt(sid, "hi"); err != nil {
		t.Fatal(err)
	}
	if got, want := describe(c.next().Update), "text:config: effort=high, thinking=true; model: big; mode: ask"; got != want {
		t.Errorf("showConfig said %s; want %s", got, want)
	}
}

func TestSetModelWithoutModels(t *testing.T) {
	c, _ := runMock(t, "turns: [{steps: [{showConfig: true}]}]\n", nil)
	sid := c.start()
	if err := c.call(acp.MethodSessionSetModel, acp.SetSessionModelRequest{SessionID: sid, ModelID: "m"}, nil); codeOf(err) != acp.CodeMethodNotFound {
		t.Errorf("set_model error = %v; want code %d", err, acp.CodeMethodNotFound)
	}
	if _, err := c.prompt(sid, "hi"); err != nil {
		t.Fatal(err)
	}
	if got := describe(c.next().Update); got != "text:config: none" {
		t.Errorf("showConfig said %s; want text:config: none", got)
	}
}

func TestConfigScriptErrors(t *testing.T) {
	tests := []struct {
		script, want string
	}{
		{"configOptions: [{id: a}]\n", `test.yaml:1:17: config option "a": a select option needs options: [{value, name}]`},
		{"configOptions: [{id: a, options: [{value: x}], currentValue: y}]\n", `test.yaml:1:62: config option "a": currentValue "y" is not among its options`},
		{"configOptions: [{id: a, type: boolean, options: []}]\n", `test.yaml:1:17: config option "a": a boolean option has no options`},
		{"configOptions: [{name: a, options: [{value: x}]}]\n", `test.yaml:1:17: config option: id is required`},
		{"models: {availableModels: []}\n", `test.yaml:1:9: models: availableModels needs at least one model`},
		{"models: {currentModelId: b, availableModels: [{modelId: a}]}\n", `test.yaml:1:9: models: currentModelId "b" is not among availableModels`},
	}
	for _, tt := range tests {
		_, err := mockagent.Parse("test.yaml", []byte(tt.script))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) error = %v; want %s", tt.script, err, tt.want)
		}
	}
}
