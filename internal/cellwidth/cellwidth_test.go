package cellwidth_test

import (
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

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
		{"✅", 2},        // U+2705, East_Asian_Width W
		{"🚀", 2},        // U+1F680
		{"⚡", 2},        // U+26A1
		{"🟢", 2},        // U+1F7E2
		{"🩰", 2},        // U+1FA70
		{"⌚", 2},        // U+231A
		{"🇫🇷", 2},       // two regional indicators: one flag
		{"❤\ufe0f", 1},  // text presentation, and a variation selector
		{"👩\u200d💻", 4}, // the zero width joiner takes no cell
		{"é", 1},
		{"→", 1},          // East_Asian_Width A: one cell outside CJK locales
		{"𠀀", 2},          // U+20000
		{"\U0003FFFD", 2}, // unassigned, but W
	}
	for _, tt := range tests {
		if got := cellwidth.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
