package output

import (
	"io"
	"strings"

	"github.com/acprun/acprun/internal/cellwidth"
)

// writeTable writes rows as aligned columns, two spaces apart, each
// padded to the terminal width (cellwidth) of its column's widest cell;
// no line ends in spaces. The cells hold no control characters.
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
	_, err := io.WriteString(w, b.String())
	return err
}
