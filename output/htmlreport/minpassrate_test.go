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

// TestPassRateNoVerdict: a scenario none of whose attempts gave a verdict
// has a cell that says so, below its minimum, not "0/0".
func TestPassRateNoVerdict(t *testing.T) {
	attempt := func(name string, n int, st report.Status) report.Result {
		return report.Result{Name: name, File: name + ".yaml", Line: 1, Attempt: n, Status: st, MinPassRate: 0.5,
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "cancelled"}}}
	}
	page := render(t, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		attempt("fast", 1, report.StatusPassed), attempt("fast", 2, report.StatusPassed),
		attempt("slow", 1, report.StatusInterrupted), attempt("slow", 2, report.StatusInterrupted),
	}}, htmlreport.Options{})
	for _, want := range []string{"no verdict", "2 interrupted · min 50%: below"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "0/0") {
		t.Errorf("page says 0/0")
	}
}
