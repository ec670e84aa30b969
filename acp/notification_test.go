package acp_test

import (
	"testing"

	"github.com/acprun/acprun/acp"
)

// TestDecodeSessionNotificationErrors: params the schema's
// SessionNotification does not allow fail the decode with what is wrong,
// at its path, in the schema's words, not Go's; a missing update is one,
// as a null one is, not an update of kind "".
func TestDecodeSessionNotificationErrors(t *testing.T) {
	tests := []struct{ name, params, want string }{
		{"no params", ``, "params is required"},
		{"params an array", `[1]`, "params: want an object, got an array"},
		{"params null", `null`, "params: want an object, got null"},
		{"no update", `{"sessionId":"s1"}`, "update is required"},
		{"update null", `{"sessionId":"s1","update":null}`, "update is required"},
		{"no sessionId", `{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`, "sessionId is required"},
		{"sessionId a number", `{"sessionId":5,"update":{"sessionUpdate":"plan","entries":[]}}`, "sessionId: want a string, got number 5"},
		{"update a string", `{"sessionId":"s1","update":"x"}`, `update: want an object, got string "x"`},
		{"update an array", `{"sessionId":"s1","update":[]}`, `update: want an object, got an array`},
		{"no sessionUpdate", `{"sessionId":"s1","update":{}}`, "update: missing sessionUpdate"},
		{"sessionUpdate null", `{"sessionId":"s1","update":{"sessionUpdate":null}}`, "update: missing sessionUpdate"},
		{"sessionUpdate a number", `{"sessionId":"s1","update":{"sessionUpdate":7}}`, "update.sessionUpdate: want a string, got number 7"},
		{"sessionUpdate an object", `{"sessionId":"s1","update":{"sessionUpdate":{},"content":{"type":"text","text":"x"}}}`, "update.sessionUpdate: want a string, got an object"},
		{"a required member of a kind", `{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":5}}`, "update.title: want a string, got number 5 (sessionUpdate \"tool_call\")"},
		{"a nested member of a kind", `{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":1}}}`, "update.content.text: want a string, got number 1 (sessionUpdate \"agent_message_chunk\")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := acp.DecodeSessionNotification([]byte(tt.params))
			if err == nil || err.Error() != tt.want {
				t.Errorf("DecodeSessionNotification(%s) = %+v, %v; want the error %q", tt.params, n, err, tt.want)
			}
		})
	}
}

// TestDecodeSessionNotification: well-formed params decode whole, an
// unknown kind kept raw.
func TestDecodeSessionNotification(t *testing.T) {
	n, err := acp.DecodeSessionNotification([]byte(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},"_meta":{"a":1}}`))
	if err != nil || n.SessionID != "s1" || n.Update.AgentMessageChunk == nil || n.Update.AgentMessageChunk.Content.Text != "hi" || string(n.Meta) != `{"a":1}` {
		t.Errorf("DecodeSessionNotification = %+v, %v; want the chunk of s1 with its _meta", n, err)
	}
	n, err = acp.DecodeSessionNotification([]byte(`{"sessionId":"s1","update":{"sessionUpdate":"brand_new","x":1}}`))
	if err != nil || n.Update.Kind != "brand_new" || n.Update.Known() || string(n.Update.Raw) != `{"sessionUpdate":"brand_new","x":1}` {
		t.Errorf("DecodeSessionNotification = %+v, %v; want the unknown kind kept raw", n, err)
	}
}
