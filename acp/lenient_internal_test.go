package acp

import (
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// FuzzLenientMatchesStrict: for every update the strict decode accepts, the
// lenient decode gives the same value and reports nothing, so which path a
// message takes never changes what is recorded.
func FuzzLenientMatchesStrict(f *testing.F) {
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","annotations":{"audience":["user",null],"priority":0.5}},"messageId":null}`,
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png","uri":"file:///a","text":"x","size":3}}`,
		`{"sessionUpdate":"user_message_chunk","content":{"type":"resource","resource":{"uri":"file:///a","blob":"AA==","mimeType":null}}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"video","url":"x","size":4,"annotations":{}}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","kind":"weird","content":[{"type":"diff","path":"/a","newText":"","oldText":null,"terminalId":"z"},{"type":"image_preview","url":"x"},{"type":"content","content":null}],"locations":[null,{"path":"/b","line":null}],"rawInput":null}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[],"locations":null,"title":null,"TITLE":"x"}`,
		`{"sessionUpdate":"plan","entries":[null,{"content":"a","priority":"urgent","status":"x","_meta":{}}]}`,
		`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"a","description":"b","input":null}]}`,
		`{"sessionUpdate":"config_option_update","configOptions":[{"id":"m","name":"M","type":"select","currentValue":"a","options":[{"group":"g","name":"G","options":[]}]}]}`,
		`{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-01-01T00:00:00Z"}`,
		`{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":1e-3,"currency":"USD"}}`,
		`{"sessionUpdate":"notice","severity":"weird","title":"t"}`,
		`{"sessionUpdate":"compaction_update","compactionId":"c","status":"in_progress","summary":[]}`,
		`{"sessionUpdate":"compaction_summary_chunk","compactionId":"c","content":{"type":"text","text":""}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","locations":[{"path":"/a","line":"3"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var head struct {
			SessionUpdate *string `json:"sessionUpdate"`
		}
		if json.Unmarshal(data, &head) != nil || head.SessionUpdate == nil {
			return
		}
		strict := SessionUpdate{Kind: *head.SessionUpdate}
		target, known := strict.payload()
		if !known || json.Unmarshal(data, target) != nil {
			return
		}
		lenient := SessionUpdate{Kind: strict.Kind}
		malformed, err := lenient.decodeLenient(data)
		if err != nil || malformed != nil {
			t.Fatalf("strict decode accepts %s; lenient gives %v, malformed %q", data, err, malformed)
		}
		if diff := cmp.Diff(strict, lenient); diff != "" {
			t.Fatalf("decodes of %s differ (-strict +lenient):\n%s", data, diff)
		}
	})
}
