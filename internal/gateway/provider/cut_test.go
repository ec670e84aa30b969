package provider_test

import (
	"testing"

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
