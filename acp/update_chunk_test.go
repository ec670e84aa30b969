package acp

import (
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// FuzzChunkUpdate: a message, thought or user chunk update decodes to the
// chunk that decoding its object into ContentChunk gives, whether its
// first pass took it (see updateHead) or not; and the first pass takes
// none that does not decode into ContentChunk.
func FuzzChunkUpdate(f *testing.F) {
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}`,
		` { "content" : { "text" : "hi" , "type" : "text" } , "sessionUpdate" : "agent_thought_chunk" } `,
		`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"a\nb\"c\u00e9"},"messageId":"m1","_meta":{"a":1}}`,
		"{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"bad \xff utf8\"}}",
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png","annotations":{"priority":1}}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"resource_link","uri":"file:///a","name":"a","size":3}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"resource","resource":{"uri":"file:///a","text":"x"}}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"video","url":"x"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":5}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"text":"no type"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":null}`,
		`{"sessionUpdate":"agent_message_chunk","messageId":7,"content":{"type":"text","text":"x"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"sessionUpdate":"tool_call"}`,
		`{"sessionUpdate":"agent_message_chunk","Content":{"TYPE":"text","Text":"x"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t","content":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u SessionUpdate
		if json.Unmarshal(data, &u) != nil || len(u.Malformed) > 0 {
			return
		}
		var got *ContentChunk
		switch u.Kind {
		case UpdateAgentMessageChunk:
			got = u.AgentMessageChunk
		case UpdateAgentThoughtChunk:
			got = u.AgentThoughtChunk
		case UpdateUserMessageChunk:
			got = u.UserMessageChunk
		default:
			return
		}
		var want ContentChunk
		if err := json.Unmarshal(data, &want); err != nil {
			// Decoded leniently: the first pass must not have taken it.
			var head updateHead
			if json.Unmarshal(data, &head) == nil && (&SessionUpdate{Kind: u.Kind}).chunk(&head) {
				t.Fatalf("%q: the first pass took a chunk that does not decode into ContentChunk: %v", data, err)
			}
			return
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Fatalf("%q: chunk (-ContentChunk +got):\n%s", data, diff)
		}
	})
}
