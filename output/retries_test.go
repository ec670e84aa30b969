package output_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
)

func TestRetriesCountOnce(t *testing.T) {
	rep := reporttest.Retried()
	s := report.Summarize(rep)
	if s.Scenarios != 3 || s.Passed != 2 || s.Failed != 1 || s.Flaky != 1 || s.Retried != 2 || s.Turns["end_turn"] != 5 {
		t.Errorf("summary %+v: want 3 scenarios, 2 passed, 1 failed, 1 flaky, 2 retried, 5 turns", s)
	}
	var rates []string
	for _, p := range report.PassRates(rep) {
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
