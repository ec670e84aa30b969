package yamlnode_test

import (
	"testing"

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
