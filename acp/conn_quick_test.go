package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acprun/acprun/acp"
)

// quickHandler answers requests in HandleQuick with their "i" param unless
// decline says otherwise; Handle answers the declined ones the same way. It
// logs what it is called for, in order.
type quickHandler struct {
	decline func(i int) bool
	done    chan struct{} // closed by the notification "done"

	mu     sync.Mutex
	events []string
}

func newQuickHandler(decline func(int) bool) *quickHandler {
	return &quickHandler{decline: decline, done: make(chan struct{})}
}

func (h *quickHandler) log(what string, req *acp.Request) int {
	var p struct{ I int }
	_ = json.Unmarshal(req.Params, &p)
	h.mu.Lock()
	h.events = append(h.events, fmt.Sprintf("%s %d", what, p.I))
	h.mu.Unlock()
	return p.I
}

func (h *quickHandler) Received(req *acp.Request) { h.log("received", req) }

func (h *quickHandler) HandleQuick(req *acp.Request) (any, bool, error) {
	var p struct{ I int }
	_ = json.Unmarshal(req.Params, &p)
	if h.decline != nil && h.decline(p.I) {
		h.log("declined", req)
		return nil, false, nil
	}
	return h.log("quick", req), true, nil
}

func (h *quickHandler) Handle(_ context.Context, req *acp.Request) (any, error) {
	if req.IsNotification() {
		if req.Method == "done" {
			close(h.done)
		}
		return nil, nil
	}
	return h.log("handle", req), nil
}

func (h *quickHandler) eventList() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
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

// TestQuickAnswersInStreamOrder: requests a QuickHandler answers are
// answered in stream order, each right after Received, and Handle is never
// called for them.
func TestQuickAnswersInStreamOrder(t *testing.T) {
	h := newQuickHandler(nil)
	_, p := newPipeConn(t, h, nil)
	const n = 500
	sent := p.send(t, requests(n))
	got := p.readAnswers(t, n)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	var want, wantEvents []string
	var gotIDs []string
	for i := range n {
		want = append(want, fmt.Sprintf("%d=%d", i, i))
		gotIDs = append(gotIDs, fmt.Sprintf("%d=%d", got[i].ID, got[i].Result))
		wantEvents = append(wantEvents, fmt.Sprintf("received %d", i), fmt.Sprintf("quick %d", i))
	}
	if !slices.Equal(gotIDs, want) {
		t.Errorf("answers (id=result) = %v…; want %v…", gotIDs[:10], want[:10])
	}
	if ev := h.eventList(); !slices.Equal(ev, wantEvents) {
		t.Errorf("events = %v…; want received then quick for each request, in order, and no Handle", ev[:min(len(ev), 10)])
	}
}

// TestQuickDeclinedServedByHandle: a request the QuickHandler declines is
// served by Handle, as without a QuickHandler.
func TestQuickDeclinedServedByHandle(t *testing.T) {
	h := newQuickHandler(func(i int) bool { return i%3 == 0 })
	_, p := newPipeConn(t, h, nil)
	const n = 300
	sent := p.send(t, requests(n))
	got := p.readAnswers(t, n)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, a := range got {
		if a.ID != a.Result || seen[a.ID] {
			t.Fatalf("answer %+v: want each id once, answered with its own param", a)
		}
		seen[a.ID] = true
	}
	handled, quick := 0, 0
	for _, ev := range h.eventList() {
		var i int
		switch {
		case sscan(ev, "handle %d", &i):
			handled++
			if i%3 != 0 {
				t.Errorf("Handle called for %d, which HandleQuick answered", i)
			}
		case sscan(ev, "quick %d", &i):
			quick++
		}
	}
	if handled != n/3 || quick != n-n/3 {
		t.Errorf("Handle answered %d, HandleQuick %d; want %d and %d", handled, quick, n/3, n-n/3)
	}
}

func sscan(s, format string, i *int) bool {
	_, err := fmt.Sscanf(s, format, i)
	return err == nil
}

// TestQuickPeerNotReadingDoesNotBlockReading: a peer that floods requests
// and never reads its input (the pipe is full from the start) cannot stop
// the Conn reading, so that it would in turn stop the peer's writes: every
// request and the notification behind them are handled while no answer
// can be written; once the peer reads, every answer comes out whole, each
// seen by the Tap before it was written.
func TestQuickPeerNotReadingDoesNotBlockReading(t *testing.T) {
	t.Run("non-blocking pipe", func(t *testing.T) { testQuickPeerNotReading(t, false) })
	// os.File.Fd puts the file in blocking mode, where one write(2) could
	// block: the Conn then writes through goroutines.
	t.Run("pipe made blocking by Fd", func(t *testing.T) { testQuickPeerNotReading(t, true) })
}

func testQuickPeerNotReading(t *testing.T, blocking bool) {
	ctx := safeCtx(t)
	h := newQuickHandler(nil)
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
	if blocking {
		p.connW.Fd()
	}
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

// TestQuickWhileCallHoldsWriter: while one of our calls is being written
// and blocked (the peer does not read), quick answers wait for it without
// holding up the reading, and come out after it, never inside its line.
func TestQuickWhileCallHoldsWriter(t *testing.T) {
	ctx := safeCtx(t)
	h := newQuickHandler(nil)
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

// TestQuickWithPlainWriter: over a writer that is not a file (io.Pipe),
// quick answers are written the usual way, by a goroutine.
func TestQuickWithPlainWriter(t *testing.T) {
	h := newQuickHandler(nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := acp.NewConn(outR, inW, h, nil)
	defer c.Close()
	defer outW.Close()
	const n = 100
	go func() { _, _ = io.WriteString(outW, requests(n)) }()
	p := &pipePeer{r: bufio.NewReader(inR)}
	seen := map[int]bool{}
	for _, a := range p.readAnswers(t, n) {
		if a.ID != a.Result || seen[a.ID] {
			t.Fatalf("answer %+v: want each id once", a)
		}
		seen[a.ID] = true
	}
	for _, ev := range h.eventList() {
		if strings.HasPrefix(ev, "handle") {
			t.Fatalf("Handle called (%s): HandleQuick answers every request", ev)
		}
	}
}
