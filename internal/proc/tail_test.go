package proc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTail writes text in chunks of every size and checks the kept
// output: the longest suffix within the limit that starts on a character.
func TestTail(t *testing.T) {
	texts := map[string]string{
		"ascii":  strings.Repeat("abcdefghij", 30),
		"2-byte": strings.Repeat("é", 150),
		"mixed":  strings.Repeat("aé€😀", 40),
	}
	for name, text := range texts {
		for _, limit := range []int{1, 2, 3, 4, 5, 7, 64, 299, 300, 1000} {
			for _, chunk := range []int{1, 2, 3, 5, 64, 1000} {
				b := NewTail(limit)
				for i := 0; i < len(text); i += chunk {
					b.Write([]byte(text[i:min(i+chunk, len(text))]))
				}
				got := string(b.Bytes())
				want, trunc := suffix(text, limit)
				if got != want || b.Truncated() != trunc || b.Total() != int64(len(text)) {
					t.Errorf("%s, limit %d, chunks of %d: got %q, %v, total %d; want %q, %v, %d", name, limit, chunk, got, b.Truncated(), b.Total(), want, trunc, len(text))
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
