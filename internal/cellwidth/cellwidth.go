// Package cellwidth says how many terminal cells text takes, a code point
// at a time, as terminals do: combining marks and format characters (the
// zero width joiner, variation selectors) none, East Asian wide and
// full-width characters and emoji two, the rest one. It is acprun's one
// measure of width: snippets under errors, tables and the live area use it
// to line up and clip what they draw.
package cellwidth

import "unicode"

//go:generate go run gen.go -ucd /usr/share/unicode

// Rune is the number of terminal cells r takes: 0 for combining marks and
// format characters, 2 for the characters Unicode says are East Asian wide
// or full-width or have an emoji presentation (but for the regional
// indicators, two of which make one flag), 1 otherwise.
func Rune(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case unicode.Is(wide, r):
		return 2
	}
	return 1
}

// String is the number of terminal cells s takes; s holds no control
// characters.
func String(s string) int {
	n := 0
	for _, r := range s {
		n += Rune(r)
	}
	return n
}
