package acp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestUnreadableAnswerFailsItsCall: an answer to one of our calls on a
// line that is not JSON (cut short, or with something after the object)
// fails that call at once, when the line's head says which call it
// answers, instead of leaving it to wait for an answer that never comes.
func TestUnreadableAnswerFailsItsCall(t *testing.T) {
	tests := []struct{ name, line, want string }{
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}} done`,
			"acp: ask: invalid answer: invalid JSON: invalid character 'd' after top-level value"},
		{"cut short", `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_t`,
			"acp: ask: invalid answer: invalid JSON: unexpected end of JSON input"},
		{"an error cut short", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"bo`,
			"acp: ask: invalid answer: invalid JSON: unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			ctx := testCtx(t)
			viol := make(chan Violation, 2)
			c, p := newRawPeer(t, nil, &Options{OnViolation: func(v Violation) { viol <- v }})
			call := c.Call(ctx, "ask", nil)
			p.recv()
			p.send(tc.line)
			err := call.Await(ctx, nil)
			var ia *InvalidAnswerError
			if !errors.As(err, &ia) || err.Error() != tc.want {
				t.Fatalf("Await = %v; want the *InvalidAnswerError %q", err, tc.want)
			}
			v := recvFrom(t, viol, "the violation")
			if want := "; the answer to ask (id 1) fails it: "; !strings.Contains(v.Msg, want) {
				t.Errorf("Violation.Msg = %q; want it to say %q", v.Msg, want)
			}
		})
	}
}

// TestUnreadableRequestAnswered: a request on a line that is not JSON,
// whose head says its method and id, is answered -32700 with its id, its
// handler not called, so that the peer does not wait for an answer; the
// next request is handled. A notification, which waits for nothing, and an
// answer to no call of ours are only reported.
func TestUnreadableRequestAnswered(t *testing.T) {
	checkLeaks(t)
	viol := make(chan Violation, 4)
	methods := make(chan string, 4)
	h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		methods <- req.Method
		return nil, nil
	})
	_, p := newRawPeer(t, h, &Options{OnViolation: func(v Violation) { viol <- v }})
	p.send(`{"jsonrpc":"2.0","method":"note","params":{"a":`,
		`{"jsonrpc":"2.0","id":99,"result":{}} x`,
		`{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"path":"/x"`,
		`{"jsonrpc":"2.0","id":"after","method":"after"}`)
	got := p.recv()
	var e Error
	if err := json.Unmarshal([]byte(got["error"]), &e); err != nil || got["id"] != `"r1"` || e.Code != CodeParseError ||
		e.Message != "parse error: invalid JSON: unexpected end of JSON input" {
		t.Fatalf("first answer %v; want error -32700 for id \"r1\"", got)
	}
	if got := p.recv(); got["id"] != `"after"` {
		t.Errorf("answer %v; want the next request's", got)
	}
	if m := recvFrom(t, methods, "the handled request"); m != "after" {
		t.Errorf("handled %q; want only after", m)
	}
	for _, want := range []string{
		"invalid JSON-RPC message: invalid JSON: unexpected end of JSON input: ",
		"invalid JSON-RPC message: invalid JSON: invalid character 'x' after top-level value: ",
		`invalid JSON-RPC message: invalid JSON: unexpected end of JSON input; request "fs/read_text_file" (id "r1") answered -32700, not handled: `,
	} {
		if v := recvFrom(t, viol, "a violation"); !strings.HasPrefix(v.Msg, want) {
			t.Errorf("Violation.Msg = %q; want it to start with %q", v.Msg, want)
		}
	}
}

// TestCutAnswerAtTheEndNotAnswered: an answer cut short by the end of the
// stream (the agent died while writing it) does not fail its call as an
// invalid answer: the call fails as the stream ends, which says why.
func TestCutAnswerAtTheEndNotAnswered(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	viol := make(chan Violation, 2)
	c, p := newRawPeer(t, nil, &Options{OnViolation: func(v Violation) { viol <- v }})
	call := c.Call(ctx, "ask", nil)
	p.recv()
	if _, err := io.WriteString(p.nc, `{"jsonrpc":"2.0","id":1,"result":{"stopRe`); err != nil {
		t.Fatalf("peer write: %v", err)
	}
	p.nc.Close()
	err := call.Await(ctx, nil)
	var ia *InvalidAnswerError
	if err == nil || errors.As(err, &ia) {
		t.Fatalf("Await = %v; want the end of the stream's error", err)
	}
	if v := recvFrom(t, viol, "the violation"); strings.Contains(v.Msg, "fails it") {
		t.Errorf("Violation.Msg = %q; want the line only reported", v.Msg)
	}
}
