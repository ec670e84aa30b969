package redact_test

import (
	"testing"

	"github.com/acprun/acprun/internal/redact"
)

// TestExcerpt: a part cut out of a text is redacted knowing the whole
// text, so that no part of a secret the cut goes through is shown, however
// short, and nothing that merely looks like one is taken.
func TestExcerpt(t *testing.T) {
	r := redact.New("ghp_abcdefghijklmnop1234", `to"ken99`)
	text := "a ghp_abcdefghijklmnop1234 b ghp_ c"
	tests := []struct {
		name       string
		text       string
		start, end int
		cutStart   bool
		want       string
	}{
		{"the cut ends in a secret", text, 0, 10, false, "a [REDACTED]"},
		{"one byte of it", text, 0, 3, false, "a [REDACTED]"},
		{"the cut starts in it", text, 10, 30, false, "[REDACTED] b g"},
		{"its middle", text, 6, 12, false, "[REDACTED]"},
		{"whole", text, 0, 29, false, "a [REDACTED] b "},
		{"no secret, though it begins like one", text, 27, 33, false, "b ghp_"},
		{"escaped", `{"t": "to\"ken99"}`, 0, 10, false, `{"t": "[REDACTED]`},
		{"the text's own start is a cut", "abcdefghijklmnop1234 x", 4, 22, true, "[REDACTED] x"},
		{"not a cut", "abcdefghijklmnop1234 x", 4, 22, false, "efghijklmnop1234 x"},
		{"empty", text, 5, 5, false, ""},
	}
	for _, tt := range tests {
		if got := r.Excerpt(tt.text, tt.start, tt.end, tt.cutStart); got != tt.want {
			t.Errorf("%s: Excerpt(%q, %d, %d, %v) = %q; want %q", tt.name, tt.text, tt.start, tt.end, tt.cutStart, got, tt.want)
		}
	}
	if got := (*redact.Redactor)(nil).Excerpt(text, 0, 10, false); got != text[:10] {
		t.Errorf("nil Redactor: Excerpt = %q", got)
	}
}
