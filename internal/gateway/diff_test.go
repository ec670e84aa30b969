package gateway

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

func TestDiffRequest(t *testing.T) {
	long := strings.Repeat("All work and no play. ", 10)
	req := func(method, path, query, body string) *request {
		return &request{Method: method, Path: path, Query: query, Body: json.RawMessage(body)}
	}
	cases := []struct {
		name     string
		rec, got *request
		want     string
	}{
		{"same", req("POST", "/v1/messages", "", `{"a":[1,{"b":"c"}]}`), req("POST", "/v1/messages", "", `{"a":[1.0,{"b":"c"}]}`), ""},
		{"no bodies", req("GET", "/v1/models", "", ""), req("GET", "/v1/models", "", ""), ""},
		{"method", req("POST", "/v1/x", "", ""), req("GET", "/v1/x", "", ""), `method: recorded "POST", received "GET"`},
		{"query", req("POST", "/v1/x", "alt=sse", ""), req("POST", "/v1/x", "", ""), `query: recorded "alt=sse", received ""`},
		{"body gone", req("POST", "/v1/x", "", `{"a":1}`), req("POST", "/v1/x", "", ""), `body: recorded {"a":1}, received nothing`},
		{"deep text", req("POST", "/v1/messages", "", `{"messages":[{"role":"user","content":[{"type":"text","text":"Fix it."}]},{"role":"user","content":[{"type":"text","text":"Check it."}]}]}`),
			req("POST", "/v1/messages", "", `{"messages":[{"role":"user","content":[{"type":"text","text":"Fix it."}]},{"role":"user","content":[{"type":"text","text":"Check it twice."}]}]}`),
			`messages[1].content[0].text: recorded "Check it.", received "Check it twice."`},
		{"first in key order", req("POST", "/x", "", `{"b":1,"a":1}`), req("POST", "/x", "", `{"b":2,"a":2}`), `a: recorded 1, received 2`},
		{"key missing", req("POST", "/x", "", `{"a":1,"tools":[]}`), req("POST", "/x", "", `{"a":1}`), `tools: recorded [], received nothing`},
		{"key added", req("POST", "/x", "", `{"a":1}`), req("POST", "/x", "", `{"a":1,"b":{"c":true}}`), `b: recorded nothing, received {"c":true}`},
		{"element added", req("POST", "/x", "", `{"m":["a"]}`), req("POST", "/x", "", `{"m":["a","b"]}`), `m[1]: recorded nothing, received "b"`},
		{"type", req("POST", "/x", "", `{"m":"a"}`), req("POST", "/x", "", `{"m":["a"]}`), `m: recorded "a", received ["a"]`},
		{"long text differing far in", req("POST", "/x", "", `{"t":"`+long+`end"}`), req("POST", "/x", "", `{"t":"`+long+`END"}`),
			`t: recorded "…o play. All work and no play. end", received "…o play. All work and no play. END"`},
		{"long values cut", req("POST", "/x", "", `{"t":"`+long+`"}`), req("POST", "/x", "", `{"t":"x`+long+`"}`),
			`t: recorded "` + long[:80] + `…", received "x` + long[:79] + `…"`},
		// Both sides are redacted: a secret matches a secret redacted
		// where the recording had one, whatever its value, and nothing
		// else does.
		{"redacted matches redacted", req("POST", "/x", "", `{"t":"key [REDACTED] and [REDACTED]"}`), req("POST", "/x", "", `{"t":"key [REDACTED] and [REDACTED]"}`), ""},
		{"redacted matches no other text", req("POST", "/x", "", `{"t":"key [REDACTED] and [REDACTED]"}`), req("POST", "/x", "", `{"t":"key sk-123 and ghp-456"}`),
			`t: recorded "key [REDACTED] and [REDACTED]", received "key sk-123 and ghp-456"`},
		{"redacted, rest differs", req("POST", "/x", "", `{"t":"key [REDACTED]"}`), req("POST", "/x", "", `{"t":"kay [REDACTED]"}`), `t: recorded "key [REDACTED]", received "kay [REDACTED]"`},
		{"redacted hides no changed prompt", req("POST", "/x", "", `{"t":"Run the [REDACTED] suite and report."}`),
			req("POST", "/x", "", `{"t":"Run the migration that drops every table in the production database, then the [REDACTED] suite and report."}`),
			`t: recorded "Run the [REDACTED] suite and report.", received "Run the migration that drops every table in the production database, then the [R…"`},
		{"redacted hides no changed model", req("POST", "/x", "", `{"model":"[REDACTED]"}`), req("POST", "/x", "", `{"model":"claude-opus"}`),
			`model: recorded "[REDACTED]", received "claude-opus"`},
	}
	for _, c := range cases {
		if got := diffRequest(c.rec, c.got, nil); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
