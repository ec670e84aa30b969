package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"strings"
	"sync/atomic"
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

// TestInvalidRequestAnswered: a request without "jsonrpc":"2.0" still has
// an id the peer waits on, so it gets -32600 rather than silence.
func TestInvalidRequestAnswered(t *testing.T) {
	a, b := net.Pipe()
	var violations atomic.Int32
	c := acp.NewConn(a, a, acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
		t.Errorf("handler called for an invalid request %q", req.Method)
		return nil, nil
	}), &acp.Options{OnViolation: func(acp.Violation) { violations.Add(1) }})
	defer c.Close()
	defer b.Close()
	go b.Write([]byte(`{"id":"r-5","method":"fs/read_text_file","params":{}}` + "\n"))
	line, err := bufio.NewReader(b).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    string `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.ID != "r-5" || resp.Error.Code != acp.CodeInvalidRequest {
		t.Errorf("answer %s (%v), want -32600 for id \"r-5\"", line, err)
	}
	if violations.Load() != 1 {
		t.Errorf("violations = %d, want 1", violations.Load())
	}
}
