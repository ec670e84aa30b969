package cellwidth_test

import (
	"testing"

	"github.com/acprun/acprun/internal/cellwidth"
)

func TestString(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"日本", 4},
		{"e\u0301", 1}, // e + combining acute accent
		{"한글", 4},
		{"😀!", 3},
		{"ｆｕｌｌ", 8},
	}
	for _, tt := range tests {
		if got := cellwidth.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
