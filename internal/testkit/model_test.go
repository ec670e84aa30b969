package testkit_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
)

// modelScript is a turn: a bash tool call, then a text once its result
// came back.
var modelScript = []testkit.ModelReply{
	{ToolCalls: []testkit.ModelToolCall{{ID: "call_1", Name: "bash", Arguments: map[string]string{"command": "echo hi > /x/y"}}}},
	{Text: "Done."},
}

// chat posts a chat completions request with messages (and a bash tool
// when tools is set) and returns the response.
func chat(t *testing.T, s *testkit.ModelServer, stream, tools bool, messages ...map[string]any) *http.Response {
	t.Helper()
	req := map[string]any{"model": s.Model, "stream": stream, "messages": messages}
	if tools {
		req["tools"] = []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": map[string]any{}}}}
	}
	body, _ := json.Marshal(req)
	res, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// streamed is a streamed answer put together as a client does: the text,
// each tool call's id, name and arguments, the finish reason, whether a
// usage came, and whether [DONE] ended it.
type streamed struct {
	text   string
	calls  [][3]string
	finish string
	usage  bool
	done   bool
}

func readStream(t *testing.T, res *http.Response) streamed {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q; want 200 and an event stream", res.StatusCode, ct)
	}
	var out streamed
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || out.done {
			t.Fatalf("line %q: want data: lines, ending with [DONE]", line)
		}
		if data == "[DONE]" {
			out.done = true
			continue
		}
		var chunk struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil || chunk.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v; want a chat.completion.chunk", data, err)
		}
		out.usage = out.usage || chunk.Usage != nil && chunk.Usage.TotalTokens > 0
		for _, c := range chunk.Choices {
			out.text += c.Delta.Content
			for _, tc := range c.Delta.ToolCalls {
				for len(out.calls) <= tc.Index {
					out.calls = append(out.calls, [3]string{})
				}
				call := &out.calls[tc.Index]
				call[0] += tc.ID
				call[1] += tc.Function.Name
				call[2] += tc.Function.Arguments
			}
			if c.FinishReason != nil {
				out.finish = *c.FinishReason
			}
		}
	}
	return out
}

// TestModelServerPlaysScript: the agent's loop gets the script's replies
// in order, counted by the assistant messages of its conversation,
// streamed as the chat completions API does; requests without tools get
// the side text; past the script's end comes a 400; the log shows each
// request.
func TestModelServerPlaysScript(t *testing.T) {
	s := testkit.NewModelServer(t, "m", modelScript...)
	user := map[string]any{"role": "user", "content": "write the file"}

	got := readStream(t, chat(t, s, true, true, user))
	if len(got.calls) != 1 || got.calls[0] != [3]string{"call_1", "bash", `{"command":"echo hi > /x/y"}`} ||
		got.finish != "tool_calls" || got.text != "" || !got.usage || !got.done {
		t.Errorf("first reply = %+v; want the bash call, finish_reason tool_calls, a usage and [DONE]", got)
	}

	assistant := map[string]any{"role": "assistant", "content": nil,
		"tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "bash", "arguments": "{}"}}}}
	result := map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "(no output)"}
	got = readStream(t, chat(t, s, true, true, user, assistant, result))
	if got.text != "Done." || len(got.calls) != 0 || got.finish != "stop" || !got.done {
		t.Errorf("second reply = %+v; want the text and finish_reason stop", got)
	}

	if got := readStream(t, chat(t, s, true, false, user)); got.text != testkit.SideText || got.finish != "stop" {
		t.Errorf("reply without tools = %+v; want the side text", got)
	}

	res := chat(t, s, true, true, user, assistant, result, map[string]any{"role": "assistant", "content": "Done."}, user)
	if body, _ := io.ReadAll(res.Body); res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "the script has 2 replies") {
		t.Errorf("past the script: %d %s; want 400 saying the script ended", res.StatusCode, body)
	}

	log := s.Log()
	for _, want := range []string{
		"POST /v1/chat/completions model \"m\", streamed, tools bash\n  user \"write the file\"\n  → reply 1 of 2: tool calls bash (call_1) {\"command\":\"echo hi > /x/y\"}",
		"  assistant calls bash (call_1)\n  tool (call_1) \"(no output)\"\n  → reply 2 of 2: text \"Done.\"",
		"→ side text: text \"Scripted session\"",
		"→ 400: the script has 2 replies, and this conversation already has 2 model turns",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log:\n%s\nwant it to hold:\n%s", log, want)
		}
	}
}

// TestModelServerUnstreamed: a request that does not ask for a stream gets
// one chat.completion; the model list names the model.
func TestModelServerUnstreamed(t *testing.T) {
	s := testkit.NewModelServer(t, "m", modelScript...)
	res := chat(t, s, false, true, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "go"}}})
	var out struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role      string  `json:"role"`
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", res.StatusCode, err)
	}
	if len(out.Choices) != 1 || out.Object != "chat.completion" {
		t.Fatalf("answer = %+v; want one choice of a chat.completion", out)
	}
	c := out.Choices[0]
	if c.FinishReason != "tool_calls" || c.Message.Role != "assistant" || c.Message.Content != nil || len(c.Message.ToolCalls) != 1 ||
		c.Message.ToolCalls[0].ID != "call_1" || c.Message.ToolCalls[0].Type != "function" ||
		c.Message.ToolCalls[0].Function.Name != "bash" || c.Message.ToolCalls[0].Function.Arguments != `{"command":"echo hi > /x/y"}` {
		t.Errorf("choice = %+v; want the bash call and finish_reason tool_calls", c)
	}
	if !strings.Contains(s.Log(), "user \"go\"") {
		t.Errorf("log %q; want the text of the user's parts", s.Log())
	}

	models, err := http.Get(s.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer models.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(models.Body).Decode(&list); err != nil || len(list.Data) != 1 || list.Data[0].ID != "m" {
		t.Errorf("models = %+v, %v; want m", list, err)
	}
}
