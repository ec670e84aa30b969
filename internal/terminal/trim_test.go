package terminal

import "testing"

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
