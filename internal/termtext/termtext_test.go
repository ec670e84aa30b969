package termtext

import (
	"strings"
	"testing"
)

// TestClip checks cutting text to a number of cells.
func TestClip(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  string
	}{
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"日本語", 5, "日本…"},
		{"日本語", 4, "日…"},
		{"e\u0301te\u0301", 4, "e\u0301te\u0301"},
	}
	for _, tt := range tests {
		if got := Clip(tt.s, tt.width); got != tt.want {
			t.Errorf("clip(%q, %d) = %q; want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

// TestCut checks cutting text to a number of runes or bytes, the cut
// marked and never inside a character.
func TestCut(t *testing.T) {
	tests := []struct {
		s          string
		n          int
		runes, all string
	}{
		{"hello", 5, "hello", "hello"},
		{"hello", 4, "hell…", "hell…"},
		{"hello", 0, "…", "…"},
		{"", 0, "", ""},
		{"日本語", 2, "日本…", "…"},
		{"日本語", 3, "日本語", "日…"},
		{"日本語", 7, "日本語", "日本…"},
		{"日本語", 9, "日本語", "日本語"},
	}
	for _, tt := range tests {
		if got := Cut(tt.s, tt.n); got != tt.runes {
			t.Errorf("Cut(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.runes)
		}
		if got := CutBytes(tt.s, tt.n); got != tt.all {
			t.Errorf("CutBytes(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.all)
		}
	}
}

// TestPrintable checks that control characters are escaped, so that an
// agent's text cannot drive the terminal.
func TestPrintable(t *testing.T) {
	got := Printable("a\tb\x1b[2Jc\x07\u009b\x7f 日本")
	if want := `a b\x1b[2Jc\x07\x9b\x7f 日本`; got != want {
		t.Errorf("printable = %q; want %q", got, want)
	}
	if strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 }) {
		t.Errorf("control characters left in %q", got)
	}
}

// TestPrintableSeparatorsAndBidi checks that line and paragraph separators
// and bidi controls, which break a line or reorder it where the text is
// shown, are escaped, and the format characters of emoji and words kept.
func TestPrintableSeparatorsAndBidi(t *testing.T) {
	in := "a\u2028b\u2029c \u202eRLO\u202c \u2066iso\u2069 \u200f\u061c 👨\u200d👩 soft\u00adhyphen"
	want := `a\u2028b\u2029c \u202eRLO\u202c \u2066iso\u2069 \u200f\u061c 👨` + "\u200d" + `👩 soft` + "\u00ad" + `hyphen`
	if got := Printable(in); got != want {
		t.Errorf("Printable(%q) = %q; want %q", in, got, want)
	}
}

// TestPrintableSGR checks that colours are kept and every other control
// sequence escaped.
func TestPrintableSGR(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[31mFAIL\x1b[0m x":    "\x1b[31mFAIL\x1b[0m x",
		"\x1b[2J\x1b[1;32mok\x1b[": `\x1b[2J` + "\x1b[1;32mok" + `\x1b[`,
		"a\x1b]0;title\x07b\r\nc":  `a\x1b]0;title\x07b\x0d` + "\nc",
	} {
		if got := PrintableSGR(in); got != want {
			t.Errorf("printableSGR(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestEscapeLegacyCommand: "##[", which GitHub Actions runs as a workflow
// command wherever it is in a line of a step's output, is written with
// its second '#' as \x23, however many '#' lead it; a lone "#[" or "##"
// stays.
func TestEscapeLegacyCommand(t *testing.T) {
	for in, want := range map[string]string{
		"##[error]x":                       `#\x23[error]x`,
		"| ##[set-output name=a]b":         `| #\x23[set-output name=a]b`,
		"###[group]g ##[endgroup]":         `##\x23[group]g #\x23[endgroup]`,
		"##[##[":                           `#\x23[#\x23[`,
		"a\x1b##[warning]\tb":              `a\x1b#\x23[warning]` + "\tb",
		"#[x] ## [x] #\u00a0#[x] ##x [##]": "#[x] ## [x] #\u00a0#[x] ##x [##]",
	} {
		got := Escape(in, true)
		if got != want {
			t.Errorf("Escape(%q) = %q; want %q", in, got, want)
		}
		if strings.Contains(got, "##[") || strings.Contains(Printable(in), "##[") || strings.Contains(PrintableSGR(in), "##[") {
			t.Errorf("%q: ##[ left in %q", in, got)
		}
	}
}

// TestOneLine: a value an agent chose keeps to one line (its line breaks,
// controls and invalid UTF-8 escaped, tabs kept) and its "##[" is left for
// the formats to escape.
func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"call_1":                  "call_1",
		"call\n::error::forged":   `call\x0a::error::forged`,
		"a\r\nb\tc\x1b\u2028\xff": `a\x0d\x0ab` + "\t" + `c\x1b\u2028\xff`,
		"##[error]x":              "##[error]x",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q; want %q", in, got, want)
		}
	}
}
