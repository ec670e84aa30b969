package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The indenter writes what json.Encoder with SetIndent("", "  ") writes,
// however the compact JSON is split across writes.
func TestIndenterIsEncoderIndent(t *testing.T) {
	values := []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1, "x", nil, true, 2.5}},
		map[string]any{"s": `quote " backslash \ brace { } [ ] , : \" end\\`, "u": "é\u2028<>&\n\t", "nested": map[string]any{"k": []any{map[string]any{"z": "v"}}}},
		"just a string with \\\"escapes\\\"",
		[]any{[]any{[]any{}}, map[string]any{"": ""}},
	}
	for _, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		cenc := json.NewEncoder(&compact)
		cenc.SetEscapeHTML(false)
		if err := cenc.Encode(v); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 2, 3, 7, compact.Len()} {
			var got bytes.Buffer
			in := newIndenter(&got)
			for b := compact.Bytes(); len(b) > 0; {
				n := min(size, len(b))
				if _, err := in.Write(b[:n]); err != nil {
					t.Fatal(err)
				}
				b = b[n:]
			}
			if err := in.Flush(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%v in writes of %d bytes:\ngot:\n%s\nwant:\n%s", v, size, got.String(), strings.TrimSpace(want.String()))
			}
		}
	}
}
