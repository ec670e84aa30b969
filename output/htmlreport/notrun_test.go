package htmlreport_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// TestNotRunCountedApart: the scenarios a run never started are counted
// and shown as not run, apart from those it cut short (interrupted), as
// the summary's totals line counts them: in the title, the counts and the
// cards, which the status filter tells apart.
func TestNotRunCountedApart(t *testing.T) {
	rep := report.Report{SchemaVersion: report.SchemaVersion, Interrupted: true, Scenarios: []report.Result{
		{Name: "cut", File: "a.yaml", Line: 1, Status: report.StatusInterrupted, Error: "acprun was interrupted during turn 1"},
		{Name: "p1", File: "a.yaml", Line: 5, Status: report.StatusInterrupted, NotRun: true, Error: "not run: interrupted first"},
		{Name: "ok", File: "a.yaml", Line: 9, Status: report.StatusPassed},
		{Name: "p2", File: "a.yaml", Line: 13, Status: report.StatusInterrupted, NotRun: true, Error: "not run: interrupted first"},
	}}
	page := render(t, rep, htmlreport.Options{})
	for _, want := range []string{
		"<title>acprun report: 1 passed, 0 failed, 0 errored, 1 interrupted, 2 not run</title>",
		`id="count-interrupted" data-count="1"`,
		`id="count-not-run" data-count="2"`,
		`<option value="not-run">not-run</option>`,
		`<span class="status not-run">not-run</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if got := strings.Join(sectionNames(page), ","); got != "interrupted,not-run,not-run,passed" {
		t.Errorf("sections in order %s, want interrupted,not-run,not-run,passed", got)
	}
}
