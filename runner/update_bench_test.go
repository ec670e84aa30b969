package runner

import (
	"context"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// BenchmarkSessionUpdate measures the runner's handling of one
// agent_message_chunk of 64 bytes: decoding and recording it in the turn.
func BenchmarkSessionUpdate(b *testing.B) {
	for _, tc := range []struct {
		name     string
		dropText bool
	}{{"text kept", false}, {"no-text", true}} {
		b.Run(tc.name, func(b *testing.B) {
			s := &session{sessionID: "sess-1", act: newActivity()}
			t := s.startTurn(1, "go", nil, tc.dropText)
			params := json.RawMessage(`{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}`)
			req := &acp.Request{Method: acp.MethodSessionUpdate, Params: params}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Handle(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			if got := s.snapshot(t).Updates[acp.UpdateAgentMessageChunk]; got != b.N {
				b.Fatalf("recorded %d chunks; want %d", got, b.N)
			}
		})
	}
}
