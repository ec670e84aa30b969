package output

import (
	"io"
	"strings"

	"github.com/acprun/acprun/internal/cellwidth"
	"github.com/acprun/acprun/internal/termtext"
)

// writeTable writes rows as aligned columns, two spaces apart, each
// padded to the terminal width (cellwidth) of its column's widest cell;
// no line ends in spaces. The cells hold no control characters. A row
// begins with its first cell, a value a file chose (a scenario's name), so
// a line that would begin with "::" after blanks, a workflow command in a
// GitHub Actions log, gets a zero-width space after its first ':'
// (termtext.PlainEscapes), which takes no cell.
func writeTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], cellwidth.String(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		var line strings.Builder
		for i, c := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			line.WriteString(c)
			line.WriteString(strings.Repeat(" ", widths[i]-cellwidth.String(c)))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	cw := termtext.NewCommandWriter(w, termtext.PlainEscapes)
	if _, err := io.WriteString(cw, b.String()); err != nil {
		return err
	}
	return cw.Flush()
}
