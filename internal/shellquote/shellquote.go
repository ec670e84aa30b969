// Package shellquote writes strings as POSIX shell words: as they are
// when a shell reads them back unchanged, in single quotes otherwise.
//
// A Quoter says which bytes may stay unquoted. Word and Join use Shell,
// the bytes a shell reads as themselves anywhere in a word, for lines a
// person may paste into a shell; callers that need another set (a
// program name, where a first word holding = would be an assignment, or
// a line written for rule patterns to read) give their own Quoter.
package shellquote

import "strings"

// Literal is the punctuation a POSIX shell reads as itself anywhere in a
// word, besides ASCII letters and digits.
const Literal = "@%+=:,./-_"

// Shell leaves words of ASCII letters, digits and Literal unquoted.
var Shell = Quoter{Keep: Literal}

// A Quoter quotes the words that hold anything but ASCII letters, digits
// and its Keep bytes. The zero Quoter quotes all but letters and digits.
type Quoter struct {
	// Keep is the punctuation left unquoted.
	Keep string
	// KeepNonASCII leaves the bytes of non-ASCII characters unquoted.
	KeepNonASCII bool
}

// Plain reports whether s is not empty and has only ASCII letters,
// digits and the bytes q keeps.
func (q Quoter) Plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case b >= 0x80 && q.KeepNonASCII:
		case b < 0x80 && strings.IndexByte(q.Keep, b) >= 0:
		default:
			return false
		}
	}
	return true
}

// Word returns s as one shell word: s itself when q.Plain(s), otherwise
// s in single quotes, each ' inside written as Quoted writes it.
func (q Quoter) Word(s string) string {
	if q.Plain(s) {
		return s
	}
	return "'" + Quoted(s) + "'"
}

// Quoted returns s as Word writes it between single quotes, each ' in
// it closing the quotes, escaped, and opening them again:
//
//	it's → it'\''s
//
// Each part of a word so quoted is the Quoted form of that part of the
// word: a text found in a word is found, quoted, by its Quoted form.
func Quoted(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

// Join returns argv as one shell line: each word by q.Word, separated by
// single blanks.
func (q Quoter) Join(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = q.Word(a)
	}
	return strings.Join(words, " ")
}

// Word returns s as one shell word, by Shell.
func Word(s string) string { return Shell.Word(s) }

// Join returns argv as one shell line a shell splits back into argv, by
// Shell.
func Join(argv []string) string { return Shell.Join(argv) }
