package runner

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/scenario"
)

// Caps of what a failure of notContains or notMatches quotes.
const (
	// foundContext is how many characters around what was found the
	// message shows, on each side, within its line.
	foundContext = 30
	// foundWidth caps what was found itself, in characters.
	foundWidth = 60
	// maxCounted is how many occurrences a message counts before it says
	// "or more".
	maxCounted = 100
)

// checkForbidden returns one message per text of notContains and pattern
// of notMatches found in text, each at the position the file gives it:
// what was found, how often, and where the first one is with a little of
// the text around it. what names the text ("text", "verify `make`:
// stdout"). lost is how many bytes of the text's start were not kept (a
// command's output is kept from its end); then seen says, for each of
// notContains and then of notMatches, whether it was found in all of the
// text as it was read (see hook.Command), which decides: one found only
// before the part kept fails saying so, and a pattern that matches the
// part kept but not all of the text (^ at the cut) passes. What the
// messages quote of text is redacted with red, knowing all of text (see
// shorten).
func checkForbidden(red *redact.Redactor, what, text string, lost int64, seen []bool, notContains []scenario.Located, notMatches []scenario.Pattern) []string {
	var fails []string
	absent := func(i int) bool { return lost > 0 && !seen[i] }
	before := func(pos scenario.Pos, found string) {
		fails = append(fails, fmt.Sprintf("%s: %s %s, not in the part kept (acprun keeps the last %d of its %d bytes)",
			pos, what, found, len(text), lost+int64(len(text))))
	}
	for i, l := range notContains {
		if absent(i) {
			continue
		}
		if i := strings.Index(text, l.Value); i >= 0 {
			n := strings.Count(text, l.Value)
			fails = append(fails, fmt.Sprintf("%s: %s contains %q%s%s", l.Pos, what, l.Value, times(n, false), foundAt(red, text, lost > 0, i, i+len(l.Value), n > 1)))
		} else if lost > 0 {
			before(l.Pos, fmt.Sprintf("contains %q", l.Value))
		}
	}
	for i, p := range notMatches {
		if absent(len(notContains) + i) {
			continue
		}
		if locs := p.Re.FindAllStringIndex(text, maxCounted+1); len(locs) > 0 {
			start, end := locs[0][0], locs[0][1]
			found, _ := headOf(red, text, lost > 0, start, end, foundWidth)
			fails = append(fails, fmt.Sprintf("%s: %s matches /%s/%s: %s%s", p.Pos, what, p.Re, times(len(locs), len(locs) > maxCounted),
				strconv.Quote(found), foundAt(red, text, lost > 0, start, end, len(locs) > 1)))
		} else if lost > 0 {
			before(p.Pos, fmt.Sprintf("matches /%s/", p.Re))
		}
	}
	return fails
}

// times is "" for one occurrence, else " N times" (" N or more times"
// when more is set).
func times(n int, more bool) string {
	switch {
	case n <= 1:
		return ""
	case more:
		return fmt.Sprintf(" %d or more times", n-1)
	}
	return fmt.Sprintf(" %d times", n)
}

// foundAt says where text[start:end] is: " at line L, column C: " and the
// quoted text around it, within its line, cut to foundContext characters
// on each side and what was found to foundWidth ("…" marks a cut); first
// says it is the first of several. What it quotes is redacted with red,
// knowing all of text (redact.Redactor.Excerpt); cutStart says that
// text's beginning is a cut.
func foundAt(red *redact.Redactor, text string, cutStart bool, start, end int, first bool) string {
	line := 1 + strings.Count(text[:start], "\n")
	lineStart := strings.LastIndexByte(text[:start], '\n') + 1
	col := 1 + utf8.RuneCountInString(text[lineStart:start])
	lineEnd := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		lineEnd = end + i
	}
	if end > lineEnd { // what was found spans lines: show its first
		lineEnd = end
	}
	from, mark := lineStart, ""
	if n := utf8.RuneCountInString(text[lineStart:start]); n > foundContext {
		from = lineStart + runeOffset(text[lineStart:start], n-foundContext)
		mark = "…"
	}
	var quote string
	if stop := start + runeOffset(text[start:end], foundWidth); stop < end {
		// What was found is cut: the context after it is not next to it.
		after, _ := headOf(red, text, cutStart, end, lineEnd, foundContext)
		quote = mark + red.Excerpt(text, from, stop, cutStart) + "…" + after
	} else {
		shown, _ := headOf(red, text, cutStart, from, lineEnd, utf8.RuneCountInString(text[from:end])+foundContext)
		quote = mark + shown
	}
	where := "at"
	if first {
		where = "first at"
	}
	return fmt.Sprintf(", %s line %d, column %d: %s", where, line, col, strconv.Quote(quote))
}

// headOf is text[start:end] cut to at most n characters, "…" marking the
// cut (cut says there was one), redacted with red knowing all of text
// (redact.Redactor.Excerpt); cutStart says that text's beginning is a cut.
func headOf(red *redact.Redactor, text string, cutStart bool, start, end, n int) (head string, cut bool) {
	stop := start + runeOffset(text[start:end], n)
	head = red.Excerpt(text, start, stop, cutStart)
	if stop < end {
		return head + "…", true
	}
	return head, false
}
