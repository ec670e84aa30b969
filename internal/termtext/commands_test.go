package termtext

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
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
		// A line that begins, after blanks, with "::" (a workflow command).
		{"::error::x", `\u003a:error::x`},
		{"ok\n::error file=a::b\n  \t::add-mask::s", "ok\n\\u003a:error file=a::b\n  \t\\u003a:add-mask::s"},
		{"a\r::warning::x", "a\r\\u003a:warning::x"},
		{"x::y\n :x\n: :\n:", "x::y\n :x\n: :\n:"},
		{"\n##[x\n::y", "\n#\\u0023[x\n\\u003a:y"},
		// Any blank the runner's .NET TrimStart takes, of one byte or
		// several (cut in every place by the loop below).
		{"a\n\u00a0::warning::x\n\u3000::w\n\v::w\n\f::w\n\u2028::w\n\u0085::w\n \u2003\t::w",
			"a\n\u00a0\\u003a:warning::x\n\u3000\\u003a:w\n\v\\u003a:w\n\f\\u003a:w\n\u2028\\u003a:w\n\u0085\\u003a:w\n \u2003\t\\u003a:w"},
		{"\ufeff::w\n\u200b::w\n\x1f::w", "\ufeff\\u003a:w\n\u200b\\u003a:w\n\x1f\\u003a:w"},
		// Not blanks: a letter, a character cut short, a stray byte.
		{"\u00e9::w\n\xc2::w\n\x80::w\n\xc2\n::w", "\u00e9::w\n\xc2::w\n\x80::w\n\xc2\n\\u003a:w"},
	} {
		for cut := range len(tt.in) + 1 {
			var buf bytes.Buffer
			// JSON's escapes of '#' and ':' alone: the blanks above that
			// JSON leaves raw (U+0085) it writes escaped (see
			// TestCommandWriterJSONUnprintable), the others are not JSON.
			w := NewCommandWriter(&buf, Escapes{Hash: JSONEscapes.Hash, Colon: JSONEscapes.Colon})
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
	w := NewCommandWriter(&buf, JSONEscapes)
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

// TestCommandWriterJSONUnprintable: in JSON the characters JSON leaves
// raw that a terminal would act on or that reorder a line (a C1 CSI, DEL,
// a bidi override) are written \u escapes, whether a write holds the
// whole character or cuts it, and the JSON reads back as the same value.
func TestCommandWriterJSONUnprintable(t *testing.T) {
	in := map[string]string{"text": "E\u009b31mred\u009b0m \x7f \u202eevil \u2066 日本 \ufffd ##[x"}
	line, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{len(line), 1} {
		var buf bytes.Buffer
		w := NewCommandWriter(&buf, JSONEscapes)
		for p := line; len(p) > 0; p = p[min(size, len(p)):] {
			if _, err := w.Write(p[:min(size, len(p))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if i := strings.IndexFunc(buf.String(), Unprintable); i >= 0 || strings.Contains(buf.String(), "##[") {
			t.Errorf("writes of %d bytes: %q holds an unprintable character or ##[ at %d", size, buf.String(), i)
		}
		var out map[string]string
		if err := json.Unmarshal(buf.Bytes(), &out); err != nil || out["text"] != in["text"] {
			t.Errorf("writes of %d bytes: read back %q, %v; want %q", size, out["text"], err, in["text"])
		}
	}
}

// TestCommandWriterXML: escaped XML text reads back as the same text, and
// no line of it begins, after blanks, with "::".
func TestCommandWriterXML(t *testing.T) {
	in := "ok\n::error file=a::b\n  ::add-mask::s ##[x"
	var buf bytes.Buffer
	w := NewCommandWriter(&buf, MarkupEscapes)
	if err := xml.NewEncoder(w).Encode(struct {
		XMLName xml.Name `xml:"t"`
		Text    string   `xml:",chardata"`
	}{Text: in}); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(buf.String()) {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Fatalf("%q holds the line %q", buf.String(), line)
		}
	}
	var out struct {
		Text string `xml:",chardata"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &out); err != nil || out.Text != in {
		t.Errorf("read back %q, %v; want %q", out.Text, err, in)
	}
}
