package yamlnode

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// Text is the file's text as YAML reads it, in UTF-8: Src itself, or Src
// decoded when it starts with a UTF-16 byte order mark (then the mark is
// written as UTF-8's, which YAML skips as it skips UTF-16's). Everything
// the Reader reads, shows (a problem's source line) and counts (lines,
// columns, offsets) is of this text, so that a file saved as UTF-16 is
// read as the same file saved as UTF-8.
func (r *Reader) Text() []byte {
	if r.text == nil {
		r.text = UTF8Text(r.Src)
	}
	return r.text
}

// UTF8Text is src decoded from UTF-16 when it starts with a UTF-16 byte
// order mark (as YAML reads it; the mark is then written as UTF-8's),
// else src: the text of a file saved as UTF-16 by an editor or a shell's
// redirection, as YAML reads it and as acprun reads the other text files
// it is given (a prompt file). A surrogate without its pair, and a last
// byte without its pair, are each written as the byte 0xff, which is no
// UTF-8: YAML refuses the text there, as it refuses them in UTF-16.
func UTF8Text(src []byte) []byte {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(src, []byte{0xff, 0xfe}):
		order = binary.LittleEndian
	case bytes.HasPrefix(src, []byte{0xfe, 0xff}):
		order = binary.BigEndian
	default:
		return src
	}
	out := make([]byte, 0, len(src)+len(src)/2)
	for i := 0; i+1 < len(src); i += 2 {
		c := rune(order.Uint16(src[i:]))
		if !utf16.IsSurrogate(c) {
			out = utf8.AppendRune(out, c)
			continue
		}
		if i+3 < len(src) {
			if r := utf16.DecodeRune(c, rune(order.Uint16(src[i+2:]))); r != utf8.RuneError {
				out = utf8.AppendRune(out, r)
				i += 2
				continue
			}
		}
		out = append(out, 0xff)
	}
	if len(src)%2 == 1 {
		out = append(out, 0xff)
	}
	return out
}

// notUTF8 is the problem of a file that is not UTF-8 (Latin-1, say), at
// the first byte that is not, which %02x formats.
const notUTF8 = `the file is not UTF-8 (byte \x%02x here): save it as UTF-8`

// firstNotUTF8 returns the offset of the first byte of the Reader's text
// that is not UTF-8, where YAML's reader stopped (it says offset off: the
// byte after the first one of a bad sequence, or the first one itself).
// ok is false when the text is UTF-8 up to off (YAML stopped at a control
// character), and when the file is UTF-16, whose bad surrogates UTF8Text
// wrote as a byte no UTF-8 has.
func (r *Reader) firstNotUTF8(off int) (int, bool) {
	if hasUTF16BOM(r.Src) {
		return 0, false
	}
	text := r.Text()
	for i := 0; i < len(text) && i <= off; {
		c, size := utf8.DecodeRune(text[i:])
		if c == utf8.RuneError && size <= 1 {
			return i, true
		}
		i += size
	}
	return 0, false
}

// hasUTF16BOM reports whether src starts with a UTF-16 byte order mark,
// in either byte order.
func hasUTF16BOM(src []byte) bool {
	return bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff})
}

// notUTF16 is the problem of a file that looksUTF16.
const notUTF16 = "the file looks like UTF-16 without a byte order mark, which YAML does not read: save it as UTF-8"

// looksUTF16 reports whether src, without a UTF-16 byte order mark, looks
// like UTF-16 text all the same (as an editor or a shell's redirection
// may save it): in its first pairs of bytes, one byte of each pair is a
// NUL in at least half of them, the other never, as for ASCII characters
// in UTF-16. YAML reads such a file as UTF-8 and stops at its first NUL
// ("control characters are not allowed").
func looksUTF16(src []byte) bool {
	n := min(len(src), 256) &^ 1
	if n < 4 || hasUTF16BOM(src) {
		return false
	}
	var nuls [2]int
	for i := range n {
		if src[i] == 0 {
			nuls[i%2]++
		}
	}
	pairs := n / 2
	return nuls[0] == 0 && nuls[1]*2 >= pairs || nuls[1] == 0 && nuls[0]*2 >= pairs
}
