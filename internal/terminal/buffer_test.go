package terminal

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTerminalOutputBuffer writes text in chunks of every size and checks the kept
// output: the longest suffix within the limit that starts on a character.
func TestTerminalOutputBuffer(t *testing.T) {
	texts := map[string]string{
		"ascii":  strings.Repeat("abcdefghij", 30),
		"2-byte": strings.Repeat("é", 150),
		"mixed":  strings.Repeat("aé€😀", 40),
	}
	for name, text := range texts {
		for _, limit := range []int{1, 2, 3, 4, 5, 7, 64, 299, 300, 1000} {
			for _, chunk := range []int{1, 2, 3, 5, 64, 1000} {
				b := outputBuffer{limit: limit}
				for i := 0; i < len(text); i += chunk {
					b.write([]byte(text[i:min(i+chunk, len(text))]))
				}
				got := string(b.bytes())
				want, trunc := suffix(text, limit)
				if got != want || b.truncated != trunc {
					t.Errorf("%s, limit %d, chunks of %d: got %q, %v; want %q, %v", name, limit, chunk, got, b.truncated, want, trunc)
				}
				if len(b.data) > 2*limit {
					t.Errorf("%s, limit %d, chunks of %d: buffer holds %d bytes; want at most %d", name, limit, chunk, len(b.data), 2*limit)
				}
			}
		}
	}
}

// suffix is the reference: the last limit bytes of s, minus a cut
// character's leftover bytes.
func suffix(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	s = s[len(s)-limit:]
	for i := 0; i < utf8.UTFMax-1 && len(s) > 0 && !utf8.RuneStart(s[0]); i++ {
		s = s[1:]
	}
	return s, true
}

func TestTerminalTrimPartialRune(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"ab\xc3", "ab"},       // first byte of é
		{"ab\xc3\xa9", "abé"},  // é complete
		{"a\xe2\x82", "a"},     // two bytes of €
		{"a\xf0\x9f\x98", "a"}, // three bytes of 😀
		{"a\xf0\x9f\x98\x80", "a😀"},
		{"a\xff", "a\xff"}, // invalid, not partial: kept
	}
	for _, tt := range tests {
		if got := string(trimPartialRune([]byte(tt.in))); got != tt.want {
			t.Errorf("trimPartialRune(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
