package acp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
)

// sentinel is the valid notification FuzzConnRead appends after the fuzzed
// bytes: whatever came before, it must be read and handled, last.
const sentinel = `{"jsonrpc":"2.0","method":"fuzz/sentinel","params":{"sessionId":"s-sentinel","n":42}}`

// fuzzReadBound is a safety net: a Conn that does not finish reading a
// bounded input by then is hung. Reading ends at EOF, so nothing waits for
// this to pass.
const fuzzReadBound = 30 * time.Second

// writeChunks writes data to w in pieces of n bytes (n 0: all at once), so
// that lines reach the reader in fragments. It makes at most about 1000
// writes, so that a large input stays quick.
func writeChunks(w io.Writer, data []byte, n int) error {
	if n <= 0 {
		n = len(data)
	}
	n = max(n, len(data)/1000)
	for len(data) > 0 {
		k := min(n, len(data))
		if _, err := w.Write(data[:k]); err != nil {
			return err
		}
		data = data[k:]
	}
	return nil
}

// fuzzHandler records the notifications it handles and decodes the
// messages the runner decodes, as the runner would.
type fuzzHandler struct {
	mu    sync.Mutex
	notes []string // "method params" of each notification, in order
}

func (h *fuzzHandler) Handle(_ context.Context, req *acp.Request) (any, error) {
	switch req.Method {
	case "session/update":
		var n acp.SessionNotification
		_ = json.Unmarshal(req.Params, &n)
	case "session/request_permission":
		var p acp.RequestPermissionRequest
		_ = json.Unmarshal(req.Params, &p)
	}
	if req.IsNotification() {
		h.mu.Lock()
		h.notes = append(h.notes, req.Method+" "+string(req.Params))
		h.mu.Unlock()
	}
	return nil, nil
}

// FuzzConnRead feeds arbitrary bytes to a Conn as the agent's stdout,
// followed by one valid notification on a line of its own. Reading must end
// at EOF without a panic, every line handed to Tap and OnViolation must be
// valid UTF-8, our pending call must end, and the valid notification must
// be read and handled last, whatever garbage came before it.
//
// The other arguments vary how the bytes arrive: maxLine, when not 0, makes MaxLineBytes small (at least
// the sentinel's length) so that lines over it are cheap to make; big puts a
// valid notification of about that many bytes first (over the reader's
// 64 KiB buffer when large); chunk, when not 0, splits the stream into
// writes of that size.
func FuzzConnRead(f *testing.F) {
	f.Add([]byte("not json\n{\"jsonrpc\":\"2.0\""), uint16(0), uint32(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, maxLine uint16, big uint32, chunk uint8) {
		opts := &acp.Options{Peer: "agent"}
		if maxLine != 0 {
			opts.MaxLineBytes = len(sentinel) + int(maxLine)
		}
		var stream bytes.Buffer
		if n := int(big % (256 << 10)); n > 0 {
			stream.WriteString(`{"jsonrpc":"2.0","method":"fuzz/big","params":"`)
			stream.WriteString(strings.Repeat("x", n))
			stream.WriteString("\"}\n")
		}
		stream.Write(data)
		stream.WriteString("\n" + sentinel + "\n")

		var (
			mu         sync.Mutex
			lastTapped string
			problems   []string
		)
		opts.Tap = func(dir acp.Direction, line []byte, _ time.Time) {
			if dir != acp.Received {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if !utf8.Valid(line) {
				problems = append(problems, "Tap got invalid UTF-8: "+string(line))
			}
			lastTapped = string(line)
		}
		opts.OnViolation = func(v acp.Violation) {
			mu.Lock()
			defer mu.Unlock()
			if !utf8.Valid(v.Line) || !utf8.ValidString(v.Msg) {
				problems = append(problems, "Violation with invalid UTF-8: "+v.Msg)
			}
			// 200 bytes of the line, each invalid byte replaced by
			// U+FFFD's 3 bytes at most.
			if len(v.Line) > 3*200 {
				problems = append(problems, "Violation excerpt of "+v.Msg+" is not bounded")
			}
		}

		pr, pw := io.Pipe()
		h := &fuzzHandler{}
		c := acp.NewConn(pr, io.Discard, h, opts)
		// A call pending while the bytes arrive: the garbage may answer it
		// (id 1), or the end of the stream ends it.
		call := c.Call(context.Background(), "fuzz/call", nil)
		wrote := make(chan error, 1)
		go func() {
			err := writeChunks(pw, stream.Bytes(), int(chunk))
			pw.Close()
			wrote <- err
		}()

		timer := time.NewTimer(fuzzReadBound)
		defer timer.Stop()
		select {
		case <-c.Done():
		case <-timer.C:
			c.Close()
			t.Fatalf("the Conn did not finish reading %d bytes ending in EOF within %v", stream.Len(), fuzzReadBound)
		}
		select {
		case <-call.Done():
		default:
			t.Error("a call still pending after Done")
		}
		if err := call.Await(context.Background(), nil); err != nil {
			var e *acp.Error
			var ia *acp.InvalidAnswerError
			if !errors.As(err, &e) && !errors.Is(err, acp.ErrClosed) && !errors.As(err, &ia) {
				t.Errorf("call ended with %v; want its answer, an error answer or ErrClosed", err)
			}
		}
		if err := c.Err(); !errors.Is(err, acp.ErrClosed) || !strings.Contains(err.Error(), "EOF") {
			t.Errorf("Err() = %v; want the agent's EOF", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		if err := <-wrote; err != nil {
			t.Errorf("writing the stream: %v (the Conn stopped reading before EOF)", err)
		}

		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Error(p)
		}
		if lastTapped != sentinel {
			t.Errorf("last line tapped = %.300q; want the valid line after the garbage", lastTapped)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		want := `fuzz/sentinel {"sessionId":"s-sentinel","n":42}`
		if len(h.notes) == 0 || h.notes[len(h.notes)-1] != want {
			last := "none"
			if len(h.notes) > 0 {
				last = h.notes[len(h.notes)-1]
			}
			t.Errorf("last notification handled = %.300q; want %q", last, want)
		}
	})
}
