package mockagent_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
)

// TestSessionClose closes a session while its turn waits for a cancel: the
// turn ends as session/cancel would end it, the close is answered, and the
// session is gone for later prompts; another session of the process goes on.
func TestSessionClose(t *testing.T) {
	c, _ := runMock(t, `agentCapabilities: {sessionCapabilities: {close: true}}
turns:
  - match: wait
    steps: [{waitForCancel: true}, {text: never}]
default: {steps: [{text: hello}]}
`, nil)
	c.initialize()
	first, second := c.newSession("/a"), c.newSession("/b")
	ctx := testCtx(t)
	call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(first, "wait"))
	var closed acp.CloseSessionResponse
	if err := c.call(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: first}, &closed); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	var resp acp.PromptResponse
	if err := call.Await(ctx, &resp); err != nil || resp.StopReason != acp.StopCancelled {
		t.Errorf("the closed session's prompt = %+v, %v; want stopReason cancelled", resp, err)
	}
	if _, err := c.prompt(first, "again"); codeOf(err) != acp.CodeResourceNotFound {
		t.Errorf("prompt after session/close = %v; want -32002", err)
	}
	if err := c.call(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: first}, nil); codeOf(err) != acp.CodeResourceNotFound {
		t.Errorf("second session/close = %v; want -32002", err)
	}
	c.drain()
	if resp, err := c.prompt(second, "hi"); err != nil || resp.StopReason != acp.StopEndTurn {
		t.Fatalf("the other session's prompt = %+v, %v", resp, err)
	}
	if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:hello"}) {
		t.Errorf("the other session's updates = %q", got)
	}
}

// TestSessionCloseNotOffered: without sessionCapabilities.close the method
// is unknown.
func TestSessionCloseNotOffered(t *testing.T) {
	c, _ := runMock(t, "{}\n", nil)
	sid := c.start()
	if err := c.call(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); codeOf(err) != acp.CodeMethodNotFound {
		t.Errorf("session/close = %v; want -32601", err)
	}
}

// TestSessionsKeepTheirCwd runs two sessions of one process in different
// cwds, one after the other: each resolves its relative paths in its own.
func TestSessionsKeepTheirCwd(t *testing.T) {
	f := &fakeFS{}
	c, _ := runMock(t, "agentCapabilities: {sessionCapabilities: {close: true}}\ndefault: {steps: [{read: {path: notes.txt}}]}\n", f.serve)
	c.initialize()
	for _, cwd := range []string{"/one", "/two"} {
		sid := c.newSession(cwd)
		if _, err := c.prompt(sid, "read"); err != nil {
			t.Fatal(err)
		}
		if err := c.call(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"text:read: contents of /one/notes.txt", "text:read: contents of /two/notes.txt"}
	if got := describeAll(c.drain()); !cmp.Equal(got, want) {
		t.Errorf("updates = %q; want %q", got, want)
	}
}

// TestIgnoreEOF: with ignoreEOF the agent answers what it read and stays
// after the end of its stdin, until Run's context ends (the mock-agent
// command's SIGTERM).
func TestIgnoreEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, m := runMock(t, "ignoreEOF: true\n", nil)
		sid := c.start()
		if _, err := c.prompt(sid, "x"); err != nil {
			t.Fatal(err)
		}
		c.conn.Close() // the end of the agent's stdin
		synctest.Wait()
		select {
		case <-m.done:
			t.Fatalf("Run returned at the end of stdin with ignoreEOF: %v", m.err)
		default:
		}
		m.cancel()
		if err := m.wait(t); !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v; want context.Canceled", err)
		}
	})
}

// TestStartDelay: nothing is read before startDelay has passed, so the
// first answer comes after it (on the bubble's fake clock).
func TestStartDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := runMock(t, "startDelay: 1s\n", nil)
		start := time.Now()
		c.initialize()
		if d := time.Since(start); d != time.Second {
			t.Errorf("initialize answered after %s; want 1s", d)
		}
	})
}
