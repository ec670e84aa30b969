package yamlsyntax_test

import (
	"testing"

	"github.com/acprun/acprun/internal/yamlsyntax"
)

func TestLine(t *testing.T) {
	src := []byte("a: 1\r\nb: 2\nc: 3\rd: \u00854\u2028e\u2029f")
	starts := yamlsyntax.LineStarts(src)
	want := []string{"", "a: 1", "b: 2", "c: 3", "d: ", "4", "e", "f", ""}
	for n, w := range want {
		if got := yamlsyntax.Line(src, starts, n); got != w {
			t.Errorf("Line(%d) = %q, want %q", n, got, w)
		}
	}
	if got := yamlsyntax.Line([]byte("x\n"), yamlsyntax.LineStarts([]byte("x\n")), 2); got != "" {
		t.Errorf("Line after the last line break = %q, want \"\"", got)
	}
}
