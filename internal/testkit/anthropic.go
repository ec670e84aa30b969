package testkit

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/termtext"
)

// The usage of every answer of an AnthropicServer, fixed so that tests can
// assert what a meter read. As the Messages API streams it, message_start
// carries the input, cache and a first output count (AnthropicStartOutput
// tokens), and message_delta the final, cumulative output count alone; a
// whole JSON answer carries the four final counts. count_tokens answers
// AnthropicInputTokens.
const (
	AnthropicInputTokens      = 10
	AnthropicCacheWriteTokens = 3 // cache_creation_input_tokens
	AnthropicCacheReadTokens  = 2 // cache_read_input_tokens
	AnthropicOutputTokens     = 5
	AnthropicStartOutput      = 1 // message_start's output_tokens, before the final count
)

// AnthropicRequest is one request an AnthropicServer received.
type AnthropicRequest struct {
	Method string
	// Path is the request's path and, when there is one, its query
	// ("/v1/messages?beta=true").
	Path   string
	Header http.Header
	Body   []byte
}

// AnthropicServer is a fake Anthropic Messages API (POST /v1/messages,
// streamed as server-sent events or a whole JSON answer, and POST
// /v1/messages/count_tokens), for tests that run a real agent such as
// Claude Code against a scripted model. Like ModelServer, it answers a
// request that offers tools (the agent's own loop) with Replies[n], n the
// number of assistant messages in the request's conversation, and one that
// offers none (a side request: a session title, a summary, a quota check)
// with SideText. A side request for a session title as structured output
// (output_config.format a json_schema with a "title" property, as Claude
// Code asks for one) is answered {"title": SIDE}, SIDE the side text, a valid
// answer to it, and with no usage (every count 0): a title request runs
// beside the agent's loop, in any order with its requests, so that where
// it falls changes no turn's token counts. A request past the script's
// end is answered 400
// invalid_request_error, which agents do not retry; any other path 404.
// Every answer carries the usage above. Every request is logged (Log, one
// line each) and kept (Requests).
type AnthropicServer struct {
	// URL is the API's base URL, without /v1, as ANTHROPIC_BASE_URL takes
	// it.
	URL string
	srv *httptest.Server
	script

	mu         sync.Mutex
	requests   []AnthropicRequest
	messages   int // message ids handed out
	deltaBytes int // see StreamInDeltas
}

// StreamInDeltas makes the server stream a text in deltas of n bytes (a
// little more where a character would be cut), as models stream tokens,
// instead of in two halves.
func (s *AnthropicServer) StreamInDeltas(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deltaBytes = n
}

// NewAnthropicServer starts an AnthropicServer playing replies, closed when
// the test ends (or before, by Close). A reply's tool calls are tool_use
// blocks: ModelToolCall.ID is the block's id (toolu_…), Arguments its
// input, which must marshal to a JSON object.
func NewAnthropicServer(t testing.TB, replies ...ModelReply) *AnthropicServer {
	t.Helper()
	s := &AnthropicServer{}
	s.srv = s.serve(t, "NewAnthropicServer", replies, func(w http.ResponseWriter, r *http.Request) {
		s.keep(r, nil)
		s.logf("%s %s: not served (404)", r.Method, r.URL.RequestURI())
		writeJSON(w, http.StatusNotFound, anthropicError("not_found_error", "not served by the fake: "+r.URL.Path))
	}, map[string]http.HandlerFunc{
		"POST /v1/messages":              s.messagesHandler,
		"POST /v1/messages/count_tokens": s.countTokens,
	})
	s.URL = s.srv.URL
	for _, r := range replies {
		for _, c := range r.ToolCalls {
			var obj map[string]any
			if json.Unmarshal([]byte(arguments(c)), &obj) != nil {
				t.Fatalf("testkit.NewAnthropicServer: tool call %s: input %s is not a JSON object", c.ID, arguments(c))
			}
		}
	}
	return s
}

// Close stops the server: later requests fail to connect. It waits for
// the requests in flight to end.
func (s *AnthropicServer) Close() { s.srv.Close() }

// Requests is the requests received so far, in the order they arrived.
func (s *AnthropicServer) Requests() []AnthropicRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]AnthropicRequest(nil), s.requests...)
}

// AsksTitle reports whether r is a Messages request for a session title
// as structured output, which the server answers with a title (see
// AnthropicServer).
func (r AnthropicRequest) AsksTitle() bool {
	var req anthropicRequest
	return r.Method == http.MethodPost && strings.HasPrefix(r.Path, "/v1/messages") && !strings.HasPrefix(r.Path, "/v1/messages/") &&
		json.Unmarshal(r.Body, &req) == nil && req.asksTitle()
}

// keep records r, whose body was read as body.
func (s *AnthropicServer) keep(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, AnthropicRequest{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
}

// anthropicRequest is what AnthropicServer reads of a Messages request.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	OutputConfig struct {
		Format struct {
			Type   string `json:"type"`
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
}

// asksTitle reports whether req is a side request for a session title as
// structured output: no tools, and a JSON schema with a title property.
func (req *anthropicRequest) asksTitle() bool {
	f := req.OutputConfig.Format
	_, title := f.Schema.Properties["title"]
	return len(req.Tools) == 0 && f.Type == "json_schema" && title
}

// anthropicUsage is the usage an answer carries: the input and cache
// counts, message_start's first output count and the final one.
type anthropicUsage struct {
	input, cacheWrite, cacheRead, startOutput, output int
}

// fixedUsage is every answer's usage but a title's (see AnthropicServer).
var fixedUsage = anthropicUsage{AnthropicInputTokens, AnthropicCacheWriteTokens, AnthropicCacheReadTokens, AnthropicStartOutput, AnthropicOutputTokens}

// read reads r's body as a Messages request, answering 400 and returning
// false when it is not one.
func (s *AnthropicServer) read(w http.ResponseWriter, r *http.Request, req *anthropicRequest) bool {
	body, err := io.ReadAll(r.Body)
	s.keep(r, body)
	if err == nil {
		err = json.Unmarshal(body, req)
	}
	if err != nil {
		s.logf("%s %s: unreadable (400): %v: %.200s", r.Method, r.URL.RequestURI(), err, body)
		writeJSON(w, http.StatusBadRequest, anthropicError("invalid_request_error", err.Error()))
		return false
	}
	return true
}

func (s *AnthropicServer) countTokens(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	if !s.read(w, r, &req) {
		return
	}
	s.logf("%s: input_tokens %d", describeAnthropic(r, req), AnthropicInputTokens)
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": AnthropicInputTokens})
}

func (s *AnthropicServer) messagesHandler(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	if !s.read(w, r, &req) {
		return
	}
	asked := describeAnthropic(r, req)
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	reply, usage := ModelReply{}, fixedUsage
	if req.asksTitle() {
		title, _ := json.Marshal(map[string]string{"title": s.sideText()})
		reply, usage = ModelReply{Text: string(title)}, anthropicUsage{}
		s.logf("%s → title: %s", asked, describeReply(reply))
	} else {
		var ok bool
		reply, _, ok = s.play(w, asked+" ", len(req.Tools) > 0, n, func(msg string) map[string]any {
			return anthropicError("invalid_request_error", msg)
		})
		if !ok {
			return
		}
	}
	s.mu.Lock()
	s.messages++
	id := fmt.Sprintf("msg_test_%d", s.messages)
	s.mu.Unlock()
	w.Header().Set("Request-Id", "req_test_"+strings.TrimPrefix(id, "msg_test_"))
	if req.Stream {
		s.stream(w, id, req.Model, reply, usage)
		return
	}
	var content []any
	if reply.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
	}
	for _, c := range reply.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(arguments(c))})
	}
	msg := anthropicMessage(id, req.Model, usage)
	msg["content"], msg["stop_reason"] = content, stopReason(reply)
	msg["usage"].(map[string]any)["output_tokens"] = usage.output
	writeJSON(w, http.StatusOK, msg)
}

// anthropicMessage is a message as message_start carries it: no content
// yet, the input usage and a first output count of u.
func anthropicMessage(id, model string, u anthropicUsage) map[string]any {
	return map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.input, "cache_creation_input_tokens": u.cacheWrite,
			"cache_read_input_tokens": u.cacheRead, "output_tokens": u.startOutput, "service_tier": "standard"}}
}

// stream writes reply as the Messages API streams it: message_start, a
// ping, then for each content block (the text, then each tool call)
// content_block_start, its deltas (text_delta in two halves, or as
// StreamInDeltas says; input_json_delta in two parts after an empty one)
// and content_block_stop, then message_delta
// with the stop reason and the final output count, and message_stop; the
// counts are u's.
func (s *AnthropicServer) stream(w http.ResponseWriter, id, model string, reply ModelReply, u anthropicUsage) {
	startEvents(w, "text/event-stream; charset=utf-8")
	event := func(name string, data map[string]any) {
		data["type"] = name
		writeEvent(w, name, data)
	}
	event("message_start", map[string]any{"message": anthropicMessage(id, model, u)})
	event("ping", map[string]any{})
	index := 0
	if reply.Text != "" {
		event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		s.mu.Lock()
		n := s.deltaBytes
		s.mu.Unlock()
		parts := splitHalves(reply.Text)
		if n > 0 {
			parts = CutEvery(reply.Text, n)
		}
		for _, part := range parts {
			event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": part}})
		}
		event("content_block_stop", map[string]any{"index": index})
		index++
	}
	for _, c := range reply.ToolCalls {
		event("content_block_start", map[string]any{"index": index,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		for _, part := range append([]string{""}, splitHalves(arguments(c))...) {
			event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		event("content_block_stop", map[string]any{"index": index})
		index++
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason(reply), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.output}})
	event("message_stop", map[string]any{})
}

// splitHalves is s in two parts cut on a character's boundary, as a
// stream cuts text anywhere; one part when s is too short to cut.
func splitHalves(s string) []string {
	n := len(s) / 2
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n == 0 {
		return []string{s}
	}
	return []string{s[:n], s[n:]}
}

// CutEvery is s in parts of n bytes, or a little more where a character
// would be cut: a text as a model streams it, in small deltas.
func CutEvery(s string, n int) []string {
	var parts []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		parts, s = append(parts, s[:k]), s[k:]
	}
	return parts
}

func stopReason(reply ModelReply) string {
	if len(reply.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

// describeAnthropic is the start of one log line for req: how it was
// asked, its model, the number of tools offered and of messages, and the
// last message, cut.
func describeAnthropic(r *http.Request, req anthropicRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s model %q", r.Method, r.URL.RequestURI(), req.Model)
	if req.Stream {
		b.WriteString(", streamed")
	}
	fmt.Fprintf(&b, ", %d tools, %d messages", len(req.Tools), len(req.Messages))
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1]
		fmt.Fprintf(&b, ", last %s %s", last.Role, anthropicContent(last.Content))
	}
	return b.String()
}

// anthropicContent is a message's content in a few words: its text, its
// tool calls and tool results.
func anthropicContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return fmt.Sprintf("%q", termtext.CutBytes(s, 80))
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return termtext.CutBytes(string(raw), 80)
	}
	var parts []string
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			parts = append(parts, fmt.Sprintf("%q", termtext.CutBytes(bl.Text, 80)))
		case "tool_use":
			parts = append(parts, fmt.Sprintf("tool_use %s (%s)", bl.Name, bl.ID))
		case "tool_result":
			parts = append(parts, fmt.Sprintf("tool_result (%s) %s", bl.ToolUseID, anthropicContent(bl.Content)))
		default:
			parts = append(parts, bl.Type)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
