package replay

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// configured is a transcript whose session was set up before its prompt:
// an MCP server, a mode, a model and two config options (a boolean as a
// boolean).
const configured = `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}}
{"t":2,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}}
{"t":3,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[{"name":"files","command":"/rec-checkout/mcp.sh","args":["--root","/rec"],"env":[{"name":"TOKEN","value":"[REDACTED]"}]}]}}}
{"t":4,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}
{"t":5,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"plan"}}}
{"t":6,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{}}}
{"t":7,"dir":"c2a","msg":{"jsonrpc":"2.0","id":4,"method":"session/set_model","params":{"sessionId":"s1","modelId":"big"}}}
{"t":8,"dir":"a2c","msg":{"jsonrpc":"2.0","id":4,"result":{}}}
{"t":9,"dir":"c2a","msg":{"jsonrpc":"2.0","id":5,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"effort","value":"high"}}}
{"t":10,"dir":"a2c","msg":{"jsonrpc":"2.0","id":5,"result":{"configOptions":[]}}}
{"t":11,"dir":"c2a","msg":{"jsonrpc":"2.0","id":6,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"thinking","type":"boolean","value":true}}}
{"t":12,"dir":"a2c","msg":{"jsonrpc":"2.0","id":6,"result":{"configOptions":[]}}}
{"t":13,"dir":"c2a","msg":{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"plan it"}]}}}
{"t":14,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"planned"}}}}}
{"t":15,"dir":"a2c","msg":{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}}
`

// configuredRequests are the client's requests that replay configured as
// recorded, by name; a test replaces some of them.
func configuredRequests() map[string]string {
	return map[string]string{
		"initialize": `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"acprun","version":"9.9"}}}`,
		"new":        `{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/live","mcpServers":[{"name":"files","command":"/other-checkout/mcp.sh","args":["--root","/live"],"env":[{"name":"TOKEN","value":"hunter2"}]}]}}`,
		"mode":       `{"jsonrpc":"2.0","id":"c","method":"session/set_mode","params":{"sessionId":"s1","modeId":"plan"}}`,
		"model":      `{"jsonrpc":"2.0","id":"d","method":"session/set_model","params":{"sessionId":"s1","modelId":"big"}}`,
		"effort":     `{"jsonrpc":"2.0","id":"e","method":"session/set_config_option","params":{"sessionId":"s1","configId":"effort","value":"high"}}`,
		"thinking":   `{"jsonrpc":"2.0","id":"f","method":"session/set_config_option","params":{"sessionId":"s1","configId":"thinking","type":"boolean","value":true}}`,
		"prompt":     `{"jsonrpc":"2.0","id":"g","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"plan it"}]}}`,
	}
}

// configuredOrder is the order the client sends configuredRequests in.
var configuredOrder = []string{"initialize", "new", "mode", "model", "effort", "thinking", "prompt"}

// TestRunSettingsAsRecorded: settings made as recorded replay, whatever
// changes between runs by design: the session's cwd, the paths and secret
// values of an MCP server, the ids, the client's info; and the session id
// of the settings, which names the session and nothing the agent does.
func TestRunSettingsAsRecorded(t *testing.T) {
	for _, sessionID := range []string{"s1", "fresh-42"} {
		c := start(t, configured)
		for i, name := range configuredOrder {
			c.send(strings.Replace(configuredRequests()[name], `"sessionId":"s1"`, `"sessionId":"`+sessionID+`"`, 1))
			if name == "prompt" {
				c.expect(`"text":"planned"`)
			}
			l := c.expect(`"id":"` + string(rune('a'+i)) + `"`)
			if strings.Contains(l, "error") {
				t.Fatalf("session %s: %s answered %s", sessionID, name, l)
			}
		}
		if err := c.end(); err != nil {
			t.Errorf("Run = %v", err)
		}
		if s := c.stderr.String(); s != "" {
			t.Errorf("stderr = %q, want nothing", s)
		}
	}
}

// TestRunSettingsDiverge: a setting made otherwise than recorded (a mode,
// model or config option changed in the scenario, an MCP server added or
// removed) is a divergence of that request: it is answered with the
// replay's error, naming what was recorded and what came, and the line on
// stderr names the recorded request's line.
func TestRunSettingsDiverge(t *testing.T) {
	tests := []struct {
		name, request string
		want          Divergence
	}{
		{"mode", `{"jsonrpc":"2.0","id":"c","method":"session/set_mode","params":{"sessionId":"s1","modeId":"code"}}`,
			Divergence{Request: "session/set_mode", Line: 5, Recorded: `{"modeId":"plan"}`, Got: `{"modeId":"code"}`}},
		{"model", `{"jsonrpc":"2.0","id":"d","method":"session/set_model","params":{"sessionId":"s1","modelId":"small"}}`,
			Divergence{Request: "session/set_model", Line: 7, Recorded: `{"modelId":"big"}`, Got: `{"modelId":"small"}`}},
		{"effort", `{"jsonrpc":"2.0","id":"e","method":"session/set_config_option","params":{"sessionId":"s1","configId":"effort","value":"low"}}`,
			Divergence{Request: "session/set_config_option", Line: 9, Recorded: `{"configId":"effort","value":"high"}`, Got: `{"configId":"effort","value":"low"}`}},
		{"effort", `{"jsonrpc":"2.0","id":"e","method":"session/set_config_option","params":{"sessionId":"s1","configId":"speed","value":"high"}}`,
			Divergence{Request: "session/set_config_option", Line: 9, Recorded: `{"configId":"effort","value":"high"}`, Got: `{"configId":"speed","value":"high"}`}},
		{"thinking", `{"jsonrpc":"2.0","id":"f","method":"session/set_config_option","params":{"sessionId":"s1","configId":"thinking","type":"boolean","value":false}}`,
			Divergence{Request: "session/set_config_option", Line: 11, Recorded: `{"configId":"thinking","type":"boolean","value":true}`, Got: `{"configId":"thinking","type":"boolean","value":false}`}},
		{"new", `{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/live","mcpServers":[{"name":"files","command":"/x/mcp.sh"},{"type":"http","name":"web","url":"http://x","headers":[]}]}}`,
			Divergence{Request: "session/new", Line: 3, Recorded: `mcpServers "files" (stdio)`, Got: `mcpServers "files" (stdio), "web" (http)`}},
		{"new", `{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/live","mcpServers":[]}}`,
			Divergence{Request: "session/new", Line: 3, Recorded: `mcpServers "files" (stdio)`, Got: `no mcpServers`}},
		{"new", `{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/live","mcpServers":[{"name":"docs","command":"/rec-checkout/mcp.sh"}]}}`,
			Divergence{Request: "session/new", Line: 3, Recorded: `mcpServers "files" (stdio)`, Got: `mcpServers "docs" (stdio)`}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Got, func(t *testing.T) {
			c := start(t, configured)
			reqs := configuredRequests()
			reqs[tt.name] = tt.request
			var l string
			for _, name := range configuredOrder {
				c.send(reqs[name])
				l = c.expect(`"id":"`)
				if name == tt.name {
					break
				}
			}
			var resp struct {
				Error struct {
					Message string     `json:"message"`
					Data    Divergence `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.Error.Data != tt.want || resp.Error.Message != DivergedPrefix+tt.want.message() {
				t.Errorf("answered %s\nwant the error %q %+v", l, DivergedPrefix+tt.want.message(), tt.want)
			}
			c.end()
			if want := "acprun replay: rec.jsonl:" + itoa(tt.want.Line) + ": " + DivergedPrefix + tt.want.message() + "\n"; c.stderr.String() != want {
				t.Errorf("stderr = %q\nwant %q", c.stderr.String(), want)
			}
		})
	}
}

// TestRunSettingNotMade: a setting recorded before a prompt that the
// client did not make (a mode, model or config option removed from the
// scenario, or one acprun found the agent does not offer) is a divergence
// of that prompt: the recorded agent ran with it.
func TestRunSettingNotMade(t *testing.T) {
	tests := []struct {
		skip string
		want Divergence
	}{
		{"mode", Divergence{Turn: 1, Request: "session/prompt", Line: 5, Recorded: `session/set_mode {"modeId":"plan"} before it`, Got: "the prompt without it"}},
		{"thinking", Divergence{Turn: 1, Request: "session/prompt", Line: 11, Recorded: `session/set_config_option {"configId":"thinking","type":"boolean","value":true} before it`, Got: "the prompt without it"}},
	}
	for _, tt := range tests {
		t.Run(tt.skip, func(t *testing.T) {
			c := start(t, configured)
			for _, name := range configuredOrder {
				if name == tt.skip {
					continue
				}
				c.send(configuredRequests()[name])
				l := c.expect(`"id":"`)
				if name != "prompt" {
					continue
				}
				want := DivergedPrefix + tt.want.message()
				if !strings.Contains(l, `"error"`) || !strings.Contains(l, jsonInner(want)) {
					t.Errorf("prompt answered %s\nwant the error %q", l, want)
				}
			}
			c.end()
			if want := "rec.jsonl:" + itoa(tt.want.Line) + ": " + DivergedPrefix + tt.want.message(); !strings.Contains(c.stderr.String(), want) {
				t.Errorf("stderr = %q\nwant %q", c.stderr.String(), want)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
