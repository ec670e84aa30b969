package gateway

import (
	"testing"

	"github.com/acprun/acprun/internal/gateway/provider"
)

func TestNormaliseBody(t *testing.T) {
	paths := map[string][]string{"<workspace>": {"/tmp/ws-123/work"}, "<tmp>": {"/tmp"}, "<home>": {"/home/me/"}, "<empty>": {""}}
	cases := []struct {
		name string
		api  provider.API
		body string
		want string
	}{
		{"empty", provider.Unknown, "", ""},
		{"not JSON", provider.Unknown, "a=b", `"sha256:cfe7d6f3a1ed3f4b2e3c8dc5d5a0b2e0d0d3c0b1c0b76ef3ba1b2b1f1b29ed2c"`},
		{"keys sorted, numbers kept", provider.Unknown, `{"b": 1.50, "a": [true, null, 1e3]}`, `{"a":[true,null,1e3],"b":1.50}`},
		{"paths", provider.Unknown,
			`{"text":"cd /tmp/ws-123/work && cat /tmp/ws-123/work/a.go /tmp/ws-123/workshop /tmp/x /home/me/.config in /tmp/ws-123/work."}`,
			`{"text":"cd <workspace> && cat <workspace>/a.go <tmp>/ws-123/workshop <tmp>/x <home>/.config in <workspace>."}`},
		{"path in a key", provider.Unknown, `{"/tmp/ws-123/work/a.go":1}`, `{"<workspace>/a.go":1}`},
		{"uuids, dates, times", provider.Unknown,
			`{"id":"6C1E5A0E-6d38-4f5e-9f0c-1b2f8f2f6d11","at":"2025-06-01T10:11:12.345Z","on":"Today is 2025-06-01, 09:08:07+02:00; v1.2025-06-011 10:30 port 12:34:5678"}`,
			`{"at":"<date>T<time>","id":"<uuid>","on":"Today is <date>, <time>; v1.<date>1 10:30 port <time>78"}`},
		{"openai chat system messages", provider.OpenAIChat,
			`{"messages":[{"role":"system","content":"sys"},{"role":"developer","content":"dev"},{"role":"user","content":"hi"}]}`,
			`{"messages":[{"content":"hi","role":"user"}]}`},
		{"responses developer input", provider.OpenAIResponses,
			`{"input":[{"role":"developer","content":"dev"},{"type":"message","role":"user","content":"hi"}]}`,
			`{"input":[{"content":"hi","role":"user","type":"message"}]}`},
		{"responses string input", provider.OpenAIResponses, `{"input":"hi"}`, `{"input":"hi"}`},
	}
	for _, c := range cases {
		got := string(normaliseBody(c.api, []byte(c.body), newPathNames(paths, nil)))
		if c.name == "not JSON" {
			if len(got) != len(`"sha256:"`)+64 || got[:8] != `"sha256:` {
				t.Errorf("%s: %s", c.name, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestNormaliseVolatile: the API's volatile keys are left out.
// (Needs provider.Volatile.)
func TestNormaliseVolatile(t *testing.T) {
	got := string(normaliseBody(provider.Anthropic, []byte(anthropicRequest), newPathNames(nil, nil)))
	want := `{"max_tokens":1024,"messages":[{"content":[{"text":"Say hello","type":"text"}],"role":"user"}],"model":"claude-sonnet-4-5-20250929","stream":true}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestPathNamesForms: a path is named written as it is and in the forms
// JSON writers escape it in (Python's \u00e9, PHP's \/, Go's \u0026
// \u003c \u003e), as is every other path of its name (the workspace
// reached through a symlink and where it leads); the first path of a
// name is the one written back.
func TestPathNamesForms(t *testing.T) {
	p := newPathNames(map[string][]string{
		"<workspace>": {"/tmp/link/R&D <é>", "/tmp/real/R&D <é>"},
		"<tmp>":       {"/tmp"},
	}, nil)
	for _, c := range []struct{ in, want string }{
		{`{"a":"/tmp/link/R&D <é>/x.go"}`, `{"a":"<workspace>/x.go"}`},
		{`{"a":"/tmp/real/R&D <é>/x.go"}`, `{"a":"<workspace>/x.go"}`},
		{`{"a":"/tmp/real/R&D <\u00e9>/x.go"}`, `{"a":"<workspace>/x.go"}`},                // Python
		{`{"a":"\/tmp\/real\/R&D <\u00e9>\/x.go"}`, `{"a":"<workspace>\/x.go"}`},           // PHP
		{`{"a":"/tmp/real/R\u0026D \u003cé\u003e/x.go"}`, `{"a":"<workspace>/x.go"}`},      // Go
		{`{"a":"\/tmp\/real\/R\u0026D \u003cé\u003e\/x.go"}`, `{"a":"<workspace>\/x.go"}`}, // Go, with \/
		{`data: {"t":"in \/tmp\/real\/R&D <\u00e9>."}`, `data: {"t":"in <workspace>."}`},   // event text
		{`{"a":"\/tmp\/real\/R&D <\u00e9>x"}`, `{"a":"<tmp>\/real\/R&D <\u00e9>x"}`},       // a longer name
		{`{"a":"\/tmp\/other"}`, `{"a":"<tmp>\/other"}`},
	} {
		if got := p.name(c.in); got != c.want {
			t.Errorf("name(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	if got, want := p.expand(`{"a":"<workspace>/x.go"}`), `{"a":"/tmp/link/R&D <é>/x.go"}`; got != want {
		t.Errorf("expand: got %s, want %s", got, want)
	}
}
