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
// An error at a YAML alias (*name) that stands for the value it is about
// says where that value is written (see Origin):
//
//	s.yaml:12:14: bad duration "banana": use a Go duration like 90s, 5m or 1h30m (written at line 3, column 14, in the anchor &t)
//	   12 |     timeout: *t
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

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
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
	// Origin is where the value is written when Line and Col are those of
	// an alias that stands for it; zero otherwise.
	Origin Origin
}

// Origin is where a value that a YAML alias (*name) stands for is
// written: the line and column of the node (in the same file), and the
// anchor (&name) the alias names. Its zero value is no alias.
type Origin struct {
	Anchor    string
	Line, Col int
}

// Note is what an error at an alias adds to its message about o: " (written
// at line L, column C, in the anchor &name)"; "" for the zero Origin.
func (o Origin) Note() string {
	if o == (Origin{}) {
		return ""
	}
	return fmt.Sprintf(" (written at line %d, column %d, in the anchor &%s)", o.Line, o.Col, o.Anchor)
}

// Error formats the error as "file:line:col: msg", leaving out what is
// not known, and says where the value is written when the error is at an
// alias (see Origin.Note).
func (e *Error) Error() string {
	msg := e.Msg + e.Origin.Note()
	file := termtext.Printable(e.File) // a name an agent gave a file it left
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", file, msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", file, e.Line, msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Line, e.Col, msg)
}

// Unique returns errs without the repeats, in their order: an error
// given twice, and an error at an alias that its value also has where it
// is written (the same message at its Origin), which is said there once.
func Unique(errs []*Error) []*Error {
	type place struct {
		file, msg string
		line, col int
	}
	written := map[place]bool{}
	for _, e := range errs {
		if e.Origin == (Origin{}) {
			written[place{e.File, e.Msg, e.Line, e.Col}] = true
		}
	}
	seen := map[Error]bool{}
	var out []*Error
	for _, e := range errs {
		if seen[*e] || e.Origin != (Origin{}) && written[place{e.File, e.Msg, e.Origin.Line, e.Origin.Col}] {
			continue
		}
		seen[*e] = true
		out = append(out, e)
	}
	return out
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
//
// What it writes is redacted with red (nil redacts nothing): an *Error's
// file, message and anchor, its line and column left as they are, and its
// source line, the caret still under the character it was under (under
// the Marker of a secret that character was in); any other error's text.
func Print(w io.Writer, err error, red *redact.Redactor) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		pe, ok := e.(*Error)
		if !ok {
			fmt.Fprintln(w, red.String(e.Error()))
			continue
		}
		fmt.Fprintln(w, pe.redacted(red))
		fmt.Fprint(w, pe.redactedSnippet(red))
	}
}

// AtOffset is the error msg at byte offset off of data, the contents of
// file: its line and column (1-based, the column in characters) and the
// text of its line. An offset outside data is taken to be its nearest end,
// an offset inside a character to be that character's: the byte before
// a json error's Offset (just past the byte that is wrong) is the
// character json stopped at.
func AtOffset(file string, data []byte, off int, msg string) *Error {
	off = charStart(data, min(max(off, 0), len(data)))
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

// charStart is the offset of the character of data that holds byte off:
// off itself, unless it is inside a character of several bytes.
func charStart(data []byte, off int) int {
	for back := 1; back < utf8.UTFMax && back <= off && off < len(data); back++ {
		if _, n := utf8.DecodeRune(data[off-back:]); n > back {
			return off - back
		}
	}
	return off
}
