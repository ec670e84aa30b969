package htmlreport_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// TestRerunTryIsNoVerdict: a try that errored (or was invalid) and ran
// again (retries:) is no verdict: its card says "rerun", as the lines and
// the step summary do, so that the status filter shows as many errored
// (or invalid) cards as the counts say, and it comes after the failures,
// with the cards cut short, not among them.
func TestRerunTryIsNoVerdict(t *testing.T) {
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		{Name: "flaky", File: "a.yaml", Line: 1, Status: report.StatusError, Retried: true, Error: "setup failed"},
		{Name: "flaky", File: "a.yaml", Line: 1, Status: report.StatusPassed, Retry: 1, Flaky: true,
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn"}}},
		{Name: "limited", File: "b.yaml", Line: 1, Status: report.StatusInvalid, Retried: true,
			Invalid: &report.Invalid{Reason: report.InvalidUpstream, Message: "turn 1: rate limited"}},
		{Name: "limited", File: "b.yaml", Line: 1, Status: report.StatusFailed, Retry: 1, Failures: []string{"turn 1: b.yaml:3:5: text does not contain \"x\""}},
	}}
	page := render(t, rep, htmlreport.Options{})
	for _, want := range []string{
		`id="count-errored" data-count="0"`,
		`<span class="status rerun">rerun</span>`,
		`<option value="rerun">rerun</option>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, `count-invalid`) {
		t.Error("a run whose only invalid try ran again has an invalid count")
	}
	if got := strings.Join(sectionNames(page), ","); got != "failed,rerun,rerun,passed" {
		t.Errorf("sections in order %s, want failed,rerun,rerun,passed", got)
	}
}

// TestShownCountsScenarios: the page says how many scenarios it shows out
// of those the summary counts, its rerun cards (tries that ran again)
// counted apart, not as scenarios.
func TestShownCountsScenarios(t *testing.T) {
	for _, tt := range []struct {
		name    string
		results []report.Result
		want    string
	}{
		{"no reruns", []report.Result{
			{Name: "a", File: "a.yaml", Line: 1, Status: report.StatusPassed},
		}, ">1 of 1 scenario shown</span>"},
		{"reruns", []report.Result{
			{Name: "flaky", File: "a.yaml", Line: 1, Status: report.StatusError, Retried: true, Error: "setup failed"},
			{Name: "flaky", File: "a.yaml", Line: 1, Status: report.StatusInvalid, Retry: 1, Retried: true,
				Invalid: &report.Invalid{Reason: report.InvalidUpstream, Message: "turn 1: rate limited"}},
			{Name: "flaky", File: "a.yaml", Line: 1, Status: report.StatusPassed, Retry: 2, Flaky: true},
			{Name: "other", File: "b.yaml", Line: 1, Status: report.StatusFailed},
		}, ">2 of 2 scenarios shown, 2 of 2 reruns</span>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page := render(t, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: tt.results}, htmlreport.Options{})
			if !strings.Contains(page, `<span id="shown" aria-live="polite"`+tt.want) {
				i := strings.Index(page, `id="shown"`)
				t.Errorf("the shown count is %q, want %q", page[i:min(i+120, len(page))], tt.want)
			}
		})
	}
}
