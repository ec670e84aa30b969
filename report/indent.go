package report

import (
	"bufio"
	"io"
)

// indenter writes the compact JSON written to it indented with two spaces,
// as json.Indent does, a piece at a time: the results are indented on
// their way out instead of as a second copy of them in memory. It takes
// what encoding/json marshals: no space outside strings but the newline
// after the value, which it passes on.
type indenter struct {
	w        *bufio.Writer
	depth    int
	inString bool
	escaped  bool // the previous byte in a string was a backslash
	opened   byte // '{' or '[' just written, its newline held back; 0 when none
}

func newIndenter(w io.Writer) *indenter { return &indenter{w: bufio.NewWriterSize(w, 64<<10)} }

// Write indents p, which continues what was written before.
func (in *indenter) Write(p []byte) (int, error) {
	w := in.w
	for i := 0; i < len(p); i++ {
		c := p[i]
		if in.inString {
			// Copy the run of string bytes up to the next quote or backslash.
			j := i
			for j < len(p) && (in.escaped || p[j] != '"' && p[j] != '\\') {
				in.escaped = false
				j++
			}
			_, _ = w.Write(p[i:j])
			if j == len(p) {
				break
			}
			_ = w.WriteByte(p[j])
			if p[j] == '\\' {
				in.escaped = true
			} else {
				in.inString = false
			}
			i = j
			continue
		}
		if in.opened != 0 {
			if c == in.opened+2 { // '}' or ']' right after its opening: empty
				_ = w.WriteByte(c)
				in.opened = 0
				continue
			}
			in.opened = 0
			in.depth++
			in.newline()
		}
		switch c {
		case '{', '[':
			_ = w.WriteByte(c)
			in.opened = c
		case '}', ']':
			in.depth--
			in.newline()
			_ = w.WriteByte(c)
		case ',':
			_ = w.WriteByte(c)
			in.newline()
		case ':':
			_, _ = w.WriteString(": ")
		case '"':
			_ = w.WriteByte(c)
			in.inString = true
		default:
			_ = w.WriteByte(c)
		}
	}
	return len(p), nil
}

func (in *indenter) newline() {
	_ = in.w.WriteByte('\n')
	for range in.depth {
		_, _ = in.w.WriteString("  ")
	}
}

// Flush writes what is buffered, returning the first write error.
func (in *indenter) Flush() error { return in.w.Flush() }
