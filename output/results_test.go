package output_test

import (
	"bytes"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/google/go-cmp/cmp"
)

// TestResultsRoundTrip checks that results read back print the same text
// summary and JUnit as the report they came from.
func TestResultsRoundTrip(t *testing.T) {
	noColor(t)
	rep := reporttest.Sample()
	var js bytes.Buffer
	if err := report.Write(&js, rep); err != nil {
		t.Fatal(err)
	}
	res, err := report.Read(&js)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	for name, format := range map[string]func(*bytes.Buffer, report.Report) error{
		"text":  func(b *bytes.Buffer, r report.Report) error { return output.Text(b, r) },
		"junit": func(b *bytes.Buffer, r report.Report) error { return output.JUnit(b, r) },
	} {
		var want, got bytes.Buffer
		if err := format(&want, rep); err != nil {
			t.Fatal(err)
		}
		if err := format(&got, res.Report()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%s of the results read back (-want +got):\n%s", name, diff)
		}
	}
}
