package output_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
)

// reports are the runs the goldens are made of.
func reports() map[string]runner.Report {
	interrupted := sampleReport()
	interrupted.Interrupted = true
	interrupted.PolicyOverride = "--allow-all"
	interrupted.Scenarios = interrupted.Scenarios[:2]
	return map[string]runner.Report{
		"full":        sampleReport(),
		"interrupted": interrupted,
		"repeat":      repeatReport(),
		"empty": {
			SchemaVersion: runner.SchemaVersion,
			StartedAt:     time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
			Duration:      ms(2),
		},
	}
}

// TestTextGolden compares the text summary, without colour, with
// testdata/summary-*.golden.
func TestTextGolden(t *testing.T) {
	noColor(t)
	for name, rep := range reports() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Text(&buf, rep); err != nil {
				t.Fatalf("Text: %v", err)
			}
			golden(t, "summary-"+name+".golden", buf.Bytes())
		})
	}
}
