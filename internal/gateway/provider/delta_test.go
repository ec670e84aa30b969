package provider_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
)

// TestDeltas: the text pieces of real streams of each API, by part, in
// order, each where it says in its event (a JSON string of its text); a
// byte order mark, CRLF line ends and a comment before the data move
// them, an event whose data takes two lines has none.
func TestDeltas(t *testing.T) {
	for _, tc := range []struct {
		file  string
		api   provider.API
		parts []string // each part's pieces, "|"-joined, in order of first appearance
	}{
		{"anthropic-tool-use.sse", provider.Anthropic, []string{
			"0 text: I'll list the files.",
			`1 partial_json: |{"command": "ls", "description": "List files"}`}},
		{"openai-chat-tool-call.sse", provider.OpenAIChat, []string{`0 tool 0: |{"command":|"ls"}`}},
		{"openai-responses-function-call.sse", provider.OpenAIResponses, []string{
			`"response.function_call_arguments.delta" "fc_68b1f0c4e2d481909f1a2b3c4d5e6f700d3c8f1e2a6b7c90" 1 0 0: {"command":["bash","-lc","ls"]}`}},
		{"gemini-function-call.sse", provider.Gemini, []string{"0 0 false: I will list the files."}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			events, _ := split(string(data))
			if got := parts(t, tc.api, events); !slices.Equal(got, tc.parts) {
				t.Errorf("parts %q, want %q", got, tc.parts)
			}
		})
	}
	events := []string{
		"\uFEFF: hi\r\ndata: " + `{"choices":[{"index":1,"delta":{"content":"a\u00e9"}},{"index":0,"delta":{"reasoning_content":"r","content":"b"}}]}` + "\r\n\r\n",
		"data: " + `{"choices":[{"index":0,` + "\ndata: " + `"delta":{"content":"two lines"}}]}` + "\n\n",
		"data: [DONE]\n\n",
	}
	want := []string{"1 content: aé", "0 content: b", "0 reasoning_content: r"}
	if got := parts(t, provider.OpenAIChat, events); !slices.Equal(got, want) {
		t.Errorf("parts %q, want %q", got, want)
	}
}

// parts is the pieces of events' deltas, by part, checking that each is
// where it says.
func parts(t *testing.T, api provider.API, events []string) []string {
	t.Helper()
	var order []string
	by := make(map[string][]string)
	for _, ev := range events {
		for _, d := range provider.Deltas(api, []byte(ev)) {
			var s string
			if err := json.Unmarshal([]byte(ev[d.Start:d.End]), &s); err != nil || s != d.Text {
				t.Errorf("event %q: delta %+v is not where it says (%q)", ev, d, ev[d.Start:d.End])
			}
			if _, ok := by[d.Part]; !ok {
				order = append(order, d.Part)
			}
			by[d.Part] = append(by[d.Part], d.Text)
		}
	}
	var out []string
	for _, p := range order {
		out = append(out, fmt.Sprintf("%s: %s", p, strings.Join(by[p], "|")))
	}
	return out
}
