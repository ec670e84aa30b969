package htmlreport_test

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// writeLog is a writer that keeps what is written to it and the size of
// each write.
type writeLog struct {
	bytes.Buffer
	sizes []int
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// TestWriteStreams: the page goes to its writer as it is rendered, in
// pieces, never held whole, and neither are the long texts of the
// results, each escaped a piece at a time (a copy of a text, escaped or
// not, would cost as much memory as the text: an agent's text can be
// tens of megabytes). The pieces make the same page: multi-byte
// characters whole, every character escaped.
func TestWriteStreams(t *testing.T) {
	const size = 4 << 20
	unit := "<tag> & \"é\" 😀 "
	long := strings.Repeat(unit, size/len(unit)) + "end"
	rep := report.Report{
		SchemaVersion: report.SchemaVersion,
		Scenarios: []report.Result{{
			Name: "big", File: "a.yaml", Line: 1, Status: report.StatusPassed,
			Turns: []report.TurnResult{{Index: 1, Prompt: "go", StopReason: "end_turn", Text: long, Thoughts: long}},
		}},
	}
	var w writeLog
	if err := htmlreport.Write(&w, rep, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	biggest := 0
	for _, n := range w.sizes {
		biggest = max(biggest, n)
	}
	if len(w.sizes) < 2 || biggest > 1<<20 {
		t.Errorf("the page came in %d writes, the largest %d bytes, for texts of %d bytes; want it in pieces of at most 1 MiB", len(w.sizes), biggest, len(long))
	}
	page := w.String()
	if want := "<pre>" + html.EscapeString(long) + "</pre>"; strings.Count(page, want) != 2 {
		t.Errorf("the page does not hold the text and the thoughts whole, escaped")
	}
}
