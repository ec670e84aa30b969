package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escapes are how a format writes '#' and ':' as escapes that read back as
// the characters themselves.
type Escapes struct {
	Hash, Colon string
	// Unprintable, when not "", is the fmt format (given the rune) in
	// which a character from DEL up that Unprintable reports is written:
	// a C1 control (U+009B is a CSI to a terminal such as xterm), DEL, a
	// bidi control or a line separator, none of which JSON must escape, so
	// that no such character an agent sent reaches a terminal raw. Only a
	// format whose every such character is in a string, where the escape
	// reads back as the character, has it.
	Unprintable string
}

// The Escapes of the formats acprun writes to stdout.
var (
	JSONEscapes   = Escapes{Hash: `\u0023`, Colon: `\u003a`, Unprintable: `\u%04x`}
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
// held until the next byte says what it is: Flush writes it. With the
// format's Unprintable escape (JSON's), the characters Escapes.Unprintable
// names are written escaped too.
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
	// cut holds the first bytes of a character that the last Write ended
	// in, until it is whole, to tell whether it is unprintable.
	cut []byte
}

// NewCommandWriter returns a CommandWriter writing to w with esc, the
// format's escapes.
func NewCommandWriter(w io.Writer, esc Escapes) *CommandWriter {
	return &CommandWriter{w: w, esc: esc, lineStart: true}
}

// Write writes p, escaped.
func (c *CommandWriter) Write(p []byte) (int, error) {
	in := p
	if c.esc.Unprintable != "" {
		in = c.escapeUnprintable(p)
	}
	out := make([]byte, 0, len(in)+len(c.esc.Hash))
	for _, b := range in {
		out = c.add(out, b)
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeUnprintable returns p, after the bytes of a character the last
// Write cut short, with each character from DEL up that Unprintable
// reports written in the format's Unprintable escape; the bytes of a
// character p ends in are held in cut. A byte that is not UTF-8 stays.
func (c *CommandWriter) escapeUnprintable(p []byte) []byte {
	s := p
	if len(c.cut) > 0 {
		s = append(c.cut, p...)
		c.cut = nil
	}
	out := make([]byte, 0, len(s))
	for len(s) > 0 {
		if !utf8.FullRune(s) {
			c.cut = append([]byte(nil), s...) // p is not ours to keep
			break
		}
		r, n := utf8.DecodeRune(s)
		if r >= 0x7f && Unprintable(r) {
			out = fmt.Appendf(out, c.esc.Unprintable, r)
		} else {
			out = append(out, s[:n]...)
		}
		s = s[n:]
	}
	return out
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

// Flush writes the bytes held at the end of what was written, if any: a
// '#' or ':', and the start of a character cut short.
func (c *CommandWriter) Flush() error {
	var out []byte
	for _, b := range c.cut {
		out = c.add(out, b)
	}
	c.cut = nil
	if c.held != 0 {
		out = append(out, c.held)
		c.held = 0
	}
	if len(out) == 0 {
		return nil
	}
	_, err := c.w.Write(out)
	return err
}
