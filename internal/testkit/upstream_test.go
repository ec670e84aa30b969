package testkit_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/testkit"
)

// post posts body (marshalled) to url and returns the status, content type
// and the answer.
func post(t *testing.T, url string, body any) (int, string, []byte) {
	t.Helper()
	data, _ := json.Marshal(body)
	res, err := http.Post(url, "application/json", strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), answer
}

// events cuts a stream into its events (name, data), as the gateway does,
// and meters it.
func events(t *testing.T, api provider.API, stream []byte) (names []string, datas [][]byte, m *provider.Meter) {
	t.Helper()
	var s provider.Splitter
	m = provider.NewMeter(api)
	for _, e := range s.Feed(stream) {
		name, data := provider.Parse(e)
		names, datas = append(names, name), append(datas, data)
		m.Event(name, data)
	}
	if rest := s.Rest(); len(rest) > 0 {
		t.Errorf("the stream ends with %q, no whole event", rest)
	}
	return names, datas, m
}

// wantUsage checks that m read the fakes' usage, and the model.
func wantUsage(t *testing.T, m *provider.Meter, model string) {
	t.Helper()
	if u, ok := m.Usage(); !ok || u != (provider.Usage{Input: 10, Output: 5}) || m.Model() != model {
		t.Errorf("metered %+v, %v, model %q; want 10 input and 5 output tokens of %s", u, ok, m.Model(), model)
	}
}

// responsesItem is what a client reads of an output item.
type responsesItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Role      string `json:"role"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// readResponses reads a Responses stream as codex does: the items of
// response.output_item.done, the text of the deltas, the completed
// response's status; each event's name is its data's type and sequence
// numbers count up from 0.
func readResponses(t *testing.T, stream []byte) (items []responsesItem, text, status string, m *provider.Meter) {
	t.Helper()
	names, datas, m := events(t, provider.OpenAIResponses, stream)
	for i, data := range datas {
		var e struct {
			Type     string        `json:"type"`
			Sequence int           `json:"sequence_number"`
			Delta    string        `json:"delta"`
			Item     responsesItem `json:"item"`
			Response struct {
				Status string          `json:"status"`
				Output []responsesItem `json:"output"`
			} `json:"response"`
		}
		if err := json.Unmarshal(data, &e); err != nil || e.Type != names[i] || e.Sequence != i {
			t.Fatalf("event %d %q: %s (%v); want its name as type and sequence_number %d", i, names[i], data, err, i)
		}
		switch e.Type {
		case "response.output_item.done":
			items = append(items, e.Item)
		case "response.output_text.delta":
			text += e.Delta
		case "response.completed":
			status = e.Response.Status
			if len(e.Response.Output) != len(items) {
				t.Errorf("response.completed has %d output items; %d were done", len(e.Response.Output), len(items))
			}
		}
	}
	if len(names) < 3 || names[0] != "response.created" || names[len(names)-1] != "response.completed" {
		t.Errorf("events %q; want response.created … response.completed", names)
	}
	return items, text, status, m
}

// TestResponsesServerPlaysScript: the script in order, counted by the
// model turns of the input, streamed as the Responses API does; no tools:
// the side text, unstreamed; past the end: 400; a log of it all.
func TestResponsesServerPlaysScript(t *testing.T) {
	s := testkit.NewResponsesServer(t, "gpt-5-codex", modelScript...)
	tools := []any{map[string]any{"type": "function", "name": "bash", "parameters": map[string]any{}}}
	user := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "write the file"}}}

	status, ctype, answer := post(t, s.URL+"/responses", map[string]any{"model": s.Model, "stream": true, "tools": tools, "input": []any{user}})
	if status != http.StatusOK || !strings.HasPrefix(ctype, "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q: %s", status, ctype, answer)
	}
	items, text, done, m := readResponses(t, answer)
	if len(items) != 1 || items[0].Type != "function_call" || items[0].CallID != "call_1" || items[0].Name != "bash" ||
		items[0].Arguments != `{"command":"echo hi > /x/y"}` || items[0].Status != "completed" || text != "" || done != "completed" {
		t.Errorf("first reply: items %+v, text %q, status %q; want the bash call", items, text, done)
	}
	wantUsage(t, m, "gpt-5-codex")

	input := []any{user,
		map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}, "encrypted_content": "x"},
		map[string]any{"type": "function_call", "call_id": "call_1", "name": "bash", "arguments": "{}"},
		map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "(no output)"}}
	_, _, answer = post(t, s.URL+"/responses", map[string]any{"model": s.Model, "stream": true, "tools": tools, "input": input})
	items, text, _, _ = readResponses(t, answer)
	if len(items) != 1 || items[0].Type != "message" || items[0].Role != "assistant" || len(items[0].Content) != 1 ||
		items[0].Content[0].Type != "output_text" || items[0].Content[0].Text != "Done." || text != "Done." {
		t.Errorf("second reply: items %+v, text %q; want the message Done.", items, text)
	}

	status, _, answer = post(t, s.URL+"/responses", map[string]any{"model": s.Model, "input": "name this session"})
	var whole struct {
		Object string          `json:"object"`
		Status string          `json:"status"`
		Output []responsesItem `json:"output"`
	}
	json.Unmarshal(answer, &whole)
	if status != http.StatusOK || whole.Object != "response" || whole.Status != "completed" || len(whole.Output) != 1 ||
		len(whole.Output[0].Content) != 1 || whole.Output[0].Content[0].Text != testkit.SideText {
		t.Errorf("without tools: %d %s; want a response with the side text", status, answer)
	}
	m = provider.NewMeter(provider.OpenAIResponses)
	m.Body(answer)
	wantUsage(t, m, "gpt-5-codex")

	input = append(input, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Done."}}}, user)
	status, _, answer = post(t, s.URL+"/responses", map[string]any{"model": s.Model, "stream": true, "tools": tools, "input": input})
	var e struct {
		Error struct{ Message, Type string }
	}
	json.Unmarshal(answer, &e)
	if status != http.StatusBadRequest || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, "the script has 2 replies") {
		t.Errorf("past the script: %d %s; want 400 saying the script ended", status, answer)
	}

	log := s.Log()
	for _, want := range []string{
		"POST /v1/responses model \"gpt-5-codex\", streamed, tools bash\n  user \"write the file\"\n  → reply 1 of 2: tool calls bash (call_1) {\"command\":\"echo hi > /x/y\"}",
		"  reasoning\n  calls bash (call_1)\n  function_call_output (call_1) \"(no output)\"\n  → reply 2 of 2: text \"Done.\"",
		"POST /v1/responses model \"gpt-5-codex\"\n  user \"name this session\"\n  → side text: text \"Scripted session\"",
		"→ 400: the script has 2 replies, and this conversation already has 2 model turns",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log:\n%s\nwant it to hold:\n%s", log, want)
		}
	}
}

// geminiChunk is what a client reads of a GenerateContentResponse.
type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
}

// readGemini puts chunks together: the text, the function calls (name
// and args as JSON) and the last finish reason.
func readGemini(t *testing.T, chunks []geminiChunk) (text string, calls []string, finish string) {
	t.Helper()
	for _, c := range chunks {
		if len(c.Candidates) != 1 || c.Candidates[0].Content.Role != "model" {
			t.Fatalf("chunk %+v; want one candidate of the model", c)
		}
		for _, p := range c.Candidates[0].Content.Parts {
			text += p.Text
			if f := p.FunctionCall; f != nil {
				var args strings.Builder
				enc := json.NewEncoder(&args)
				enc.SetEscapeHTML(false)
				enc.Encode(f.Args)
				calls = append(calls, f.Name+" "+strings.TrimSpace(args.String()))
			}
		}
		finish = c.Candidates[0].FinishReason
	}
	return text, calls, finish
}

// TestGeminiServerPlaysScript: the script in order, counted by the model
// contents, as server-sent events (alt=sse, lines ending in \r\n), as a
// JSON array without alt=sse, or whole (generateContent); another model:
// 404; past the end: 400; a log of it all.
func TestGeminiServerPlaysScript(t *testing.T) {
	s := testkit.NewGeminiServer(t, "gemini-2.5-flash", modelScript...)
	base := s.URL + "/v1beta/models/gemini-2.5-flash"
	tools := []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "bash", "parameters": map[string]any{"type": "object"}}}}}
	user := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "write the file"}}}

	status, ctype, answer := post(t, base+":streamGenerateContent?alt=sse&key=secret", map[string]any{"contents": []any{user}, "tools": tools})
	if status != http.StatusOK || ctype != "text/event-stream" || !strings.HasSuffix(string(answer), "}\r\n\r\n") {
		t.Fatalf("status %d, Content-Type %q: %q; want events ending in \\r\\n\\r\\n", status, ctype, answer)
	}
	_, datas, m := events(t, provider.Gemini, answer)
	var chunks []geminiChunk
	for _, d := range datas {
		var c geminiChunk
		if err := json.Unmarshal(d, &c); err != nil {
			t.Fatalf("chunk %s: %v", d, err)
		}
		chunks = append(chunks, c)
	}
	text, calls, finish := readGemini(t, chunks)
	if text != "" || len(calls) != 1 || calls[0] != `bash {"command":"echo hi > /x/y"}` || finish != "STOP" {
		t.Errorf("first reply: text %q, calls %q, finish %q; want the bash call", text, calls, finish)
	}
	wantUsage(t, m, "gemini-2.5-flash")

	contents := []any{user,
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "bash", "args": map[string]any{"command": "echo hi > /x/y"}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "bash", "response": map[string]any{"output": ""}}}}}}
	status, _, answer = post(t, base+":streamGenerateContent", map[string]any{"contents": contents, "tools": tools})
	chunks = nil
	if err := json.Unmarshal(answer, &chunks); err != nil || status != http.StatusOK {
		t.Fatalf("without alt=sse: %d %s (%v); want a JSON array", status, answer, err)
	}
	if text, calls, finish := readGemini(t, chunks); text != "Done." || len(calls) != 0 || finish != "STOP" {
		t.Errorf("second reply: text %q, calls %q, finish %q; want Done.", text, calls, finish)
	}
	m = provider.NewMeter(provider.Gemini)
	m.Body(answer)
	wantUsage(t, m, "gemini-2.5-flash")

	status, _, answer = post(t, base+":generateContent", map[string]any{"contents": []any{user}})
	var whole geminiChunk
	json.Unmarshal(answer, &whole)
	if text, _, _ := readGemini(t, []geminiChunk{whole}); status != http.StatusOK || text != testkit.SideText {
		t.Errorf("without tools: %d %s; want the side text", status, answer)
	}

	var e struct {
		Error struct {
			Code    int
			Message string
			Status  string
		}
	}
	status, _, answer = post(t, s.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", map[string]any{"contents": []any{user}})
	json.Unmarshal(answer, &e)
	if status != http.StatusNotFound || e.Error.Code != 404 || e.Error.Status != "NOT_FOUND" {
		t.Errorf("another model: %d %s; want 404 NOT_FOUND", status, answer)
	}
	contents = append(contents, map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Done."}}}, user)
	status, _, answer = post(t, base+":streamGenerateContent?alt=sse", map[string]any{"contents": contents, "tools": tools})
	json.Unmarshal(answer, &e)
	if status != http.StatusBadRequest || e.Error.Status != "INVALID_ARGUMENT" || !strings.Contains(e.Error.Message, "the script has 2 replies") {
		t.Errorf("past the script: %d %s; want 400 saying the script ended", status, answer)
	}

	log := s.Log()
	for _, want := range []string{
		"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse, tools bash\n  user \"write the file\"\n  → reply 1 of 2: tool calls bash (call_1) {\"command\":\"echo hi > /x/y\"}",
		"  model calls bash\n  user bash answered {\"output\":\"\"}\n  → reply 2 of 2: text \"Done.\"",
		"POST /v1beta/models/gemini-2.5-flash:generateContent\n  user \"write the file\"\n  → side text",
		"POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse: 404",
		"→ 400: the script has 2 replies, and this conversation already has 2 model turns",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log:\n%s\nwant it to hold:\n%s", log, want)
		}
	}
	if strings.Contains(log, "secret") {
		t.Errorf("log:\n%s\nholds the key", log)
	}
}
