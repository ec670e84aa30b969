package testkit

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/termtext"
)

// This file holds fake model upstreams for the APIs other than OpenAI
// Chat Completions (ModelServer): OpenAI Responses (ResponsesServer) and
// Gemini (GeminiServer). They play a script as ModelServer does: a request
// that offers tools gets Replies[n], n the number of model turns already
// in its conversation; one that offers none gets SideText; one past the
// script's end gets 400, which agents do not retry. Every answer reports
// the same usage: 10 input tokens (none cached) and 5 output tokens (none
// of them reasoning), 15 in all.

// ResponsesServer is a fake OpenAI Responses API server (POST /v1/responses,
// streamed as server-sent events or not), for tests that run an agent
// (codex) against a scripted model. A model turn in a request's input is a
// run of the items a model answers with (assistant messages, function
// calls, reasoning).
type ResponsesServer struct {
	// URL is the API's base URL, ending in /v1 (OPENAI_BASE_URL).
	URL string
	// Model is the id of the one model it serves.
	Model string
	script
}

// NewResponsesServer starts a ResponsesServer for model playing replies,
// closed when the test ends.
func NewResponsesServer(t testing.TB, model string, replies ...ModelReply) *ResponsesServer {
	t.Helper()
	s := &ResponsesServer{Model: model}
	s.URL = s.serve(t, "NewResponsesServer", replies, s.notFound, map[string]http.HandlerFunc{"POST /v1/responses": s.responses}).URL + "/v1"
	return s
}

// responsesItem is an item of a Responses request's input.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

func (s *ResponsesServer) responses(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Input  json.RawMessage `json:"input"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	var items []responsesItem
	if err == nil && len(req.Input) > 0 && req.Input[0] != '"' { // a string is one user message
		err = json.Unmarshal(req.Input, &items)
	}
	if err != nil {
		s.logf("POST /v1/responses: unreadable (400): %v: %.200s", err, body)
		writeJSON(w, http.StatusBadRequest, openAIError(err.Error()))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "POST /v1/responses model %q", req.Model)
	if req.Stream {
		b.WriteString(", streamed")
	}
	var tools []string
	for _, tool := range req.Tools {
		tools = append(tools, cmp.Or(tool.Name, tool.Type))
	}
	if len(tools) > 0 {
		fmt.Fprintf(&b, ", tools %s", strings.Join(tools, " "))
	}
	var text string
	if json.Unmarshal(req.Input, &text) == nil {
		fmt.Fprintf(&b, "\n  user %q", termtext.CutBytes(text, 120))
	}
	n, inTurn := 0, false
	for _, it := range items {
		fromModel := it.Type == "function_call" || it.Type == "reasoning" || it.Type == "custom_tool_call" ||
			it.Type == "local_shell_call" || it.Role == "assistant"
		if fromModel && !inTurn {
			n++
		}
		inTurn = fromModel
		switch {
		case it.Type == "function_call" || it.Type == "custom_tool_call":
			fmt.Fprintf(&b, "\n  calls %s (%s)", it.Name, it.CallID)
		case strings.HasSuffix(it.Type, "_output"):
			fmt.Fprintf(&b, "\n  %s (%s) %q", it.Type, it.CallID, termtext.CutBytes(content(it.Output), 120))
		case it.Role != "":
			fmt.Fprintf(&b, "\n  %s %q", it.Role, termtext.CutBytes(content(it.Content), 120))
		default:
			fmt.Fprintf(&b, "\n  %s", it.Type)
		}
	}
	b.WriteString("\n  ")
	reply, which, ok := s.play(w, b.String(), len(req.Tools) > 0, n, openAIError)
	if !ok {
		return
	}
	s.answer(w, reply, req.Stream, which)
}

// answer writes reply as a response object, or as the stream of events
// that builds it: response.created, response.in_progress, each output
// item's added, delta, done events, and response.completed (with usage).
func (s *ResponsesServer) answer(w http.ResponseWriter, reply ModelReply, stream bool, which string) {
	id := "resp_test_" + strings.ReplaceAll(which, " ", "_")
	response := func(status string, output []any, usage any) map[string]any {
		return map[string]any{"id": id, "object": "response", "created_at": 1700000000, "status": status, "error": nil,
			"incomplete_details": nil, "instructions": nil, "model": s.Model, "output": output, "parallel_tool_calls": false,
			"previous_response_id": nil, "store": false, "tool_choice": "auto", "tools": []any{}, "usage": usage, "metadata": map[string]any{}}
	}
	usage := map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}

	// The items, each as added (in progress, empty) and as done, with the
	// events between.
	type item struct {
		added, done map[string]any
		between     []map[string]any
	}
	var items []item
	if reply.Text != "" {
		msgID := "msg_" + id
		part := func(text string) map[string]any {
			return map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": text}
		}
		message := func(status string, content ...any) map[string]any {
			return map[string]any{"id": msgID, "type": "message", "status": status, "content": append([]any{}, content...), "role": "assistant"}
		}
		at := map[string]any{"item_id": msgID, "output_index": len(items), "content_index": 0}
		with := func(m map[string]any) map[string]any {
			maps.Copy(m, at)
			return m
		}
		items = append(items, item{added: message("in_progress"), done: message("completed", part(reply.Text)), between: []map[string]any{
			with(map[string]any{"type": "response.content_part.added", "part": part("")}),
			with(map[string]any{"type": "response.output_text.delta", "delta": reply.Text, "logprobs": []any{}}),
			with(map[string]any{"type": "response.output_text.done", "text": reply.Text, "logprobs": []any{}}),
			with(map[string]any{"type": "response.content_part.done", "part": part(reply.Text)}),
		}})
	}
	for i, c := range reply.ToolCalls {
		fcID := fmt.Sprintf("fc_%s_%d", id, i)
		call := func(status, args string) map[string]any {
			return map[string]any{"id": fcID, "type": "function_call", "status": status, "arguments": args, "call_id": c.ID, "name": c.Name}
		}
		args := arguments(c)
		items = append(items, item{added: call("in_progress", ""), done: call("completed", args), between: []map[string]any{
			{"type": "response.function_call_arguments.delta", "item_id": fcID, "output_index": len(items), "delta": args},
			{"type": "response.function_call_arguments.done", "item_id": fcID, "output_index": len(items), "arguments": args},
		}})
	}
	var output []any
	for _, it := range items {
		output = append(output, it.done)
	}
	if !stream {
		writeJSON(w, http.StatusOK, response("completed", output, usage))
		return
	}
	events := []map[string]any{
		{"type": "response.created", "response": response("in_progress", []any{}, nil)},
		{"type": "response.in_progress", "response": response("in_progress", []any{}, nil)},
	}
	for i, it := range items {
		events = append(events, map[string]any{"type": "response.output_item.added", "output_index": i, "item": it.added})
		events = append(events, it.between...)
		events = append(events, map[string]any{"type": "response.output_item.done", "output_index": i, "item": it.done})
	}
	events = append(events, map[string]any{"type": "response.completed", "response": response("completed", output, usage)})
	startEvents(w, "text/event-stream; charset=utf-8")
	for i, e := range events {
		e["sequence_number"] = i
		writeEvent(w, e["type"].(string), e)
	}
}

// GeminiServer is a fake Gemini API server (POST
// /v1beta/models/MODEL:streamGenerateContent, as server-sent events with
// ?alt=sse or else a JSON array, and :generateContent), for tests that run
// an agent (gemini) against a scripted model. A model turn is a content
// with role "model". A request for another model gets 404, as Gemini
// answers.
type GeminiServer struct {
	// URL is the API's base URL, without a version
	// (GOOGLE_GEMINI_BASE_URL).
	URL string
	// Model is the name of the one model it serves ("gemini-2.5-flash").
	Model string
	script
}

// NewGeminiServer starts a GeminiServer for model playing replies, closed
// when the test ends.
func NewGeminiServer(t testing.TB, model string, replies ...ModelReply) *GeminiServer {
	t.Helper()
	s := &GeminiServer{Model: model}
	s.URL = s.serve(t, "NewGeminiServer", replies, s.notFound, map[string]http.HandlerFunc{"POST /v1beta/models/{call}": s.generate}).URL
	return s
}

// geminiPart is a part of a Gemini content.
type geminiPart struct {
	Text         string `json:"text,omitempty"`
	FunctionCall *struct {
		Name string `json:"name"`
		Args any    `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		Name     string `json:"name"`
		Response any    `json:"response"`
	} `json:"functionResponse,omitempty"`
}

func (s *GeminiServer) generate(w http.ResponseWriter, r *http.Request) {
	asked := r.Method + " " + r.URL.Path
	if alt := r.URL.Query().Get("alt"); alt != "" { // and not the rest: the query may hold the key
		asked += "?alt=" + alt
	}
	model, call, _ := strings.Cut(r.PathValue("call"), ":")
	if call != "generateContent" && call != "streamGenerateContent" {
		s.notFound(w, r)
		return
	}
	if model != s.Model {
		msg := fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for %s.", model, call)
		s.logf("%s: 404: %s", asked, msg)
		writeJSON(w, http.StatusNotFound, geminiError(http.StatusNotFound, msg, "NOT_FOUND"))
		return
	}
	var req struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.logf("%s: unreadable (400): %v: %.200s", asked, err, body)
		writeJSON(w, http.StatusBadRequest, geminiError(http.StatusBadRequest, err.Error(), "INVALID_ARGUMENT"))
		return
	}
	var b strings.Builder
	b.WriteString(asked)
	var tools []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			tools = append(tools, f.Name)
		}
	}
	if len(tools) > 0 {
		fmt.Fprintf(&b, ", tools %s", strings.Join(tools, " "))
	}
	n := 0
	for _, c := range req.Contents {
		if c.Role == "model" {
			n++
		}
		fmt.Fprintf(&b, "\n  %s", c.Role)
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				fmt.Fprintf(&b, " calls %s", p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				resp, _ := json.Marshal(p.FunctionResponse.Response)
				fmt.Fprintf(&b, " %s answered %s", p.FunctionResponse.Name, termtext.CutBytes(string(resp), 120))
			default:
				fmt.Fprintf(&b, " %q", termtext.CutBytes(p.Text, 120))
			}
		}
	}
	b.WriteString("\n  ")
	reply, which, ok := s.play(w, b.String(), len(tools) > 0, n, func(msg string) map[string]any {
		return geminiError(http.StatusBadRequest, msg, "INVALID_ARGUMENT")
	})
	if !ok {
		return
	}

	// The reply's parts, one chunk each when streamed; the last chunk
	// has the finish reason and the whole usage, the others the prompt's.
	var parts []any
	if reply.Text != "" {
		parts = append(parts, map[string]any{"text": reply.Text})
	}
	for _, c := range reply.ToolCalls {
		var args any
		json.Unmarshal([]byte(arguments(c)), &args) // as an object, not as JSON text
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
	}
	id := "test_" + strings.ReplaceAll(which, " ", "_")
	chunk := func(parts []any, last bool) map[string]any {
		candidate := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		usage := map[string]any{"promptTokenCount": 10, "totalTokenCount": 10}
		if last {
			candidate["finishReason"] = "STOP"
			usage = map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
		}
		return map[string]any{"candidates": []any{candidate}, "usageMetadata": usage, "modelVersion": s.Model, "responseId": id}
	}
	if call == "generateContent" {
		writeJSON(w, http.StatusOK, chunk(parts, true))
		return
	}
	var chunks []any
	for i, p := range parts {
		chunks = append(chunks, chunk([]any{p}, i == len(parts)-1))
	}
	if r.URL.Query().Get("alt") != "sse" {
		writeJSON(w, http.StatusOK, chunks)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\r\n\r\n", data) // Gemini ends its lines with \r\n
	}
}

// geminiError is Google's error body.
func geminiError(code int, msg, status string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
}
