package testkit

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/termtext"
)

// ModelReply is one scripted answer of a ModelServer: a text, or the tool
// calls the model asks the agent to make.
type ModelReply struct {
	Text      string
	ToolCalls []ModelToolCall
}

// ModelToolCall is one function call of a ModelReply. Arguments is
// marshalled to the JSON text the API carries.
type ModelToolCall struct {
	ID        string
	Name      string
	Arguments any
}

// SideText is what a ModelServer answers a request that offers no tools:
// what an agent asks on the side of its loop (a title for the session, a
// summary).
const SideText = "Scripted session"

// ModelServer is a fake OpenAI-compatible model server (the chat
// completions API, streamed or not, and the model list), for tests that
// run a real agent against a scripted model. It answers a request that
// offers tools with Replies[n], n the number of assistant messages in the
// request's conversation: the agent's loop gets the script in order
// whatever else it asks, in every session, even on a retry. A request past
// the script's end is answered 400, which agents do not retry. Every
// request is logged (Log), so that a failing test can show what the agent
// asked.
type ModelServer struct {
	// URL is the API's base URL, ending in /v1, as an agent's provider
	// configuration takes it (baseURL).
	URL string
	// Model is the id of the one model it serves.
	Model string
	script
}

// NewModelServer starts a ModelServer for model playing replies, closed
// when the test ends.
func NewModelServer(t testing.TB, model string, replies ...ModelReply) *ModelServer {
	t.Helper()
	s := &ModelServer{Model: model}
	s.URL = s.serve(t, "NewModelServer", replies, s.notFound, map[string]http.HandlerFunc{
		"GET /v1/models":            s.models,
		"POST /v1/chat/completions": s.chat,
	}).URL + "/v1"
	return s
}

func (s *ModelServer) models(w http.ResponseWriter, r *http.Request) {
	s.logf("GET /v1/models")
	writeJSON(w, http.StatusOK, map[string]any{"object": "list",
		"data": []any{map[string]any{"id": s.Model, "object": "model", "created": 0, "owned_by": "acprun-test"}}})
}

// chatRequest is what ModelServer reads of a chat completions request.
type chatRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (s *ModelServer) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req chatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.logf("POST /v1/chat/completions: unreadable (400): %v: %.200s", err, body)
		writeJSON(w, http.StatusBadRequest, openAIError(err.Error()))
		return
	}
	asked := describeRequest(req)
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	reply, _, ok := s.play(w, asked+"\n  ", len(req.Tools) > 0, n, openAIError)
	if !ok {
		return
	}
	if req.Stream {
		s.stream(w, reply)
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if reply.Text != "" {
		msg["content"] = reply.Text
	}
	if len(reply.ToolCalls) > 0 {
		var calls []any
		for _, c := range reply.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": arguments(c)}})
		}
		msg["tool_calls"] = calls
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": s.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(reply)}}, "usage": usage})
}

// usage is the token count of every answer.
var usage = map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

// stream writes reply as server-sent events: the text or each tool call
// (its id and name, then its arguments) in delta chunks, a chunk with the
// finish reason, one with the usage, and [DONE].
func (s *ModelServer) stream(w http.ResponseWriter, reply ModelReply) {
	startEvents(w, "text/event-stream")
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": s.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	var events []any
	if reply.Text != "" {
		events = append(events, chunk(map[string]any{"role": "assistant", "content": reply.Text}, nil))
	}
	for i, c := range reply.ToolCalls {
		events = append(events,
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil),
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": arguments(c)}}}}, nil))
	}
	events = append(events, chunk(map[string]any{}, finishReason(reply)),
		map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": s.Model,
			"choices": []any{}, "usage": usage})
	for _, e := range events {
		writeEvent(w, "", e)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

func finishReason(reply ModelReply) string {
	if len(reply.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// arguments is c's arguments as the JSON text the API carries
// (the servers' constructors checked that they marshal).
func arguments(c ModelToolCall) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a shell command's > as it is, in the log too
	enc.Encode(c.Arguments)
	return strings.TrimSuffix(b.String(), "\n")
}

// openAIError is OpenAI's invalid-request error body.
func openAIError(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(code)
	w.Write(data)
}

// describeRequest is one log line for req: how it was asked, the tools it
// offers and its messages, long contents cut.
func describeRequest(req chatRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "POST /v1/chat/completions model %q", req.Model)
	if req.Stream {
		b.WriteString(", streamed")
	}
	if len(req.Tools) > 0 {
		names := make([]string, len(req.Tools))
		for i, tool := range req.Tools {
			names[i] = tool.Function.Name
		}
		fmt.Fprintf(&b, ", tools %s", strings.Join(names, " "))
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "\n  %s", m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " (%s)", m.ToolCallID)
		}
		if text := content(m.Content); text != "" {
			fmt.Fprintf(&b, " %q", termtext.CutBytes(text, 120))
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " calls %s (%s)", c.Function.Name, c.ID)
		}
	}
	return b.String()
}

// content is a message's content as text: a string, or the text of its
// parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var texts []string
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, " ")
	}
	return string(raw)
}

func describeReply(reply ModelReply) string {
	if len(reply.ToolCalls) == 0 {
		return fmt.Sprintf("text %q", reply.Text)
	}
	var calls []string
	for _, c := range reply.ToolCalls {
		calls = append(calls, fmt.Sprintf("%s (%s) %s", c.Name, c.ID, arguments(c)))
	}
	return "tool calls " + strings.Join(calls, ", ")
}

// script is what every fake model server keeps: the replies it plays and
// its log of the requests it got.
type script struct {
	replies []ModelReply
	mu      sync.Mutex
	log     []string
	side    string // under mu: see SetSideText
}

// SetSideText makes the server answer a request that offers no tools
// with text instead of SideText.
func (l *script) SetSideText(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.side = text
}

// sideText is what the server answers a request that offers no tools.
func (l *script) sideText() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return cmp.Or(l.side, SideText)
}

// serve starts a fake model server playing replies, with handlers by
// pattern, answering any other path with notFound; it is closed when the
// test ends. It fails the test at once (for the constructor who) when a
// tool call's arguments do not marshal.
func (l *script) serve(t testing.TB, who string, replies []ModelReply, notFound http.HandlerFunc, handlers map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	for _, r := range replies {
		for _, c := range r.ToolCalls {
			if _, err := json.Marshal(c.Arguments); err != nil {
				t.Fatalf("testkit.%s: tool call %s: arguments: %v", who, c.ID, err)
			}
		}
	}
	l.replies = replies
	mux := http.NewServeMux()
	for pattern, h := range handlers {
		mux.HandleFunc(pattern, h)
	}
	mux.HandleFunc("/", notFound)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// startEvents starts an answer of server-sent events of contentType, not
// to be cached.
func startEvents(w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// writeEvent writes one server-sent event: its name, unless "", and v as
// its data.
func writeEvent(w io.Writer, name string, v any) {
	data, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
}

// Log is the requests received so far, one entry each: what was asked and
// what was answered.
func (l *script) Log() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.log, "\n")
}

func (l *script) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, fmt.Sprintf(format, args...))
}

// notFound logs and answers a request the fake does not serve.
func (l *script) notFound(w http.ResponseWriter, r *http.Request) {
	l.logf("%s %s: not served (404)", r.Method, r.URL.Path)
	http.NotFound(w, r)
}

// play is the reply to a request with tools (or without: the side text)
// whose conversation has n model turns, and how the log says it, logged
// after asked (which ends with what goes before the arrow); false when the
// script has ended, after answering 400 with errBody of the reason.
func (l *script) play(w http.ResponseWriter, asked string, tools bool, n int, errBody func(string) map[string]any) (ModelReply, string, bool) {
	reply, which := ModelReply{Text: l.sideText()}, "side text"
	if tools {
		if n >= len(l.replies) {
			ended := fmt.Sprintf("the script has %d replies, and this conversation already has %d model turns", len(l.replies), n)
			l.logf("%s→ 400: %s", asked, ended)
			writeJSON(w, http.StatusBadRequest, errBody(ended))
			return ModelReply{}, "", false
		}
		reply, which = l.replies[n], fmt.Sprintf("reply %d of %d", n+1, len(l.replies))
	}
	l.logf("%s→ %s: %s", asked, which, describeReply(reply))
	return reply, which, true
}
