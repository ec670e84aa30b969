package provider_test

import (
	"net/http"
	"reflect"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         provider.API
	}{
		{"POST", "/v1/messages", provider.Anthropic},
		{"POST", "/r/abc/v1/messages", provider.Anthropic},
		{"POST", "/v1/messages?beta=true", provider.Anthropic},    // claude code
		{"POST", "/messages", provider.Anthropic},                 // a base URL that ends in /v1
		{"POST", "/v1/messages/count_tokens", provider.Anthropic}, // no usage, still a model request
		{"POST", "/r/abc/v1/messages/count_tokens?beta=true", provider.Anthropic},
		{"POST", "/v1/messages/batches", provider.Unknown},
		{"GET", "/v1/messages", provider.Unknown},
		{"GET", "/v1/models", provider.Unknown},
		{"POST", "/v1/threads/thread_abc123/messages", provider.Unknown}, // OpenAI Assistants
		{"POST", "/v1/chat/completions", provider.OpenAIChat},
		{"POST", "/r/7/chat/completions", provider.OpenAIChat},
		{"POST", "/api/v1/chat/completions/", provider.OpenAIChat},
		{"POST", "/v1/completions", provider.Unknown},
		{"POST", "/v1/responses", provider.OpenAIResponses},
		{"POST", "/r/abc/responses", provider.OpenAIResponses},
		{"POST", "/backend-api/codex/responses", provider.OpenAIResponses}, // codex with a ChatGPT login
		{"GET", "/v1/responses/resp_123", provider.Unknown},
		{"POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", provider.Gemini},
		{"POST", "/r/abc/v1beta/models/gemini-2.5-pro:generateContent", provider.Gemini},
		{"POST", "/v1beta/models/gemini-2.5-flash%3AstreamGenerateContent", provider.Gemini},
		{"POST", "/v1beta/models/gemini-2.5-flash:countTokens", provider.Gemini},
		{"POST", "/v1beta/tunedModels/my-model-42:generateContent", provider.Gemini},
		{"POST", "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent", provider.Gemini},
		{"POST", "/v1beta/models/text-embedding-004:embedContent", provider.Unknown},
		{"POST", "/v1beta/models/:generateContent", provider.Unknown},
		{"GET", "/v1beta/models", provider.Unknown},
		{"POST", "/", provider.Unknown},
		{"POST", "", provider.Unknown},
	} {
		if got := provider.Detect(tc.method, tc.path); got != tc.want {
			t.Errorf("Detect(%s, %q) = %q; want %q", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestModel(t *testing.T) {
	for _, tc := range []struct {
		api        provider.API
		path, body string
		want       string
	}{
		{provider.Anthropic, "/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":32000,"messages":[]}`, "claude-sonnet-4-5"},
		{provider.OpenAIChat, "/v1/chat/completions", `{"messages":[],"model":"gpt-4.1"}`, "gpt-4.1"},
		{provider.OpenAIResponses, "/v1/responses", `{"model":"gpt-5-codex","input":[]}`, "gpt-5-codex"},
		{provider.Gemini, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`, "gemini-2.5-flash"},
		{provider.Gemini, "/v1beta/tunedModels/my-model-42:generateContent", `{}`, "my-model-42"},
		{provider.Gemini, "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:generateContent", `{}`, "gemini-2.5-pro"},
		{provider.OpenAIChat, "/v1/chat/completions", `{"model":7}`, ""},
		{provider.OpenAIChat, "/v1/chat/completions", `not json`, ""},
		{provider.Anthropic, "/v1/messages", ``, ""},
	} {
		if got := provider.Model(tc.api, tc.path, []byte(tc.body)); got != tc.want {
			t.Errorf("Model(%s, %q, %s) = %q; want %q", tc.api, tc.path, tc.body, got, tc.want)
		}
	}
}

// decode is body decoded as the gateway's normaliser decodes it.
func decode(t *testing.T, body string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestStrip(t *testing.T) {
	for _, tc := range []struct {
		api        provider.API
		body, want string
	}{
		{provider.Anthropic,
			`{"model":"m","system":[{"type":"text","text":"Today's date is 2026-01-02"}],"metadata":{"user_id":"user_abc_session_0198"},"messages":[{"role":"user","content":"hi"}],"stream":true}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{provider.OpenAIChat,
			`{"model":"m","user":"u","prompt_cache_key":"k","metadata":{},"safety_identifier":"s","messages":[{"role":"system","content":"OS: linux"},{"role":"developer","content":"be brief"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"store":false}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"store":false}`},
		{provider.OpenAIResponses,
			`{"model":"m","instructions":"You are Codex","prompt_cache_key":"0198f3a1","user":"u","metadata":{},"previous_response_id":"resp_1","input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"sandbox"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},{"type":"function_call_output","call_id":"c","output":"ok"}]}`,
			`{"model":"m","previous_response_id":"resp_1","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},{"type":"function_call_output","call_id":"c","output":"ok"}]}`},
		{provider.Gemini,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"systemInstruction":{"parts":[{"text":"date"}]},"generationConfig":{"temperature":0}}`,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"temperature":0}}`},
		{provider.Unknown, `{"system":"s","user":"u"}`, `{"system":"s","user":"u"}`},
		{provider.OpenAIChat, `{"messages":"not a list","user":"u"}`, `{"messages":"not a list"}`},
		{provider.OpenAIChat, `[1,2]`, `[1,2]`},
		{provider.Anthropic, `"text"`, `"text"`},
	} {
		body := decode(t, tc.body)
		got := provider.Strip(tc.api, body)
		if want := decode(t, tc.want); !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			t.Errorf("Strip(%s, %s) = %s; want %s", tc.api, tc.body, g, tc.want)
		}
		if !reflect.DeepEqual(body, decode(t, tc.body)) {
			t.Errorf("Strip(%s, %s) changed the body it was given", tc.api, tc.body)
		}
	}
	for _, api := range []provider.API{provider.Anthropic, provider.OpenAIChat, provider.OpenAIResponses, provider.Gemini} {
		if len(provider.Volatile(api)) == 0 {
			t.Errorf("Volatile(%s) is empty", api)
		}
	}
}

// TestErrors: the refusals are the bodies the providers send, which their
// SDKs and the agents read: Anthropic's error.type, OpenAI's error.type
// and error.code, Google's error.status.
func TestErrors(t *testing.T) {
	msg := `budget: 1 request <of 1> spent`
	for _, tc := range []struct {
		api         provider.API
		status      int
		body, ctype string
	}{
		{provider.Anthropic, 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"budget: 1 request \u003cof 1\u003e spent"}}`, "application/json"},
		{provider.Anthropic, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"budget: 1 request \u003cof 1\u003e spent"}}`, "application/json"},
		{provider.OpenAIChat, 429,
			`{"error":{"message":"budget: 1 request \u003cof 1\u003e spent","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "application/json"},
		{provider.OpenAIResponses, 400,
			`{"error":{"message":"budget: 1 request \u003cof 1\u003e spent","type":"invalid_request_error","param":null,"code":null}}`, "application/json"},
		{provider.Unknown, 400,
			`{"error":{"message":"budget: 1 request \u003cof 1\u003e spent","type":"invalid_request_error","param":null,"code":null}}`, "application/json"},
		{provider.Gemini, 429,
			`{"error":{"code":429,"message":"budget: 1 request \u003cof 1\u003e spent","status":"RESOURCE_EXHAUSTED"}}`, "application/json; charset=UTF-8"},
		{provider.Gemini, 400,
			`{"error":{"code":400,"message":"budget: 1 request \u003cof 1\u003e spent","status":"INVALID_ARGUMENT"}}`, "application/json; charset=UTF-8"},
	} {
		answer := provider.Invalid
		if tc.status == 429 {
			answer = provider.RateLimited
		}
		status, header, body := answer(tc.api, msg)
		if status != tc.status || string(body) != tc.body {
			t.Errorf("%s %d: got %d %s\nwant %s", tc.api, tc.status, status, body, tc.body)
		}
		if header.Get("Content-Type") != tc.ctype || header.Get("X-Should-Retry") != "false" {
			t.Errorf("%s %d: header %v; want Content-Type %s and X-Should-Retry: false", tc.api, tc.status, header, tc.ctype)
		}
		for _, h := range []string{"Retry-After", "Retry-After-Ms"} {
			if _, ok := header[http.CanonicalHeaderKey(h)]; ok {
				t.Errorf("%s %d: header %s: agents would wait for it", tc.api, tc.status, h)
			}
		}
		// The message comes back whole, as a client reads it.
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Message != msg {
			t.Errorf("%s %d: error.message = %q, %v; want %q", tc.api, tc.status, e.Error.Message, err, msg)
		}
	}
}

func TestDefaultUpstream(t *testing.T) {
	for api, want := range map[provider.API]string{
		provider.Anthropic:       "https://api.anthropic.com",
		provider.OpenAIChat:      "https://api.openai.com/v1",
		provider.OpenAIResponses: "https://api.openai.com/v1",
		provider.Gemini:          "https://generativelanguage.googleapis.com",
		provider.Unknown:         "",
	} {
		if got := provider.DefaultUpstream(api); got != want {
			t.Errorf("DefaultUpstream(%s) = %q; want %q", api, got, want)
		}
	}
}
