package proc

import (
	"runtime"
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
					if i%(3*chunk) == 0 {
						b.Bytes() // puts the ring in order mid-way
					}
				}
				got := string(b.Bytes())
				want, trunc := suffix(text, limit)
				if got != want || b.Truncated() != trunc || b.Total() != int64(len(text)) {
					t.Errorf("%s, limit %d, chunks of %d: got %q, %v, total %d; want %q, %v, %d", name, limit, chunk, got, b.Truncated(), b.Total(), want, trunc, len(text))
				}
				if b.Held() > limit {
					t.Errorf("%s, limit %d, chunks of %d: buffer holds %d bytes; want at most %d", name, limit, chunk, b.Held(), limit)
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

// TestTailMemory writes far more than the limit, in chunks of sizes that
// do not divide it, and checks that the tail never holds more than its
// limit, and that growing to it allocated at most as much again.
func TestTailMemory(t *testing.T) {
	const limit = 1 << 20
	for _, chunk := range []int{1000, 32 << 10, 100 << 10, limit - 1, limit, 3 * limit} {
		b := NewTail(limit)
		p := []byte(strings.Repeat("aé€😀", chunk/10+1))[:chunk]
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for written := 0; written < 64*limit; written += chunk {
			b.Write(p)
			if b.Held() > limit {
				t.Fatalf("chunks of %d: after %d bytes the tail holds %d; want at most %d", chunk, written+chunk, b.Held(), limit)
			}
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 2*limit+4096 {
			t.Errorf("chunks of %d: writing allocated %d bytes; want at most %d", chunk, got, 2*limit+4096)
		}
		if n := len(b.Bytes()); n > limit || n < limit-utf8.UTFMax+1 {
			t.Errorf("chunks of %d: %d bytes kept; want %d, less a cut character", chunk, n, limit)
		}
	}
}
