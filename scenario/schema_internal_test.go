package scenario

import (
	"maps"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// TestSchemaMatchesParser checks that JSONSchema describes exactly the keys
// the parser accepts, each with a description, and no others.
func TestSchemaMatchesParser(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(JSONSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	object := func(path ...string) map[string]any {
		v := any(schema)
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		m, _ := v.(map[string]any)
		return m
	}
	tests := []struct {
		path []string
		keys []string
	}{
		{nil, scenarioKeys},
		{[]string{"$defs", "agent"}, agentKeys},
		{[]string{"$defs", "client"}, clientKeys},
		{[]string{"$defs", "permissions"}, permissionKeys},
		{[]string{"$defs", "rule"}, ruleKeys},
		{[]string{"$defs", "rule", "properties", "examples"}, exampleKeys},
		{[]string{"$defs", "turn"}, turnKeys},
		{[]string{"$defs", "part"}, partKeys},
		{[]string{"$defs", "answerSet"}, answerSetKeys},
		{[]string{"$defs", "promptFile"}, promptFileKeys},
		{[]string{"$defs", "turnExpect"}, turnExpectKeys},
		{[]string{"$defs", "scenarioExpect"}, scenarioExpectKeys},
		{[]string{"$defs", "textExpect"}, textKeys},
		{[]string{"$defs", "namedAgent"}, namedAgentKeys},
		{[]string{"$defs", "workspace"}, workspaceKeys},
		{[]string{"$defs", "sandbox"}, sandboxKeys},
		{[]string{"$defs", "shellCommandMapping"}, commandKeys},
		{[]string{"$defs", "verifyCommandMapping"}, verifyKeys},
		{[]string{"$defs", "commandExpect"}, commandExpectKeys},
		{[]string{"$defs", "stdoutExpect"}, textKeys},
		{[]string{"$defs", "toolCallsExpect"}, toolCallsKeys},
		{[]string{"$defs", "filesExpect"}, filesKeys},
		{[]string{"$defs", "permissionsExpect"}, permissionsExpectKeys},
		{[]string{"$defs", "usageExpect"}, usageKeys},
		{[]string{"$defs", "budget"}, budgetKeys},
		{[]string{"$defs", "gateway"}, gatewayKeys},
		{[]string{"$defs", "price"}, priceKeys},
		{[]string{"$defs", "noticesExpect"}, noticesKeys},
		{[]string{"$defs", "judge"}, judgeKeys},
		{[]string{"$defs", "agentExpect"}, agentExpectKeys},
		{[]string{"$defs", "mcpStdio"}, mcpStdioKeys},
		{[]string{"$defs", "mcpRemote"}, mcpRemoteKeys},
		{[]string{"$defs", "mcpNameValues", "items"}, nameValueKeys},
	}
	for _, tt := range tests {
		obj := object(tt.path...)
		if obj["additionalProperties"] != false {
			t.Errorf("%v: additionalProperties = %v, want false", tt.path, obj["additionalProperties"])
		}
		props, _ := obj["properties"].(map[string]any)
		var got []string
		for k, v := range props {
			got = append(got, k)
			if d, _ := v.(map[string]any)["description"].(string); d == "" {
				if ref, _ := v.(map[string]any)["$ref"].(string); ref == "" {
					t.Errorf("%v: property %q has no description", tt.path, k)
				}
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tt.keys))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: schema properties (-parser +schema):\n%s", tt.path, diff)
		}
		if d, _ := obj["description"].(string); d == "" {
			t.Errorf("%v: no description", tt.path)
		}
	}
}

// variableSchema is the schema of gateway.env or key: a name, which is
// none of Not's.
type variableSchema struct {
	AnyOf []struct {
		Not struct {
			AnyOf []struct {
				Enum    []string `json:"enum"`
				Pattern string   `json:"pattern"`
			} `json:"anyOf"`
		} `json:"not"`
	} `json:"anyOf"`
}

// TestSchemaEnumsMatchParser checks that the schema's lists of values are
// the parser's.
func TestSchemaEnumsMatchParser(t *testing.T) {
	var schema struct {
		Defs struct {
			ToolCallsExpect struct {
				Properties struct {
					Status struct {
						AnyOf []struct {
							Enum []string `json:"enum"`
						} `json:"anyOf"`
					} `json:"status"`
				} `json:"properties"`
			} `json:"toolCallsExpect"`
			TurnExpect struct {
				Properties struct {
					StopReason struct {
						AnyOf []struct {
							Enum []string `json:"enum"`
						} `json:"anyOf"`
					} `json:"stopReason"`
					CancelCause struct {
						AnyOf []struct {
							Enum []string `json:"enum"`
						} `json:"anyOf"`
					} `json:"cancelCause"`
				} `json:"properties"`
			} `json:"turnExpect"`
			Gateway struct {
				Properties struct {
					Mode struct {
						AnyOf []struct {
							Enum []string `json:"enum"`
						} `json:"anyOf"`
					} `json:"mode"`
					Env variableSchema `json:"env"`
					Key variableSchema `json:"key"`
				} `json:"properties"`
			} `json:"gateway"`
		} `json:"$defs"`
		Properties struct {
			Gateway struct {
				AnyOf []struct {
					Enum []string `json:"enum"`
				} `json:"anyOf"`
			} `json:"gateway"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(JSONSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	if anyOf := schema.Defs.ToolCallsExpect.Properties.Status.AnyOf; len(anyOf) == 0 {
		t.Errorf("toolCalls.status has no enum")
	} else if diff := cmp.Diff(toolCallStatuses, anyOf[0].Enum); diff != "" {
		t.Errorf("toolCalls.status (-parser +schema):\n%s", diff)
	}
	if anyOf := schema.Defs.TurnExpect.Properties.StopReason.AnyOf; len(anyOf) == 0 {
		t.Errorf("stopReason has no enum")
	} else if diff := cmp.Diff(stopReasons, anyOf[0].Enum); diff != "" {
		t.Errorf("stopReason (-parser +schema):\n%s", diff)
	}
	if anyOf := schema.Defs.TurnExpect.Properties.CancelCause.AnyOf; len(anyOf) == 0 {
		t.Errorf("cancelCause has no enum")
	} else if diff := cmp.Diff(CancelCauses, anyOf[0].Enum); diff != "" {
		t.Errorf("cancelCause (-parser +schema):\n%s", diff)
	}
	if anyOf := schema.Properties.Gateway.AnyOf; len(anyOf) == 0 {
		t.Errorf("gateway has no enum")
	} else if diff := cmp.Diff(GatewayModes, anyOf[0].Enum); diff != "" {
		t.Errorf("gateway (-parser +schema):\n%s", diff)
	}
	if anyOf := schema.Defs.Gateway.Properties.Mode.AnyOf; len(anyOf) == 0 {
		t.Errorf("gateway.mode has no enum")
	} else if diff := cmp.Diff(GatewayModes, anyOf[0].Enum); diff != "" {
		t.Errorf("gateway.mode (-parser +schema):\n%s", diff)
	}
	// The variables gateway.env and key may not name (notGatewayVariable).
	var stems []string
	for _, p := range systemEnvPrefixes {
		stems = append(stems, strings.TrimSuffix(p, "_"))
	}
	prefixes := "^(" + strings.Join(stems, "|") + ")_"
	for key, tt := range map[string]struct {
		s    variableSchema
		want []string
	}{
		"env": {schema.Defs.Gateway.Properties.Env, append(keyVariables(), systemEnv...)},
		"key": {schema.Defs.Gateway.Properties.Key, systemEnv},
	} {
		if len(tt.s.AnyOf) == 0 || len(tt.s.AnyOf[0].Not.AnyOf) != 2 {
			t.Errorf("gateway.%s refuses no names", key)
			continue
		}
		not := tt.s.AnyOf[0].Not.AnyOf
		if diff := cmp.Diff(tt.want, not[0].Enum); diff != "" {
			t.Errorf("gateway.%s's refused names (-parser +schema):\n%s", key, diff)
		}
		if not[1].Pattern != prefixes {
			t.Errorf("gateway.%s's refused prefixes: schema %q, parser %q", key, not[1].Pattern, prefixes)
		}
	}
}

// TestConfigSchemaMatchesParser checks that ConfigJSONSchema describes
// exactly the keys of the config file that LoadConfig accepts.
func TestConfigSchemaMatchesParser(t *testing.T) {
	var schema struct {
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Defs                 struct {
			Defaults struct {
				AdditionalProperties *bool                      `json:"additionalProperties"`
				Properties           map[string]json.RawMessage `json:"properties"`
			} `json:"defaults"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ConfigJSONSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]json.RawMessage) []string { return slices.Sorted(maps.Keys(m)) }
	if diff := cmp.Diff(slices.Sorted(slices.Values(configKeys)), keys(schema.Properties)); diff != "" {
		t.Errorf("config keys (-parser +schema):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(defaultsKeys)), keys(schema.Defs.Defaults.Properties)); diff != "" {
		t.Errorf("defaults keys (-parser +schema):\n%s", diff)
	}
	for _, p := range []*bool{schema.AdditionalProperties, schema.Defs.Defaults.AdditionalProperties} {
		if p == nil || *p {
			t.Errorf("additionalProperties = %v, want false", p)
		}
	}
	for k, v := range schema.Defs.Defaults.Properties {
		if !strings.Contains(string(v), `"description"`) && !strings.Contains(string(v), `"$ref"`) {
			t.Errorf("defaults.%s has no description", k)
		}
	}
}
