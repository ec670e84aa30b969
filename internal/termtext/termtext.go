// Package termtext makes text fit for a terminal: what an agent sent with
// its control characters escaped, so that it cannot drive the terminal
// nor a GitHub Actions log, nor break or reorder a line (Escape,
// Printable, Unprintable; OneLine for a value an agent chose that a
// message of the results names), acprun's own colours kept
// (PrintableSGR) or painted as main decided (Paint), lines cut to a
// width in cells (Clip), and text for a message cut to a number of
// characters (Cut) or bytes (CutBytes).
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/cellwidth"
	"github.com/fatih/color"
)

// Printable returns s with its control characters (which an agent could use
// to move the cursor, clear the screen or retitle the terminal), line and
// paragraph separators and bidi controls written as Go escapes, \x1b say,
// and tabs as spaces (for the live area's widths).
func Printable(s string) string { return Escape(s, false) }

// Unprintable reports whether Escape writes r as an escape: a control
// character (C0, DEL, C1); a line or paragraph separator (U+2028, U+2029),
// which editors, browsers and some terminals take for a line break; or a
// bidi control (U+202E, say), which reorders what follows it on the line,
// so that text would show other than it is.
func Unprintable(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Bidi_Control)
}

// legacyCommand starts a legacy GitHub Actions workflow command
// ("##[error]text", "##[set-output name=x]value", "##[group]title"), which
// the runner honours wherever it is in a line of a step's output, unlike
// "::error", which it honours only at the start of one.
const legacyCommand = "##["

// CommandHash reports whether byte i of s is the second '#' of "##[", the
// start of a legacy GitHub Actions workflow command: the character Escape
// writes as \x23, so that no "##[" an agent sent reaches a log.
func CommandHash(s string, i int) bool {
	return i > 0 && strings.HasPrefix(s[i-1:], legacyCommand)
}

// Escape writes the unprintable characters (see Unprintable) and invalid
// UTF-8 bytes of s as Go escapes (\x1b, \x9b, \xff; \u2028 above U+00FF); a tab
// stays a tab when keepTabs, else becomes a space. The second '#' of
// "##[" is written \x23, so that text an agent sent cannot be a legacy
// workflow command in a GitHub Actions log, wherever it is printed.
func Escape(s string, keepTabs bool) string { return escape(s, keepTabs, true) }

// OneLine writes the unprintable characters (see Unprintable) and invalid
// UTF-8 bytes of s as Escape does, tabs kept, but leaves "##[" as it is:
// for a value an agent chose (a tool call id, a path) that goes into a
// message of the results, which may hold several lines, so that the value
// stays on its line (a line break becomes \x0a). The formats that print
// the message escape "##[" each their own way.
func OneLine(s string) string { return escape(s, true, false) }

// escape is Escape, with the legacy workflow command escaped only when
// legacy.
func escape(s string, keepTabs, legacy bool) string {
	if !strings.ContainsFunc(s, Unprintable) && utf8.ValidString(s) && (!legacy || !strings.Contains(s, legacyCommand)) {
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
		case r < 0x100 && Unprintable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unprintable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case legacy && CommandHash(s, i):
			b.WriteString(`\x23`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// PrintableSGR is Printable but keeps line breaks and the colour
// sequences (ESC [ … m) that acprun's own lines hold.
func PrintableSGR(s string) string {
	if strings.Contains(s, "\n") {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = PrintableSGR(l)
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
			b.WriteString(Printable(s[:j]))
			s = s[j:]
			continue
		}
		b.WriteString(Printable(s[:i]))
		b.WriteString(s[i : j+1])
		s = s[j+1:]
	}
	b.WriteString(Printable(s))
	return b.String()
}

// Clip cuts s to at most width cells, ending it with "…" when it cut.
func Clip(s string, width int) string {
	if cellwidth.String(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		w := cellwidth.Rune(r)
		if n+w > width-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	b.WriteString("…")
	return b.String()
}

// Cut keeps the first n runes of s, and marks a cut with "…".
func Cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// CutBytes cuts s to at most n bytes, at a character boundary, and marks
// a cut with "…".
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:Boundary(s, n)] + "…"
}

// Boundary is where s is cut to at most n bytes (n < len(s)) at a
// character's start: n, or the start of the character n falls in.
func Boundary(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Paint returns the colour of attrs, on or off as color.NoColor says.
// color.New alone also turns itself off whenever NO_COLOR holds a value,
// which would make --color always powerless; main has already weighed
// NO_COLOR when it set color.NoColor.
func Paint(attrs ...color.Attribute) *color.Color {
	c := color.New(attrs...)
	if !color.NoColor {
		c.EnableColor()
	}
	return c
}
