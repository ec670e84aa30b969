package htmlreport_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// TestPassRateMinimum: a pass rate with a minimum says whether it met it.
func TestPassRateMinimum(t *testing.T) {
	attempt := func(n int, st report.Status) report.Result {
		return report.Result{Name: "flaky", File: "a.yaml", Line: 1, Attempt: n, Status: st, MinPassRate: 0.5,
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn"}}}
	}
	page := render(t, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		attempt(1, report.StatusPassed), attempt(2, report.StatusFailed),
	}}, htmlreport.Options{})
	if want := "min 50%: met"; !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}
