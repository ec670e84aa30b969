package provider_test

import (
	"os"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/internal/gateway/provider"
)

// TestCutString: of a JSON text cut short, the string value the cut is
// inside, decoded up to an escape or a UTF-8 character the cut went
// through, and where it starts; none when the cut is elsewhere (after a
// string, in an object's name, a number or a literal) or the text is no
// JSON up to it.
func TestCutString(t *testing.T) {
	for _, tc := range []struct {
		data  string
		start int // -1: none
		text  string
	}{
		{`{"a":{"text":"key: sk`, 13, "key: sk"},
		{`"abc`, 0, "abc"},
		{`["a", "b\u00`, 6, "b"},
		{`["a","b\u00e9\`, 5, "bé"},
		{`{"a":"x\"y\\z\`, 5, `x"y\z`},
		{`{"a":"x\ud83d\ude00y\ud83d\ude`, 5, "x😀y"},
		{`{"a":"x\ud83d`, 5, "x"},
		{`{"a":"x\uD83D\uDE00y\u00E9`, 5, "x😀yé"},
		{"{\"a\":\"p\xc3\xa4\xc3", 5, "pä"},
		{`{"a":1,"b":[true,{"c":"d"}],"e":"f`, 32, "f"},
		{`{"a":"x"`, -1, ""},
		{`{"a":"x","te`, -1, ""},
		{`{"a":[1,2`, -1, ""},
		{`{"a":tru`, -1, ""},
		{`{"a" 1,"b":"x`, -1, ""},
		{`{"a":"x"]`, -1, ""},
		{"{\"a\":\"x\ty", -1, ""}, // a tab in a string: no JSON
		{`{"a":"x"}`, -1, ""},
		{``, -1, ""},
	} {
		start, text, ok := provider.CutString([]byte(tc.data))
		if !ok {
			start = -1
		}
		if start != tc.start || text != tc.text {
			t.Errorf("CutString(%q) = %d %q, %v; want %d %q", tc.data, start, text, ok, tc.start, tc.text)
		}
	}
}

// TestCutDeltas: the last event of an answer that broke off has the
// pieces it holds whole, and the one the cut goes through, marked Cut and
// ending where the event does; Deltas finds none in it.
func TestCutDeltas(t *testing.T) {
	for _, tc := range []struct {
		api   provider.API
		event string
		want  []provider.Delta
	}{
		{provider.Anthropic, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"key: sk\\u00",
			[]provider.Delta{{Part: "1 text", Start: 109, End: 121, Text: "key: sk", Cut: true}}},
		{provider.OpenAIChat, `data: {"choices":[{"index":0,"delta":{"content":"abc"},"logprobs":nu`,
			[]provider.Delta{{Part: "0 content", Start: 48, End: 53, Text: "abc"}}},
		{provider.OpenAIChat, `data: {"choices":[{"index":0,"delta":{"content":"abc"}},{"index":1,"delta":{"content":"de`,
			[]provider.Delta{{Part: "0 content", Start: 48, End: 53, Text: "abc"}, {Part: "1 content", Start: 86, End: 89, Text: "de", Cut: true}}},
		{provider.Gemini, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\r",
			[]provider.Delta{{Part: "0 0 false", Start: 50, End: 52, Text: "x", Cut: true}}},
		{provider.Anthropic, "event: content_block_delta\ndata: {\"type\":\"content_block_del", nil},
		{provider.Anthropic, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"te", nil},
	} {
		got := provider.CutDeltas(tc.api, []byte(tc.event))
		if len(got) != len(tc.want) {
			t.Errorf("CutDeltas(%q) = %+v, want %+v", tc.event, got, tc.want)
			continue
		}
		for i, d := range got {
			if d != tc.want[i] {
				t.Errorf("CutDeltas(%q)[%d] = %+v, want %+v", tc.event, i, d, tc.want[i])
			}
		}
		if d := provider.Deltas(tc.api, []byte(tc.event)); d != nil {
			t.Errorf("Deltas(%q) = %+v, want none", tc.event, d)
		}
	}
}

// TestCutDeltasEveryCut: cut anywhere, an event of a real stream of each
// API has the pieces before the cut that the whole event has, each where
// it says, and the piece the cut goes through with a start of its text,
// open to the cut.
func TestCutDeltasEveryCut(t *testing.T) {
	cuts := 0
	for _, tc := range []struct {
		file string
		api  provider.API
	}{
		{"anthropic-tool-use.sse", provider.Anthropic},
		{"openai-chat-tool-call.sse", provider.OpenAIChat},
		{"openai-responses-function-call.sse", provider.OpenAIResponses},
		{"gemini-function-call.sse", provider.Gemini},
	} {
		data, err := os.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		events, _ := split(string(data))
		for _, ev := range events {
			whole := provider.Deltas(tc.api, []byte(ev))
			for n := range len(ev) {
				cut := ev[:n]
				got := provider.CutDeltas(tc.api, []byte(cut))
				if len(got) > len(whole) {
					t.Fatalf("CutDeltas(%q) = %+v, more than the whole event's %+v", cut, got, whole)
				}
				for i, d := range got {
					w := whole[i]
					if !d.Cut {
						if d != w {
							t.Errorf("CutDeltas(%q)[%d] = %+v, want %+v", cut, i, d, w)
						}
						continue
					}
					cuts++
					if i != len(got)-1 || d.End != len(strings.TrimRight(cut, "\r\n")) || d.Start != w.Start || d.Part != w.Part || !strings.HasPrefix(w.Text, d.Text) {
						t.Errorf("CutDeltas(%q)[%d] = %+v, want the last, open to the cut, a start of %+v", cut, i, d, w)
					}
				}
			}
		}
	}
	if cuts == 0 {
		t.Error("no cut went through a piece")
	}
}
