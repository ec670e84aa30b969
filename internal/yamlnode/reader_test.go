package yamlnode_test

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/yamlnode"
)

func TestLine(t *testing.T) {
	r := &yamlnode.Reader{Src: []byte("a: 1\r\nb: 2\nc: 3\rd: \u00854\u2028e\u2029f")}
	want := []string{"", "a: 1", "b: 2", "c: 3", "d: ", "4", "e", "f", ""}
	for n, w := range want {
		if got := r.Line(n); got != w {
			t.Errorf("Line(%d) = %q, want %q", n, got, w)
		}
	}
	if got := (&yamlnode.Reader{Src: []byte("x\n")}).Line(2); got != "" {
		t.Errorf("Line after the last line break = %q, want \"\"", got)
	}
}

// TestLineAfterBOM: a UTF-8 byte order mark that starts the file is no
// part of its first line, as YAML does not count it in columns: a caret
// under line 1 is under the character the column names.
func TestLineAfterBOM(t *testing.T) {
	r := &yamlnode.Reader{Name: "s.yaml", Src: []byte("\ufeffa: \"${X}\"\nb: 2\n")}
	if got := r.Line(1); got != `a: "${X}"` {
		t.Errorf("Line(1) = %q, want %q", got, `a: "${X}"`)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(r.Src, &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Content[0].Content[1]
	if col := r.ColIn(v, v.Line, v.Column, 0); col != 5 {
		t.Errorf("ColIn of ${X} = %d, want 5", col)
	}
	r.Errorf(v, "bad")
	if got, want := r.Errs[0].Snippet(), "    1 | a: \"${X}\"\n      |    ^\n"; got != want {
		t.Errorf("snippet:\n%s\nwant:\n%s", got, want)
	}
}

// TestErrorf: a problem is at its node, with the text of the node's line;
// one without a node is about the whole file.
func TestErrorf(t *testing.T) {
	r := &yamlnode.Reader{Name: "s.yaml", Src: []byte("a: 1\nb:\n  - x\n")}
	var doc yaml.Node
	if err := yaml.Unmarshal(r.Src, &doc); err != nil {
		t.Fatal(err)
	}
	item := doc.Content[0].Content[3].Content[0]
	r.Errorf(item, "bad %s", "item")
	r.Errorf(nil, "no scenario in file")
	want := []*srcerr.Error{
		{File: "s.yaml", Line: 3, Col: 5, Msg: "bad item", Source: "  - x"},
		{File: "s.yaml", Msg: "no scenario in file"},
	}
	if diff := cmp.Diff(want, r.Errs); diff != "" {
		t.Errorf("Errs (-want +got):\n%s", diff)
	}
}

// TestErrorfEscapesControls: the control characters of a message, which
// the file's values quoted in it may hold (ESC, CR, BEL, C1 controls),
// are escaped as Go writes them; the source line is left to Snippet.
func TestErrorfEscapesControls(t *testing.T) {
	r := &yamlnode.Reader{Name: "s.yaml", Src: []byte("a: \"\\e[31m\"\n")}
	r.Errorf(nil, "bad path %s, %s and %s", "x\x1b[31m", "y\r\a", "z\u009b")
	if got, want := r.Errs[0].Msg, `bad path x\x1b[31m, y\x0d\x07 and z\x9b`; got != want {
		t.Errorf("Msg = %q, want %q", got, want)
	}
	if got := r.At(1, 4, "bad \x1b").Msg; got != `bad \x1b` {
		t.Errorf("At's Msg = %q, want %q", got, `bad \x1b`)
	}
}

// utf16 is s encoded as UTF-16 with a byte order mark, little-endian
// unless big, as Windows tools save a file; without the mark when bare.
func utf16Bytes(s string, big, bare bool) []byte {
	var out []byte
	if !bare {
		s = "\ufeff" + s
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// TestUTF16Source: a file saved as UTF-16 with a byte order mark, which
// YAML reads, is read as its text: a problem's source line is the decoded
// line, with its caret under the character its column names, in either
// byte order; a non-BMP character counts as one column.
func TestUTF16Source(t *testing.T) {
	const text = "name: u\nturns:\n  - prompt: \"😀 hi\"\n    timeout: 5q\n"
	for _, big := range []bool{false, true} {
		r := yamlnode.Reader{Name: "u.yaml", Src: utf16Bytes(text, big, false)}
		var docs []*yaml.Node
		for d := range r.Documents() {
			docs = append(docs, d)
		}
		if len(docs) != 1 || len(r.Errs) != 0 {
			t.Fatalf("big %v: %d documents, errors %v", big, len(docs), r.Err())
		}
		turn := docs[0].Content[0].Content[3].Content[0]
		prompt, timeout := turn.Content[1], turn.Content[3]
		if prompt.Value != "😀 hi" {
			t.Errorf("big %v: prompt %q", big, prompt.Value)
		}
		if col := r.ColIn(prompt, prompt.Line, prompt.Column, len("😀 ")); col != 16 {
			t.Errorf("big %v: ColIn of hi = %d, want 16", big, col)
		}
		r.Errorf(timeout, "bad duration")
		want := "    4 |     timeout: 5q\n      |              ^\n"
		if got := r.Errs[0].Snippet(); got != want {
			t.Errorf("big %v: snippet:\n%s\nwant:\n%s", big, got, want)
		}
	}
}

// TestUTF16WithoutBOM: a file saved as UTF-16 without a byte order mark,
// which YAML reads as UTF-8 and refuses (its NUL bytes), is said to look
// like UTF-16, to be saved as UTF-8, in either byte order; its bytes are
// not shown as a source line.
func TestUTF16WithoutBOM(t *testing.T) {
	for _, big := range []bool{false, true} {
		r := yamlnode.Reader{Name: "u.yaml", Src: utf16Bytes("name: u\nturns: []\n", big, true)}
		for range r.Documents() {
		}
		want := []*srcerr.Error{{File: "u.yaml", Line: 1, Col: 1, Msg: "YAML syntax: the file looks like UTF-16 without a byte order mark, which YAML does not read: save it as UTF-8"}}
		if diff := cmp.Diff(want, r.Errs); diff != "" {
			t.Errorf("big %v: errors (-want +got):\n%s", big, diff)
		}
	}
}

// TestNotUTF8: a file that is not UTF-8 (Latin-1) is refused at its first
// byte that is not, which the message names, saying to save the file as
// UTF-8, and its source line shows that byte escaped. A UTF-16 file's
// surrogate without its pair is no such byte: it is not said to be one.
func TestNotUTF8(t *testing.T) {
	r := yamlnode.Reader{Name: "l.yaml", Src: []byte("name: caf\xe9\nturns: []\n")}
	for range r.Documents() {
	}
	want := []*srcerr.Error{{File: "l.yaml", Line: 1, Col: 10, Msg: `YAML syntax: the file is not UTF-8 (byte \xe9 here): save it as UTF-8`, Source: "name: caf\xe9"}}
	if diff := cmp.Diff(want, r.Errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if got, want := r.Errs[0].Snippet(), "    1 | name: caf\\xe9\n      |          ^\n"; got != want {
		t.Errorf("snippet:\n%s\nwant:\n%s", got, want)
	}

	// "a: " and a high surrogate without its low one, little-endian.
	r = yamlnode.Reader{Name: "u.yaml", Src: append(utf16Bytes("a: ", false, false), 0x00, 0xd8, '\n', 0)}
	for range r.Documents() {
	}
	if len(r.Errs) != 1 || strings.Contains(r.Errs[0].Msg, "not UTF-8") {
		t.Errorf("UTF-16 with a lone surrogate: errors %v, want one that does not say the file is not UTF-8", r.Err())
	}
}

// TestNotBoolean: a value where true or false is expected is quoted, and
// a YAML 1.1 spelling of a boolean or a quoted true or false, in any case,
// says which to write.
func TestNotBoolean(t *testing.T) {
	tests := []struct{ src, want string }{
		{"yes", `the string "yes" (YAML 1.1's yes: write true)`},
		{"Y", `the string "Y" (YAML 1.1's Y: write true)`},
		{"ON", `the string "ON" (YAML 1.1's ON: write true)`},
		{"no", `the string "no" (YAML 1.1's no: write false)`},
		{"n", `the string "n" (YAML 1.1's n: write false)`},
		{"'off'", `the string "off" (YAML 1.1's off: write false)`},
		{`"true"`, `the string "true" (write true without quotes)`},
		{"!!str FALSE", `the string "FALSE" (write false without quotes)`},
		{"yes please", `the string "yes please"`},
		{`"a\tb"`, `the string "a\tb"`},
		{"1", "the number 1"},
		{"0.5", "the number 0.5"},
		{"~", "null"},
		{"[yes]", "a list"},
		{"{a: b}", "a mapping"},
	}
	for _, tt := range tests {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte("v: "+tt.src), &doc); err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := yamlnode.NotBoolean(doc.Content[0].Content[1]); got != tt.want {
			t.Errorf("NotBoolean(%s) = %s, want %s", tt.src, got, tt.want)
		}
	}
}
