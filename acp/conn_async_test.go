package acp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// asyncHandler answers each request with its "i" param from off the line
// (it calls Async first, as a handler whose answer may wait does); the
// notification "done" closes done.
type asyncHandler struct {
	done chan struct{}
}

func newAsyncHandler() *asyncHandler { return &asyncHandler{done: make(chan struct{})} }

func (h *asyncHandler) Handle(ctx context.Context, req *acp.Request) (any, error) {
	if req.IsNotification() {
		if req.Method == "done" {
			close(h.done)
		}
		return nil, nil
	}
	var p struct{ I int }
	_ = json.Unmarshal(req.Params, &p)
	acp.Async(ctx)
	return p.I, nil
}

// pipePeer is the other end of a Conn over two real pipes, as an agent's
// stdin and stdout are.
type pipePeer struct {
	toConn   *os.File // the peer's stdout
	fromConn *os.File // the peer's stdin
	connW    *os.File // the Conn's end of it
	r        *bufio.Reader
}

func newPipeConn(t *testing.T, h acp.Handler, opts *acp.Options) (*acp.Conn, *pipePeer) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := acp.NewConn(outR, inW, h, opts)
	t.Cleanup(func() {
		outW.Close()
		inR.Close()
		c.Close()
	})
	return c, &pipePeer{toConn: outW, fromConn: inR, connW: inW, r: bufio.NewReaderSize(inR, 1<<20)}
}

// requests returns n request lines with ids and params i from 0.
func requests(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ask","params":{"i":%d}}`+"\n", i, i)
	}
	return b.String()
}

// send writes lines from a goroutine (the Conn may not read them all before
// it writes its answers) and returns a channel that says when it is done.
func (p *pipePeer) send(t *testing.T, lines string) <-chan error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := io.WriteString(p.toConn, lines)
		errc <- err
	}()
	return errc
}

// answer is one answer the peer read.
type answer struct {
	ID     int `json:"id"`
	Result int `json:"result"`
}

// readAnswers reads n answer lines, failing on anything else.
func (p *pipePeer) readAnswers(t *testing.T, n int) []answer {
	t.Helper()
	var out []answer
	for range n {
		line, err := p.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(out), err)
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("answer %d is not a whole answer line: %q: %v", len(out), line, err)
		}
		out = append(out, a)
	}
	return out
}

// TestAsyncAnswersDoNotBlockReading: a peer that floods requests and never
// reads its input (the pipe is full from the start) cannot stop the Conn
// reading, so that it would in turn stop the peer's writes: every request
// and the notification behind them are handled while no answer can be
// written; once the peer reads, every answer comes out whole, each seen by
// the Tap before it was written.
func TestAsyncAnswersDoNotBlockReading(t *testing.T) {
	ctx := safeCtx(t)
	h := newAsyncHandler()
	var tmu sync.Mutex
	tapped := map[string]bool{}
	_, p := newPipeConn(t, h, &acp.Options{Tap: func(dir acp.Direction, line []byte, _ time.Time) {
		if dir == acp.Sent {
			tmu.Lock()
			tapped[string(line)] = true
			tmu.Unlock()
		}
	}})
	filler := fillPipe(t, p.connW)
	const n = 3000
	sent := p.send(t, requests(n)+`{"jsonrpc":"2.0","method":"done"}`+"\n")
	select {
	case <-h.done: // every request before it was answered, or is being written
	case <-ctx.Done():
		t.Fatal("the Conn stopped reading while the peer did not read its answers")
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(p.r, make([]byte, filler)); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for range n {
		line, err := p.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(seen), err)
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil || a.ID != a.Result || seen[a.ID] {
			t.Fatalf("line %q (%v): want each answer once, whole", line, err)
		}
		seen[a.ID] = true
		tmu.Lock()
		ok := tapped[strings.TrimSuffix(string(line), "\n")]
		tmu.Unlock()
		if !ok {
			t.Fatalf("answer %q was written before the Tap saw it", line)
		}
	}
}

// TestAsyncAnswersWaitForBusyWriter: while one of our calls is being
// written and blocked (the peer does not read), answers wait for it without
// holding up the reading, and come out after it, never inside its line.
func TestAsyncAnswersWaitForBusyWriter(t *testing.T) {
	ctx := safeCtx(t)
	h := newAsyncHandler()
	c, p := newPipeConn(t, h, nil)
	big := strings.Repeat("x", 1<<20) // far more than a pipe holds
	call := c.NewCall("big", map[string]string{"text": big})
	go c.Send(ctx, call)
	head := make([]byte, 16)
	if _, err := io.ReadFull(p.r, head); err != nil { // the write has begun
		t.Fatal(err)
	}
	const n = 200
	sent := p.send(t, requests(n)+`{"jsonrpc":"2.0","method":"done"}`+"\n")
	select {
	case <-h.done:
	case <-ctx.Done():
		t.Fatal("the Conn stopped reading while its writer was busy")
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	rest, err := p.r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	line := string(head) + string(rest)
	var m struct {
		Method string
		Params struct{ Text string }
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Method != "big" || m.Params.Text != big {
		t.Fatalf("the call's line came out broken (%d bytes, %v)", len(line), err)
	}
	seen := map[int]bool{}
	for _, a := range p.readAnswers(t, n) {
		if a.ID != a.Result || seen[a.ID] {
			t.Fatalf("answer %+v: want each id once", a)
		}
		seen[a.ID] = true
	}
}

// lineHandler answers "first" from off the line (Async) and holds the line
// with "second" until the first's answer has been written, as a handler
// that serves requests one at a time in their order does; it counts the
// notifications, and "done" closes done.
type lineHandler struct {
	firstOut chan struct{}
	done     chan struct{}
	notes    atomic.Int64
}

func (h *lineHandler) Handle(ctx context.Context, req *acp.Request) (any, error) {
	switch {
	case req.Method == "done":
		close(h.done)
	case req.IsNotification():
		h.notes.Add(1)
	case req.Method == "first":
		acp.AfterAnswer(ctx, func(error) { close(h.firstOut) })
		acp.Async(ctx)
		return 1, nil
	case req.Method == "second":
		select {
		case <-h.firstOut:
		case <-ctx.Done():
		}
		return 2, nil
	}
	return nil, nil
}

// TestReadingGoesOnBehindAnAnswerNotRead: a handler that holds the line
// until an earlier request's answer, written from off the line, is out
// does not stop the reading while that answer cannot be written (the peer
// does not read until it has written everything): the reader goes on as
// behind an answer the dispatcher writes, so that neither side waits for
// the other; once the peer reads, both answers come out in order and
// every message behind them is handled.
func TestReadingGoesOnBehindAnAnswerNotRead(t *testing.T) {
	ctx := safeCtx(t)
	h := &lineHandler{firstOut: make(chan struct{}), done: make(chan struct{})}
	_, p := newPipeConn(t, h, nil)
	filler := fillPipe(t, p.connW)
	const n = 20000 // far more than the reader queues behind a handler
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"first"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"second"}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"note","params":{"i":%d}}`+"\n", i)
	}
	b.WriteString(`{"jsonrpc":"2.0","method":"done"}` + "\n")
	select {
	case err := <-p.send(t, b.String()):
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the Conn stopped reading behind a handler that waits for an answer the peer does not read yet")
	}
	if _, err := io.ReadFull(p.r, make([]byte, filler)); err != nil {
		t.Fatal(err)
	}
	if got := p.readAnswers(t, 2); got[0].ID != 1 || got[1].ID != 2 {
		t.Errorf("answers %+v; want 1, then 2", got)
	}
	select {
	case <-h.done:
	case <-ctx.Done():
		t.Fatal("the messages behind the answers were not handled")
	}
	if got := h.notes.Load(); got != n {
		t.Errorf("handled %d notifications; want %d", got, n)
	}
}
