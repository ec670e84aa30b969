package termtext

import (
	"bytes"
	"io"
)

// CommandWriter passes what is written to it on to an io.Writer with the
// second '#' of every "##[" (a legacy GitHub Actions workflow command,
// honoured anywhere in a line of a step's log) written as an escape of
// the format being written: `\u0023` in JSON, `&#35;` in XML or HTML,
// which read back as '#'. Outside a string or text, those formats have
// no '#', so the document stays the same document. A trailing '#' is held
// until the next byte says what it is: Flush writes it.
type CommandWriter struct {
	w    io.Writer
	esc  string
	held bool // the last byte written to it is a '#' not yet passed on
	prev bool // and the byte before that one was a '#' too
}

// NewCommandWriter returns a CommandWriter writing to w, with esc for
// the '#' it escapes.
func NewCommandWriter(w io.Writer, esc string) *CommandWriter {
	return &CommandWriter{w: w, esc: esc}
}

// Write writes p, escaped.
func (c *CommandWriter) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+1)
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '#')
		if i < 0 {
			out = c.settle(out, rest[0])
			out = append(out, rest...)
			break
		}
		if i > 0 {
			out = c.settle(out, rest[0])
			out = append(out, rest[:i]...)
			c.prev = false
		} else {
			if c.held {
				out = append(out, '#')
			}
			c.prev = c.held
		}
		c.held = true
		rest = rest[i+1:]
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// settle appends the held '#' to out, escaped when it is the second of
// "##[", now that the byte after it, next, is known.
func (c *CommandWriter) settle(out []byte, next byte) []byte {
	if !c.held {
		return out
	}
	c.held = false
	if c.prev && next == '[' {
		return append(out, c.esc...)
	}
	return append(out, '#')
}

// Flush writes the '#' held at the end of what was written, if any.
func (c *CommandWriter) Flush() error {
	if !c.held {
		return nil
	}
	c.held, c.prev = false, false
	_, err := c.w.Write([]byte{'#'})
	return err
}
