package srcerr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acprun/acprun/internal/cellwidth"
	"github.com/acprun/acprun/internal/termtext"
)

// maxWidth is the most columns of source text shown.
const maxWidth = 80

// tabWidth is the distance between tab stops.
const tabWidth = 8

// format returns text, the text of line n of a file (without its line
// break), numbered, with a caret under column col (1-based, counted in
// characters, as yaml.v3 counts): see Error.Snippet.
func format(n, col int, text string) string {
	if n < 1 || col < 1 || strings.TrimSpace(text) == "" {
		return ""
	}
	cells, caret := layout(text, col)
	shown, at := clip(cells, caret)
	num := strconv.Itoa(n)
	gutter := strings.Repeat(" ", len(num))
	return fmt.Sprintf("    %s | %s\n    %s | %s^\n", num, strings.TrimRight(shown, " "), gutter, strings.Repeat(" ", at))
}

// A cell is one character as shown: its text (a tab as blanks, a
// character termtext escapes as U+FFFD, a byte that is no UTF-8 as \xe9,
// the second '#' of "##[" as \x23) and how many columns it takes.
type cell struct {
	text  string
	width int
}

// around is how many characters on each side of the column layout lays
// out: twice what clip shows, so that what is shown is cut short only
// when more than maxWidth of them take no column (combining marks).
const around = 2 * maxWidth

// blanks are a tab at its widest.
var blanks = strings.Repeat(" ", tabWidth)

// layout turns the characters of text within around of character col (or
// of its end, when col is past it) into cells and finds the cell of col
// (the count of cells when col is past the end): a line of megabytes
// takes the memory of what is shown, the tab stops counted from its start.
func layout(text string, col int) (cells []cell, caret int) {
	at := min(col-1, utf8.RuneCountInString(text))
	screen, n := 0, 0
	for i, r := range text {
		if n > at+around {
			break
		}
		var c cell
		switch {
		case r == '\t':
			w := tabWidth - screen%tabWidth
			c = cell{blanks[:w], w}
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			c = cell{fmt.Sprintf(`\x%02x`, text[i]), 4} // a byte that is no UTF-8, as termtext.Escape writes it
		case termtext.Unprintable(r) || r == unicode.ReplacementChar:
			c = cell{"\uFFFD", 1}
		case termtext.CommandHash(text, i):
			c = cell{`\x23`, 4} // as termtext.Escape writes it
		default:
			c = cell{text[i : i+utf8.RuneLen(r)], cellwidth.Rune(r)}
		}
		if n >= at-around {
			cells = append(cells, c)
		}
		screen += c.width
		n++
	}
	return cells, min(at, around)
}

// clip returns the cells as text, at most maxWidth columns of them around
// the caret's cell, and the column of the caret in that text.
func clip(cells []cell, caret int) (string, int) {
	from, to := 0, len(cells)
	if widthOf(cells) > maxWidth {
		// Keep the caret a third of the way in, then fill to maxWidth.
		from = caret
		for budget := maxWidth / 3; from > 0 && budget >= cells[from-1].width; from-- {
			budget -= cells[from-1].width
		}
		to = from
		for budget := maxWidth; to < len(cells) && budget >= cells[to].width; to++ {
			budget -= cells[to].width
		}
		for budget := maxWidth - widthOf(cells[from:to]); from > 0 && budget >= cells[from-1].width; from-- {
			budget -= cells[from-1].width // the end of the line came first
		}
	}
	var b strings.Builder
	at := 0
	if from > 0 {
		b.WriteString("…")
		at++
	}
	for i := from; i < to; i++ {
		if i < caret {
			at += cells[i].width
		}
		b.WriteString(cells[i].text)
	}
	if to < len(cells) {
		b.WriteString("…")
	}
	return b.String(), at
}

func widthOf(cells []cell) int {
	w := 0
	for _, c := range cells {
		w += c.width
	}
	return w
}
