package yamlnode

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
)

// Spelling returns scalar n as written in the source, without its quotes
// or a block scalar's header, where that differs from its value: with a
// ' doubled in single quotes, with escapes (\x73, \u0073, \e, \") in
// double quotes, or over several lines (folded, in quotes or not, or in a
// block scalar, indented). It is "" when n reads as written, and when it
// cannot be told: n is not a scalar of the source, or its value was
// changed after it was read (a rendered template). A copy of what an
// alias stands for is read where it is written (see Origin).
//
// A secret written so is found by its spelling in the source's lines,
// which show it as written (see the scenario package).
func (r *Reader) Spelling(n *yaml.Node) string {
	n = Deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	line, col := n.Line, n.Column
	if o := r.Origin(n); o != (srcerr.Origin{}) {
		line, col = o.Line, o.Col
	}
	off, ok := r.offset(line, col)
	if !ok {
		return ""
	}
	src := string(r.Text()[off:])
	for src != "" && (src[0] == '&' || src[0] == '!') { // an anchor, a tag
		end := strings.IndexAny(src, " \t\r\n,[]{}")
		if end < 0 {
			return ""
		}
		src = strings.TrimLeft(src[end:], " \t\r\n")
	}
	var raw string
	switch {
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		raw, ok = quotedText(src, n.Value)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		_, body, found := strings.Cut(src, "\n") // after the header: | or >, indicators, a comment
		raw, ok = sameText(body, n.Value)
		ok = ok && found
	default:
		raw, ok = sameText(src, n.Value)
	}
	if !ok || raw == n.Value {
		return ""
	}
	return raw
}

// offset returns the byte offset in the source of line and col (1-based,
// col in characters), and whether the source has it.
func (r *Reader) offset(line, col int) (int, bool) {
	starts := r.lineStarts()
	if line < 1 || line > len(starts) || col < 1 {
		return 0, false
	}
	start := starts[line-1]
	text := r.Line(line)
	if line == 1 && bytes.HasPrefix(r.Text(), []byte("\ufeff")) {
		start += len("\ufeff")
	}
	i := runeOffset(text, col-1)
	if i < 0 {
		return 0, false
	}
	return start + i, true
}

// quotedText returns the text between the quotes of the quoted scalar src
// starts with, when that reads as value.
func quotedText(src, value string) (string, bool) {
	if src == "" {
		return "", false
	}
	q := src[0]
	for i := 1; i < len(src); i++ {
		switch {
		case q == '"' && src[i] == '\\':
			i++
		case src[i] == '\'' && q == '\'' && i+1 < len(src) && src[i+1] == '\'':
			i++
		case src[i] == q:
			var decoded string
			if yaml.Unmarshal([]byte(src[:i+1]), &decoded) != nil || decoded != value {
				return "", false
			}
			return src[1:i], true
		}
	}
	return "", false
}

// sameText returns the start of src that holds the text of value, a
// plain or block scalar, which has no escapes: the same characters in the
// same order, the blanks and line breaks between them aside (indentation,
// a line folded into a space), without the blanks before the first. It
// fails when src does not start with it.
func sameText(src, value string) (string, bool) {
	start, end, i := -1, 0, 0
	for _, c := range value {
		if blank(c) {
			continue
		}
		for i < len(src) && blank(rune(src[i])) {
			i++
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if size == 0 || r != c {
			return "", false
		}
		if start < 0 {
			start = i
		}
		i += size
		end = i
	}
	if start < 0 {
		return "", false
	}
	return src[start:end], true
}

// blank reports whether c is white space a scalar's lines are folded or
// indented with.
func blank(c rune) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
