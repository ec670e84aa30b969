package termtext

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escapes are how a format writes '#' and ':' as escapes that read back as
// the characters themselves.
type Escapes struct {
	Hash, Colon string
}

// The Escapes of the formats acprun writes to stdout.
var (
	JSONEscapes   = Escapes{Hash: `\u0023`, Colon: `\u003a`}
	MarkupEscapes = Escapes{Hash: "&#35;", Colon: "&#58;"} // XML and HTML
	// PlainEscapes are for plain text, which has no escapes: a zero-width
	// space before the second '#' of "##[" and after a line's first ':'
	// breaks the command and shows as the text did.
	PlainEscapes = Escapes{Hash: "\u200b#", Colon: ":\u200b"}
)

// CommandWriter passes what is written to it on to an io.Writer with what
// a GitHub Actions step's log would run as a workflow command written as
// escapes of the format being written: the second '#' of every "##[" (a
// legacy command, honoured anywhere in a line) and the first ':' of a line
// that begins with "::" after blanks (IsBlank: the runner trims them), as `\u0023`
// and `\u003a` in JSON, `&#35;` and `&#58;` in XML or HTML, which read
// back as the characters. Outside a string or text, those formats have no
// '#' and begin no line with "::", so the document stays the same
// document. A '#' or a line's first ':' at the end of what was written is
// held until the next byte says what it is: Flush writes it.
type CommandWriter struct {
	w   io.Writer
	esc Escapes
	// held is a '#' or ':' written to it and not passed on yet (0: none);
	// beforeHeld is the byte before it.
	held, beforeHeld byte
	last             byte // the last byte written to it
	lineStart        bool // nothing but blanks since the line began
	// partial holds the first bytes of a character at the start of a line
	// until it is whole, to tell whether it is a blank.
	partial []byte
}

// NewCommandWriter returns a CommandWriter writing to w with esc, the
// format's escapes.
func NewCommandWriter(w io.Writer, esc Escapes) *CommandWriter {
	return &CommandWriter{w: w, esc: esc, lineStart: true}
}

// Write writes p, escaped.
func (c *CommandWriter) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+len(c.esc.Hash))
	for _, b := range p {
		out = c.add(out, b)
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// add appends b to out, with the byte held before it now that b says
// what that one is, or holds b.
func (c *CommandWriter) add(out []byte, b byte) []byte {
	switch {
	case c.held == '#' && c.beforeHeld == '#' && b == '[':
		out = append(out, c.esc.Hash...)
	case c.held == ':' && b == ':':
		out = append(out, c.esc.Colon...)
	case c.held != 0:
		out = append(out, c.held)
	}
	c.held = 0
	switch {
	case b == '#' || b == ':' && c.lineStart && len(c.partial) == 0:
		c.held, c.beforeHeld = b, c.last
	default:
		out = append(out, b)
	}
	c.track(b)
	c.last = b
	return out
}

// track keeps lineStart with b: a line break begins a line, and a blank
// (IsBlank, of one byte or several) keeps it begun.
func (c *CommandWriter) track(b byte) {
	if b < utf8.RuneSelf {
		cut := len(c.partial) > 0 // a character cut short is no blank
		c.partial = c.partial[:0]
		switch {
		case b == '\n' || b == '\r':
			c.lineStart = true
		case cut || !IsBlank(rune(b)):
			c.lineStart = false
		}
		return
	}
	if !c.lineStart {
		return
	}
	c.partial = append(c.partial, b)
	if utf8.FullRune(c.partial) {
		r, _ := utf8.DecodeRune(c.partial)
		c.partial = c.partial[:0]
		c.lineStart = IsBlank(r)
	}
}

// IsBlank reports whether r is a blank that the GitHub Actions runner
// trims from the start of a line before it looks for a workflow command:
// any Unicode white space (.NET's TrimStart, which takes U+00A0, U+3000,
// U+2028, \v and \f as well as spaces and tabs), the characters older .NET
// trimmed too (U+200B, U+FEFF), and the ASCII separators U+001C–U+001F.
// Taking one too many costs only an escape of a colon.
func IsBlank(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff' || r >= 0x1c && r <= 0x1f
}

// TrimBlanks returns s without the blanks it begins with (IsBlank).
func TrimBlanks(s string) string { return strings.TrimLeftFunc(s, IsBlank) }

// Flush writes the byte held at the end of what was written, if any.
func (c *CommandWriter) Flush() error {
	if c.held == 0 {
		return nil
	}
	b := c.held
	c.held = 0
	_, err := c.w.Write([]byte{b})
	return err
}
