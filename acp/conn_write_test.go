package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// safeCtx is a safety net so that a broken Conn fails a test instead of
// hanging it; nothing waits for it to pass.
func safeCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestCallCutShortWhenPeerStopsReading: a write that is blocked because the
// peer does not read is cut short when its context ends, so a peer that
// stops reading cannot keep a Call (and so a deadline or an interrupt) stuck
// in a write. Part of the line is out: the call waits for its answer, and
// the next write, within its own context, writes the rest of the line
// first, so a peer that reads again gets both lines whole; a next write
// whose context ends first fails and leaves the rest for the one after.
func TestCallCutShortWhenPeerStopsReading(t *testing.T) {
	ctx := safeCtx(t)
	inR, inW, err := os.Pipe() // the peer's stdin; the test reads only the start
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // the peer's stdout, silent
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outW.Close()
	var mu sync.Mutex
	var tapped []string
	c := acp.NewConn(outR, inW, nil, &acp.Options{Tap: func(dir acp.Direction, line []byte, _ time.Time) {
		mu.Lock()
		what := "prompt"
		if strings.Contains(string(line), "session/cancel") {
			what = "cancel"
		}
		tapped = append(tapped, string(dir)+" "+what)
		mu.Unlock()
	}})
	defer c.Close()

	sendCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	big := strings.Repeat("x", 4<<20) // far more than a pipe holds
	call := c.NewCall("session/prompt", map[string]string{"text": big})
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		c.Send(sendCtx, call)
	}()
	// The start of the line is on the pipe: the write has begun, and with
	// megabytes still to go and nobody reading, it is blocked.
	in := bufio.NewReaderSize(inR, 8<<20)
	head, err := in.Peek(16)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0"`; string(head) != want {
		t.Fatalf("line starts %q; want %q", head, want)
	}
	cancel(errors.New("turn timeout"))
	select {
	case <-sent:
	case <-ctx.Done():
		t.Fatal("Send did not return after the write was cut short")
	}
	select {
	case <-call.Done():
		t.Fatalf("the call ended when its write was cut short: %v", call.Await(ctx, nil))
	default:
	}

	// A write whose context ends while the rest still does not fit fails,
	// and leaves the rest for the next.
	short, cancelShort := context.WithCancelCause(ctx)
	cancelShort(errors.New("gone"))
	if err := c.Notify(short, "session/cancel", nil); err == nil {
		t.Fatal("Notify with an ended context = nil; want its error")
	}

	// The peer reads again: the rest of the prompt, then the cancel.
	errc := make(chan error, 1)
	go func() { errc <- c.Notify(ctx, "session/cancel", nil) }()
	line, err := in.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Text string `json:"text"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Method != "session/prompt" || m.Params.Text != big {
		t.Fatalf("first line: method %q, %d bytes of text (%v); want the whole prompt", m.Method, len(m.Params.Text), err)
	}
	line, err = in.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","method":"session/cancel"}` + "\n"; line != want {
		t.Errorf("second line %q; want %q", line, want)
	}
	if err := <-errc; err != nil {
		t.Errorf("Notify after the peer read again = %v; want nil", err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The short Notify never started writing: nothing of it is tapped.
	want := []string{"sent prompt", "written prompt", "sent cancel", "written cancel"}
	if !slices.Equal(tapped, want) {
		t.Errorf("tapped %q; want %q", tapped, want)
	}
}

// TestWriteCutBeforeAnyByteLeavesStreamUsable: a write cut short before any
// byte of it went out leaves a sound stream, so the next write may go out
// (and block) normally once the peer reads again.
func TestWriteCutBeforeAnyByteLeavesStreamUsable(t *testing.T) {
	ctx := safeCtx(t)
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
	tapped := make(chan string, 2)
	c := acp.NewConn(outR, inW, nil, &acp.Options{Tap: func(dir acp.Direction, line []byte, _ time.Time) {
		if dir == acp.Sent {
			tapped <- string(line)
		}
	}})
	defer c.Close()
	filler := fillPipe(t, inW) // not one more byte fits

	sendCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errc := make(chan error, 1)
	go func() { errc <- c.Notify(sendCtx, "blocked", nil) }()
	<-tapped // the write is about to start, or has started and is blocked
	cancel(errors.New("turn timeout"))
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "turn timeout") {
		t.Fatalf("blocked Notify = %v; want it cut short by the context's cause", err)
	}

	if _, err := io.ReadFull(inR, make([]byte, filler)); err != nil {
		t.Fatal(err)
	}
	// The pipe is empty again: the small line fits at once.
	if err := c.Notify(ctx, "after", nil); err != nil {
		t.Fatalf("Notify after a write cut before its first byte = %v; want nil", err)
	}
	line, err := bufio.NewReader(inR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","method":"after"}` + "\n"; line != want {
		t.Errorf("next line on the stream = %q; want %q (nothing of the cut write)", line, want)
	}
}

// fillPipe writes filler bytes to the pipe until not one more fits, without
// blocking, and returns how many it wrote.
func fillPipe(t *testing.T, w *os.File) int {
	t.Helper()
	rc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 4096)
	total := 0
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for _, size := range []int{len(chunk), 1} { // then byte by byte into the last page
			for {
				n, err := syscall.Write(int(fd), chunk[:size])
				total += max(n, 0)
				switch {
				case err == syscall.EINTR:
					continue
				case err == syscall.EAGAIN:
				case err != nil:
					werr = err
					return true
				default:
					continue
				}
				break
			}
		}
		return true
	})
	if err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	return total
}

// deadlineWriter is a writer with write deadlines, scripted by the test.
// Like an os.File pipe, its Write fails at once while the deadline is in the
// past. during, when set, runs inside Write after the bytes were taken and
// before Write returns.
type deadlineWriter struct {
	during func(call int)
	set    chan time.Time // every SetWriteDeadline, in order

	mu       sync.Mutex
	deadline time.Time
	calls    int
	out      bytes.Buffer
}

func newDeadlineWriter() *deadlineWriter {
	return &deadlineWriter{set: make(chan time.Time, 100)}
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.deadline.IsZero() && w.deadline.Before(time.Now()) {
		w.mu.Unlock()
		return 0, os.ErrDeadlineExceeded
	}
	w.calls++
	call := w.calls
	w.out.Write(p)
	w.mu.Unlock()
	if w.during != nil {
		w.during(call)
	}
	return len(p), nil
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.deadline = t
	w.mu.Unlock()
	w.set <- t
	return nil
}

func (w *deadlineWriter) Deadline() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deadline
}

func (w *deadlineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// TestWriteDeadlineClearedAfterWholeLine: the context ends while a write is
// in progress, and the deadline it sets comes too late to cut the line, which
// goes out whole: the deadline is cleared, so later writes work and block
// normally.
func TestWriteDeadlineClearedAfterWholeLine(t *testing.T) {
	ctx := safeCtx(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	w := newDeadlineWriter()
	writeCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	blocked, release := make(chan struct{}), make(chan struct{})
	w.during = func(call int) {
		switch call {
		case 1: // the context ends mid-write; its deadline is set before the write returns
			cancel()
			if d := <-w.set; d.IsZero() || d.After(time.Now()) {
				t.Errorf("deadline set when the context ended = %v; want one in the past", d)
			}
		case 2: // a later write blocks until the peer reads
			close(blocked)
			<-release
		}
	}
	c := acp.NewConn(pr, w, nil, nil)
	defer c.Close()

	if err := c.Notify(writeCtx, "a", nil); err != nil {
		t.Fatalf("Notify whose line went out whole = %v; want nil", err)
	}
	if d := w.Deadline(); !d.IsZero() {
		t.Fatalf("write deadline after a whole line = %v; want none", d)
	}
	errc := make(chan error, 1)
	go func() { errc <- c.Notify(ctx, "b", nil) }()
	<-blocked
	if d := w.Deadline(); !d.IsZero() {
		t.Errorf("write deadline while the next write blocks = %v; want none", d)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Errorf("Notify after an ended context = %v; want nil", err)
	}
	if got, want := w.String(), `{"jsonrpc":"2.0","method":"a"}`+"\n"+`{"jsonrpc":"2.0","method":"b"}`+"\n"; got != want {
		t.Errorf("written %q; want %q", got, want)
	}
}

// TestContextEndingAsWriteReturnsLeavesStreamUsable: the context ends after
// the bytes were written but before Write returned. The deadline it sets
// must not land after the write and cut the next one short: that failed the
// next session/cancel and got a healthy agent killed as "stopped reading".
func TestContextEndingAsWriteReturnsLeavesStreamUsable(t *testing.T) {
	// With one P, the goroutine that context.AfterFunc starts cannot run
	// before the writing goroutine blocks, so a Conn that does not wait for
	// it lets the deadline land after the write.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := safeCtx(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	w := newDeadlineWriter()
	writeCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.during = func(call int) {
		if call == 1 {
			cancel() // the bytes are out; Write has not returned yet
		}
	}
	c := acp.NewConn(pr, w, nil, nil)
	defer c.Close()

	if err := c.Notify(writeCtx, "a", nil); err != nil {
		t.Fatalf("Notify whose line went out whole = %v; want nil", err)
	}
	select { // the ended context's deadline, set now or later
	case d := <-w.set:
		if d.IsZero() {
			t.Fatal("first deadline set is a clear; want the ended context's")
		}
	case <-ctx.Done():
		t.Fatal("the ended context never set a deadline")
	}
	if err := c.Notify(ctx, "session/cancel", nil); err != nil {
		t.Errorf("Notify after the context ended as a write returned = %v; want nil", err)
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

// brokenWriter fails every write once broken is set, as a pipe whose
// reader has gone.
type brokenWriter struct{ broken atomic.Bool }

func (w *brokenWriter) Write(p []byte) (int, error) {
	if w.broken.Load() {
		return 0, syscall.EPIPE
	}
	return len(p), nil
}

// TestAfterAnswerTellsTheWrite: AfterAnswer's func learns whether the
// handler's answer was written: nil once it was, the write's error when
// the peer's input is gone, for a handler that holds the line and one
// that went on with Async alike.
func TestAfterAnswerTellsTheWrite(t *testing.T) {
	for _, async := range []bool{false, true} {
		peer, in := io.Pipe() // what the peer writes, the Conn reads
		w := &brokenWriter{}
		written := make(chan error, 1)
		c := acp.NewConn(peer, w, acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
			if async {
				acp.Async(ctx)
			}
			if !acp.AfterAnswer(ctx, func(err error) { written <- err }) {
				t.Error("AfterAnswer = false in a request handler")
			}
			return "ok", nil
		}), nil)
		if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"x"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := <-written; err != nil {
			t.Errorf("async %v: an answer written: AfterAnswer's func got %v, want nil", async, err)
		}
		w.broken.Store(true)
		if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"x"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := <-written; !errors.Is(err, syscall.EPIPE) {
			t.Errorf("async %v: an answer whose write failed: AfterAnswer's func got %v, want the write's error", async, err)
		}
		in.Close()
		c.Close()
	}
}
