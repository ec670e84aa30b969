package srcerr_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/srcerr"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("abcdefghij", 20) // 200 characters
	tests := []struct {
		name string
		n    int
		col  int
		text string
		want string
	}{
		{
			name: "caret under the column",
			n:    4, col: 14, text: "    expect: {stopReasn: end_turn}",
			want: "" +
				"    4 |     expect: {stopReasn: end_turn}\n" +
				"      |              ^\n",
		},
		{
			name: "first column",
			n:    1, col: 1, text: "promt: hi",
			want: "" +
				"    1 | promt: hi\n" +
				"      | ^\n",
		},
		{
			name: "gutter as wide as the line number",
			n:    1234, col: 3, text: "- x",
			want: "" +
				"    1234 | - x\n" +
				"         |   ^\n",
		},
		{
			name: "tabs expanded to stops of eight",
			n:    2, col: 6, text: "a:\tb\tc",
			want: "" +
				"    2 | a:      b       c\n" +
				"      |                 ^\n",
		},
		{
			name: "tab as the pointed character",
			n:    2, col: 2, text: "a\tb",
			want: "" +
				"    2 | a       b\n" +
				"      |  ^\n",
		},
		{
			name: "column past the end points after the text",
			n:    3, col: 40, text: "name: x",
			want: "" +
				"    3 | name: x\n" +
				"      |        ^\n",
		},
		{
			name: "multi-byte characters before the column count one each",
			n:    5, col: 9, text: "é: ünïq x",
			want: "" +
				"    5 | é: ünïq x\n" +
				"      |         ^\n",
		},
		{
			name: "wide characters count two",
			n:    5, col: 5, text: "名前: x",
			want: "" +
				"    5 | 名前: x\n" +
				"      |       ^\n",
		},
		{
			name: "combining marks count none",
			n:    5, col: 4, text: "e\u0301: x",
			want: "" +
				"    5 | e\u0301: x\n" +
				"      |   ^\n",
		},
		{
			name: "control characters shown as U+FFFD",
			n:    1, col: 3, text: "a\x00b",
			want: "" +
				"    1 | a\uFFFDb\n" +
				"      |   ^\n",
		},
		{
			name: "bytes that are no UTF-8 shown escaped, the caret under the column after them",
			n:    1, col: 5, text: "a\xe9\xe8\uFFFDb",
			want: "" +
				"    1 | a\\xe9\\xe8\uFFFDb\n" +
				"      | " + strings.Repeat(" ", 10) + "^\n", // under the b
		},
		{
			name: "a byte that is no UTF-8 at the column",
			n:    1, col: 10, text: "name: caf\xe9",
			want: "" +
				"    1 | name: caf\\xe9\n" +
				"      |          ^\n",
		},
		{
			name: "line separators and bidi controls shown as U+FFFD",
			n:    1, col: 7, text: "a\u2028b \u202ec: d",
			want: "" +
				"    1 | a\uFFFDb \uFFFDc: d\n" +
				"      |       ^\n",
		},
		{
			name: "the second # of a legacy workflow command escaped, the caret under its column",
			n:    1, col: 20, text: `- "###[error]x" ##[group] #[ # #`,
			want: "" +
				"    1 | - \"##\\x23[error]x\" #\\x23[group] #[ # #\n" +
				"      | " + strings.Repeat(" ", 25) + "^\n", // under the g of group
		},
		{
			name: "trailing blanks dropped",
			n:    1, col: 1, text: "x:   ",
			want: "" +
				"    1 | x:\n" +
				"      | ^\n",
		},
		{
			name: "long line clipped at its end",
			n:    1, col: 5, text: long,
			want: "" +
				"    1 | " + long[:80] + "…\n" +
				"      |     ^\n",
		},
		{
			name: "long line clipped around the column",
			n:    1, col: 101, text: long,
			want: "" +
				"    1 | …" + long[100-26:100-26+80] + "…\n" +
				"      | " + strings.Repeat(" ", 27) + "^\n",
		},
		{
			name: "long line clipped at its start, column at the end",
			n:    1, col: 201, text: long,
			want: "" +
				"    1 | …" + long[120:] + "\n" +
				"      | " + strings.Repeat(" ", 81) + "^\n",
		},
		{name: "no line", n: 0, col: 3, text: "x: y"},
		{name: "no column", n: 2, col: 0, text: "x: y"},
		{name: "empty line", n: 2, col: 1, text: ""},
		{name: "blank line", n: 2, col: 1, text: " \t "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &srcerr.Error{File: "f", Line: tt.n, Col: tt.col, Msg: "m", Source: tt.text}
			if diff := cmp.Diff(tt.want, e.Snippet()); diff != "" {
				t.Errorf("Snippet of line %d, column %d, source %q (-want +got):\n%s", tt.n, tt.col, tt.text, diff)
			}
		})
	}
}

// TestSnippetLongLine: a line of many kilobytes is shown as a short one is,
// around its column (the tab stops counted from its start), laying out
// only the characters near it: its snippet takes a few allocations, not
// one for each of its characters.
func TestSnippetLongLine(t *testing.T) {
	long := "ab\t" + strings.Repeat("abcdefghij", 1<<16) + "xyz\tZ"
	e := &srcerr.Error{File: "f", Line: 7, Col: 10<<16 + 8, Msg: "m", Source: long}
	want := "" +
		"    7 | …j" + strings.Repeat("abcdefghij", 7) + "xyz     Z\n" +
		"      | " + strings.Repeat(" ", 80) + "^\n"
	if diff := cmp.Diff(want, e.Snippet()); diff != "" {
		t.Errorf("Snippet (-want +got):\n%s", diff)
	}
	if n := testing.AllocsPerRun(3, func() { e.Snippet() }); n > 1000 {
		t.Errorf("Snippet of a line of %d KiB: %.0f allocations, want at most 1000", len(long)>>10, n)
	}
}
