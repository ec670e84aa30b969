package workspace

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		full      string
		limit     int
		want      string
		truncated bool
	}{
		{"fits", "a\nb\n", 10, "a\nb\n", false},
		{"exactly", "a\nb\n", 4, "a\nb\n", false},
		{"no limit", "a\nb\n", 0, "a\nb\n", false},
		{"after a line", "line one\nline two\n", 12, "line one\n", true},
		{"line too early", "ab\n" + strings.Repeat("x", 20), 10, "ab\nxxxxxxx", true},
		{"no newline", strings.Repeat("x", 20), 5, "xxxxx", true},
		{"rune cut in two", "aé", 2, "a", true},
		{"rune kept", "aéb", 3, "aé", true},
		{"four-byte rune", "ab😀", 5, "ab", true},
		{"invalid bytes", "a\xffb\n", 0, "a\uFFFDb\n", false},
		{"invalid bytes grow past limit", "\xffa\xffb\xffc", 6, "\uFFFDa", true},
		{"a run of invalid bytes is one U+FFFD", "\xff\xff\xff\xff", 4, "\uFFFD", false},
		{"invalid byte at the cut", "abc\xff\xfe", 4, "abc", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &headWriter{limit: tt.limit}
			// Written in small pieces, as a pipe would.
			for b := []byte(tt.full); len(b) > 0; b = b[min(3, len(b)):] {
				h.Write(b[:min(3, len(b))])
			}
			if h.total != len(tt.full) {
				t.Errorf("total = %d; want %d", h.total, len(tt.full))
			}
			got, truncated := clip(h.buf, h.total, tt.limit)
			if got != tt.want || truncated != tt.truncated {
				t.Errorf("clip(%q, %d) = %q, %v; want %q, %v", tt.full, tt.limit, got, truncated, tt.want, tt.truncated)
			}
			if !utf8.ValidString(got) || tt.limit > 0 && len(got) > tt.limit {
				t.Errorf("clip(%q, %d) = %q: not valid UTF-8 of at most %d bytes", tt.full, tt.limit, got, tt.limit)
			}
		})
	}
}
