// Package srcerr is acprun's one error type for a problem at a place in a
// file the user wrote (a scenario, a config file, a mock-agent script, a
// transcript), and its one printer. An error reads as compilers and
// linters (actionlint, rustc) write them: a "file:line:col: message" line,
// then the source line with its number and a caret under the column.
//
//	s.yaml:4:14: unknown key "stopReasn" (did you mean "stopReason"?)
//	    4 |     expect: {stopReasn: end_turn}
//	      |              ^
//
// In the source line tabs are expanded, so that the caret lines up; wide
// (East Asian) characters count two columns, combining marks none; a line
// too long for a terminal is clipped around the column, with "…" where
// text was cut.
package srcerr

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Error is a problem at a place in a file: "file:line:col: msg", with the
// source line for Snippet.
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

// Snippet is the error's source line, numbered, with a caret under its
// column; each line ends in "\n". It is "" when the line, the column or
// the source is unknown, or the source is nothing but white space: there
// is nothing to point at. A column past the end of the text points just
// after it.
func (e *Error) Snippet() string { return format(e.Line, e.Col, e.Source) }

// Compare orders errors by file, line and column, for sorting.
func Compare(a, b *Error) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// Print writes err for a person to read: each error err joins (err
// itself when it joins none) on a line of its own, an *Error followed by
// its Snippet. An error that wraps Errors in more context is one error,
// printed as its text.
func Print(w io.Writer, err error) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		fmt.Fprintln(w, e)
		if pe, ok := e.(*Error); ok {
			fmt.Fprint(w, pe.Snippet())
		}
	}
}

// AtOffset is the error msg at byte offset off of data, the contents of
// file: its line and column (1-based, the column in characters) and the
// text of its line. An offset outside data is taken to be its nearest end.
func AtOffset(file string, data []byte, off int, msg string) *Error {
	off = min(max(off, 0), len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		end = off + i
	}
	return &Error{
		File:   file,
		Line:   bytes.Count(data[:start], []byte("\n")) + 1,
		Col:    utf8.RuneCount(data[start:off]) + 1,
		Msg:    msg,
		Source: strings.TrimSuffix(string(data[start:end]), "\r"),
	}
}
