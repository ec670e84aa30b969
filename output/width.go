package output

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable returns s with its control characters (which an agent could use
// to move the cursor, clear the screen or retitle the terminal) written as
// Go escapes, \x1b say, and tabs as spaces (for the live area's widths).
func printable(s string) string { return escapeControls(s, false) }

// escapeControls writes the control characters and invalid UTF-8 bytes of
// s as Go escapes (\x1b, \x9b, \xff; \u2028 for a control above U+00FF);
// a tab stays a tab when keepTabs, else becomes a space.
func escapeControls(s string, keepTabs bool) string {
	if !strings.ContainsFunc(s, unicode.IsControl) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' && keepTabs:
			b.WriteRune(r)
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x100 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printableSGR is printable but keeps line breaks and the colour
// sequences (ESC [ … m) that acprun's own lines hold.
func printableSGR(s string) string {
	if strings.Contains(s, "\n") {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = printableSGR(l)
		}
		return strings.Join(lines, "\n")
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			break
		}
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
			j++
		}
		if j == len(s) || s[j] != 'm' {
			b.WriteString(printable(s[:j]))
			s = s[j:]
			continue
		}
		b.WriteString(printable(s[:i]))
		b.WriteString(s[i : j+1])
		s = s[j+1:]
	}
	b.WriteString(printable(s))
	return b.String()
}

// runeWidth is the number of terminal cells r takes: 0 for combining marks
// and format characters, 2 for East Asian wide and full-width characters
// and emoji, 1 otherwise. It is the common subset of what terminals do,
// without a table of every code point.
func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && r <= 0x115F, // Hangul Jamo
		r >= 0x2E80 && r <= 0x303E, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33FF, // kana, CJK symbols
		r >= 0x3400 && r <= 0x4DBF, // CJK extension A
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified ideographs
		r >= 0xA000 && r <= 0xA4CF, // Yi
		r >= 0xAC00 && r <= 0xD7A3, // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF, // CJK compatibility ideographs
		r >= 0xFE30 && r <= 0xFE4F, // CJK compatibility forms
		r >= 0xFF00 && r <= 0xFF60, // full-width forms
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1F64F, // emoji
		r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD: // CJK extensions B and later
		return 2
	}
	return 1
}

// cellWidth is the number of terminal cells s takes; s holds no control
// characters (see printable).
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// clip cuts s to at most width cells, ending it with "…" when it cut.
func clip(s string, width int) string {
	if cellWidth(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		w := runeWidth(r)
		if n+w > width-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	b.WriteString("…")
	return b.String()
}
