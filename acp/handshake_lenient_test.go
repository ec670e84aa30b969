package acp_test

import (
	"errors"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
)

// TestHandshakeResultsLenient: a malformed optional field of initialize's
// or session/new's result takes its default (x-deserialize-default-on-error)
// and is listed in Malformed; the rest is kept, and a malformed required
// field is still an error.
func TestHandshakeResultsLenient(t *testing.T) {
	init := []struct {
		name, in  string
		malformed []string
		check     func(acp.InitializeResponse) bool
	}{
		{"close: true", `{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"sessionCapabilities":{"close":true,"list":{}}}}`,
			[]string{"agentCapabilities.sessionCapabilities.close: want an object, got boolean true; the field took its default"},
			func(r acp.InitializeResponse) bool {
				c := r.AgentCapabilities
				return c.LoadSession && c.SessionCapabilities.Close == nil && c.SessionCapabilities.List != nil
			}},
		{"agentInfo a string", `{"protocolVersion":1,"agentInfo":"x","agentCapabilities":{"promptCapabilities":{"image":true}}}`,
			[]string{`agentInfo: want an object, got string "x"; the field took its default`},
			func(r acp.InitializeResponse) bool {
				return r.AgentInfo == nil && r.AgentCapabilities.PromptCapabilities.Image
			}},
		{"agentInfo's name a number", `{"protocolVersion":1,"agentInfo":{"name":5,"version":"1"}}`,
			[]string{`agentInfo: name: want a string, got a number; the field took its default`},
			func(r acp.InitializeResponse) bool { return r.AgentInfo == nil }},
		{"image yes", `{"protocolVersion":1,"agentCapabilities":{"promptCapabilities":{"image":"yes","audio":true}}}`,
			[]string{`agentCapabilities.promptCapabilities.image: want a boolean, got string "yes"; the field took its default`},
			func(r acp.InitializeResponse) bool {
				p := r.AgentCapabilities.PromptCapabilities
				return !p.Image && p.Audio
			}},
		{"promptCapabilities an array", `{"protocolVersion":1,"agentCapabilities":{"promptCapabilities":[]}}`,
			[]string{"agentCapabilities.promptCapabilities: want an object, got an array; the field took its default"}, nil},
		{"mcpCapabilities a string", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":"x"}}`,
			[]string{`agentCapabilities.mcpCapabilities: want an object, got string "x"; the field took its default`}, nil},
		{"loadSession yes", `{"protocolVersion":1,"agentCapabilities":{"loadSession":"yes"}}`,
			[]string{`agentCapabilities.loadSession: want a boolean, got string "yes"; the field took its default`},
			func(r acp.InitializeResponse) bool { return !r.AgentCapabilities.LoadSession }},
		{"authMethods an object", `{"protocolVersion":1,"authMethods":{}}`,
			[]string{"authMethods: want an array, got an object; the field took its default"},
			func(r acp.InitializeResponse) bool { return r.AuthMethods == nil }},
		{"an invalid auth method", `{"protocolVersion":1,"authMethods":[{"id":"a","name":"A"},{"id":3}]}`,
			[]string{"authMethods[1]: id: want a string, got a number (item skipped)"},
			func(r acp.InitializeResponse) bool { return len(r.AuthMethods) == 1 && r.AuthMethods[0].ID == "a" }},
	}
	for _, tt := range init {
		t.Run(tt.name, func(t *testing.T) {
			var r acp.InitializeResponse
			if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
				t.Fatalf("Unmarshal(%s) = %v; want the malformed field replaced", tt.in, err)
			}
			if diff := cmp.Diff(tt.malformed, r.Malformed); diff != "" {
				t.Errorf("Malformed (-want +got):\n%s", diff)
			}
			if r.ProtocolVersion != 1 || tt.check != nil && !tt.check(r) {
				t.Errorf("Unmarshal(%s) = %+v", tt.in, r)
			}
		})
	}

	session := []struct {
		name, in  string
		malformed []string
	}{
		{"modes a string", `{"sessionId":"s1","modes":"x"}`, []string{`modes: want an object, got string "x"; the field took its default`}},
		{"configOptions a string", `{"sessionId":"s1","configOptions":"x"}`, []string{`configOptions: want an array, got string "x"; the field took its default`}},
	}
	for _, tt := range session {
		t.Run(tt.name, func(t *testing.T) {
			var r acp.NewSessionResponse
			if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
				t.Fatalf("Unmarshal(%s) = %v; want the malformed field replaced", tt.in, err)
			}
			if diff := cmp.Diff(tt.malformed, r.Malformed); diff != "" {
				t.Errorf("Malformed (-want +got):\n%s", diff)
			}
			if r.SessionID != "s1" || r.Modes != nil || r.ConfigOptions != nil {
				t.Errorf("Unmarshal(%s) = %+v", tt.in, r)
			}
			var l acp.LoadSessionResponse
			if err := json.Unmarshal([]byte(tt.in), &l); err != nil || !cmp.Equal(tt.malformed, l.Malformed) {
				t.Errorf("as a session/load answer: %+v, %v", l, err)
			}
		})
	}

	for _, in := range []string{`{"protocolVersion":"1"}`, `{"protocolVersion":1.5}`, `{"protocolVersion":{}}`} {
		var r acp.InitializeResponse
		if err := json.Unmarshal([]byte(in), &r); !errors.Is(err, acp.ErrBadProtocolVersion) {
			t.Errorf("Unmarshal(%s) = %+v, %v; want ErrBadProtocolVersion: protocolVersion is required", in, r, err)
		}
	}
	// JSON Schema's integer is any number without a fractional part.
	for _, in := range []string{`{"protocolVersion":1.0}`, `{"protocolVersion":1e0,"agentCapabilities":{"loadSession":true}}`} {
		var r acp.InitializeResponse
		if err := json.Unmarshal([]byte(in), &r); err != nil || r.ProtocolVersion != 1 || len(r.Malformed) != 0 {
			t.Errorf("Unmarshal(%s) = %+v, %v; want version 1, nothing malformed", in, r, err)
		}
	}
	var s acp.NewSessionResponse
	if err := json.Unmarshal([]byte(`{"sessionId":5,"modes":"x"}`), &s); err == nil || err.Error() != "sessionId: want a string, got number 5" {
		t.Errorf("Unmarshal of a numeric sessionId: %v; want sessionId: want a string, got number 5", err)
	}
	for _, in := range []string{`{"agentCapabilities":{}}`, `{"protocolVersion":null}`, `{"agentInfo":"x"}`} {
		var r acp.InitializeResponse
		if err := json.Unmarshal([]byte(in), &r); !errors.Is(err, acp.ErrNoProtocolVersion) {
			t.Errorf("Unmarshal(%s) = %v; want ErrNoProtocolVersion", in, err)
		}
	}
}

// TestPromptResponseLenient: a malformed usage in session/prompt's answer
// (optional, x-deserialize-default-on-error) is left out and listed in
// Malformed, and so is a malformed optional count of it; the stop reason
// is kept. A whole float is an integer. A malformed stopReason is an error.
func TestPromptResponseLenient(t *testing.T) {
	usage := func(total, in, out int64, thought *int64) *acp.Usage {
		return &acp.Usage{TotalTokens: total, InputTokens: in, OutputTokens: out, ThoughtTokens: thought}
	}
	tests := []struct {
		name, in  string
		want      *acp.Usage
		malformed []string
	}{
		{"well-formed", `{"stopReason":"end_turn","usage":{"totalTokens":5,"inputTokens":3,"outputTokens":2}}`, usage(5, 3, 2, nil), nil},
		{"whole floats", `{"stopReason":"end_turn","usage":{"totalTokens":5.0,"inputTokens":3e0,"outputTokens":2,"thoughtTokens":1.0}}`, usage(5, 3, 2, ptr[int64](1)), nil},
		{"usage a string", `{"stopReason":"end_turn","usage":"n/a"}`, nil, []string{`usage: want an object, got string "n/a"; the field took its default`}},
		{"a total not an integer", `{"stopReason":"end_turn","usage":{"totalTokens":5.5,"inputTokens":3,"outputTokens":2}}`, nil,
			[]string{`usage.totalTokens: want a non-negative integer, got number 5.5 (usage ignored)`}},
		{"thoughtTokens a string", `{"stopReason":"end_turn","usage":{"totalTokens":5,"inputTokens":3,"outputTokens":2,"thoughtTokens":"x"}}`, usage(5, 3, 2, nil),
			[]string{`usage.thoughtTokens: want a non-negative integer, got string "x"; the field took its default`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r acp.PromptResponse
			if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if r.StopReason != acp.StopEndTurn {
				t.Errorf("stopReason %q, want end_turn", r.StopReason)
			}
			if diff := cmp.Diff(tt.want, r.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.malformed, r.Malformed); diff != "" {
				t.Errorf("malformed (-want +got):\n%s", diff)
			}
		})
	}
	var r acp.PromptResponse
	if err := json.Unmarshal([]byte(`{"stopReason":5,"usage":"n/a"}`), &r); err == nil || err.Error() != "stopReason: want a string, got number 5" {
		t.Errorf("Unmarshal of a numeric stopReason: %v; want stopReason: want a string, got number 5", err)
	}
}
