package yamlsyntax

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// pos is a 1-based line and column (in characters) of the source.
type pos struct{ line, col int }

// source is the YAML stream a problem is in, split into lines when needed.
type source struct {
	src    []byte
	starts []int // byte offset of each line; nil until needed
}

// markPos turns a libyaml mark into a position, kept inside the source.
func (s *source) markPos(m mark) pos {
	return pos{line: s.clampLine(m.line + 1), col: max(m.column+1, 1)}
}

// offsetPos returns the position of byte offset off of the source.
func (s *source) offsetPos(off int) pos {
	off = min(max(off, 0), len(s.src))
	starts := LineStarts(s.src[:off])
	return pos{line: len(starts), col: utf8.RuneCount(s.src[starts[len(starts)-1]:off]) + 1}
}

// clampLine keeps a line number inside the source.
func (s *source) clampLine(n int) int {
	return min(max(n, 1), len(s.lineStarts()))
}

// line returns line n (1-based) of the source, without its line break.
func (s *source) line(n int) string { return Line(s.src, s.lineStarts(), n) }

func (s *source) lineStarts() []int {
	if s.starts == nil {
		s.starts = LineStarts(s.src)
	}
	return s.starts
}

// LineStarts returns the byte offset of each line of src. Lines end where
// YAML says they do: at \r\n, \n, \r, NEL, LS or PS.
func LineStarts(src []byte) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
			i++
		case src[i] == '\n', src[i] == '\r':
		case bytes.HasPrefix(src[i:], []byte("\u0085")):
			i++
		case bytes.HasPrefix(src[i:], []byte("\u2028")), bytes.HasPrefix(src[i:], []byte("\u2029")):
			i += 2
		default:
			continue
		}
		starts = append(starts, i+1)
	}
	return starts
}

// Line returns line n (1-based) of src, whose line starts are starts (as
// LineStarts returns them), without its line break; "" when src has no
// line n. With package snippet it shows where a problem is:
//
//	snippet.Format(line, col, yamlsyntax.Line(src, starts, line))
func Line(src []byte, starts []int, n int) string {
	if n < 1 || n > len(starts) {
		return ""
	}
	end := len(src)
	if n < len(starts) {
		end = starts[n]
	}
	line := string(src[starts[n-1]:end])
	for _, br := range []string{"\r\n", "\n", "\r", "\u0085", "\u2028", "\u2029"} {
		if strings.HasSuffix(line, br) {
			return strings.TrimSuffix(line, br)
		}
	}
	return line
}

// runeOffset returns the byte offset of the n-th rune (0-based) of s, or
// -1 when s is shorter.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	if n == 0 {
		return len(s)
	}
	return -1
}
