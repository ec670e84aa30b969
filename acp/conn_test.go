package acp

// These tests are in package acp (not acp_test) only so that FuzzDecode can
// reach the unexported decoder and encoder; the rest uses the exported API.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// testTimeout is a safety net so that a broken Conn fails a test instead of
// hanging it; nothing waits for it to pass.
const testTimeout = 2 * time.Minute

// checkLeaks fails the test if goroutines started during it are still
// running after its cleanups. Call it first, so it runs last.
func checkLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// recvFrom receives from ch or fails the test after testTimeout.
func recvFrom[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// connPair connects two Conns over net.Pipe.
func connPair(t *testing.T, ha, hb Handler) (a, b *Conn) {
	t.Helper()
	pa, pb := net.Pipe()
	a = NewConn(pa, pa, ha, &Options{Peer: "b"})
	b = NewConn(pb, pb, hb, &Options{Peer: "a"})
	t.Cleanup(func() {
		a.Close()
		b.Close()
	})
	return a, b
}

// rawPeer is the far end of a Conn, scripted by the test line by line. A
// goroutine reads what the Conn writes, so the Conn's writes never block.
type rawPeer struct {
	t     *testing.T
	nc    net.Conn
	lines chan []byte
	done  chan struct{}
}

// newRawPeer starts a Conn whose peer is scripted by the test.
func newRawPeer(t *testing.T, h Handler, opts *Options) (*Conn, *rawPeer) {
	t.Helper()
	ours, theirs := net.Pipe()
	if err := theirs.SetDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	c := NewConn(ours, ours, h, opts)
	p := &rawPeer{t: t, nc: theirs, lines: make(chan []byte, 4096), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		br := bufio.NewReader(theirs)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			p.lines <- bytes.TrimSuffix(line, []byte("\n"))
		}
	}()
	t.Cleanup(func() {
		c.Close()
		theirs.Close()
		<-p.done
	})
	return c, p
}

// send writes lines to the Conn; it returns once the Conn has read them.
func (p *rawPeer) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.nc, l+"\n"); err != nil {
			p.t.Fatalf("peer write: %v", err)
		}
	}
}

// recv returns the next line the Conn wrote, decoded into its members.
func (p *rawPeer) recv() map[string]string {
	p.t.Helper()
	line := recvFrom(p.t, p.lines, "a line from the conn")
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("conn wrote %q: %v", line, err)
	}
	got := make(map[string]string, len(m))
	for k, v := range m {
		got[k] = string(v)
	}
	return got
}

// recvNotifications returns a handler that passes notifications' methods
// and params to a channel and answers requests with MethodNotFound.
func recvNotifications(ch chan<- *Request) Handler {
	return HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		if !req.IsNotification() {
			return nil, MethodNotFound(req.Method)
		}
		ch <- req
		return nil, nil
	})
}

func TestOutOfOrderResponses(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	c, p := newRawPeer(t, nil, nil)

	calls := []*Call{
		c.Call(ctx, "a", map[string]int{"n": 1}),
		c.Call(ctx, "b", nil),
		c.Call(ctx, "c", json.RawMessage(`[ 1, 2 ]`)),
	}
	wantReqs := []map[string]string{
		{"jsonrpc": `"2.0"`, "id": `1`, "method": `"a"`, "params": `{"n":1}`},
		{"jsonrpc": `"2.0"`, "id": `2`, "method": `"b"`},
		{"jsonrpc": `"2.0"`, "id": `3`, "method": `"c"`, "params": `[1,2]`},
	}
	for i, want := range wantReqs {
		if diff := cmp.Diff(want, p.recv()); diff != "" {
			t.Errorf("request %d (-want +got):\n%s", i, diff)
		}
		if got, want := calls[i].ID().String(), strconv.Itoa(i+1); got != want {
			t.Errorf("calls[%d].ID() = %s; want %s", i, got, want)
		}
	}

	p.send(
		`{"jsonrpc":"2.0","id":3,"result":"three"}`,
		`{"jsonrpc":"2.0","id":1,"result":"one"}`,
		`{"jsonrpc":"2.0","id":2,"result":"two"}`,
	)
	for i, want := range []string{"one", "two", "three"} {
		var got string
		if err := calls[i].Await(ctx, &got); err != nil {
			t.Fatalf("calls[%d].Await: %v", i, err)
		}
		if got != want {
			t.Errorf("calls[%d] result = %q; want %q", i, got, want)
		}
	}
}

func TestNotificationsInOrderWhileRequestBlocks(t *testing.T) {
	checkLeaks(t)
	const n = 200
	started := make(chan struct{})
	release := make(chan struct{})
	notes := make(chan *Request, n)
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.IsNotification() {
			notes <- req
			return nil, nil
		}
		Async(ctx) // it waits: the notifications behind it go on
		close(started)
		select {
		case <-release:
			return "released", nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	})
	_, p := newRawPeer(t, h, nil)

	p.send(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}`)
	for i := range n {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"n":%d}}`, i))
	}
	recvFrom(t, started, "the request handler to start")
	for i := range n {
		req := recvFrom(t, notes, "a notification")
		if got, want := string(req.Params), fmt.Sprintf(`{"n":%d}`, i); got != want {
			t.Fatalf("notification %d params = %s; want %s", i, got, want)
		}
	}
	// All notifications were handled while the request handler still waits.
	close(release)
	want := map[string]string{"jsonrpc": `"2.0"`, "id": `7`, "result": `"released"`}
	if diff := cmp.Diff(want, p.recv()); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestBothSidesUseID1(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	answer := func(name string) Handler {
		return HandlerFunc(func(_ context.Context, req *Request) (any, error) {
			return name + " answers " + req.Method + " " + req.ID.String(), nil
		})
	}
	a, b := connPair(t, answer("a"), answer("b"))

	ca := a.Call(ctx, "ping", nil)
	cb := b.Call(ctx, "pong", nil)
	for _, tc := range []struct {
		call *Call
		want string
	}{
		{ca, "b answers ping 1"},
		{cb, "a answers pong 1"},
	} {
		if got := tc.call.ID().String(); got != "1" {
			t.Errorf("call id = %s; want 1", got)
		}
		var got string
		if err := tc.call.Await(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("result = %q; want %q", got, tc.want)
		}
	}
}

func TestIDsEchoedVerbatim(t *testing.T) {
	for _, id := range []string{
		`0`, `-3`, `1.5`, `12345678901234567890`, `null`,
		`"1"`, `""`, `"uuid-6f1c3a2e-9b1d-4c7e-8a55-0d2f4e6b8c91"`, `"a\"b\u00e9"`,
	} {
		t.Run(id, func(t *testing.T) {
			checkLeaks(t)
			h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
				return req.ID.String(), nil
			})
			_, p := newRawPeer(t, h, nil)
			p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo"}`)
			quoted, _ := json.Marshal(id)
			want := map[string]string{"jsonrpc": `"2.0"`, "id": id, "result": string(quoted)}
			if diff := cmp.Diff(want, p.recv()); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHugeMessagesBothWays(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	// 4 MiB: far past the read buffer (readBufBytes), the line buffer kept
	// between lines (keepBufBytes) and a pipe's buffer.
	big := strings.Repeat("0123456789 \"quoted\"\n\tabcdef ", (4<<20)/28+1)
	notes := make(chan *Request, 1)
	a, b := connPair(t, recvNotifications(notes), HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		return req.Params, nil // echo
	}))

	var got string
	if err := a.Call(ctx, "echo", big).Await(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got != big {
		t.Errorf("echoed %d bytes; want the %d sent back unchanged", len(got), len(big))
	}

	if err := b.Notify(ctx, "big", big); err != nil {
		t.Fatal(err)
	}
	req := recvFrom(t, notes, "the big notification")
	got = ""
	if err := json.Unmarshal(req.Params, &got); err != nil {
		t.Fatal(err)
	}
	if got != big {
		t.Errorf("notification carried %d bytes; want %d unchanged", len(got), len(big))
	}
}

// padded returns a notification line of exactly n bytes with method "pad".
func padded(n int) string {
	const head, tail = `{"jsonrpc":"2.0","method":"pad","params":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

func TestLongLines(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		size     int
		rejected bool
	}{
		{name: "at the limit", max: 100, size: 100},
		{name: "one byte over", max: 100, size: 101, rejected: true},
		{name: "longer than the read buffer", max: 1000, size: 300_000, rejected: true},
		{name: "long but allowed", max: 1 << 20, size: 300_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			notes := make(chan *Request, 2)
			viol := make(chan Violation, 2)
			_, p := newRawPeer(t, recvNotifications(notes), &Options{
				MaxLineBytes: tc.max,
				OnViolation:  func(v Violation) { viol <- v },
			})
			line := padded(tc.size)
			p.send(line, `{"jsonrpc":"2.0","method":"after"}`)

			var got []string
			for {
				req := recvFrom(t, notes, "a notification")
				got = append(got, req.Method)
				if req.Method == "after" {
					break
				}
			}
			want := []string{"pad", "after"}
			if tc.rejected {
				want = []string{"after"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("handled methods (-want +got):\n%s", diff)
			}

			// The reader reports a line before it reads the next one.
			select {
			case v := <-viol:
				if !tc.rejected {
					t.Fatalf("unexpected violation: %s", v.Msg)
				}
				if v.Size != tc.size {
					t.Errorf("Violation.Size = %d; want %d", v.Size, tc.size)
				}
				if wantLine := line[:min(len(line), 200)]; string(v.Line) != wantLine {
					t.Errorf("Violation.Line = %q; want %q", v.Line, wantLine)
				}
				for _, part := range []string{
					fmt.Sprintf("exceeds %d bytes", tc.max),
					fmt.Sprintf("(%d bytes)", tc.size),
					`"{\"jsonrpc\":\"2.0\",\"method\":\"pad\"`,
				} {
					if !strings.Contains(v.Msg, part) {
						t.Errorf("Violation.Msg = %q; want it to contain %q", v.Msg, part)
					}
				}
			default:
				if tc.rejected {
					t.Error("no violation reported")
				}
			}
		})
	}
}

func TestInvalidLinesReportedAndSkipped(t *testing.T) {
	long := strings.Repeat("garbage ", 125)
	tests := []struct {
		name, line, want string
	}{
		{"text", "hello world", `not a JSON object: "hello world" (11 bytes)`},
		{"number", "42", "not a JSON object"},
		{"null", "null", "not a JSON object"},
		{"batch", `[{"jsonrpc":"2.0","method":"x"}]`, "batches are not supported"},
		{"no jsonrpc", `{"method":"x"}`, `missing "jsonrpc":"2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","method":"x"}`, `jsonrpc: want "2.0", got string "1.0"`},
		{"truncated", `{"jsonrpc":"2.0","method":"x"`, "invalid JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"x"} x`, "invalid JSON"},
		{"method not a string", `{"jsonrpc":"2.0","method":42}`, "method: want a string, got number 42"},
		{"method null", `{"jsonrpc":"2.0","method":null}`, "method: want a string, got null"},
		{"response id is an object", `{"jsonrpc":"2.0","id":{},"result":1}`, "id: want a number, a string or null, got an object"},
		{"empty object", `{"jsonrpc":"2.0"}`, "neither method nor id"},
		{"unknown id", `{"jsonrpc":"2.0","id":99,"result":1}`, "response to unknown id 99"},
		{"string id we never sent", `{"jsonrpc":"2.0","id":"1","result":1}`, `response to unknown id "1"`},
		{"error without id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, "response to unknown id null"},
		{"long garbage", long, fmt.Sprintf("not a JSON object: %s… (1000 bytes)", strconv.Quote(long[:200]))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			notes := make(chan *Request, 2)
			viol := make(chan Violation, 2)
			_, p := newRawPeer(t, recvNotifications(notes), &Options{OnViolation: func(v Violation) { viol <- v }})
			p.send(tc.line, `{"jsonrpc":"2.0","method":"after"}`)
			if got := recvFrom(t, notes, "the next notification").Method; got != "after" {
				t.Errorf("first handled method = %q; want \"after\"", got)
			}
			select {
			case v := <-viol:
				if !strings.Contains(v.Msg, tc.want) {
					t.Errorf("Violation.Msg = %q; want it to contain %q", v.Msg, tc.want)
				}
				if v.Size != len(tc.line) {
					t.Errorf("Violation.Size = %d; want %d", v.Size, len(tc.line))
				}
				if len(v.Line) > 200 || !strings.HasPrefix(tc.line, string(v.Line)) {
					t.Errorf("Violation.Line = %q; want at most 200 bytes from the start of the line", v.Line)
				}
			default:
				t.Error("no violation reported")
			}
		})
	}
}

// TestInvalidRequestsAnswered: a message with a method and an id that
// cannot be taken as a request (an id that is not a number, a string or
// null; a method that is empty or not a string; no "jsonrpc":"2.0") is
// reported and answered -32600 without reaching the handler, with its id,
// or null when the id cannot be read; the connection goes on.
func TestInvalidRequestsAnswered(t *testing.T) {
	tests := []struct {
		name, line string
		id         string // of the answer
		want       string // in the violation and the answer's message
	}{
		{"id is an object", `{"jsonrpc":"2.0","id":{"n":1},"method":"fs/read_text_file","params":{}}`, `null`, "invalid request: id: want a number, a string or null, got an object"},
		{"id is an array", `{"jsonrpc":"2.0","id":[1],"method":"fs/read_text_file"}`, `null`, "invalid request: id: want a number, a string or null, got an array"},
		{"id is a boolean", `{"jsonrpc":"2.0","id":true,"method":"fs/read_text_file"}`, `null`, "invalid request: id: want a number, a string or null, got boolean true"},
		{"id is an object, no jsonrpc", `{"id":{},"method":"x"}`, `null`, `invalid request: missing "jsonrpc":"2.0"`},
		{"method is empty", `{"jsonrpc":"2.0","id":"e1","method":""}`, `"e1"`, "invalid request: method: empty"},
		{"method is empty, id an object", `{"jsonrpc":"2.0","id":{},"method":""}`, `null`, "invalid request: id: want a number, a string or null, got an object"},
		{"method is null", `{"jsonrpc":"2.0","id":7,"method":null}`, `7`, "invalid request: method: want a string, got null"},
		{"method is a number", `{"jsonrpc":"2.0","id":"r","method":42}`, `"r"`, "invalid request: method: want a string, got number 42"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			notes := make(chan *Request, 2)
			viol := make(chan Violation, 2)
			h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
				if req.Method != "after" {
					t.Errorf("handler called for the invalid request %q", req.Method)
				}
				if req.IsNotification() {
					notes <- req
				}
				return nil, nil
			})
			_, p := newRawPeer(t, h, &Options{OnViolation: func(v Violation) { viol <- v }})
			p.send(tc.line, `{"jsonrpc":"2.0","method":"after"}`, `{"jsonrpc":"2.0","id":"after","method":"after"}`)
			if got := recvFrom(t, notes, "the next notification").Method; got != "after" {
				t.Errorf("first handled method = %q; want \"after\"", got)
			}
			got := p.recv() // the answer to the invalid request, or else the next one's
			var e Error
			if err := json.Unmarshal([]byte(got["error"]), &e); err != nil || got["id"] != tc.id || e.Code != CodeInvalidRequest || e.Message != tc.want {
				t.Fatalf("first answer %v; want error -32600 %q for id %s", got, tc.want, tc.id)
			}
			if got := p.recv(); got["id"] != `"after"` || got["result"] != "null" {
				t.Errorf("second answer %v; want the next request's", got)
			}
			select {
			case v := <-viol:
				if !strings.HasPrefix(v.Msg, tc.want+": ") {
					t.Errorf("Violation.Msg = %q; want it to start with %q", v.Msg, tc.want)
				}
			default:
				t.Error("no violation reported")
			}
		})
	}
}

// TestMalformedLinesAnswered: with AnswerMalformed, a line that is no
// message at all is answered as a JSON-RPC server answers it, once, with id
// null: -32700 when it is not JSON, -32600 when it is JSON but neither a
// request nor a response (a batch among them); a response, even to an
// unknown id or with id null, is never answered. Without it, none is.
func TestMalformedLinesAnswered(t *testing.T) {
	tests := []struct {
		name, line string
		code       int // of the answer; 0 for none
		msg        string
	}{
		{"text", "hello world", CodeParseError, "parse error: the line is not JSON"},
		{"truncated", `{"jsonrpc":"2.0","method":"x"`, CodeParseError, "parse error: the line is not JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"x"} x`, CodeParseError, "parse error: the line is not JSON"},
		{"batch not JSON", `[{"jsonrpc":"2.0","method":"x"},`, CodeParseError, "parse error: the line is not JSON"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"x"},{"jsonrpc":"2.0","id":2,"method":"y"}]`, CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported"},
		{"empty batch", `[]`, CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported"},
		{"number", "42", CodeInvalidRequest, "invalid request: not a JSON object"},
		{"no jsonrpc", `{"method":"x"}`, CodeInvalidRequest, `invalid request: missing "jsonrpc":"2.0"`},
		{"method not a string", `{"jsonrpc":"2.0","method":42}`, CodeInvalidRequest, "invalid request: method: want a string, got number 42"},
		{"empty object", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, "invalid request: neither method nor id"},
		{"unknown id", `{"jsonrpc":"2.0","id":99,"result":1}`, 0, ""},
		{"error with id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, 0, ""},
	}
	for _, answer := range []bool{true, false} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/answer=%v", tc.name, answer), func(t *testing.T) {
				checkLeaks(t)
				viol := make(chan Violation, 2)
				h := HandlerFunc(func(_ context.Context, req *Request) (any, error) { return nil, nil })
				_, p := newRawPeer(t, h, &Options{AnswerMalformed: answer, OnViolation: func(v Violation) { viol <- v }})
				p.send(tc.line, `{"jsonrpc":"2.0","id":"after","method":"after"}`)
				if tc.code != 0 && answer {
					got := p.recv()
					var e Error
					if err := json.Unmarshal([]byte(got["error"]), &e); err != nil || got["id"] != "null" || e.Code != tc.code || e.Message != tc.msg {
						t.Fatalf("first answer %v; want error %d %q with id null", got, tc.code, tc.msg)
					}
				}
				if got := p.recv(); got["id"] != `"after"` || got["result"] != "null" {
					t.Errorf("answer %v; want the next request's", got)
				}
				select {
				case <-viol:
				default:
					t.Error("no violation reported")
				}
			})
		}
	}
}

// TestMessageWithMethodAnswersNoCall: a message with a method member is a
// request or a notification, whatever else it holds. One with the id of
// our pending call and a result or an error is answered as a request and
// leaves the call pending; the real answer after it completes the call.
// Each is reported as a protocol violation, so that what the agent sent is
// on record (the call it meant to answer may never be answered).
func TestMessageWithMethodAnswersNoCall(t *testing.T) {
	tests := []struct {
		name, line string
		code       int // of our answer to it
	}{
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null,"result":{"stopReason":"refusal"}}`, CodeInvalidRequest},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":"","result":{"stopReason":"refusal"}}`, CodeInvalidRequest},
		{"method empty, with an error", `{"jsonrpc":"2.0","id":1,"method":"","error":{"code":-32603,"message":"boom"}}`, CodeInvalidRequest},
		{"method empty, with a malformed error", `{"jsonrpc":"2.0","id":1,"method":"","error":5}`, CodeInvalidRequest},
		{"method named, with a malformed error", `{"jsonrpc":"2.0","id":1,"method":"x","error":5}`, CodeMethodNotFound},
		{"method named, with a result", `{"jsonrpc":"2.0","id":1,"method":"session/update","result":{"stopReason":"refusal"}}`, CodeMethodNotFound},
		{"method named, with an error", `{"jsonrpc":"2.0","id":1,"method":"x","error":{"code":-32603,"message":"boom"}}`, CodeMethodNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			ctx := testCtx(t)
			viol := make(chan Violation, 2)
			c, p := newRawPeer(t, nil, &Options{OnViolation: func(v Violation) { viol <- v }})
			call := c.Call(ctx, "session/prompt", nil)
			p.recv()
			p.send(tc.line, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
			defer func() {
				select {
				case v := <-viol:
					if !strings.HasSuffix(v.Msg, fmt.Sprintf("%q (%d bytes)", tc.line, len(tc.line))) {
						t.Errorf("violation %q; want one about the line", v.Msg)
					}
				default:
					t.Error("no violation reported")
				}
			}()
			var res struct{ StopReason string }
			if err := call.Await(ctx, &res); err != nil || res.StopReason != "end_turn" {
				t.Fatalf("Await = %+v, %v; want the real answer, end_turn", res, err)
			}
			got := p.recv()
			var e Error
			if err := json.Unmarshal([]byte(got["error"]), &e); err != nil || got["id"] != "1" || e.Code != tc.code {
				t.Errorf("answer %v; want error %d for id 1", got, tc.code)
			}
		})
	}
}

// TestEmptyMethodNotification: a notification whose method is "" is a
// notification of a method the handler does not know: handed to it in its
// place, neither answered nor reported.
func TestEmptyMethodNotification(t *testing.T) {
	checkLeaks(t)
	notes := make(chan *Request, 2)
	var violations atomic.Int32
	_, p := newRawPeer(t, recvNotifications(notes), &Options{OnViolation: func(Violation) { violations.Add(1) }})
	p.send(`{"jsonrpc":"2.0","method":"","params":{"a":1}}`, `{"jsonrpc":"2.0","method":"after"}`, `{"jsonrpc":"2.0","id":"r","method":"x"}`)
	if got := recvFrom(t, notes, "a notification"); got.Method != "" || string(got.Params) != `{"a":1}` {
		t.Fatalf("first notification %q %s; want the one with the empty method", got.Method, got.Params)
	}
	if got := recvFrom(t, notes, "the next notification").Method; got != "after" {
		t.Errorf("next notification %q; want \"after\"", got)
	}
	if got := p.recv(); got["id"] != `"r"` { // the first line written
		t.Errorf("first answer %v; want the one to the request \"r\" (nothing to the notification)", got)
	}
	if n := violations.Load(); n != 0 {
		t.Errorf("%d violations; want 0", n)
	}
}

func TestBlankLinesSkipped(t *testing.T) {
	checkLeaks(t)
	notes := make(chan *Request, 2)
	var violations atomic.Int32
	_, p := newRawPeer(t, recvNotifications(notes), &Options{OnViolation: func(Violation) { violations.Add(1) }})
	p.send("", "  \t", "\r", `{"jsonrpc":"2.0","method":"after"}`+"\r")
	if got := recvFrom(t, notes, "a notification").Method; got != "after" {
		t.Errorf("handled %q; want \"after\"", got)
	}
	if n := violations.Load(); n != 0 {
		t.Errorf("%d violations for blank lines; want 0", n)
	}
}

func TestEndOfStream(t *testing.T) {
	t.Run("pending call ends", func(t *testing.T) {
		checkLeaks(t)
		ctx := testCtx(t)
		c, p := newRawPeer(t, nil, &Options{Peer: "agent"})
		call := c.Call(ctx, "session/prompt", nil)
		p.recv()
		p.nc.Close()

		err := call.Await(ctx, nil)
		if !errors.Is(err, ErrClosed) || !errors.Is(err, io.EOF) {
			t.Fatalf("Await = %v; want an error wrapping ErrClosed and io.EOF", err)
		}
		if got, want := err.Error(), "acp: connection closed: agent closed its output (EOF)"; got != want {
			t.Errorf("Await error = %q; want %q", got, want)
		}
		recvFrom(t, c.Done(), "Conn.Done")
		if got := c.Err(); got != err {
			t.Errorf("Err() = %v; want %v", got, err)
		}
		later := c.Call(ctx, "session/prompt", nil)
		select {
		case <-later.Done():
		default:
			t.Fatal("a Call after the end of stream is not done at once")
		}
		if err := later.Await(ctx, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("later Await = %v; want ErrClosed", err)
		}
	})
	t.Run("answer read before the end is delivered", func(t *testing.T) {
		checkLeaks(t)
		ctx := testCtx(t)
		c, p := newRawPeer(t, nil, nil)
		answered := c.Call(ctx, "a", nil)
		unanswered := c.Call(ctx, "b", nil)
		p.recv()
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":1,"result":"ok"}`)
		p.nc.Close()
		var got string
		if err := answered.Await(ctx, &got); err != nil || got != "ok" {
			t.Errorf("answered call: Await = %q, %v; want \"ok\", nil", got, err)
		}
		if err := unanswered.Await(ctx, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("unanswered call: Await = %v; want ErrClosed", err)
		}
	})
}

func TestAwaitAgainAfterContextEnds(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	c, p := newRawPeer(t, nil, nil)
	call := c.Call(ctx, "session/prompt", nil)
	p.recv()

	errGrace := errors.New("grace period over")
	cancelled, cancel := context.WithCancelCause(ctx)
	cancel(errGrace)
	if err := call.Await(cancelled, nil); !errors.Is(err, errGrace) {
		t.Fatalf("Await with a cancelled ctx = %v; want %v", err, errGrace)
	}
	expired, cancel2 := context.WithTimeout(ctx, -time.Second)
	defer cancel2()
	if err := call.Await(expired, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Await with an expired ctx = %v; want DeadlineExceeded", err)
	}
	select {
	case <-call.Done():
		t.Fatal("call done before its answer")
	default:
	}

	p.send(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`)
	var got struct {
		StopReason string `json:"stopReason"`
	}
	if err := call.Await(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got.StopReason != "cancelled" {
		t.Errorf("stopReason = %q; want \"cancelled\"", got.StopReason)
	}
	// The answer stays available.
	if err := call.Await(cancelled, nil); err != nil {
		t.Errorf("Await after the answer with a cancelled ctx = %v; want nil", err)
	}
}

func TestMethodNotFound(t *testing.T) {
	t.Run("nil handler", func(t *testing.T) {
		checkLeaks(t)
		_, p := newRawPeer(t, nil, nil)
		p.send(
			`{"jsonrpc":"2.0","method":"session/update","params":{}}`, // dropped, never answered
			`{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{}}`,
		)
		want := map[string]string{
			"jsonrpc": `"2.0"`, "id": `5`,
			"error": `{"code":-32601,"message":"Method not found: fs/read_text_file"}`,
		}
		if diff := cmp.Diff(want, p.recv()); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
	t.Run("handler says so", func(t *testing.T) {
		checkLeaks(t)
		ctx := testCtx(t)
		a, _ := connPair(t, nil, HandlerFunc(func(_ context.Context, req *Request) (any, error) {
			return nil, MethodNotFound(req.Method)
		}))
		err := a.Call(ctx, "terminal/create", nil).Await(ctx, nil)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeMethodNotFound {
			t.Fatalf("Await = %v; want *Error with code %d", err, CodeMethodNotFound)
		}
	})
}

func TestHandlerResults(t *testing.T) {
	tests := []struct {
		name   string
		result any
		err    error
		want   map[string]string
	}{
		{
			name: "plain error", err: errors.New("boom"),
			want: map[string]string{"error": `{"code":-32603,"message":"boom"}`},
		},
		{
			name: "wrapped *Error", err: fmt.Errorf("read: %w", NewError(CodeResourceNotFound, "no such file %s", "/x")),
			want: map[string]string{"error": `{"code":-32002,"message":"no such file /x"}`},
		},
		{
			name: "error with data", err: &Error{Code: CodeInvalidParams, Message: "bad <params>", Data: json.RawMessage(`{ "field": "cwd" }`)},
			want: map[string]string{"error": `{"code":-32602,"message":"bad <params>","data":{"field":"cwd"}}`},
		},
		{
			name: "nil result",
			want: map[string]string{"result": `null`},
		},
		{
			name: "struct result", result: struct {
				StopReason string `json:"stopReason"`
			}{"end_turn"},
			want: map[string]string{"result": `{"stopReason":"end_turn"}`},
		},
		{
			name: "result that does not marshal", result: func() {},
			want: map[string]string{"error": `{"code":-32603,"message":"marshal result: json: unsupported type: func()"}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			_, p := newRawPeer(t, HandlerFunc(func(context.Context, *Request) (any, error) {
				return tc.result, tc.err
			}), nil)
			p.send(`{"jsonrpc":"2.0","id":"r1","method":"m"}`)
			want := map[string]string{"jsonrpc": `"2.0"`, "id": `"r1"`}
			for k, v := range tc.want {
				want[k] = v
			}
			if diff := cmp.Diff(want, p.recv()); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorAnswerIsError(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	c, p := newRawPeer(t, nil, nil)
	call := c.Call(ctx, "session/new", nil)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Authentication required","data":{"x":1}}}`)
	err := call.Await(ctx, nil)
	want := &Error{Code: CodeAuthRequired, Message: "Authentication required", Data: json.RawMessage(`{"x":1}`)}
	var got *Error
	if !errors.As(err, &got) {
		t.Fatalf("Await = %v; want *Error", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// markerRead returns Options whose Tap closes marker once the reader has
// read the line "marker": what the peer sent before it has been read.
func markerRead() (opts *Options, marker <-chan struct{}) {
	read := make(chan struct{})
	return &Options{Tap: func(dir Direction, line []byte, _ time.Time) {
		if dir == Received && string(line) == "marker" {
			close(read)
		}
	}}, read
}

func TestBarrier(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	const n = 1000
	gate := make(chan struct{})
	var handled atomic.Int64
	h := HandlerFunc(func(ctx context.Context, _ *Request) (any, error) {
		if handled.Load() == 0 {
			select { // hold the first notification until the answer has been read
			case <-gate:
			case <-ctx.Done():
			}
		}
		handled.Add(1)
		return nil, nil
	})
	opts, marker := markerRead()
	c, p := newRawPeer(t, h, opts)
	call := c.Call(ctx, "session/prompt", nil)
	p.recv()
	for i := range n {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"i":%d}}`, i))
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, "marker")
	recvFrom(t, marker, "the marker line") // the answer has been read and queued
	select {
	case <-call.Done():
		t.Fatal("call done while earlier notifications are unhandled")
	default:
	}
	close(gate)
	if err := call.Await(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := handled.Load(); got != n {
		t.Errorf("handled %d notifications when Await returned; want %d", got, n)
	}
}

func TestCloseWaitsForEverything(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	started := make(chan string, 2)
	var exited atomic.Int32
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		defer exited.Add(1)
		Async(ctx) // it waits: the notification behind it goes on
		started <- req.Method
		<-ctx.Done()
		return nil, context.Cause(ctx)
	})
	c, p := newRawPeer(t, h, nil)
	pending := c.Call(ctx, "session/prompt", nil)
	p.recv()
	p.send(
		`{"jsonrpc":"2.0","id":1,"method":"request"}`,
		`{"jsonrpc":"2.0","method":"notification"}`,
	)
	recvFrom(t, started, "a handler")
	recvFrom(t, started, "the other handler")

	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { c.Close() })
	}
	wg.Wait()

	if got := exited.Load(); got != 2 {
		t.Errorf("%d handlers returned before Close did; want 2", got)
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done not closed after Close")
	}
	if err := pending.Await(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("pending Await = %v; want ErrClosed", err)
	}
	if err := c.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("Err() = %v; want ErrClosed", err)
	}
	if err := c.Call(ctx, "x", nil).Await(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Close: Await = %v; want ErrClosed", err)
	}
	if err := c.Notify(ctx, "x", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after Close = %v; want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

func TestWriteErrorFailsAtOnce(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewConn(pr, brokenWriter{}, nil, &Options{Peer: "agent"})
	defer c.Close()

	call := c.Call(ctx, "initialize", nil)
	select {
	case <-call.Done():
	default:
		t.Fatal("call not done after a failed write")
	}
	err := call.Await(ctx, nil)
	if !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Await = %v; want EPIPE", err)
	}
	if got, want := err.Error(), "acp: write to agent: broken pipe"; got != want {
		t.Errorf("Await error = %q; want %q", got, want)
	}
	if err := c.Notify(ctx, "session/cancel", nil); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Notify = %v; want EPIPE", err)
	}
}

func TestCallFailsBeforeSending(t *testing.T) {
	cancelled, cancel := context.WithCancelCause(context.Background())
	errStop := errors.New("stop")
	cancel(errStop)
	tests := []struct {
		name   string
		ctx    context.Context
		params any
		want   string
	}{
		{"cancelled context", cancelled, nil, "stop"},
		{"params that do not marshal", context.Background(), make(chan int), "acp: m params: json: unsupported type: chan int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			ctx := testCtx(t)
			c, p := newRawPeer(t, nil, nil)
			call := c.Call(tc.ctx, "m", tc.params)
			select {
			case <-call.Done():
			default:
				t.Fatal("call not done at once")
			}
			if err := call.Await(ctx, nil); err == nil || err.Error() != tc.want {
				t.Errorf("Await = %v; want %q", err, tc.want)
			}
			// Nothing was written: the next line is the next message.
			if err := c.Notify(ctx, "next", nil); err != nil {
				t.Fatal(err)
			}
			if got := p.recv()["method"]; got != `"next"` {
				t.Errorf("next line has method %s; want \"next\"", got)
			}
		})
	}
}

func TestTap(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	type tapped struct {
		Dir  Direction
		Line string
	}
	var mu sync.Mutex
	var got []tapped
	notes := make(chan *Request, 1)
	c, p := newRawPeer(t, recvNotifications(notes), &Options{Tap: func(dir Direction, line []byte, at time.Time) {
		if at.IsZero() {
			t.Error("Tap got a zero time")
		}
		mu.Lock()
		got = append(got, tapped{dir, string(line)})
		mu.Unlock()
	}})
	if err := c.Notify(ctx, "hello", map[string]string{"html": "<b>&"}); err != nil {
		t.Fatal(err)
	}
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"world"}`)
	recvFrom(t, notes, "a notification")

	want := []tapped{
		{Sent, `{"jsonrpc":"2.0","method":"hello","params":{"html":"<b>&"}}`},
		{Written, `{"jsonrpc":"2.0","method":"hello","params":{"html":"<b>&"}}`},
		{Received, `{"jsonrpc":"2.0","method":"world"}`},
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tapped lines (-want +got):\n%s", diff)
	}
}

// TestTapWriteFailed: a line whose write fails (the peer closed its
// input: EPIPE) is tapped Unsent after Sent, never Written, so that a
// transcript can leave out what the peer never got.
func TestTapWriteFailed(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	inR, inW, err := os.Pipe() // the peer's stdin, closed at once
	if err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outR, outW, err := os.Pipe() // the peer's stdout, silent
	if err != nil {
		t.Fatal(err)
	}
	defer outW.Close()
	var mu sync.Mutex
	var got []Direction
	c := NewConn(outR, inW, nil, &Options{Tap: func(dir Direction, line []byte, _ time.Time) {
		if string(line) != `{"jsonrpc":"2.0","method":"hello"}` {
			t.Errorf("tapped %s %q; want the line written", dir, line)
		}
		mu.Lock()
		got = append(got, dir)
		mu.Unlock()
	}})
	defer c.Close()
	if err := c.Notify(ctx, "hello", nil); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Notify = %v; want EPIPE", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]Direction{Sent, Unsent}, got); diff != "" {
		t.Errorf("taps (-want +got):\n%s", diff)
	}
}

// TestIDKey: an answer matches its request by the id's value for a
// string (however escaped) and by its text for a number; null matches
// nothing.
func TestIDKey(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`1`, `n1`, true},
		{` 1 `, `n1`, true},
		{`1.0`, `n1.0`, true},
		{`"1"`, `s1`, true},
		{`"\u0031"`, `s1`, true},
		{`null`, ``, false},
	}
	for _, tc := range tests {
		var id ID
		if err := json.Unmarshal([]byte(tc.in), &id); err != nil {
			t.Fatalf("Unmarshal(%q): %v", tc.in, err)
		}
		if got, ok := id.Key(); got != tc.want || ok != tc.ok {
			t.Errorf("Key of %s = %q, %t; want %q, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := (ID{}).Key(); ok {
		t.Error("the zero ID has a key; want none (null)")
	}
}

func TestIDJSON(t *testing.T) {
	tests := []struct {
		in, want string // want "" means an error
	}{
		{`1`, `1`},
		{` 7 `, `7`},
		{`"abc"`, `"abc"`},
		{`null`, `null`},
		{`-2.5`, `-2.5`},
		{`{}`, ``},
		{`[1]`, ``},
		{`true`, ``},
		{`"unterminated`, ``},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var id ID
			err := json.Unmarshal([]byte(tc.in), &id)
			if tc.want == "" {
				if err == nil {
					t.Errorf("Unmarshal(%q) = %s; want an error", tc.in, id)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%q): %v", tc.in, err)
			}
			out, err := json.Marshal(id)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want || id.String() != tc.want {
				t.Errorf("round trip of %q = %s (String %s); want %s", tc.in, out, id, tc.want)
			}
		})
	}
	if got := (ID{}).String(); got != "null" {
		t.Errorf("zero ID = %s; want null", got)
	}
}

// compacted returns m with its raw members compacted, as Conn sends them.
func compacted(t *testing.T, m message) message {
	t.Helper()
	compact := func(raw json.RawMessage) json.RawMessage {
		if raw == nil {
			return nil
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			t.Fatalf("decoded member %q is not valid JSON: %v", raw, err)
		}
		return b.Bytes()
	}
	m.Params, m.Result = compact(m.Params), compact(m.Result)
	if m.Error != nil {
		e := *m.Error
		e.Data = compact(e.Data)
		m.Error = &e
	}
	return m
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi\n"}]}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}`,
		`{"jsonrpc":"2.0","id":"uuid-1","result":null}`,
		`{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found","data":{ "method" : "x" }}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"a": [1, 2.5e3, "\u00e9"]},"error":null}`,
		`[{"jsonrpc":"2.0"}]`,
		`{"jsonrpc":"2.0","method":"\u2028<x>"}`,
		`{"jsonrpc":"2.0","method":""}`,
		`{"jsonrpc":"2.0","id":{"n":1},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":null,"result":{}}`,
		`not json`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := decode(line)
		if err != nil || m.Method == "" && m.isRequest() {
			return // an empty method is read (a notification), never sent
		}
		m = compacted(t, m)
		encode := func(m message) []byte {
			w := newWriter()
			out := outgoing{ID: m.ID, Method: m.Method, Params: m.Params, Error: m.Error}
			if m.Result != nil {
				out.Result = m.Result
			}
			line, err := w.line(&out)
			if err != nil {
				t.Fatalf("encode(decode(%q)) = %v", line, err)
			}
			return bytes.Clone(line)
		}
		enc := encode(m)
		if i := bytes.IndexByte(enc, '\n'); i != len(enc)-1 {
			t.Fatalf("encoding %q is not one line", enc)
		}
		m2, err := decode(enc)
		if err != nil {
			t.Fatalf("decode(encode(decode(%q))) = %v; encoded as %q", line, err, enc)
		}
		if diff := cmp.Diff(m, m2, cmp.AllowUnexported(message{})); diff != "" {
			t.Fatalf("round trip of %q changed the message (-first +second):\n%s", line, diff)
		}
		if enc2 := encode(m2); !bytes.Equal(enc, enc2) {
			t.Fatalf("second encoding %q differs from first %q", enc2, enc)
		}
	})
}

// gatedCounter is a handler that counts notifications and holds the first
// one until the gate opens, so that a test can fill the queue behind it.
type gatedCounter struct {
	gate    chan struct{}
	handled atomic.Int64
}

func newGatedCounter() *gatedCounter { return &gatedCounter{gate: make(chan struct{})} }

func (g *gatedCounter) Handle(ctx context.Context, req *Request) (any, error) {
	if !req.IsNotification() {
		return nil, MethodNotFound(req.Method)
	}
	if g.handled.Load() == 0 {
		select {
		case <-g.gate:
		case <-ctx.Done():
		}
	}
	g.handled.Add(1)
	return nil, nil
}

// notification returns the i-th session/update line of a test.
func notification(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"i":%d}}`, i)
}

// TestPendingCallsEndAfterQueuedMessages: at the end of the stream, a
// pending call ends only after every message read before the end has been
// dispatched, so the updates an agent sent before it crashed are handled
// before its prompt call fails. A call made while the queue drains ends in
// the same order, without being written.
func TestPendingCallsEndAfterQueuedMessages(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	const n = 100
	h := newGatedCounter()
	c, p := newRawPeer(t, h, &Options{Peer: "agent"})
	call := c.Call(ctx, "session/prompt", nil)
	p.recv()
	for i := range n {
		p.send(notification(i))
	}
	p.nc.Close()
	recvFrom(t, c.ReadDone(), "the reader to stop")
	// Everything is read and queued; the first notification is still held.
	select {
	case <-call.Done():
		t.Fatal("pending call ended before the notifications read before the end were handled")
	default:
	}
	late := c.Call(ctx, "session/cancel", nil)
	select {
	case <-late.Done():
		t.Fatal("call made while the queue drains ended before it drained")
	default:
	}

	close(h.gate)
	err := call.Await(ctx, nil)
	if got := h.handled.Load(); got != n {
		t.Errorf("handled %d notifications when Await returned; want all %d", got, n)
	}
	if !errors.Is(err, ErrClosed) || !errors.Is(err, io.EOF) {
		t.Errorf("Await = %v; want an error wrapping ErrClosed and io.EOF", err)
	}
	// Not a write error: the late call was never written to the closed pipe.
	if err := late.Await(ctx, nil); !errors.Is(err, io.EOF) {
		t.Errorf("late Await = %v; want the end of stream", err)
	}
	recvFrom(t, c.Done(), "Conn.Done")
	if got := c.Dropped(); got != 0 {
		t.Errorf("Dropped() = %d; want 0", got)
	}
}

// TestBacklogDispatchedAfterEOF: an agent that writes a large backlog and
// exits gets every message dispatched, in order. 20,001 messages (3 MB)
// are five times what the reader queues (maxQueued) and far more than the
// pipe holds; e2e's TestBacklogIsNotLost sends 300,001 through the built
// binary.
func TestBacklogDispatchedAfterEOF(t *testing.T) {
	checkLeaks(t)
	const n = 20_001
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer pw.Close()
		var b []byte
		for i := range n {
			b = append(b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `"}}}}`+"\n"...)
			if len(b) >= 64<<10 || i == n-1 {
				if _, err := pw.Write(b); err != nil {
					return
				}
				b = b[:0]
			}
		}
	}()
	count, misordered := 0, 0
	var want []byte
	h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		want = strconv.AppendInt(append(want[:0], `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`...), int64(count), 10)
		want = append(want, `"}}}`...)
		if !bytes.Equal(req.Params, want) {
			misordered++
		}
		count++
		return nil, nil
	})
	c := NewConn(pr, io.Discard, h, nil)
	recvFrom(t, c.Done(), "the backlog to be dispatched")
	c.Close()
	if count != n || misordered != 0 {
		t.Errorf("dispatched %d notifications (%d not in order); want %d in order", count, misordered, n)
	}
	if got := c.Dropped(); got != 0 {
		t.Errorf("Dropped() = %d; want 0", got)
	}
}

// TestStopReadingDispatchesWhatWasRead: when the stream does not end (a
// grandchild holds the agent's stdout), StopReading ends reading without
// dropping what was read: the queue is dispatched, then pending calls end.
func TestStopReadingDispatchesWhatWasRead(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	const n = 50
	inR, inW, err := os.Pipe() // the agent's stdin
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // the agent's stdout, held open
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, inR)
	var tapped atomic.Int64
	allRead := make(chan struct{})
	var mu sync.Mutex
	var violations []string
	h := newGatedCounter()
	c := NewConn(outR, inW, h, &Options{
		Peer: "agent",
		Tap: func(dir Direction, _ []byte, _ time.Time) {
			if dir == Received && tapped.Add(1) == n {
				close(allRead)
			}
		},
		OnViolation: func(v Violation) {
			mu.Lock()
			violations = append(violations, v.Msg)
			mu.Unlock()
		},
	})
	t.Cleanup(func() {
		c.Close()
		outW.Close()
		inR.Close()
	})
	call := c.Call(ctx, "session/prompt", nil)
	var lines strings.Builder
	for i := range n - 1 {
		lines.WriteString(notification(i) + "\n")
	}
	if _, err := io.WriteString(outW, lines.String()); err != nil {
		t.Fatal(err)
	}
	// The last line and the start of one more in a single write: when the
	// last line is read, so is the start of the next.
	if _, err := io.WriteString(outW, notification(n-1)+"\n"+`{"jsonrpc":"2.0","method":"sess`); err != nil {
		t.Fatal(err)
	}
	recvFrom(t, allRead, "every line to be read")

	c.StopReading()
	c.StopReading()
	recvFrom(t, c.ReadDone(), "the reader to stop")
	select {
	case <-call.Done():
		t.Fatal("pending call ended before the messages already read were dispatched")
	default:
	}
	close(h.gate)
	err = call.Await(ctx, nil)
	if got := h.handled.Load(); got != n {
		t.Errorf("handled %d notifications when Await returned; want all %d", got, n)
	}
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "reading from agent was stopped") {
		t.Errorf("Await = %v; want an error wrapping ErrClosed that says reading was stopped", err)
	}
	recvFrom(t, c.Done(), "Conn.Done")
	if got := c.Err(); got != err {
		t.Errorf("Err() = %v; want %v", got, err)
	}
	// Writing goes on until Close.
	if err := c.Notify(ctx, "session/cancel", nil); err != nil {
		t.Errorf("Notify after StopReading = %v; want nil", err)
	}
	var wg sync.WaitGroup
	wg.Go(c.StopReading)
	wg.Go(func() { c.Close() })
	wg.Wait()
	if got := c.Dropped(); got != 0 {
		t.Errorf("Dropped() = %d; want 0", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(violations) != 1 || !strings.Contains(violations[0], "stopped in the middle of a line") ||
		!strings.Contains(violations[0], `"{\"jsonrpc\":\"2.0\",\"method\":\"sess"`) {
		t.Errorf("violations = %q; want one for the line cut short", violations)
	}
}

// TestStopReadingPlainReader: a reader that can be neither closed nor given a
// deadline stops once its pending Read returns, and what that Read brought
// is still dispatched.
func TestStopReadingPlainReader(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	pr, pw := io.Pipe()
	reads := make(chan struct{}, 3)
	r := readerFunc(func(p []byte) (int, error) {
		reads <- struct{}{}
		return pr.Read(p)
	})
	notes := make(chan *Request, 3)
	c := NewConn(r, io.Discard, recvNotifications(notes), nil)
	t.Cleanup(func() {
		pw.Close()
		c.Close()
	})
	recvFrom(t, reads, "the first Read")
	io.WriteString(pw, notification(0)+"\n")
	recvFrom(t, reads, "the second Read")
	c.StopReading() // the reader is in a Read nothing can interrupt
	io.WriteString(pw, notification(1)+"\n")
	if got := string(recvFrom(t, notes, "the first notification").Params); got != `{"i":0}` {
		t.Errorf("first notification params = %s; want {\"i\":0}", got)
	}
	recvFrom(t, c.Done(), "Conn.Done")
	if got := string(recvFrom(t, notes, "the second notification").Params); got != `{"i":1}` {
		t.Errorf("second notification params = %s; want {\"i\":1}", got)
	}
	if err := c.Err(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("Err() = %v; want reading stopped", err)
	}
	if err := c.Call(ctx, "x", nil).Await(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Done: Await = %v; want ErrClosed", err)
	}
}

// readerFunc adapts a function to io.Reader (and nothing else).
type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestCloseCountsDropped: Close drops what is not yet dispatched, and says
// how much.
func TestCloseCountsDropped(t *testing.T) {
	checkLeaks(t)
	started := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if string(req.Params) == `{"i":0}` {
			close(started)
			<-ctx.Done() // until Close
		}
		return nil, nil
	})
	c, p := newRawPeer(t, h, nil)
	for i := range 6 {
		p.send(notification(i))
	}
	p.nc.Close()
	recvFrom(t, c.ReadDone(), "the reader to stop")
	recvFrom(t, started, "the first handler")
	c.Close()
	if got := c.Dropped(); got != 5 {
		t.Errorf("Dropped() = %d; want the 5 messages queued behind the running handler", got)
	}
}

// TestNewCallWritesNothingUntilSend: NewCall registers the call, Send writes
// it, and a second Send writes nothing.
func TestNewCallWritesNothingUntilSend(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	c, p := newRawPeer(t, nil, nil)
	call := c.NewCall("session/prompt", map[string]string{"sessionId": "s"})
	if got := call.ID().String(); got != "1" {
		t.Errorf("ID() = %s; want 1", got)
	}
	if err := c.Notify(ctx, "before", nil); err != nil {
		t.Fatal(err)
	}
	if got := p.recv()["method"]; got != `"before"` {
		t.Fatalf("first line has method %s; want \"before\" (NewCall must not write)", got)
	}
	c.Send(ctx, call)
	want := map[string]string{"jsonrpc": `"2.0"`, "id": `1`, "method": `"session/prompt"`, "params": `{"sessionId":"s"}`}
	if diff := cmp.Diff(want, p.recv()); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":"ok"}`)
	var got string
	if err := call.Await(ctx, &got); err != nil || got != "ok" {
		t.Errorf("Await = %q, %v; want \"ok\", nil", got, err)
	}
	c.Send(ctx, call)
	if err := c.Notify(ctx, "after", nil); err != nil {
		t.Fatal(err)
	}
	if got := p.recv()["method"]; got != `"after"` {
		t.Errorf("line after a second Send has method %s; want \"after\"", got)
	}
	for _, tc := range []struct {
		name   string
		params any
		want   string
	}{
		{"params that do not marshal", func() {}, "acp: m params: json: unsupported type: func()"},
	} {
		call := c.NewCall("m", tc.params)
		select {
		case <-call.Done():
		default:
			t.Fatalf("%s: call not done at once", tc.name)
		}
		if err := call.Await(ctx, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s: Await = %v; want %q", tc.name, err, tc.want)
		}
	}
	c.Close()
	closed := c.NewCall("m", nil)
	select {
	case <-closed.Done():
	default:
		t.Fatal("NewCall on a closed Conn: call not done at once")
	}
	if err := closed.Await(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("NewCall on a closed Conn: Await = %v; want ErrClosed", err)
	}
}

// handoffWriter hands each write to the test and returns only once the test
// releases it.
type handoffWriter struct {
	lines   chan []byte
	release chan struct{}
}

func (w *handoffWriter) Write(p []byte) (int, error) {
	w.lines <- bytes.Clone(p)
	<-w.release
	return len(p), nil
}

// TestAnswerWhileSendWrites: the answer to a call can be dispatched, and
// Await return, while Send is still writing it.
func TestAnswerWhileSendWrites(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	pr, pw := io.Pipe()
	w := &handoffWriter{lines: make(chan []byte, 1), release: make(chan struct{})}
	c := NewConn(pr, w, nil, nil)
	t.Cleanup(func() {
		pw.Close()
		c.Close()
	})
	call := c.NewCall("session/prompt", nil)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		c.Send(ctx, call)
	}()
	recvFrom(t, w.lines, "the request")
	io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`+"\n")
	if err := call.Await(ctx, nil); err != nil {
		t.Fatalf("Await = %v; want the answer", err)
	}
	select {
	case <-sent:
		t.Fatal("Send returned before its write did")
	default:
	}
	close(w.release)
	recvFrom(t, sent, "Send to return")
}

// TestRequestsHandledBeforeLaterAnswer: each request is handled (up to
// its Async) in stream order, before the answer read after it completes
// our call; an invalid request is answered without reaching the handler.
func TestRequestsHandledBeforeLaterAnswer(t *testing.T) {
	checkLeaks(t)
	ctx := testCtx(t)
	var log []string // appended in order, on the dispatching goroutines
	var mu sync.Mutex
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.IsNotification() {
			return nil, nil
		}
		mu.Lock()
		log = append(log, req.Method)
		mu.Unlock()
		Async(ctx)
		<-release
		return nil, nil
	})
	c, p := newRawPeer(t, h, nil)
	call := c.Call(ctx, "session/prompt", nil)
	p.recv()
	p.send(
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`,
		`{"id":"bad","method":"fs/read_text_file"}`, // invalid: answered -32600, not handled
		`{"jsonrpc":"2.0","id":"r1","method":"session/request_permission","params":{}}`,
		`{"jsonrpc":"2.0","id":"r2","method":"fs/read_text_file","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	)
	if err := call.Await(ctx, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := slices.Clone(log)
	mu.Unlock()
	if diff := cmp.Diff([]string{"session/request_permission", "fs/read_text_file"}, got); diff != "" {
		t.Errorf("requests handled when Await returned (-want +got):\n%s", diff)
	}
	if got := p.recv(); got["id"] != `"bad"` || !strings.Contains(got["error"], "-32600") {
		t.Errorf("first answer %v; want -32600 for the invalid request", got)
	}
	close(release)
	for range 2 {
		p.recv()
	}
}

// TestInvalidUTF8Replaced: invalid UTF-8 from the peer is replaced before
// anything sees the line, and reported once per line.
func TestInvalidUTF8Replaced(t *testing.T) {
	checkLeaks(t)
	var mu sync.Mutex
	var tapped []string
	var violations []Violation
	notes := make(chan *Request, 2)
	_, p := newRawPeer(t, recvNotifications(notes), &Options{
		Tap: func(dir Direction, line []byte, _ time.Time) {
			mu.Lock()
			tapped = append(tapped, string(line))
			mu.Unlock()
		},
		OnViolation: func(v Violation) {
			mu.Lock()
			violations = append(violations, v)
			mu.Unlock()
		},
	})
	p.send("{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"text\":\"a\xff\xfeb\",\"t2\":\"\xc3\"}}")
	p.send(`{"jsonrpc":"2.0","method":"after","params":{"text":"é"}}`)
	req := recvFrom(t, notes, "the notification")
	if got, want := string(req.Params), `{"text":"a`+"\uFFFD"+`b","t2":"`+"\uFFFD"+`"}`; got != want {
		t.Errorf("params = %q; want %q", got, want)
	}
	recvFrom(t, notes, "the next notification")
	mu.Lock()
	defer mu.Unlock()
	for _, l := range tapped {
		if !utf8.ValidString(l) {
			t.Errorf("tapped invalid UTF-8: %q", l)
		}
	}
	if len(violations) != 1 {
		t.Fatalf("violations = %v; want one", violations)
	}
	v := violations[0]
	if !strings.Contains(v.Msg, "invalid UTF-8 replaced with U+FFFD: 3 bytes, the first at byte 62") || !utf8.Valid(v.Line) || !utf8.ValidString(v.Msg) {
		t.Errorf("violation %q (line %q); want the 3 bytes counted, all valid UTF-8", v.Msg, v.Line)
	}
}

// TestMalformedAnswerFailsItsCall: an answer to a pending call that is not
// a valid response (no or a wrong "jsonrpc", neither result nor error, a
// bad error object) fails that call at once with an InvalidAnswerError
// saying why, and is reported as a violation; it does not leave the call
// waiting for an answer that already came.
func TestMalformedAnswerFailsItsCall(t *testing.T) {
	tests := []struct{ name, line, want string }{
		{"no jsonrpc", `{"id":1,"result":{"stopReason":"end_turn"}}`, `missing "jsonrpc":"2.0"`},
		{"jsonrpc 2.1", `{"jsonrpc":"2.1","id":1,"result":{}}`, `jsonrpc: want "2.0", got string "2.1"`},
		{"jsonrpc a number", `{"jsonrpc":2,"id":1,"error":{"code":1,"message":"x"}}`, `jsonrpc: want "2.0", got number 2`},
		{"no jsonrpc and no result", `{"id":1}`, `missing "jsonrpc":"2.0"`},
		{"neither result nor error", `{"jsonrpc":"2.0","id":1}`, "response has neither result nor error"},
		{"bad error object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, `invalid error object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			ctx := testCtx(t)
			viol := make(chan Violation, 2)
			c, p := newRawPeer(t, nil, &Options{OnViolation: func(v Violation) { viol <- v }})
			call := c.Call(ctx, "session/prompt", nil)
			p.recv()
			p.send(tc.line)
			err := call.Await(ctx, nil)
			var ia *InvalidAnswerError
			if !errors.As(err, &ia) || ia.Method != "session/prompt" || !strings.Contains(ia.Problem, tc.want) {
				t.Errorf("Await = %v; want an InvalidAnswerError of session/prompt saying %q", err, tc.want)
			}
			v := recvFrom(t, viol, "the violation")
			if !strings.Contains(v.Msg, "invalid JSON-RPC response: "+tc.want) {
				t.Errorf("Violation.Msg = %q; want it to say %q", v.Msg, tc.want)
			}
		})
	}
}

// TestReusedRequestID: a request with the id of one of the peer's requests
// not answered yet is a violation, reported in its place, and both are
// answered, in the order they came; an id whose request was answered, or
// that differs only in its JSON type ("5" and 5), is no reuse.
func TestReusedRequestID(t *testing.T) {
	checkLeaks(t)
	secondRead := make(chan struct{})
	var once sync.Once
	viol := make(chan Violation, 8)
	var mu sync.Mutex
	var handled []string
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		mu.Lock()
		handled = append(handled, req.Method)
		mu.Unlock()
		if req.Method == "first" {
			<-secondRead // the reuse is read before this answer is written
		}
		return req.Method, nil
	})
	opts := &Options{
		OnViolation: func(v Violation) { viol <- v },
		Tap: func(dir Direction, line []byte, _ time.Time) {
			if dir == Received && strings.Contains(string(line), `"second"`) {
				once.Do(func() { close(secondRead) })
			}
		},
	}
	_, p := newRawPeer(t, h, opts)
	p.send(`{"jsonrpc":"2.0","id":5,"method":"first"}`, `{"jsonrpc":"2.0","id":5,"method":"second"}`)
	for _, want := range []string{`"first"`, `"second"`} {
		if got := p.recv(); got["id"] != "5" || got["result"] != want {
			t.Errorf("answer %v; want id 5 with result %s", got, want)
		}
	}
	v := recvFrom(t, viol, "the violation")
	const want = `request "second" reuses id 5, that of a request not answered yet: both are answered, in the order they came, but a transcript of them cannot be replayed: "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"second\"}"`
	if !strings.HasPrefix(v.Msg, want) {
		t.Errorf("Violation.Msg = %q; want it to start with %q", v.Msg, want)
	}

	// Answered, an id may be used again; "5" is not 5.
	p.send(`{"jsonrpc":"2.0","id":5,"method":"third"}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":"5","method":"fourth"}`, `{"jsonrpc":"2.0","id":5,"method":"fifth"}`)
	p.recv()
	p.recv()
	select {
	case v := <-viol:
		t.Errorf("unexpected violation %q", v.Msg)
	default:
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"first", "second", "third", "fourth", "fifth"}, handled); diff != "" {
		t.Errorf("handled (-want +got):\n%s", diff)
	}
}
