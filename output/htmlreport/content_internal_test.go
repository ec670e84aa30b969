package htmlreport

import (
	"bufio"
	"bytes"
	"html/template"
	"regexp"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary
)

func diffString(lines []diffLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Op + l.Text + "\n")
	}
	return b.String()
}

func TestTextDiff(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"a\nb\nc\n", "a\nB\nc\n", " a\n-b\n+B\n c\n"},
		{"", "x\ny", "+x\n+y\n"},
		{"x\ny\n", "", "-x\n-y\n"},
		{"a\nb\nc\nd\n", "a\nc\nd\ne\n", " a\n-b\n c\n d\n+e\n"},
		{"same\n", "same\n", " same\n"},
	} {
		if got := diffString(textDiff(c.old, c.new)); got != c.want {
			t.Errorf("textDiff(%q, %q) =\n%s\nwant\n%s", c.old, c.new, got, c.want)
		}
	}
}

func TestTextDiffLarge(t *testing.T) {
	// Too many lines for the table: old removed, new added, no blow-up.
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("y", i%5) + "\n")
	}
	lines := textDiff(a.String(), b.String())
	if len(lines) != 6000 || lines[0].Op != "-" || lines[5999].Op != "+" {
		t.Errorf("%d lines, first %q, last %q", len(lines), lines[0].Op, lines[len(lines)-1].Op)
	}
}

func TestToolContentOther(t *testing.T) {
	items := toolContent([]byte(`[{"type":"content","content":{"type":"image","data":"xx"}},{"type":"terminal","terminalId":"t1"}]`))
	if len(items) != 2 || items[0].Kind != "other" || items[1].Kind != "terminal" || items[1].TerminalID != "t1" {
		t.Errorf("items = %+v", items)
	}
	if got := toolContent([]byte(`{"not":"a list"}`)); len(got) != 1 || got[0].Kind != "other" {
		t.Errorf("content that is not a list: %+v", got)
	}
}

// TestWriteText: a text written by writeText is what html/template
// prints for it in an element, whatever it holds: markup, quotes, NUL,
// multi-byte characters, bytes that are not UTF-8, Unicode's
// noncharacters.
func TestWriteText(t *testing.T) {
	s := hostileBytes + strings.Repeat("plain é😀 text\n", 10000) + hostileBytes
	want, err := template.New("").Parse("<pre>{{.}}</pre>")
	if err != nil {
		t.Fatal(err)
	}
	var printed, written bytes.Buffer
	if err := want.Execute(&printed, s); err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(&written)
	written.WriteString("<pre>")
	if err := writeText(bw, s); err != nil {
		t.Fatal(err)
	}
	bw.Flush()
	written.WriteString("</pre>")
	if printed.String() != written.String() {
		t.Errorf("writeText wrote\n%.300q\nhtml/template prints\n%.300q", written.String(), printed.String())
	}
}

// hostileBytes is text with every character html/template escapes, and
// what is not UTF-8.
const hostileBytes = "</pre><script>alert('x\"y')</script>&amp; a+b \x00 \xff\xfe \xe2\x82 \uFDD0 \uFFFE \U0010FFFF \u2028 "

// TestLongOnlyInPre keeps long, which writes its text escaped as element
// text past html/template's contextual escaping, where that escaping is
// right: alone in a <pre> element's content, never in an attribute, a
// script, a style or a URL.
func TestLongOnlyInPre(t *testing.T) {
	uses := regexp.MustCompile(`\{\{-?\s*long\b`).FindAllStringIndex(pageSource, -1)
	if len(uses) == 0 {
		t.Fatal("the page prints no text with long: update this test")
	}
	inPre := regexp.MustCompile(`<pre(?: class="[a-z ]+")?>\{\{long [.$\w]+\}\}</pre>`)
	if n := len(inPre.FindAllString(pageSource, -1)); n != len(uses) {
		t.Errorf("%d uses of long in the page template, %d of them as <pre>{{long X}}</pre>: long writes element text only", len(uses), n)
	}
}
