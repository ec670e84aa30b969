package testkit_test

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/testkit"
)

// anthropicScript is a turn: a Bash tool call, then a text (cut in two
// inside a character by a naive split) once its result came back.
var anthropicScript = []testkit.ModelReply{
	{ToolCalls: []testkit.ModelToolCall{{ID: "toolu_01", Name: "Bash", Arguments: map[string]string{"command": "echo hello > out.txt"}}}},
	{Text: "Déjà vu."},
}

// anthropicBash is the tools of a main request.
var anthropicBash = []any{map[string]any{"name": "Bash", "description": "runs a command", "input_schema": map[string]any{"type": "object"}}}

// postMessages posts a Messages request with messages (and tools) to path
// and returns the response.
func postMessages(t *testing.T, s *testkit.AnthropicServer, path string, stream bool, tools []any, messages ...map[string]any) *http.Response {
	t.Helper()
	return postRequest(t, s, path, stream, tools, nil, messages...)
}

// postRequest is postMessages with the request's other fields, more, added.
func postRequest(t *testing.T, s *testkit.AnthropicServer, path string, stream bool, tools []any, more map[string]any, messages ...map[string]any) *http.Response {
	t.Helper()
	req := map[string]any{"model": "claude-test", "max_tokens": 100, "stream": stream, "messages": messages}
	if tools != nil {
		req["tools"] = tools
	}
	maps.Copy(req, more)
	body, _ := json.Marshal(req)
	hreq, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(string(body)))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("X-Api-Key", "dummy")
	res, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// anthropicUsage is a usage object of the Messages API.
type anthropicUsage struct {
	InputTokens              *int   `json:"input_tokens"`
	OutputTokens             int    `json:"output_tokens"`
	CacheCreationInputTokens *int   `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int   `json:"cache_read_input_tokens"`
	ServiceTier              string `json:"service_tier"`
}

// anthropicStream is a streamed answer put together as a client does.
type anthropicStream struct {
	events     []string // the event names, in order
	id, model  string
	text       string
	tools      [][3]string // id, name, input JSON
	stop       string
	startUsage anthropicUsage
	endUsage   anthropicUsage
}

func readAnthropicStream(t *testing.T, res *http.Response) anthropicStream {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q; want 200 and an event stream", res.StatusCode, ct)
	}
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	names, datas, _ := events(t, provider.Anthropic, data)
	var layout strings.Builder
	for i, name := range names {
		fmt.Fprintf(&layout, "event: %s\ndata: %s\n\n", name, datas[i])
	}
	if layout.String() != string(data) {
		t.Fatalf("stream %q; want each event as event: NAME, then data:, then a blank line", data)
	}
	var out anthropicStream
	blocks := map[int]*[3]string{}
	for i, name := range names {
		payload := datas[i]
		var ev struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				ID      string          `json:"id"`
				Model   string          `json:"model"`
				Content []any           `json:"content"`
				Usage   anthropicUsage  `json:"usage"`
				Stop    json.RawMessage `json:"stop_reason"`
			} `json:"message"`
			ContentBlock struct {
				Type  string         `json:"type"`
				ID    string         `json:"id"`
				Name  string         `json:"name"`
				Text  *string        `json:"text"`
				Input map[string]any `json:"input"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage anthropicUsage `json:"usage"`
		}
		if json.Unmarshal(payload, &ev) != nil || ev.Type != name {
			t.Fatalf("event %s %s: want data: a JSON object of that type", name, payload)
		}
		out.events = append(out.events, name)
		switch name {
		case "message_start":
			if ev.Message.Content == nil || len(ev.Message.Content) != 0 || string(ev.Message.Stop) != "null" {
				t.Errorf("message_start %s: want no content yet and a null stop_reason", payload)
			}
			out.id, out.model, out.startUsage = ev.Message.ID, ev.Message.Model, ev.Message.Usage
		case "content_block_start":
			switch ev.ContentBlock.Type {
			case "text":
				if ev.ContentBlock.Text == nil || *ev.ContentBlock.Text != "" {
					t.Errorf("text block start %s: want an empty text", payload)
				}
			case "tool_use":
				if ev.ContentBlock.Input == nil || len(ev.ContentBlock.Input) != 0 {
					t.Errorf("tool_use block start %s: want an empty input object", payload)
				}
				out.tools = append(out.tools, [3]string{ev.ContentBlock.ID, ev.ContentBlock.Name})
				blocks[ev.Index] = &out.tools[len(out.tools)-1]
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				out.text += ev.Delta.Text
			case "input_json_delta":
				blocks[ev.Index][2] += ev.Delta.PartialJSON
			}
		case "message_delta":
			out.stop, out.endUsage = ev.Delta.StopReason, ev.Usage
		}
	}
	return out
}

// TestAnthropicServerStreams: a main request gets the script's replies in
// order, counted by the assistant messages of its conversation, streamed
// as the Messages API does, with the fixed usage: the input and cache
// counts and a first output count in message_start, the final output
// count in message_delta.
func TestAnthropicServerStreams(t *testing.T) {
	s := testkit.NewAnthropicServer(t, anthropicScript...)
	user := map[string]any{"role": "user", "content": "write the file"}

	first := readAnthropicStream(t, postMessages(t, s, "/v1/messages?beta=true", true, anthropicBash, user))
	wantEvents := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop"}
	if !slices.Equal(first.events, wantEvents) {
		t.Errorf("events %q; want %q", first.events, wantEvents)
	}
	if len(first.tools) != 1 || first.tools[0] != [3]string{"toolu_01", "Bash", `{"command":"echo hello > out.txt"}`} ||
		first.text != "" || first.stop != "tool_use" {
		t.Errorf("first answer: tools %q, text %q, stop %q; want the Bash call, no text, tool_use", first.tools, first.text, first.stop)
	}
	if first.model != "claude-test" || !strings.HasPrefix(first.id, "msg_") {
		t.Errorf("message id %q, model %q; want msg_… and the request's model", first.id, first.model)
	}
	su, eu := first.startUsage, first.endUsage
	if su.InputTokens == nil || *su.InputTokens != testkit.AnthropicInputTokens || su.CacheCreationInputTokens == nil ||
		*su.CacheCreationInputTokens != testkit.AnthropicCacheWriteTokens || su.CacheReadInputTokens == nil ||
		*su.CacheReadInputTokens != testkit.AnthropicCacheReadTokens || su.OutputTokens != testkit.AnthropicStartOutput {
		t.Errorf("message_start usage %+v; want the fixed input, cache and first output counts", su)
	}
	if eu.InputTokens != nil || eu.OutputTokens != testkit.AnthropicOutputTokens {
		t.Errorf("message_delta usage %+v; want the final output count alone", eu)
	}

	assistant := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Bash",
		"input": map[string]any{"command": "echo hello > out.txt"}}}}
	result := map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}}}
	second := readAnthropicStream(t, postMessages(t, s, "/v1/messages", true, anthropicBash, user, assistant, result))
	wantEvents = []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop"}
	if !slices.Equal(second.events, wantEvents) || second.text != "Déjà vu." || len(second.tools) != 0 || second.stop != "end_turn" {
		t.Errorf("second answer: events %q, text %q, tools %q, stop %q; want %q, the text in two deltas, end_turn",
			second.events, second.text, second.tools, second.stop, wantEvents)
	}
	if second.id == first.id {
		t.Errorf("both answers are message %s; want an id each", first.id)
	}

	// Past the script's end: 400, in the API's error shape.
	final := map[string]any{"role": "assistant", "content": "Déjà vu."}
	res := postMessages(t, s, "/v1/messages", true, anthropicBash, user, assistant, result, final, user)
	var apiErr struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&apiErr); err != nil || res.StatusCode != http.StatusBadRequest ||
		apiErr.Type != "error" || apiErr.Error.Type != "invalid_request_error" || !strings.Contains(apiErr.Error.Message, "the script has 2 replies") {
		t.Errorf("past the script: %d %+v (%v); want 400 invalid_request_error saying the script has 2 replies", res.StatusCode, apiErr, err)
	}

	log := strings.Split(s.Log(), "\n")
	want := []string{
		`POST /v1/messages?beta=true model "claude-test", streamed, 1 tools, 1 messages, last user "write the file" → reply 1 of 2: tool calls Bash (toolu_01) {"command":"echo hello > out.txt"}`,
		`POST /v1/messages model "claude-test", streamed, 1 tools, 3 messages, last user [tool_result (toolu_01) "ok"] → reply 2 of 2: text "Déjà vu."`,
		`POST /v1/messages model "claude-test", streamed, 1 tools, 5 messages, last user "write the file" → 400: the script has 2 replies, and this conversation already has 2 model turns`,
	}
	if !slices.Equal(log, want) {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Path != "/v1/messages?beta=true" || reqs[0].Header.Get("X-Api-Key") != "dummy" || !strings.Contains(string(reqs[0].Body), `"write the file"`) {
		t.Errorf("requests %+v; want the three, with their paths, headers and bodies", reqs)
	}
}

// TestAnthropicServerWhole: without stream, the same reply comes as one
// JSON message with the final usage; a request without tools gets the
// side text and takes no reply from the script; count_tokens answers the
// fixed input count; another path is 404 in the API's error shape.
func TestAnthropicServerWhole(t *testing.T) {
	s := testkit.NewAnthropicServer(t, anthropicScript...)
	user := map[string]any{"role": "user", "content": "write the file"}

	var side struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	res := postMessages(t, s, "/v1/messages", false, nil, map[string]any{"role": "user", "content": "a title for this"})
	if err := json.NewDecoder(res.Body).Decode(&side); err != nil || res.StatusCode != http.StatusOK || len(side.Content) != 1 ||
		side.Content[0].Type != "text" || side.Content[0].Text != testkit.SideText || side.StopReason != "end_turn" {
		t.Errorf("side request: %d %+v (%v); want the side text", res.StatusCode, side, err)
	}

	var msg struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Role    string `json:"role"`
		Model   string `json:"model"`
		Content []struct {
			Type  string         `json:"type"`
			ID    string         `json:"id"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"content"`
		StopReason string         `json:"stop_reason"`
		Usage      anthropicUsage `json:"usage"`
	}
	res = postMessages(t, s, "/v1/messages", false, anthropicBash, user)
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil || res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("main request: %d %s (%v); want a JSON message", res.StatusCode, res.Header.Get("Content-Type"), err)
	}
	u := msg.Usage
	if msg.Type != "message" || msg.Role != "assistant" || msg.Model != "claude-test" || len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" ||
		msg.Content[0].ID != "toolu_01" || msg.Content[0].Name != "Bash" || msg.Content[0].Input["command"] != "echo hello > out.txt" ||
		msg.StopReason != "tool_use" {
		t.Errorf("main request: %+v; want the script's first reply, the Bash call", msg)
	}
	if u.InputTokens == nil || *u.InputTokens != testkit.AnthropicInputTokens || u.OutputTokens != testkit.AnthropicOutputTokens ||
		u.CacheCreationInputTokens == nil || *u.CacheCreationInputTokens != testkit.AnthropicCacheWriteTokens ||
		u.CacheReadInputTokens == nil || *u.CacheReadInputTokens != testkit.AnthropicCacheReadTokens {
		t.Errorf("usage %+v; want the fixed final counts", u)
	}

	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	res = postMessages(t, s, "/v1/messages/count_tokens", false, anthropicBash, user)
	if err := json.NewDecoder(res.Body).Decode(&count); err != nil || res.StatusCode != http.StatusOK || count.InputTokens != testkit.AnthropicInputTokens {
		t.Errorf("count_tokens: %d %+v (%v); want input_tokens %d", res.StatusCode, count, err, testkit.AnthropicInputTokens)
	}

	res, err := http.Head(s.URL + "/")
	if err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD /: %v, %v; want 404", res, err)
	}
	res = postMessages(t, s, "/v1/complete", false, nil, user)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"not_found_error"`) {
		t.Errorf("another path: %d %s; want 404 not_found_error", res.StatusCode, body)
	}

	log := strings.Split(s.Log(), "\n")
	want := []string{
		`POST /v1/messages model "claude-test", 0 tools, 1 messages, last user "a title for this" → side text: text "Scripted session"`,
		`POST /v1/messages model "claude-test", 1 tools, 1 messages, last user "write the file" → reply 1 of 2: tool calls Bash (toolu_01) {"command":"echo hello > out.txt"}`,
		`POST /v1/messages/count_tokens model "claude-test", 1 tools, 1 messages, last user "write the file": input_tokens 10`,
		`HEAD /: not served (404)`,
		`POST /v1/complete: not served (404)`,
	}
	if !slices.Equal(log, want) {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}

// TestAnthropicServerTitle: a request for a session title as structured
// output, as Claude Code asks for it (no tools, output_config.format a JSON
// schema with a title property), streamed or not, is answered with a JSON
// title of the side text and no usage, and takes no reply from the
// script; a request with another schema gets the side text. AsksTitle
// tells the title requests from the others.
func TestAnthropicServerTitle(t *testing.T) {
	s := testkit.NewAnthropicServer(t, anthropicScript...)
	s.SetSideText("Hello file")
	title := map[string]any{"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{
		"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}, "required": []string{"title"}}}}}
	ask := map[string]any{"role": "user", "content": "<session>\nWrite hello to out.txt.\n</session>"}
	// none reports whether u has every count, at 0.
	none := func(u anthropicUsage) bool {
		return u.InputTokens != nil && *u.InputTokens == 0 && u.OutputTokens == 0 &&
			u.CacheCreationInputTokens != nil && *u.CacheCreationInputTokens == 0 && u.CacheReadInputTokens != nil && *u.CacheReadInputTokens == 0
	}

	got := readAnthropicStream(t, postRequest(t, s, "/v1/messages", true, nil, title, ask))
	if got.text != `{"title":"Hello file"}` || got.stop != "end_turn" || len(got.tools) != 0 {
		t.Errorf("streamed title: %+v; want the text {\"title\":\"Hello file\"}, end_turn", got)
	}
	if !none(got.startUsage) || got.endUsage.OutputTokens != 0 {
		t.Errorf("streamed title: usage %+v, then %+v; want every count 0", got.startUsage, got.endUsage)
	}
	var whole struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Usage anthropicUsage `json:"usage"`
	}
	res := postRequest(t, s, "/v1/messages", false, nil, title, ask)
	if err := json.NewDecoder(res.Body).Decode(&whole); err != nil || len(whole.Content) != 1 || whole.Content[0].Text != `{"title":"Hello file"}` || !none(whole.Usage) {
		t.Errorf("whole title: %+v (%v); want the JSON title, every count 0", whole, err)
	}
	other := map[string]any{"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{
		"type": "object", "properties": map[string]any{"summary": map[string]any{"type": "string"}}}}}}
	got = readAnthropicStream(t, postRequest(t, s, "/v1/messages", true, nil, other, ask))
	if got.text != "Hello file" || got.endUsage.OutputTokens != testkit.AnthropicOutputTokens {
		t.Errorf("another schema: %+v; want the side text, with the fixed usage", got)
	}
	got = readAnthropicStream(t, postMessages(t, s, "/v1/messages", true, anthropicBash, map[string]any{"role": "user", "content": "write the file"}))
	if len(got.tools) != 1 || got.tools[0][0] != "toolu_01" {
		t.Errorf("main request after the titles: %+v; want the script's first reply", got)
	}
	log := strings.Split(s.Log(), "\n")
	want := `POST /v1/messages model "claude-test", streamed, 0 tools, 1 messages, last user "<session>\nWrite hello to out.txt.\n</session>" → title: text "{\"title\":\"Hello file\"}"`
	if len(log) != 4 || log[0] != want || !strings.Contains(log[1], "→ title: ") || !strings.Contains(log[2], "→ side text: ") || !strings.Contains(log[3], "→ reply 1 of 2: ") {
		t.Errorf("log:\n%s\nwant first:\n%s\nthen a title, the side text and reply 1", strings.Join(log, "\n"), want)
	}
	var titles []bool
	for _, req := range s.Requests() {
		titles = append(titles, req.AsksTitle())
	}
	if !slices.Equal(titles, []bool{true, true, false, false}) {
		t.Errorf("AsksTitle of the requests = %v; want true for the two titles only", titles)
	}
}

// TestAnthropicServerClose: after Close, requests fail to connect (a test
// stops the upstream to show that a replay needs none).
func TestAnthropicServerClose(t *testing.T) {
	s := testkit.NewAnthropicServer(t, anthropicScript...)
	s.Close()
	if res, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader("{}")); err == nil {
		res.Body.Close()
		t.Errorf("after Close: %d; want no connection", res.StatusCode)
	}
}

// TestAnthropicServerMetered: the gateway's meter reads the fixed usage
// from the fake's answers, streamed (message_start's input and cache
// counts, message_delta's final output count) or whole, as the constants
// document it, so that tests of metering can assert them.
func TestAnthropicServerMetered(t *testing.T) {
	s := testkit.NewAnthropicServer(t, anthropicScript...)
	user := map[string]any{"role": "user", "content": "write the file"}
	want := provider.Usage{Input: testkit.AnthropicInputTokens, Output: testkit.AnthropicOutputTokens,
		CacheRead: testkit.AnthropicCacheReadTokens, CacheWrite: testkit.AnthropicCacheWriteTokens}

	body, err := io.ReadAll(postMessages(t, s, "/v1/messages", true, anthropicBash, user).Body)
	if err != nil {
		t.Fatal(err)
	}
	_, _, m := events(t, provider.Anthropic, body) // and nothing left after the last event
	if u, ok := m.Usage(); !ok || u != want || m.Model() != "claude-test" {
		t.Errorf("streamed: usage %+v (%v), model %q; want %+v, claude-test", u, ok, m.Model(), want)
	}

	body, err = io.ReadAll(postMessages(t, s, "/v1/messages", false, anthropicBash, user).Body)
	if err != nil {
		t.Fatal(err)
	}
	m = provider.NewMeter(provider.Anthropic)
	m.Body(body)
	if u, ok := m.Usage(); !ok || u != want {
		t.Errorf("whole: usage %+v (%v); want %+v", u, ok, want)
	}
}
