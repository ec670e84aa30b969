package yamlnode

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// TestYAMLProblemMarks guards lastProblem, which reads the marks of a
// syntax error from yaml.v3's parser state: should an upgrade of yaml.v3
// change that state, this fails (and syntax errors fall back on the line
// of the error text).
func TestYAMLProblemMarks(t *testing.T) {
	tests := []struct {
		src  string
		want libyamlError
	}{
		{
			src: "a:\n  b: 1\n c: 2\n",
			want: libyamlError{kind: parserError, problem: "did not find expected key", context: "while parsing a block mapping",
				problemMark: mark{line: 2, column: 1, index: 11}, contextMark: mark{line: 0, column: 0, index: 0}},
		},
		{
			src: "a: 'x\n",
			want: libyamlError{kind: scannerError, problem: "found unexpected end of stream", context: "while scanning a quoted scalar",
				problemMark: mark{line: 1, column: 0, index: 6}, contextMark: mark{line: 0, column: 3, index: 3},
				open: mark{line: 0, column: 0, index: 0}, hasOpen: true},
		},
		{
			src: "a: [b,\n",
			want: libyamlError{kind: parserError, problem: "did not find expected node content", context: "while parsing a flow node",
				problemMark: mark{line: 1, column: 0, index: 7}, contextMark: mark{line: 1, column: 0, index: 7},
				open: mark{line: 0, column: 3, index: 3}, hasOpen: true},
		},
		{
			src:  "a: \"é\xff\"\n",
			want: libyamlError{kind: readerError, problem: "invalid leading UTF-8 octet", offset: 6},
		},
	}
	for _, tt := range tests {
		dec := yaml.NewDecoder(strings.NewReader(tt.src))
		var n yaml.Node
		if err := dec.Decode(&n); err == nil {
			t.Fatalf("%q: no error", tt.src)
		}
		pr, ok := lastProblem(dec)
		if !ok {
			t.Fatalf("%q: lastProblem found no problem in yaml.v3's parser", tt.src)
		}
		if diff := cmp.Diff(tt.want, pr, cmp.AllowUnexported(libyamlError{}, mark{})); diff != "" {
			t.Errorf("%q: problem (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestNoProblem: lastProblem reports false where the parser holds no
// syntax error: no decoder, and an error found after parsing.
func TestNoProblem(t *testing.T) {
	if _, ok := lastProblem(nil); ok {
		t.Error("lastProblem(nil) reported a problem")
	}
	dec := yaml.NewDecoder(strings.NewReader("a: *nope\n"))
	var n yaml.Node
	if err := dec.Decode(&n); err == nil {
		t.Fatal("unknown anchor: no error")
	}
	if pr, ok := lastProblem(dec); ok {
		t.Errorf("unknown anchor: lastProblem = %+v, want none", pr)
	}
}
