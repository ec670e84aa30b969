package output_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
)

// retriedReport is a scenario repeated twice whose first attempt passed on
// its second try, and a scenario that failed all its tries.
func retriedReport() report.Report {
	try := func(name string, attempt, retry int, status report.Status, retried bool) report.Result {
		r := report.Result{Name: name, File: "s.yaml", Line: 1, Attempt: attempt, Retry: retry, Status: status, Retried: retried,
			Turns: []report.TurnResult{{Index: 1, StopReason: "end_turn"}}}
		if status != report.StatusPassed {
			r.Failures = []string{"turn 1: text does not contain \"pass\""}
		}
		r.Flaky = status == report.StatusPassed && retry > 0
		return r
	}
	return report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		try("flaky", 1, 0, report.StatusFailed, true),
		try("flaky", 1, 1, report.StatusPassed, false),
		try("flaky", 2, 0, report.StatusPassed, false),
		try("broken", 0, 0, report.StatusFailed, true),
		try("broken", 0, 1, report.StatusFailed, false),
	}}
}

func TestRetriesCountOnce(t *testing.T) {
	rep := retriedReport()
	s := output.Summarize(rep)
	if s.Scenarios != 3 || s.Passed != 2 || s.Failed != 1 || s.Flaky != 1 || s.Retried != 2 || s.Turns["end_turn"] != 5 {
		t.Errorf("summary %+v: want 3 scenarios, 2 passed, 1 failed, 1 flaky, 2 retried, 5 turns", s)
	}
	var rates []string
	for _, p := range output.PassRates(rep) {
		rates = append(rates, p.Scenario+" "+strings.Repeat("+", p.Passed)+strings.Repeat("-", p.Attempts-p.Passed))
	}
	if diff := cmp.Diff([]string{"flaky ++", "broken -"}, rates); diff != "" {
		t.Errorf("pass rates: a retry is not a sample (-want +got):\n%s", diff)
	}
	var junit bytes.Buffer
	if err := output.JUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `<testsuites name="acprun" tests="3" failures="1" errors="0"`) {
		t.Errorf("JUnit counts each attempt's last try:\n%s", junit.String())
	}
	var gh bytes.Buffer
	if err := output.GitHub(&gh, "", rep); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(gh.String(), "::error "); n != 1 {
		t.Errorf("%d annotations, want 1 (broken's last try):\n%s", n, gh.String())
	}
}

func TestMergeKeepsEveryTry(t *testing.T) {
	rep := retriedReport()
	a, b := rep, rep
	a.Scenarios, b.Scenarios = rep.Scenarios[:3], rep.Scenarios[3:]
	res, err := output.Merge(output.NewResults(b), output.NewResults(a))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range res.Scenarios {
		got = append(got, sc.Name+string(rune('0'+sc.Attempt))+string(rune('0'+sc.Retry)))
	}
	if diff := cmp.Diff([]string{"broken00", "broken01", "flaky10", "flaky11", "flaky20"}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}
