package snippet

import "fmt"

// Error is a problem at a place in a text file (a mock-agent script, a
// transcript): "file:line:col: msg", with the source line for Snippet.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Col  int // 1-based, in characters; 0 when unknown
	Msg  string
	// Source is the text of line Line, "" when it is not known.
	Source string
}

// Error formats the error as "file:line:col: msg", leaving out what is
// not known.
func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Snippet is the error's source line with a caret under its column, as
// Format gives it; "" when the position or the line is unknown.
func (e *Error) Snippet() string { return Format(e.Line, e.Col, e.Source) }
