package acp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// notificationSeeds are session/update params the fast path takes and
// many it must leave to encoding/json.
var notificationSeeds = []string{
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}`,
	` { "update" : { "content" : { "text" : "hi" , "type" : "text" } , "sessionUpdate" : "agent_thought_chunk" } , "sessionId" : "s1" } `,
	`{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"a\nb\"c\u00e9"}}}`,
	"{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"bad \xff utf8\"}}}",
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"te\u0078t","text":"x"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"messageId":"m1"}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","annotations":{"priority":1}}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"_meta":{"a":"b"}}`,
	`{"SessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`,
	`{"sessionId":"s1","sessionId":"s2","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","text":"y"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"x"}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"plan_update","content":{"type":"text","text":"x"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":5}}}`,
	`{"sessionId":1,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}} trailing`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}`,
	`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{}}}`,
	`{"sessionId":"s1","update":{}}`,
	`{"sessionId":"s1"}`,
	`{}`,
	`null`,
	`[]`,
	``,
}

// decodeBoth decodes data with DecodeSessionNotification and with
// json.Unmarshal and reports any difference in the result or the error.
func decodeBoth(t *testing.T, data []byte) {
	t.Helper()
	var slow SessionNotification
	fast, ferr := DecodeSessionNotification(data)
	serr := json.Unmarshal(data, &slow)
	if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
		t.Fatalf("%q: error %v; json.Unmarshal gives %v", data, ferr, serr)
	}
	if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(SessionUpdate{}, ContentBlock{})); diff != "" {
		t.Fatalf("%q: decoded differently from json.Unmarshal (-want +got):\n%s", data, diff)
	}
}

func TestDecodeSessionNotificationIsUnmarshal(t *testing.T) {
	for _, s := range notificationSeeds {
		decodeBoth(t, []byte(s))
	}
}

func TestDecodeSessionNotificationTakesChunksFast(t *testing.T) {
	for _, s := range notificationSeeds[:6] {
		var n SessionNotification
		if !fastChunk([]byte(s), &n) {
			t.Errorf("%q: not decoded by the fast path", s)
		}
	}
	for _, s := range notificationSeeds[6:] {
		var n SessionNotification
		if fastChunk([]byte(s), &n) {
			t.Errorf("%q: decoded by the fast path; want it left to encoding/json", s)
		}
	}
}

func FuzzDecodeSessionNotification(f *testing.F) {
	for _, s := range notificationSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { decodeBoth(t, data) })
}

func BenchmarkDecodeSessionNotification(b *testing.B) {
	data := []byte(`{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeSessionNotification(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var n SessionNotification
			if err := json.Unmarshal(data, &n); err != nil {
				b.Fatal(err)
			}
		}
	})
}
