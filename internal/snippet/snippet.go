// Package snippet shows a place in a text file as compilers and linters
// (actionlint, rustc) do: under a "file:line:col: message" line, the
// source line with its number, and a caret under the column.
//
//	s.yaml:4:14: unknown key "stopReasn" (did you mean "stopReason"?)
//	    4 |     expect: {stopReasn: end_turn}
//	      |              ^
//
// Tabs are expanded, so that the caret lines up; wide (East Asian)
// characters count two columns, combining marks none; a line too long
// for a terminal is clipped around the column, with "…" where text was
// cut.
package snippet

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/acprun/acprun/internal/cellwidth"
)

// Width is the most columns of source text shown.
const Width = 80

// tabWidth is the distance between tab stops.
const tabWidth = 8

// Format returns text, the text of line n of a file (without its line
// break), numbered, with a caret under column col (1-based, counted in
// characters, as yaml.v3 and scenario.Pos count); each line ends in "\n".
// A column past the end of the text points just after it. Format returns
// "" when n or col is below 1 or text holds nothing but white space: there
// is nothing to point at.
func Format(n, col int, text string) string {
	if n < 1 || col < 1 || strings.TrimSpace(text) == "" {
		return ""
	}
	cells, caret := layout(text, col)
	shown, at := clip(cells, caret)
	num := strconv.Itoa(n)
	gutter := strings.Repeat(" ", len(num))
	return fmt.Sprintf("    %s | %s\n    %s | %s^\n", num, strings.TrimRight(shown, " "), gutter, strings.Repeat(" ", at))
}

// A cell is one character as shown: its text (a tab as blanks, a control
// character as U+FFFD) and how many columns it takes.
type cell struct {
	text  string
	width int
}

// layout turns text into cells and finds the cell of character col (the
// count of cells when col is past the end).
func layout(text string, col int) (cells []cell, caret int) {
	caret = -1
	screen := 0
	for i, r := range []rune(text) {
		if i == col-1 {
			caret = len(cells)
		}
		var c cell
		switch {
		case r == '\t':
			w := tabWidth - screen%tabWidth
			c = cell{strings.Repeat(" ", w), w}
		case unicode.IsControl(r) || r == unicode.ReplacementChar:
			c = cell{"\uFFFD", 1}
		default:
			c = cell{string(r), cellwidth.Rune(r)}
		}
		screen += c.width
		cells = append(cells, c)
	}
	if caret < 0 {
		caret = len(cells)
	}
	return cells, caret
}

// clip returns the cells as text, at most Width columns of them around
// the caret's cell, and the column of the caret in that text.
func clip(cells []cell, caret int) (string, int) {
	total := 0
	for _, c := range cells {
		total += c.width
	}
	from, to := 0, len(cells)
	if total > Width {
		// Keep the caret a third of the way in, then fill to Width.
		from = caret
		for budget := Width / 3; from > 0 && budget >= cells[from-1].width; from-- {
			budget -= cells[from-1].width
		}
		to = from
		for budget := Width; to < len(cells) && budget >= cells[to].width; to++ {
			budget -= cells[to].width
		}
		for budget := Width - widthOf(cells[from:to]); from > 0 && budget >= cells[from-1].width; from-- {
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
