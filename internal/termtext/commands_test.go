package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCommandWriter: no "##[" reaches the writer, however the input is cut
// into writes, and everything else passes unchanged.
func TestCommandWriter(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"##[error]x", `#\u0023[error]x`},
		{"a ##[group]b ##[endgroup]", `a #\u0023[group]b #\u0023[endgroup]`},
		{"###[x", `##\u0023[x`},
		{"#[x # ## [ #", "#[x # ## [ #"},
		{"##", "##"},
		{"##x#[ ##y #[", "##x#[ ##y #["},
		{"[##", "[##"},
	} {
		for cut := range len(tt.in) + 1 {
			var buf bytes.Buffer
			w := NewCommandWriter(&buf, `\u0023`)
			for _, part := range []string{tt.in[:cut], tt.in[cut:]} {
				if n, err := w.Write([]byte(part)); n != len(part) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", part, n, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("%q cut at %d: wrote %q; want %q", tt.in, cut, buf.String(), tt.want)
			}
		}
	}
}

// TestCommandWriterJSON: escaped JSON reads back as the same value.
func TestCommandWriterJSON(t *testing.T) {
	in := map[string]string{"text": "##[error]boom ### [##[x"}
	var buf bytes.Buffer
	w := NewCommandWriter(&buf, `\u0023`)
	if err := json.NewEncoder(w).Encode(in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "##[") {
		t.Fatalf("%s holds ##[", buf.String())
	}
	var out map[string]string
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil || out["text"] != in["text"] {
		t.Errorf("read back %q, %v; want %q", out["text"], err, in["text"])
	}
}
