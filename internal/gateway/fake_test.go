package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// The canned answers of the fake upstreams: small streams in each
// provider's own shape, as the real APIs send them.

const anthropicStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":4,"cache_read_input_tokens":3,"output_tokens":1}}}` + "\n\n" +
	"event: content_block_start\n" +
	`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
	"event: ping\n" +
	`data: {"type": "ping"}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}` + "\n\n" +
	"event: content_block_stop\n" +
	`data: {"type":"content_block_stop","index":0}` + "\n\n" +
	"event: message_delta\n" +
	`data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}` + "\n\n" +
	"event: message_stop\n" +
	`data: {"type":"message_stop"}` + "\n\n"

const openAIChatStream = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"}}]}` + "\n\n" +
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":2}}}` + "\n\n" +
	"data: [DONE]\n\n"

const responsesStream = "event: response.created\n" +
	`data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","model":"gpt-5-2025-08-07","status":"in_progress","output":[]}}` + "\n\n" +
	"event: response.output_text.delta\n" +
	`data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello"}` + "\n\n" +
	"event: response.completed\n" +
	`data: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","object":"response","model":"gpt-5-2025-08-07","status":"completed","usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":2},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":19}}}` + "\n\n"

// geminiStream ends its events with CRLF, as Google's servers do.
const geminiStream = `data: {"candidates":[{"content":{"parts":[{"text":"Hello"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":1,"totalTokenCount":13},"modelVersion":"gemini-2.5-pro"}` + "\r\n\r\n" +
	`data: {"candidates":[{"content":{"parts":[{"text":" world"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"totalTokenCount":19,"thoughtsTokenCount":2},"modelVersion":"gemini-2.5-pro"}` + "\r\n\r\n"

// The requests agents send, one per API.

const anthropicRequest = `{"model":"claude-sonnet-4-5-20250929","max_tokens":1024,"stream":true,` +
	`"system":[{"type":"text","text":"You are Claude Code. Today's date is 2025-06-01."}],` +
	`"metadata":{"user_id":"user_0f3e_account__session_6c1e5a0e-6d38-4f5e-9f0c-1b2f8f2f6d11"},` +
	`"messages":[{"role":"user","content":[{"type":"text","text":"Say hello"}]}]}`

const openAIChatRequest = `{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},` +
	`"messages":[{"role":"system","content":"You are a coding agent. It is 2025-06-01 10:11:12."},{"role":"user","content":"Say hello"}]}`

const responsesRequest = `{"model":"gpt-5","stream":true,"instructions":"You are Codex.",` +
	`"prompt_cache_key":"0197a4d4-3a9b-7c51-9c3e-7c1f9d1f2e11",` +
	`"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Say hello"}]}]}`

const geminiRequest = `{"systemInstruction":{"parts":[{"text":"You are Gemini CLI."}]},` +
	`"contents":[{"role":"user","parts":[{"text":"Say hello"}]}]}`

// shape is one provider API as the tests use it: the path the agent
// posts to (after its base URL), the upstream's base path (what the
// agent's default base URL has after the host), the request and the
// streamed answer.
type shape struct {
	name, base, path, request, stream string
}

var shapes = []shape{
	{"anthropic", "", "/v1/messages", anthropicRequest, anthropicStream},
	{"openai-chat", "/v1", "/chat/completions", openAIChatRequest, openAIChatStream},
	{"openai-responses", "/v1", "/responses", responsesRequest, responsesStream},
	{"gemini", "", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", geminiRequest, geminiStream},
}

// seen is a request a fake upstream got.
type seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// answerSpec is what a fake upstream answers on a path.
type answerSpec struct {
	status      int
	contentType string
	body        string // for text/event-stream, events each ending in a blank line
}

// upstream is a fake model provider: it answers each path with a canned
// answer, an event stream flushed event by event, and keeps the requests
// it got.
type upstream struct {
	*httptest.Server
	answers map[string]answerSpec // by path

	// hold, when set (holdAfterFirst), is waited on after the first
	// event of a stream; first gets a value when that event is flushed,
	// and gone is closed when the request's context ends while held.
	hold     chan struct{}
	first    chan struct{}
	gone     chan struct{}
	goneOnce sync.Once

	mu  sync.Mutex
	got []seen
}

// newUpstream starts a fake upstream answering each API shape's path
// with the shape's stream.
func newUpstream(t *testing.T) *upstream {
	u := &upstream{answers: make(map[string]answerSpec)}
	for _, s := range shapes {
		path, _, _ := strings.Cut(s.base+s.path, "?")
		u.answers[path] = answerSpec{200, "text/event-stream", s.stream}
	}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.got = append(u.got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(body)})
	a, ok := u.answers[r.URL.Path]
	u.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":"no such path"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Request-Id", "req_upstream")
	w.WriteHeader(a.status)
	if a.contentType != "text/event-stream" {
		io.WriteString(w, a.body)
		return
	}
	sep := "\n\n"
	if strings.Contains(a.body, "\r\n\r\n") {
		sep = "\r\n\r\n"
	}
	for i, ev := range strings.SplitAfter(a.body, sep) {
		if ev == "" {
			continue
		}
		io.WriteString(w, ev)
		w.(http.Flusher).Flush()
		if i == 0 && u.hold != nil {
			u.first <- struct{}{}
			select {
			case <-u.hold:
			case <-r.Context().Done():
				u.goneOnce.Do(func() { close(u.gone) })
				return
			}
		}
	}
}

// holdAfterFirst makes the upstream hold its streams after their first
// event until u.hold gets a value.
func (u *upstream) holdAfterFirst() {
	u.hold, u.first, u.gone = make(chan struct{}), make(chan struct{}, 1), make(chan struct{})
}

// requests is what the upstream got so far.
func (u *upstream) requests() []seen {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]seen(nil), u.got...)
}

// exchangeResult is what the agent's side of a request got.
type exchangeResult struct {
	status int
	header http.Header
	body   string
	err    error // reading the body
}

// send makes a request as an agent would, through base (a route's URL),
// and reads the whole answer.
func send(t *testing.T, method, base, path, body string, header http.Header) exchangeResult {
	t.Helper()
	return sendCtx(t, context.Background(), method, base, path, body, header)
}

func sendCtx(t *testing.T, ctx context.Context, method, base, path, body string, header http.Header) exchangeResult {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return exchangeResult{resp.StatusCode, resp.Header, string(b), err}
}

// startServer starts a Server closed at the end of the test.
func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// open opens an attempt, failing the test on error; it is closed at the
// end of the test.
func open(t *testing.T, cfg Config) *Attempt {
	t.Helper()
	a, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// events is a recorder of the attempt's events.
type events struct {
	mu  sync.Mutex
	all []Event
	// cancelled is what add reports: whether the runner cancelled the
	// agent's turn before the answer.
	cancelled bool
}

func (e *events) add(ev Event) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
	return e.cancelled
}

func (e *events) list() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.all...)
}

// readCassetteFile reads a cassette written by a test, as JSON.
func readCassetteFile(t *testing.T, path string) (raw []byte, c cassette) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("cassette is not JSON: %v\n%s", err, raw)
	}
	return raw, c
}

// writeCassetteFile writes c for a test to replay.
func writeCassetteFile(t *testing.T, path string, c *cassette) {
	t.Helper()
	if err := writeCassette(t.Context(), nil, path, c); err != nil {
		t.Fatal(err)
	}
}

// timedWriter is a ResponseWriter that notes when each write came (in a
// synctest bubble, on the bubble's clock).
type timedWriter struct {
	*httptest.ResponseRecorder
	start  time.Time
	writes []time.Duration
	pieces [][]byte
}

func newTimedWriter() *timedWriter {
	return &timedWriter{ResponseRecorder: httptest.NewRecorder(), start: time.Now()}
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, time.Since(w.start))
	w.pieces = append(w.pieces, bytes.Clone(p))
	return w.ResponseRecorder.Write(p)
}

// handlerTransport is an http.RoundTripper that serves requests with a
// handler in the same process, over a pipe (no network, so it runs in a
// synctest bubble). As over a network, a request whose context ends
// fails: before the headers, Do; after them, reading the body.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: make(http.Header), pw: pw, ready: make(chan int, 1)}
	go func() {
		t.h.ServeHTTP(w, req)
		w.WriteHeader(http.StatusOK)
		pw.CloseWithError(req.Context().Err()) // nil: a plain end
	}()
	select {
	case status := <-w.ready:
		return &http.Response{StatusCode: status, Header: w.header, Body: pr, Request: req}, nil
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
}

// pipeWriter is the handler's side of a handlerTransport.
type pipeWriter struct {
	header  http.Header
	pw      *io.PipeWriter
	ready   chan int
	written bool
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	if !w.written {
		w.written = true
		w.ready <- status
	}
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(p)
}

func (w *pipeWriter) Flush() {}
