package output_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

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

// TestJUnitTimeCountsRetries: a retried attempt's testcase takes the time
// of all its tries, as the results record them, and so does its suite:
// JUnit's times are the time the scenarios took.
func TestJUnitTimeCountsRetries(t *testing.T) {
	rep := reporttest.Retried()
	for i := range rep.Scenarios {
		rep.Scenarios[i].Duration = time.Duration(i+1) * time.Second // 1s, 2s, … in order
	}
	var buf bytes.Buffer
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Suites []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
				Time string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil || len(got.Suites) != 1 {
		t.Fatalf("parse: %v, want one suite\n%s", err, buf.Bytes())
	}
	var cases []string
	for _, c := range got.Suites[0].Cases {
		cases = append(cases, c.Name+" "+c.Time)
	}
	// flaky: 1s retried, then 2s; flaky #2: 3s; broken: 4s retried, then 5s.
	want := []string{"flaky 3.000", "flaky #2 3.000", "broken 9.000"}
	if diff := cmp.Diff(want, cases); diff != "" || got.Suites[0].Time != "15.000" {
		t.Errorf("suite time %s, want 15.000; testcases (-want +got):\n%s", got.Suites[0].Time, diff)
	}
}
