package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sendLong writes to the Conn the line head, n bytes of x, then tail,
// without holding it: it takes no memory of its length.
func (p *rawPeer) sendLong(head string, n int, tail string) {
	p.t.Helper()
	chunk := []byte(strings.Repeat("x", 64<<10))
	if _, err := io.WriteString(p.nc, head); err != nil {
		p.t.Fatalf("peer write: %v", err)
	}
	for n > 0 {
		k, err := p.nc.Write(chunk[:min(n, len(chunk))])
		if err != nil {
			p.t.Fatalf("peer write: %v", err)
		}
		n -= k
	}
	p.send(tail)
}

// answerPings answers each request with its method and records each
// notification's method in notes.
func answerPings(notes chan<- string) Handler {
	return HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		if req.IsNotification() {
			notes <- req.Method
			return nil, nil
		}
		return req.Method, nil
	})
}

func TestLongRequestAnswered(t *testing.T) {
	const max = 1000
	tests := []struct {
		name       string
		head, tail string
		n          int
		id         string // of the answer to the long line; "" for none
		violation  string
	}{
		{
			name: "request, its id first",
			head: `{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"path":"/a","content":"`, n: 300_000, tail: `"}}`,
			id:        "7",
			violation: `line exceeds 1000 bytes; request "fs/write_text_file" (id 7) answered -32600, not handled: "{\"jsonrpc\"`,
		},
		{
			name: "request, its id after params of short tokens",
			head: `{"jsonrpc":"2.0","params":["` + strings.Repeat(`xxxxxxxx","`, 30_000), n: 8, tail: `"],"method":"m","id":"a"}`,
			id:        `"a"`,
			violation: `line exceeds 1000 bytes; request "m" (id "a") answered -32600, not handled`,
		},
		{
			name: "request with an id that is no id",
			head: `{"jsonrpc":"2.0","id":{},"method":"m","params":"`, n: 2000, tail: `"}`,
			id:        "null",
			violation: `line exceeds 1000 bytes; request "m" (id null) answered -32600, not handled`,
		},
		{
			name: "request, its id after a string too long to hold",
			head: `{"jsonrpc":"2.0","method":"m","params":"`, n: 300_000, tail: `","id":8}`,
			violation: `line exceeds 1000 bytes; skipped`,
		},
		{
			name: "notification",
			head: `{"jsonrpc":"2.0","method":"session/update","params":"`, n: 300_000, tail: `"}`,
			violation: `line exceeds 1000 bytes; skipped`,
		},
		{
			name: "not JSON",
			head: `{"id":9,"method" x`, n: 2000, tail: ``,
			violation: `line exceeds 1000 bytes; skipped`,
		},
		{
			name: "not an object",
			head: `[{"jsonrpc":"2.0","id":9,"method":"m","params":"`, n: 2000, tail: `"}]`,
			violation: `line exceeds 1000 bytes; skipped`,
		},
		{
			name: "response to no call of ours",
			head: `{"jsonrpc":"2.0","id":5,"result":"`, n: 2000, tail: `"}`,
			violation: `line exceeds 1000 bytes; skipped`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			notes := make(chan string, 2)
			viol := make(chan Violation, 2)
			_, p := newRawPeer(t, answerPings(notes), &Options{
				MaxLineBytes: max,
				OnViolation:  func(v Violation) { viol <- v },
			})
			p.sendLong(tc.head, tc.n, tc.tail)
			p.send(`{"jsonrpc":"2.0","id":99,"method":"after"}`)
			size := len(tc.head) + tc.n + len(tc.tail)
			if tc.id != "" {
				want := map[string]string{"jsonrpc": `"2.0"`, "id": tc.id,
					"error": fmt.Sprintf(`{"code":-32600,"message":"invalid request: its line of %d bytes exceeds the limit of 1000 bytes"}`, size)}
				if diff := cmp.Diff(want, p.recv()); diff != "" {
					t.Errorf("the answer to the long line (-want +got):\n%s", diff)
				}
			}
			// The line's handler was not called: the next one answers.
			want := map[string]string{"jsonrpc": `"2.0"`, "id": "99", "result": `"after"`}
			if diff := cmp.Diff(want, p.recv()); diff != "" {
				t.Errorf("the answer after the long line (-want +got):\n%s", diff)
			}
			v := recvFrom(t, viol, "the violation")
			if !strings.HasPrefix(v.Msg, tc.violation) {
				t.Errorf("Violation.Msg = %q; want it to start with %q", v.Msg, tc.violation)
			}
			if v.Size != size {
				t.Errorf("Violation.Size = %d; want %d", v.Size, size)
			}
			select {
			case m := <-notes:
				t.Errorf("notification %q handled", m)
			case v := <-viol:
				t.Errorf("another violation: %s", v.Msg)
			default:
			}
		})
	}
}

func TestLongAnswerFailsItsCall(t *testing.T) {
	const max = 1000
	tests := []struct {
		name, head, tail string
		n                int  // the x between head and tail
		held             bool // sent from a handler that holds the line
	}{
		{name: "result", head: `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"`, tail: `"}}`, n: 300_000},
		{name: "error", head: `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"`, tail: `"}}`, n: 300_000},
		{name: "its id after its result", head: `{"jsonrpc":"2.0","result":{"stopReason":"end_turn","log":["` + strings.Repeat(`xxxxxxxx","`, 300), tail: `"]},"id":1}`, n: 8},
		{name: "to a handler that holds the line", head: `{"jsonrpc":"2.0","id":1,"result":"`, tail: `"}`, n: 300_000, held: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			ctx := testCtx(t)
			viol := make(chan Violation, 2)
			calls := make(chan error, 1)
			var c *Conn
			h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				calls <- c.Call(ctx, "ask", nil).Await(ctx, nil)
				return nil, nil
			})
			c, p := newRawPeer(t, h, &Options{
				MaxLineBytes: max,
				OnViolation:  func(v Violation) { viol <- v },
			})
			var call *Call
			if tc.held {
				p.send(`{"jsonrpc":"2.0","id":"go","method":"go"}`)
			} else {
				call = c.Call(ctx, "ask", nil)
			}
			if got := p.recv(); got["method"] != `"ask"` || got["id"] != "1" {
				t.Fatalf("the Conn wrote %v; want the call ask, id 1", got)
			}
			p.sendLong(tc.head, tc.n, tc.tail)
			var err error
			if tc.held {
				err = recvFrom(t, calls, "the handler's call")
			} else {
				err = call.Await(ctx, nil)
			}
			size := len(tc.head) + tc.n + len(tc.tail)
			var ia *InvalidAnswerError
			if !errors.As(err, &ia) {
				t.Fatalf("Await = %v; want an *InvalidAnswerError", err)
			}
			want := fmt.Sprintf("acp: ask: invalid answer: its line of %d bytes exceeds the limit of 1000 bytes", size)
			if err.Error() != want {
				t.Errorf("Await = %q; want %q", err, want)
			}
			v := recvFrom(t, viol, "the violation")
			if want := "line exceeds 1000 bytes; the answer to ask (id 1) fails it: "; !strings.HasPrefix(v.Msg, want) {
				t.Errorf("Violation.Msg = %q; want it to start with %q", v.Msg, want)
			}
		})
	}
}

// TestLongLineNotHeld reads lines of 70 MB with a string that long in
// them, before or after what says whom to answer: what the Conn allocates
// meanwhile is far less than the line.
func TestLongLineNotHeld(t *testing.T) {
	const n = 70 << 20
	tests := []struct {
		name, head, tail string
		answered         bool
	}{
		{name: "its id first", head: `{"jsonrpc":"2.0","id":7,"method":"m","params":{"content":"`, tail: `"}}`, answered: true},
		{name: "its id last", head: `{"jsonrpc":"2.0","method":"m","params":{"content":"`, tail: `"},"id":7}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			_, p := newRawPeer(t, answerPings(nil), &Options{MaxLineBytes: 1000})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p.sendLong(tc.head, n, tc.tail)
			p.send(`{"jsonrpc":"2.0","id":99,"method":"after"}`)
			got := p.recv()
			if tc.answered {
				if got["id"] != "7" || !strings.Contains(got["error"], "exceeds the limit of 1000 bytes") {
					t.Errorf("the Conn wrote %v; want the answer to id 7, an error", got)
				}
				got = p.recv()
			}
			runtime.ReadMemStats(&after)
			if got["id"] != "99" {
				t.Errorf("the Conn wrote %v; want the answer to id 99", got)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("%d bytes allocated reading a line of %d bytes; want at most 4 MiB", alloc, n)
			}
		})
	}
}
