package acp_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/acp"
)

// TestCallCutShortWhenPeerStopsReading: a peer that never reads its input
// must not keep a Call (and so a deadline or an interrupt) stuck in a write.
func TestCallCutShortWhenPeerStopsReading(t *testing.T) {
	inR, inW, err := os.Pipe() // the peer's stdin, never read
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // the peer's stdout, silent
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outW.Close()
	c := acp.NewConn(outR, inW, nil, nil)
	defer c.Close()

	ctx, cancel := context.WithTimeoutCause(t.Context(), 100*time.Millisecond, errors.New("turn timeout"))
	defer cancel()
	big := strings.Repeat("x", 4<<20) // far more than a pipe holds
	err = c.Call(ctx, "session/prompt", map[string]string{"text": big}).Await(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "turn timeout") {
		t.Fatalf("Await = %v, want the write cut short by the context's cause", err)
	}
	// The stream may hold part of a line: later writes fail at once.
	if err := c.Notify(t.Context(), "session/cancel", nil); err == nil {
		t.Errorf("Notify after a cut write = nil, want an error")
	}
}

// TestWriteDeadlineClearedAfterWholeLine: a context that ends right after a
// complete write leaves the connection usable.
func TestWriteDeadlineClearedAfterWholeLine(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outW.Close()
	c := acp.NewConn(outR, inW, nil, nil)
	defer c.Close()
	ctx, cancel := context.WithCancel(t.Context())
	if err := c.Notify(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := c.Notify(t.Context(), "b", nil); err != nil {
		t.Errorf("Notify after an ended context = %v, want nil", err)
	}
}
