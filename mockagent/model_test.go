package mockagent_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/gateway"
)

// Canned answers of fake upstreams, each saying "Hi there".
const (
	anthropicSSE = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}

`
	anthropicJSON = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Hi there"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`
	// chatSSE ends its lines with CRLF, as servers may.
	chatSSE = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n" +
		"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\n" +
		"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"},\"finish_reason\":\"stop\"}]}\r\n\r\n" +
		"data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}\r\n\r\n" +
		"data: [DONE]\r\n\r\n"
	chatJSON     = `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there"},"finish_reason":"stop"}]}`
	responsesSSE = `event: response.created
data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":" there"}

event: response.output_text.done
data: {"type":"response.output_text.done","text":"Hi there"}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"Hi there"}]}]}}

`
	responsesJSON = `{"id":"resp_1","status":"completed","output":[{"type":"reasoning","summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi there"}]}]}`
	geminiSSE     = `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Thinking it over","thought":true}]}}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":" there"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2}}

`
	geminiJSON = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi there"}]},"finishReason":"STOP"}]}`
)

// received is what a fake upstream got.
type received struct {
	method, uri string
	header      http.Header
	body        any
}

// upstream starts a fake provider that answers every request with status,
// contentType and answer, and passes on what it received. Start it after
// runMock, so that it is closed before the leak check.
func upstream(t *testing.T, status int, contentType, answer string) (*httptest.Server, <-chan received) {
	t.Helper()
	got := make(chan received, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var body any
		if err == nil {
			err = json.Unmarshal(b, &body)
		}
		if err != nil {
			t.Errorf("request body %q: %v", b, err)
		}
		got <- received{method: r.Method, uri: r.URL.RequestURI(), header: r.Header.Clone(), body: body}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// decodeJSON decodes s, for comparing request bodies.
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad want body %s: %v", s, err)
	}
	return v
}

func TestModelStepAPIs(t *testing.T) {
	tests := []struct {
		name        string
		step        string // the model step's keys after api and prompt
		base        string // added to the server's URL in the base URL variable
		vars        [2]string
		contentType string
		answer      string
		uri         string
		headers     map[string]string // headers the request must have
		body        string
	}{
		{
			name: "anthropic", step: "api: anthropic, model: claude-sonnet-4-5",
			vars: [2]string{"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"}, contentType: "text/event-stream", answer: anthropicSSE,
			uri:     "/v1/messages",
			headers: map[string]string{"X-Api-Key": "sk-test", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"},
			body:    `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Say hi"}]}`,
		},
		{
			name: "anthropic whole", step: "api: anthropic, model: claude-sonnet-4-5, stream: false",
			vars: [2]string{"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"}, contentType: "application/json", answer: anthropicJSON,
			uri:     "/v1/messages",
			headers: map[string]string{"X-Api-Key": "sk-test", "Anthropic-Version": "2023-06-01"},
			body:    `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":false,"messages":[{"role":"user","content":"Say hi"}]}`,
		},
		{
			name: "openai chat", step: "api: openai-chat, model: gpt-5", base: "/v1/",
			vars: [2]string{"OPENAI_BASE_URL", "OPENAI_API_KEY"}, contentType: "text/event-stream", answer: chatSSE,
			uri:     "/v1/chat/completions",
			headers: map[string]string{"Authorization": "Bearer sk-test", "Content-Type": "application/json"},
			body:    `{"model":"gpt-5","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Say hi"}]}`,
		},
		{
			name: "openai chat whole", step: "api: openai-chat, model: gpt-5, stream: false", base: "/v1",
			vars: [2]string{"OPENAI_BASE_URL", "OPENAI_API_KEY"}, contentType: "application/json; charset=utf-8", answer: chatJSON,
			uri:     "/v1/chat/completions",
			headers: map[string]string{"Authorization": "Bearer sk-test"},
			body:    `{"model":"gpt-5","stream":false,"messages":[{"role":"user","content":"Say hi"}]}`,
		},
		{
			name: "openai responses", step: "api: openai-responses, model: gpt-5", base: "/v1",
			vars: [2]string{"OPENAI_BASE_URL", "OPENAI_API_KEY"}, contentType: "text/event-stream; charset=utf-8", answer: responsesSSE,
			uri:     "/v1/responses",
			headers: map[string]string{"Authorization": "Bearer sk-test"},
			body:    `{"model":"gpt-5","stream":true,"input":"Say hi"}`,
		},
		{
			name: "openai responses whole", step: "api: openai-responses, model: gpt-5, stream: false", base: "/v1",
			vars: [2]string{"OPENAI_BASE_URL", "OPENAI_API_KEY"}, contentType: "application/json", answer: responsesJSON,
			uri:     "/v1/responses",
			headers: map[string]string{"Authorization": "Bearer sk-test"},
			body:    `{"model":"gpt-5","stream":false,"input":"Say hi"}`,
		},
		{
			name: "gemini", step: "api: gemini, model: gemini-2.5-pro",
			vars: [2]string{"GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"}, contentType: "text/event-stream", answer: geminiSSE,
			uri:     "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
			headers: map[string]string{"X-Goog-Api-Key": "sk-test"},
			body:    `{"contents":[{"role":"user","parts":[{"text":"Say hi"}]}]}`,
		},
		{
			name: "gemini whole", step: "api: gemini, model: gemini-2.5-pro, stream: false",
			vars: [2]string{"GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"}, contentType: "application/json", answer: geminiJSON,
			uri:     "/v1beta/models/gemini-2.5-pro:generateContent",
			headers: map[string]string{"X-Goog-Api-Key": "sk-test"},
			body:    `{"contents":[{"role":"user","parts":[{"text":"Say hi"}]}]}`,
		},
		{
			name: "variables named by the step", step: "api: anthropic, model: m, env: MY_BASE, key: MY_KEY",
			vars: [2]string{"MY_BASE", "MY_KEY"}, contentType: "text/event-stream", answer: anthropicSSE,
			uri:     "/v1/messages",
			headers: map[string]string{"X-Api-Key": "sk-test"},
			body:    `{"model":"m","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Say hi"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := runMock(t, "turns: [{steps: [{model: {"+tt.step+", prompt: 'Say {{prompt}}'}}, {text: done}]}]\n", nil)
			srv, got := upstream(t, http.StatusOK, tt.contentType, tt.answer)
			t.Setenv(tt.vars[0], srv.URL+tt.base)
			t.Setenv(tt.vars[1], "sk-test")
			sid := c.start()
			res, err := c.prompt(sid, "hi")
			if err != nil || res.StopReason != acp.StopEndTurn {
				t.Fatalf("prompt = %+v, %v; want end_turn", res, err)
			}
			if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:Hi there", "text:done"}) {
				t.Errorf("updates = %q; want the answer's text, then done", got)
			}
			r := <-got
			if r.method != http.MethodPost || r.uri != tt.uri {
				t.Errorf("request = %s %s; want POST %s", r.method, r.uri, tt.uri)
			}
			for k, v := range tt.headers {
				if r.header.Get(k) != v {
					t.Errorf("header %s = %q; want %q", k, r.header.Get(k), v)
				}
			}
			if diff := cmp.Diff(decodeJSON(t, tt.body), r.body); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModelStepShowNone sends the request and says nothing.
func TestModelStepShowNone(t *testing.T) {
	c, _ := runMock(t, "turns: [{steps: [{model: {api: gemini, model: g, prompt: hi, show: none}}, {text: done}]}]\n", nil)
	srv, got := upstream(t, http.StatusOK, "text/event-stream", geminiSSE)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	sid := c.start()
	if res, err := c.prompt(sid, "go"); err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt = %+v, %v; want end_turn", res, err)
	}
	if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:done"}) {
		t.Errorf("updates = %q; want only done", got)
	}
	if r := <-got; r.uri != "/v1beta/models/g:streamGenerateContent?alt=sse" {
		t.Errorf("request to %s", r.uri)
	}
}

func TestModelStepErrorAnswers(t *testing.T) {
	tests := []struct {
		name, api   string
		status      int
		contentType string
		answer      string
		want        string
	}{
		{
			name: "anthropic rate limit", api: "anthropic", status: http.StatusTooManyRequests, contentType: "application/json",
			answer: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`,
			want:   "model step: anthropic: 429 Too Many Requests: Number of requests has exceeded your rate limit",
		},
		{
			name: "openai invalid request", api: "openai-chat", status: http.StatusBadRequest, contentType: "application/json",
			answer: `{"error":{"message":"request 2 (POST /chat/completions): not in the cassette (it has 1 requests)","type":"invalid_request_error","code":null}}`,
			want:   "model step: openai-chat: 400 Bad Request: request 2 (POST /chat/completions): not in the cassette (it has 1 requests)",
		},
		{
			name: "gemini list", api: "gemini", status: http.StatusTooManyRequests, contentType: "application/json",
			answer: `[{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}]`,
			want:   "model step: gemini: 429 Too Many Requests: Resource has been exhausted",
		},
		{
			name: "not JSON", api: "openai-responses", status: http.StatusBadGateway, contentType: "text/plain",
			answer: "upstream unreachable\n",
			want:   "model step: openai-responses: 502 Bad Gateway: upstream unreachable",
		},
		{
			name: "error event in the stream", api: "anthropic", status: http.StatusOK, contentType: "text/event-stream",
			answer: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			want:   "model step: anthropic: stream error: Overloaded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := runMock(t, "turns: [{steps: [{model: {api: "+tt.api+", model: m, prompt: hi, env: MOCK_BASE, key: MOCK_KEY}}, {text: unreachable}]}]\n", nil)
			srv, got := upstream(t, tt.status, tt.contentType, tt.answer)
			t.Setenv("MOCK_BASE", srv.URL)
			t.Setenv("MOCK_KEY", "")
			sid := c.start()
			_, err := c.prompt(sid, "go")
			var e *acp.Error
			if !errors.As(err, &e) || e.Code != -32603 || e.Message != tt.want {
				t.Fatalf("prompt error = %v; want -32603 %q", err, tt.want)
			}
			if got := describeAll(c.drain()); len(got) != 0 {
				t.Errorf("updates = %q; want none", got)
			}
			r := <-got
			for _, h := range []string{"X-Api-Key", "Authorization", "X-Goog-Api-Key"} {
				if v := r.header.Get(h); v != "" {
					t.Errorf("header %s = %q sent with the key variable empty", h, v)
				}
			}
		})
	}
}

// TestModelStepCancel: session/cancel aborts a request whose answer never
// ends, and the turn ends cancelled.
func TestModelStepCancel(t *testing.T) {
	c, _ := runMock(t, "turns: [{steps: [{text: asking}, {model: {api: anthropic, model: m, prompt: hi}}, {text: never}]}]\n", nil)
	arrived, aborted, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server sees the client go only once the body is read
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n")
		w.(http.Flusher).Flush()
		close(arrived)
		select {
		case <-r.Context().Done():
			close(aborted)
		case <-done: // the test failed: let srv.Close return
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	sid := c.start()
	ctx := testCtx(t)
	call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "go"))
	c.waitText("asking")
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the request never arrived")
	}
	if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	var res acp.PromptResponse
	if err := call.Await(ctx, &res); err != nil || res.StopReason != acp.StopCancelled {
		t.Fatalf("prompt = %+v, %v; want cancelled", res, err)
	}
	select {
	case <-aborted:
	case <-ctx.Done():
		t.Fatal("the request was not aborted")
	}
	if got := describeAll(c.drain()); len(got) != 0 {
		t.Errorf("updates after the cancel: %q; want none", got)
	}
}

func TestModelStepUnsetVariable(t *testing.T) {
	c, _ := runMock(t, "turns: [{steps: [{model: {api: gemini, model: m, prompt: hi}}, {text: unreachable}]}]\n", nil)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "")
	sid := c.start()
	_, err := c.prompt(sid, "go")
	want := "model step: gemini: GOOGLE_GEMINI_BASE_URL is unset: set it to the gemini API's base URL (acprun's gateway sets it)"
	var e *acp.Error
	if !errors.As(err, &e) || e.Code != -32603 || e.Message != want {
		t.Fatalf("prompt error = %v; want -32603 %q", err, want)
	}
	if got := describeAll(c.drain()); len(got) != 0 {
		t.Errorf("updates = %q; want none", got)
	}
}

// TestModelStepPromptPlaceholder: {{prompt}} is the turn's prompt text,
// every time it appears.
func TestModelStepPromptPlaceholder(t *testing.T) {
	c, _ := runMock(t, "default: {steps: [{model: {api: openai-responses, model: m, prompt: '{{prompt}} / {{prompt}}'}}]}\n", nil)
	srv, got := upstream(t, http.StatusOK, "text/event-stream", responsesSSE)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	sid := c.start()
	for _, text := range []string{"first", "second\nline"} {
		if _, err := c.prompt(sid, text); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if input := r.body.(map[string]any)["input"]; input != text+" / "+text {
			t.Errorf("input = %q; want the prompt %q twice", input, text)
		}
	}
	if strings.Count(strings.Join(describeAll(c.drain()), "|"), "text:Hi there") != 2 {
		t.Error("the answers were not said")
	}
}

// TestModelStepGatewayCancelled: an error answer of acprun's gateway that
// says it cancelled the turn first (gateway.CancelledHeader) ends the turn
// as onCancel says of a cancel, before session/cancel is read (here it
// never comes): the same whichever of the two the agent reads first.
func TestModelStepGatewayCancelled(t *testing.T) {
	for _, tt := range []struct {
		onCancel string
		want     acp.StopReason // "": the model step's error
	}{
		{"cancelled", acp.StopCancelled},
		{"end_turn", acp.StopEndTurn},
		{"ignore", ""},
	} {
		t.Run(tt.onCancel, func(t *testing.T) {
			c, _ := runMock(t, "onCancel: "+tt.onCancel+"\nturns: [{steps: [{model: {api: anthropic, model: m, prompt: hi}}, {text: unreachable}]}]\n", nil)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set(gateway.CancelledHeader, "session/cancel")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"over budget"}}`)
			}))
			t.Cleanup(srv.Close)
			t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
			sid := c.start()
			res, err := c.prompt(sid, "go")
			var e *acp.Error
			switch {
			case tt.want != "" && (err != nil || res.StopReason != tt.want):
				t.Fatalf("prompt = %+v, %v; want %s", res, err, tt.want)
			case tt.want == "" && (!errors.As(err, &e) || e.Message != "model step: anthropic: 429 Too Many Requests: over budget"):
				t.Fatalf("prompt = %+v, %v; want the model step's error", res, err)
			}
			if got := describeAll(c.drain()); len(got) != 0 {
				t.Errorf("updates: %q; want none", got)
			}
		})
	}
}

// TestModelStepAfter: a model step in a turn's after: steps asks the model
// once the prompt is answered, as a real agent's background request (a
// title, a prompt suggestion) does, with the turn's prompt for {{prompt}};
// session/close answers once it is done, and its answer is said late. An
// error answer ends the after: steps, with no turn to fail.
func TestModelStepAfter(t *testing.T) {
	c, _ := runMock(t, `agentCapabilities: {sessionCapabilities: {close: true}}
turns:
  - steps: [{text: answered}]
    after:
      - model: {api: anthropic, model: m, prompt: "title: {{prompt}}"}
      - text: after
`, nil)
	srv, got := upstream(t, http.StatusOK, "text/event-stream", anthropicSSE)
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	sid := c.start()
	if res, err := c.prompt(sid, "go"); err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt = %+v, %v; want end_turn", res, err)
	}
	if err := c.call(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	select {
	case r := <-got:
		msgs := r.body.(map[string]any)["messages"].([]any)
		if content := msgs[0].(map[string]any)["content"]; content != "title: go" {
			t.Errorf("the after: request's prompt %q; want %q", content, "title: go")
		}
	default:
		t.Fatal("session/close answered before the after: model step asked the model")
	}
	if got := describeAll(c.drain()); !cmp.Equal(got, []string{"text:answered", "text:Hi there", "text:after"}) {
		t.Errorf("updates = %q; want the answer, then the model's text and after late", got)
	}

	c2, _ := runMock(t, `agentCapabilities: {sessionCapabilities: {close: true}}
turns:
  - after: [{model: {api: anthropic, model: m, prompt: t}}, {text: never}]
`, nil)
	bad, _ := upstream(t, http.StatusBadRequest, "application/json", `{"type":"error","error":{"type":"invalid_request_error","message":"diverged"}}`)
	t.Setenv("ANTHROPIC_BASE_URL", bad.URL)
	sid = c2.start()
	if res, err := c2.prompt(sid, "go"); err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt = %+v, %v; want end_turn", res, err)
	}
	if err := c2.call(acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	if got := describeAll(c2.drain()); len(got) != 0 {
		t.Errorf("updates = %q; want none after the error answer", got)
	}
}
