package redact_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/redact"
)

// TestUnfinished checks that Unfinished finds the longest end of a text
// that starts a secret without finishing it, and nothing else.
func TestUnfinished(t *testing.T) {
	r := redact.New("ghp_s3cret", "abab-abac")
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"token: g", 1},
		{"token: ghp_s3cre", 9},
		{"token: ghp_s3cret", 0}, // finished: String redacts it
		{"no secret here", 0},
		{"x abab-aba", 8},
		{"x abab-abab", 4}, // "abab" may begin it again
		{"x abab-ab", 7},
		{"abab", 4},
		{"ghp_s3cretghp_", 4},
		{strings.Repeat("a", 100) + "ab", 2},
	}
	for _, tt := range tests {
		if got := r.Unfinished(tt.s); got != tt.want {
			t.Errorf("Unfinished(%q) = %d; want %d", tt.s, got, tt.want)
		}
	}
	if got := redact.New().Unfinished("ghp_"); got != 0 {
		t.Errorf("an empty Redactor: Unfinished = %d; want 0", got)
	}
}
