package yamlnode_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// decodeAll decodes every document of src until the decoder fails, and
// returns the decoder with the error.
func decodeAll(t *testing.T, src string) (*yaml.Decoder, error) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(src))
	for range 100 {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return dec, err
		}
	}
	t.Fatalf("%q: no error in 100 documents", src)
	return nil, nil
}

// problem is where Reader.SyntaxError puts the error err of dec, reading
// src, and what it says after "YAML syntax: ", as "line:col: msg".
func problem(t *testing.T, dec *yaml.Decoder, err error, src []byte) string {
	t.Helper()
	r := &yamlnode.Reader{Name: "f.yaml", Src: src}
	r.SyntaxError(dec, err)
	if len(r.Errs) != 1 {
		t.Fatalf("SyntaxError recorded %d errors, want 1", len(r.Errs))
	}
	e := r.Errs[0]
	msg, ok := strings.CutPrefix(e.Msg, "YAML syntax: ")
	if !ok || e.File != "f.yaml" || e.Source != r.Line(e.Line) {
		t.Errorf("SyntaxError recorded %+v, want it in f.yaml, with its line, saying \"YAML syntax: \"", e)
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, msg)
}

const (
	indentHint = "check this line's indentation (it must line up with the keys or list items of its level)"
	colonHint  = `quote a value that contains ": ", or check this line's indentation`
)

// TestSyntaxError: a syntax error is at the offending token, line and column
// counted in characters from the start of the whole stream, with the
// parser's context and a hint.
func TestSyntaxError(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // line:col: msg
	}{
		{"bad indent", "a:\n  b: 1\n c: 2\n",
			"3:2: did not find expected key (while parsing a block mapping that starts at line 1, column 1); " + indentHint},
		{"list item after a list", "- a\nb: 1\n",
			"2:1: did not find expected '-' indicator (while parsing a block collection that starts at line 1, column 1); " + indentHint},
		{"second document", "a: x\n---\nb:\n  - 1\n c: 2\n",
			"5:2: did not find expected key (while parsing a block mapping that starts at line 3, column 1); " + indentHint},
		{"second document with CRLF", "a: 1\r\n---\r\nb: c: d\r\n",
			"3:5: mapping values are not allowed in this context; " + colonHint},
		{"first line", "a: b: c\n",
			"1:5: mapping values are not allowed in this context; " + colonHint},
		{"key without a colon", "a: 1\nb\n",
			"2:1: could not find expected ':' while scanning a simple key; add a colon after the key, or indent this line more if it continues the one above"},
		{"unclosed quote", "a: 'x\n",
			"1:4: found unexpected end of stream while scanning a quoted scalar; the quoted string that starts here is never closed"},
		{"unclosed flow list", "a: [1,\n",
			"1:4: did not find expected node content; the [ here is never closed with ]"},
		{"unclosed flow mapping", "a: {b: 1\n",
			"1:4: did not find expected ',' or '}' while parsing a flow mapping; the { here is never closed with }"},
		{"tab", "a:\n\t- b\n",
			"2:1: found character that cannot start any token; YAML cannot indent with tabs, use spaces"},
		{"unquoted template before more text", "a: 1\nb: {{.x}} c\n",
			"2:11: did not find expected key (while parsing a block mapping that starts at line 1, column 1); " + yamlnode.UnquotedBraces},
		{"unquoted template in a flow list", "a: [{{.x}} c]\n",
			"1:12: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 1, column 4); " + yamlnode.UnquotedBraces},
		{"quoted text before more text", "a: 1\nb: \"x\" c\n",
			"2:8: did not find expected key (while parsing a block mapping that starts at line 1, column 1); " + indentHint},
		{"no hint", "a: @b\n",
			"1:4: found character that cannot start any token"},
		{"invalid UTF-8 after a line separator and a non-ASCII character", "a: x\u2028b: \"é\xff\"\n",
			`2:6: the file is not UTF-8 (byte \xff here): save it as UTF-8`},
		// YAML stops at the byte after the Latin-1 é, the line break that
		// cannot continue it: the error is at the é.
		{"Latin-1", "name: caf\xe9\nb: 1\n",
			`1:10: the file is not UTF-8 (byte \xe9 here): save it as UTF-8`},
		{"a sequence cut short by the end of the file", "a: é\xe2\x82",
			`1:5: the file is not UTF-8 (byte \xe2 here): save it as UTF-8`},
		{"a surrogate written in UTF-8", "a: x\xed\xa0\x80\n",
			`1:5: the file is not UTF-8 (byte \xed here): save it as UTF-8`},
		{"an overlong sequence", "a: [1, \xc0\x80]\n",
			`1:8: the file is not UTF-8 (byte \xc0 here): save it as UTF-8`},
		{"a control character before a byte that is no UTF-8", "a: \x01\xe9\n",
			"1:4: control characters are not allowed"},
		{"unknown anchor", "a: &x 1\nb: [1, *y]\n",
			"2:8: unknown anchor 'y' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec, err := decodeAll(t, tt.src)
			if got := problem(t, dec, err, []byte(tt.src)); got != tt.want {
				t.Errorf("SyntaxError(%q) =\n%s\nwant:\n%s", tt.src, got, tt.want)
			}
		})
	}
}

// TestSyntaxErrorFallback: where the parser's state says nothing (here: no
// decoder), the position is the error text's line, kept inside the source,
// or line 1, column 1.
func TestSyntaxErrorFallback(t *testing.T) {
	src := []byte("a: 1\nb: 2\n") // three lines: the last one is empty
	tests := []struct{ err, want string }{
		{"yaml: line 2: did not find expected key", "2:1: did not find expected key"},
		{"yaml: line 99: did not find expected key", "3:1: did not find expected key"},
		{"yaml: document contains excessive aliasing", "1:1: document contains excessive aliasing"},
		{"yaml: unknown anchor 'x' referenced", "1:1: unknown anchor 'x' referenced"},
	}
	for _, tt := range tests {
		if got := problem(t, nil, errors.New(tt.err), src); got != tt.want {
			t.Errorf("SyntaxError(nil, %q) = %s, want %s", tt.err, got, tt.want)
		}
	}
}

// FuzzSyntaxError checks that SyntaxError never panics and always points into the
// source with a message.
func FuzzSyntaxError(f *testing.F) {
	for _, s := range []string{"a:\n  b: 1\n c: 2\n", "a: 'x", "a: [1,", "a:\n\t- b\n", "a: \xff", "a: *y", "\r\n---\r\na: b: c", "a: x\u2028b: c: d"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dec := yaml.NewDecoder(bytes.NewReader(src))
		var err error
		for range 100 {
			var n yaml.Node
			if err = dec.Decode(&n); err != nil {
				break
			}
		}
		if err == nil || errors.Is(err, io.EOF) {
			return
		}
		// An upper bound: \r\n counts twice.
		lines := 1 + bytes.Count(src, []byte("\n")) + bytes.Count(src, []byte("\r")) + bytes.Count(src, []byte("\u0085")) +
			bytes.Count(src, []byte("\u2028")) + bytes.Count(src, []byte("\u2029"))
		r := &yamlnode.Reader{Name: "f.yaml", Src: src}
		r.SyntaxError(dec, err)
		if e := r.Errs[0]; e.Line < 1 || e.Line > lines || e.Col < 1 || e.Msg == "YAML syntax: " {
			t.Errorf("SyntaxError(%q) = %d:%d: %q; want a line in [1, %d], a column and a message", src, e.Line, e.Col, e.Msg, lines)
		}
	})
}
