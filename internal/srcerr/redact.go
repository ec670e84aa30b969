package srcerr

import (
	"unicode/utf8"

	"github.com/acprun/acprun/internal/redact"
)

// redacted returns e with its file, message and anchor redacted with red:
// its line and column keep their numbers, so that "file:line:col:" still
// says where the problem is.
func (e *Error) redacted(red *redact.Redactor) *Error {
	shown := *e
	shown.File = red.String(e.File)
	shown.Msg = red.String(e.Msg)
	shown.Origin.Anchor = red.String(e.Origin.Anchor)
	return &shown
}

// redactedSnippet is e's Snippet with its source line redacted with red,
// the caret under the character it was under, or under the Marker of the
// secret that character was in; "" when redactLine cannot tell where.
func (e *Error) redactedSnippet(red *redact.Redactor) string {
	source, col := redactLine(red, e.Source, e.Col)
	return format(e.Line, col, source)
}

// maxStepBack bounds how many bytes redactLine steps back from the
// caret's character to find the start of a secret that holds it.
const maxStepBack = 4096

// redactLine returns line redacted with red and the column (1-based, in
// characters, as col is) in it of column col of line: that of the same
// character, or of the Marker that replaced the secret it was in; a
// column past the end of line is past the end of the redacted line. It
// returns "" when the secret started more than maxStepBack bytes before
// the column: there is then no line to show.
func redactLine(red *redact.Redactor, line string, col int) (string, int) {
	out := red.String(line)
	if out == line || col < 1 {
		return out, col
	}
	off, n := len(line), 0 // the caret's character starts at byte off
	for i := range line {
		if n == col-1 {
			off = i
			break
		}
		n++
	}
	// The line is split before the caret's character: when no secret spans
	// the split, the two halves redacted make the line redacted, and the
	// character is just after the first. Inside a secret, the split steps
	// back to where the secret starts, which its Marker takes.
	for k := off; off-k <= maxStepBack; {
		head := red.String(line[:k])
		if head+red.String(line[k:]) == out {
			return out, utf8.RuneCountInString(head) + 1
		}
		if k == 0 {
			break
		}
		_, size := utf8.DecodeLastRuneInString(line[:k])
		k -= size
	}
	return "", col
}
