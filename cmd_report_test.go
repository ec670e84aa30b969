package main

import (
	"testing"

	"github.com/fatih/color"

	"github.com/acprun/acprun/report"
)

// TestReportLine: report's stderr line counts every status of the
// results, as run's summary counts them: invalid scenarios too, and the
// interrupted apart from those that never ran.
func TestReportLine(t *testing.T) {
	old := color.NoColor
	color.NoColor = true
	t.Cleanup(func() { color.NoColor = old })
	tests := []struct {
		rs   []report.Result
		want string
	}{
		{[]report.Result{{Status: report.StatusPassed}}, "report: r.html (1 scenario: 1 passed, 0 failed)"},
		{[]report.Result{
			{Status: report.StatusFailed},
			{Status: report.StatusError},
			{Status: report.StatusInvalid},
		}, "report: r.html (3 scenarios: 0 passed, 1 failed, 1 error, 1 invalid)"},
		{[]report.Result{
			{Status: report.StatusPassed},
			{Status: report.StatusInterrupted},
			{Status: report.StatusInterrupted, NotRun: true},
		}, "report: r.html (3 scenarios: 1 passed, 0 failed, 1 interrupted, 1 not run)"},
	}
	for _, tt := range tests {
		if got := reportLine("r.html", report.Report{Scenarios: tt.rs}); got != tt.want {
			t.Errorf("reportLine = %q, want %q", got, tt.want)
		}
	}
}
