package provider

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
)

// CutString finds the string value that data, a JSON text cut short (an
// answer that broke off), ends inside: where it starts in data (its
// opening quote) and its text up to the cut, decoded, without an escape
// or a UTF-8 character that the cut went through. It is false when the
// cut is not inside a string value (or data is no JSON text up to it).
func CutString(data []byte) (start int, text string, ok bool) {
	completed, open, kept := cutJSON(data)
	if open < 0 || json.Unmarshal(completed[open:kept+1], &text) != nil { // with the quote closing it
		return 0, "", false
	}
	return open, text, true
}

// cutJSON completes data, a JSON text cut short, into a valid JSON text
// whose values are those data holds whole, in the same places: what
// comes after the last of them is dropped, and the objects and arrays
// still open are closed. When the cut is inside a string value, that
// string is kept as far as it goes (less an escape or a UTF-8 character
// the cut went through) and closed: open is where it starts in data (its
// opening quote), -1 when the cut is not inside a string value; kept is
// how much of data the completed text holds. completed is nil when data
// is no JSON text up to the cut.
func cutJSON(data []byte) (completed []byte, open, kept int) {
	type level struct {
		close byte // '}' or ']'
		n     int  // the names and values begun in it
	}
	var stack []level
	closers := func() []byte {
		var b []byte
		for _, l := range slices.Backward(stack) {
			b = append(b, l.close)
		}
		return b
	}
	// begin counts a name or value starting in the innermost object or
	// array, and reports whether a string starting there is a value, not
	// an object's name.
	begin := func() bool {
		if len(stack) == 0 {
			return true
		}
		top := &stack[len(stack)-1]
		top.n++
		return top.close == ']' || top.n%2 == 0
	}
	// The end of the last value read or container opened, and what closes
	// the text there.
	last, lastClosers := 0, []byte(nil)
	open = -1
scan:
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
		case '{', '[':
			begin()
			stack = append(stack, level{close: c + 2}) // '}' and ']'
			i++
			last, lastClosers = i, closers()
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1].close != c {
				return nil, -1, 0
			}
			stack = stack[:len(stack)-1]
			i++
			last, lastClosers = i, closers()
		case '"':
			end := stringEnd(data, i)
			if end < 0 { // the cut is inside it
				if begin() {
					open, kept = i, i+1+wholeRunes(data[i+1:])
					closed := append(append(slices.Clip(data[:kept]), '"'), closers()...)
					if json.Valid(closed) {
						return closed, open, kept
					}
					open = -1
				}
				break scan
			}
			if begin() {
				last, lastClosers = end, closers()
			}
			i = end
		default: // a number or a literal: whole when something follows it
			j := i
			for j < len(data) && !slices.Contains([]byte(" \t\r\n,:]}"), data[j]) {
				j++
			}
			if j == len(data) {
				break scan
			}
			begin()
			last, lastClosers = j, closers()
			i = j
		}
	}
	completed = append(slices.Clip(data[:last]), lastClosers...)
	if !json.Valid(completed) {
		return nil, -1, 0
	}
	return completed, -1, last
}

// stringEnd is where the JSON string that starts at data[i] ends, after
// its closing quote; -1 when data ends first.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// wholeRunes is the length of the start of s, the inside of a JSON string
// that a cut ended, that leaves out an escape or a UTF-8 character the cut
// went through (or the first half of a surrogate pair whose second half
// it cut off).
func wholeRunes(s []byte) int {
	n := 0
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'u':
			if i+6 > len(s) {
				return n
			}
			r, err := strconv.ParseUint(string(s[i+2:i+6]), 16, 16)
			if err == nil && utf16.IsSurrogate(rune(r)) && r < 0xdc00 && len(s)-(i+6) < 6 && (bytes.HasPrefix(s[i+6:], []byte(`\u`)) || bytes.HasPrefix([]byte(`\u`), s[i+6:])) {
				return n // a pair cut in its second half
			}
			i += 6
		case s[i] == '\\':
			if i+1 == len(s) {
				return n
			}
			i += 2
		default:
			if !utf8.FullRune(s[i:]) {
				return n
			}
			_, size := utf8.DecodeRune(s[i:])
			i += size
		}
		n = i
	}
	return n
}
