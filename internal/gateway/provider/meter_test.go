package provider_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/gateway/provider"
)

// The answers in testdata are shaped as the providers send them (field
// order, nulls, the event names, Gemini's "\r\n" line ends, the JSON array
// Gemini streams without alt=sse), after their API references; ids and
// counts are made up. A .sse file is a streamed answer, a .json file a
// whole one. total is the API's own total where the answer has one.
var answers = []struct {
	file  string
	api   provider.API
	usage provider.Usage
	none  bool // no usage reported
	total int64
	model string
}{
	{"anthropic-tool-use.sse", provider.Anthropic,
		provider.Usage{Input: 12, Output: 89, CacheRead: 10240, CacheWrite: 2048}, false, 0, "claude-sonnet-4-5-20250929"},
	// message_delta with null counts: message_start's stand.
	{"anthropic-text-old-delta.sse", provider.Anthropic,
		provider.Usage{Input: 472, Output: 7}, false, 0, "claude-haiku-4-5-20251001"},
	// An error event ends the stream: message_start's counts are all there is.
	{"anthropic-overloaded.sse", provider.Anthropic,
		provider.Usage{Input: 3, Output: 1, CacheWrite: 512}, false, 0, "claude-opus-4-1-20250805"},
	{"anthropic-message.json", provider.Anthropic,
		provider.Usage{Input: 210, Output: 9}, false, 0, "claude-sonnet-4-5-20250929"},
	{"anthropic-count-tokens.json", provider.Anthropic, provider.Usage{}, true, 0, ""},
	{"openai-chat-tool-call.sse", provider.OpenAIChat,
		provider.Usage{Input: 86, Output: 108, CacheRead: 1920, Thought: 192}, false, 2306, "o4-mini-2025-04-16"},
	{"openai-chat-completion.json", provider.OpenAIChat,
		provider.Usage{Input: 61, Output: 3}, false, 64, "gpt-4.1-mini-2025-04-14"},
	{"openai-responses-function-call.sse", provider.OpenAIResponses,
		provider.Usage{Input: 1024, Output: 68, CacheRead: 4096, Thought: 192}, false, 5380, "gpt-5-codex"},
	{"openai-responses-incomplete.sse", provider.OpenAIResponses,
		provider.Usage{Input: 830, Output: 4, Thought: 60}, false, 894, "gpt-5-mini-2025-08-07"},
	{"openai-response.json", provider.OpenAIResponses,
		provider.Usage{Input: 75, Output: 7}, false, 82, "gpt-5-nano-2025-08-07"},
	{"gemini-function-call.sse", provider.Gemini,
		provider.Usage{Input: 1120, Output: 25, CacheRead: 4000, Thought: 156}, false, 5301, "gemini-2.5-flash"},
	{"gemini-stream-array.json", provider.Gemini,
		provider.Usage{Input: 41, Output: 2}, false, 43, "gemini-2.5-flash-lite"},
	{"gemini-generate-content.json", provider.Gemini,
		provider.Usage{Input: 312, Output: 8, Thought: 50}, false, 370, "gemini-2.5-pro"},
}

func TestMeter(t *testing.T) {
	for _, tc := range answers {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tc.file, ".json") {
				m := provider.NewMeter(tc.api)
				m.Body(raw)
				check(t, m, tc.usage, !tc.none, tc.total, tc.model)
				return
			}
			// Streamed as it may arrive: whole, in odd pieces, a byte at a time.
			for _, size := range []int{len(raw), 7, 1} {
				var s provider.Splitter
				m := provider.NewMeter(tc.api)
				var got []byte
				n := 0
				for p := raw; len(p) > 0; {
					k := min(size, len(p))
					for _, e := range s.Feed(p[:k]) {
						got = append(got, e...)
						name, data := provider.Parse(e)
						if data == nil {
							t.Errorf("pieces of %d: event %q has no data", size, e)
						}
						m.Event(name, data)
						n++
					}
					p = p[k:]
				}
				if rest := s.Rest(); len(rest) > 0 {
					t.Errorf("pieces of %d: Rest() = %q at the stream's clean end", size, rest)
				}
				if !bytes.Equal(got, raw) {
					t.Errorf("pieces of %d: the events make up\n%q\nwant the stream\n%q", size, got, raw)
				}
				if want := bytes.Count(raw, []byte("data:")); n != want {
					t.Errorf("pieces of %d: %d events, want %d", size, n, want)
				}
				check(t, m, tc.usage, !tc.none, tc.total, tc.model)
			}
		})
	}
}

func check(t *testing.T, m *provider.Meter, want provider.Usage, wantOK bool, total int64, model string) {
	t.Helper()
	got, ok := m.Usage()
	if got != want || ok != wantOK {
		t.Errorf("Usage() = %+v, %v; want %+v, %v", got, ok, want, wantOK)
	}
	if total != 0 && got.Total() != total {
		t.Errorf("Usage().Total() = %d; want the answer's total %d", got.Total(), total)
	}
	if m.Model() != model {
		t.Errorf("Model() = %q; want %q", m.Model(), model)
	}
}

// TestMeterLatestWins: each count is the latest reported, a count left
// out or null keeps the one before, and what is no count is ignored.
func TestMeterLatestWins(t *testing.T) {
	m := provider.NewMeter(provider.Gemini)
	m.Event("", []byte(`{"usageMetadata":{"promptTokenCount":100,"cachedContentTokenCount":40},"modelVersion":"gemini-a"}`))
	m.Event("", []byte(`{"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":5}}`))
	m.Event("", []byte(`{"usageMetadata":{"candidatesTokenCount":-3,"thoughtsTokenCount":"7","cachedContentTokenCount":null},"modelVersion":""}`))
	m.Event("", []byte(`{"usageMetadata":{"candidatesTokenCount":9.5,"thoughtsTokenCount":1e400}}`))
	check(t, m, provider.Usage{Input: 80, CacheRead: 40, Output: 5}, true, 0, "gemini-a")

	// A report that says more is cached than was prompted has no negative input.
	m = provider.NewMeter(provider.OpenAIChat)
	m.Event("", []byte(`{"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":20},"completion_tokens_details":{"reasoning_tokens":2}}}`))
	check(t, m, provider.Usage{CacheRead: 20, Thought: 2}, true, 0, "")

	// Garbage reports nothing and names no model.
	for _, api := range []provider.API{provider.Anthropic, provider.OpenAIChat, provider.OpenAIResponses, provider.Gemini, provider.Unknown} {
		m := provider.NewMeter(api)
		for _, d := range []string{"", "[DONE]", "null", `"usage"`, `{"usage":7,"model":3}`, `{"message":[]}`, `{"response":{"usage":[1]}}`, `[{"usageMetadata":1}]`, `{"usage":{"input_tokens":1`} {
			m.Event("", []byte(d))
			m.Body([]byte(d))
		}
		check(t, m, provider.Usage{}, false, 0, "")
	}
}

// FuzzMeter: whatever an answer holds, a meter neither panics nor counts
// a negative number of tokens.
func FuzzMeter(f *testing.F) {
	for _, tc := range answers {
		raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"usage":{"input_tokens":9223372036854775807,"output_tokens":-1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, api := range []provider.API{provider.Anthropic, provider.OpenAIChat, provider.OpenAIResponses, provider.Gemini} {
			m := provider.NewMeter(api)
			m.Body(data)
			var s provider.Splitter
			for _, e := range append(s.Feed(data), s.Rest()) {
				m.Event(provider.Parse(e))
			}
			u, _ := m.Usage()
			if u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || u.Thought < 0 || u.Total() < 0 {
				t.Errorf("%s: Usage() = %+v", api, u)
			}
		}
	})
}
