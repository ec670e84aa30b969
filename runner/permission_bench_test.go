package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
)

// BenchmarkPermission measures the runner's side of one permission round
// trip of the flood agent, answered at once: attributing the request on
// arrival, deciding and recording it.
func BenchmarkPermission(b *testing.B) {
	o := &observer{}
	s := &session{sessionID: "flood-1", act: newActivity(), policy: &approve.Policy{Default: approve.Allow},
		obs: o.forJob(Ref{Name: "perms"}, redact.New())}
	s.startTurn(1, "go", nil, false)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		params := fmt.Appendf(nil, `{"sessionId":"flood-1","toolCall":{"toolCallId":"t%d","title":"read file","kind":"read","status":"pending"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`, i)
		req := &acp.Request{ID: &acp.ID{}, Method: acp.MethodSessionRequestPermission, Params: params}
		if _, err := s.Handle(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotPermissions measures taking the record of a turn of
// 2000 answered permission requests, as the end of the turn does.
func BenchmarkSnapshotPermissions(b *testing.B) {
	o := &observer{}
	s := &session{sessionID: "flood-1", act: newActivity(), policy: &approve.Policy{Default: approve.Allow},
		obs: o.forJob(Ref{Name: "perms"}, redact.New())}
	t := s.startTurn(1, "go", nil, false)
	ctx := context.Background()
	for i := range 2000 {
		params := fmt.Appendf(nil, `{"sessionId":"flood-1","toolCall":{"toolCallId":"t%d","title":"read file","kind":"read","status":"pending"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`, i)
		req := &acp.Request{ID: &acp.ID{}, Method: acp.MethodSessionRequestPermission, Params: params}
		if _, err := s.Handle(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := s.snapshot(t); len(r.Permissions) != 2000 {
			b.Fatal(len(r.Permissions))
		}
	}
}
