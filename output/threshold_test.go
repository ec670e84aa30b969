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

// minimumRun is "flaky" run 5 times (3 passed, 1 failed, 1 interrupted)
// and "steady" 2 times (both failed), each with the minimum given.
func minimumRun(flaky, steady float64) report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, Duration: 9 * time.Second}
	add := func(name string, line int, min float64, sts ...report.Status) {
		for i, st := range sts {
			r := report.Result{Name: name, File: "s.yaml", Line: line, Attempt: i + 1, Status: st, MinPassRate: min, Duration: time.Second,
				Turns: []report.TurnResult{{Index: 1, StopReason: "end_turn", Text: "reply"}}}
			switch st {
			case report.StatusFailed:
				r.Failures = []string{"turn 1: s.yaml:9:7: text does not contain \"done\""}
				r.Turns[0].Failures = r.Failures
			case report.StatusInterrupted:
				r.Error = "acprun was interrupted during turn 1"
			}
			rep.Scenarios = append(rep.Scenarios, reporttest.Complete(r))
		}
	}
	p, f, in := report.StatusPassed, report.StatusFailed, report.StatusInterrupted
	add("flaky", 1, flaky, p, f, in, p, p)
	add("steady", 12, steady, f, f)
	return rep
}

// TestMinPassRateText: the table shows each rate against its minimum,
// and the totals how many met theirs.
func TestMinPassRateText(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	if err := output.Text(&buf, minimumRun(0.75, 0.5)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"flaky     3/4 (75%) pass@4=1.00 pass^4=0.00, 1 interrupted, min 75%: met\n",
		"steady    0/2 (0%) pass@2=0.00 pass^2=0.00, min 50%: below\n",
		"3 passed, 3 failed, 1 of 2 pass rates met, 1 interrupted in 9s",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestMinPassRateNoVerdict: a scenario with a minimum none of whose
// attempts gave a verdict (cut short by the run's --timeout) is a row of
// the table, below its minimum, and counts in the totals' pass rates;
// in JUnit it is a failed testcase that says no attempt gave a verdict,
// with the rate's properties (no attempts, both interrupted, its minimum
// not met), and each of its attempts keeps its skipped testcase, as any
// interrupted attempt does: the report is not green when the run is not.
func TestMinPassRateNoVerdict(t *testing.T) {
	noColor(t)
	rep := minimumRun(0.75, 0.5)
	var kept []report.Result
	for _, r := range rep.Scenarios {
		if r.Name == "steady" {
			r.Status, r.Failures, r.Turns[0].Failures = report.StatusInterrupted, nil, nil
			r.Error = "the run's --timeout passed during turn 1"
		}
		kept = append(kept, r)
	}
	rep.Scenarios = kept
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"flaky     3/4 (75%) pass@4=1.00 pass^4=0.00, 1 interrupted, min 75%: met\n",
		"steady    no verdict, 2 interrupted, min 50%: below\n",
		"3 passed, 1 failed, 1 of 2 pass rates met, 3 interrupted in 9s",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name       string    `xml:"name,attr"`
				Time       string    `xml:"time,attr"`
				Failure    *xProblem `xml:"failure"`
				Skipped    *struct{} `xml:"skipped"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil || len(got.Suites) != 1 {
		t.Fatalf("parse: %v, want one suite\n%s", err, buf.Bytes())
	}
	var cases []string
	for _, c := range got.Suites[0].Cases {
		s := c.Name + " " + c.Time
		switch {
		case c.Failure != nil:
			s += " failure " + c.Failure.Type + ": " + c.Failure.Message
		case c.Skipped != nil:
			s += " skipped"
		}
		cases = append(cases, s)
	}
	want := []string{
		"flaky (pass rate) 4.000",
		"flaky #3 1.000 skipped",
		"steady (pass rate) 0.000 failure passRate: no attempt gave a verdict (2 interrupted): the minimum 50% is not met",
		"steady 1.000 skipped",
		"steady #2 1.000 skipped",
	}
	if diff := cmp.Diff(want, cases); diff != "" || got.Tests != 5 || got.Failures != 1 || got.Skipped != 3 || got.Suites[0].Time != "7.000" {
		t.Errorf("JUnit: %d tests, %d failures, %d skipped, suite time %s; want 5, 1, 3 and 7.000; testcases (-want +got):\n%s\n%s",
			got.Tests, got.Failures, got.Skipped, got.Suites[0].Time, diff, buf.Bytes())
	}
	if len(got.Suites[0].Cases) != len(want) {
		return
	}
	steady := got.Suites[0].Cases[2]
	props := map[string]string{}
	for _, p := range steady.Properties {
		props[p.Name] = p.Value
	}
	wantProps := map[string]string{"attempts": "0", "passed": "0", "passRate": "0", "interrupted": "2", "minPassRate": "0.5", "minPassRateMet": "false"}
	if diff := cmp.Diff(wantProps, props); diff != "" {
		t.Errorf("steady: properties (-want +got):\n%s", diff)
	}
	for _, part := range []string{"attempt 1 interrupted: the run's --timeout passed during turn 1\n", "attempt 2 interrupted: the run's --timeout passed during turn 1\n"} {
		if !strings.Contains(steady.Failure.Body, part) {
			t.Errorf("steady: failure body %q lacks %q", steady.Failure.Body, part)
		}
	}
	for _, c := range got.Suites[0].Cases[3:] {
		if len(c.Properties) > 0 {
			t.Errorf("JUnit: %s has pass-rate properties %+v; want none, as its attempt has no rate", c.Name, c.Properties)
		}
	}
}

// flakyRun is "flaky" run 3 times (passed, failed, passed) with the
// minimum given.
func flakyRun(min float64) report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, Duration: 3 * time.Second}
	for i, st := range []report.Status{report.StatusPassed, report.StatusFailed, report.StatusPassed} {
		rep.Scenarios = append(rep.Scenarios, reporttest.Complete(report.Result{Name: "flaky", File: "s.yaml", Line: 1, Attempt: i + 1,
			Status: st, MinPassRate: min, Duration: time.Second, Turns: []report.TurnResult{{Index: 1, StopReason: "end_turn", Text: "reply"}}}))
	}
	return rep
}

// TestMinPassRatePrecision: the table and JUnit (its message and its
// properties) print a rate and its minimum alike, so a rate below its
// minimum never reads equal to it or above it.
func TestMinPassRatePrecision(t *testing.T) {
	noColor(t)
	tests := []struct {
		min          float64
		table, junit string
		props        string // JUnit's passRate … minPassRate properties
	}{
		{0.667, "flaky     2/3 (66.67%) pass@3=1.00 pass^3=0.00, min 66.7%: below\n", "pass rate 2/3 (66.67%) is below the minimum 66.7%", "0.6667 0.667"},
		{0.67, "flaky     2/3 (66.67%) pass@3=1.00 pass^3=0.00, min 67%: below\n", "pass rate 2/3 (66.67%) is below the minimum 67%", "0.6667 0.67"},
		{0.6667, "flaky     2/3 (66.667%) pass@3=1.00 pass^3=0.00, min 66.67%: below\n", "pass rate 2/3 (66.667%) is below the minimum 66.67%", "0.66667 0.6667"},
		{0.66667, "flaky     2/3 (66.6667%) pass@3=1.00 pass^3=0.00, min 66.667%: below\n", "pass rate 2/3 (66.6667%) is below the minimum 66.667%", "0.666667 0.66667"},
		{0.6, "flaky     2/3 (66.67%) pass@3=1.00 pass^3=0.00, min 60%: met\n", "pass rate 2/3 (66.67%) meets the minimum 60%", "0.6667 0.6"},
	}
	for _, tt := range tests {
		var text, junit bytes.Buffer
		if err := output.Text(&text, flakyRun(tt.min)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), tt.table) {
			t.Errorf("min %v: summary lacks %q:\n%s", tt.min, tt.table, text.String())
		}
		if err := output.JUnit(&junit, flakyRun(tt.min)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(junit.String(), tt.junit) {
			t.Errorf("min %v: JUnit lacks %q:\n%s", tt.min, tt.junit, junit.String())
		}
		rate, minimum, _ := strings.Cut(tt.props, " ")
		for _, want := range []string{`<property name="passRate" value="` + rate + `">`, `<property name="minPassRate" value="` + minimum + `">`} {
			if !strings.Contains(junit.String(), want) {
				t.Errorf("min %v: JUnit lacks %s:\n%s", tt.min, want, junit.String())
			}
		}
	}
}

// TestMinPassRateJUnit: a scenario with a minimum is one testcase per
// agent: failed when below it, with every attempt that did not pass in
// the body; passed when met, with them in system-out; an interrupted
// attempt keeps its own (skipped) testcase.
func TestMinPassRateJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JUnit(&buf, minimumRun(0.75, 0.5)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name       string    `xml:"name,attr"`
				Time       string    `xml:"time,attr"`
				Failure    *xProblem `xml:"failure"`
				Skipped    *struct{} `xml:"skipped"`
				SystemOut  string    `xml:"system-out"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.Bytes())
	}
	if got.Tests != 3 || got.Failures != 1 || got.Skipped != 1 || len(got.Suites) != 1 || got.Suites[0].Time != "7.000" {
		t.Fatalf("tests %d, failures %d, skipped %d, %d suites; want 3, 1, 1 and one suite of 7s\n%s", got.Tests, got.Failures, got.Skipped, len(got.Suites), buf.Bytes())
	}
	cases := got.Suites[0].Cases
	var names []string
	for _, c := range cases {
		names = append(names, c.Name+" "+c.Time)
	}
	if diff := cmp.Diff([]string{"flaky (pass rate) 4.000", "flaky #3 1.000", "steady (pass rate) 2.000"}, names); diff != "" {
		t.Errorf("testcases (-want +got):\n%s", diff)
	}
	flaky, interrupted, steady := cases[0], cases[1], cases[2]
	if flaky.Failure != nil || !strings.Contains(flaky.SystemOut, "pass rate 3/4 (75%) meets the minimum 75%") ||
		!strings.Contains(flaky.SystemOut, "attempt 2 failed:\nturn 1: end_turn\nfailed: turn 1: s.yaml:9:7: text does not contain \"done\"") {
		t.Errorf("flaky: failure %v, system-out:\n%s\nwant no failure and attempt 2's reasons", flaky.Failure, flaky.SystemOut)
	}
	props := map[string]string{}
	for _, p := range flaky.Properties {
		props[p.Name] = p.Value
	}
	for k, v := range map[string]string{"attempts": "4", "passed": "3", "passRate": "0.75", "minPassRate": "0.75", "minPassRateMet": "true", "interrupted": "1"} {
		if props[k] != v {
			t.Errorf("flaky: property %s = %q, want %q", k, props[k], v)
		}
	}
	if interrupted.Skipped == nil {
		t.Errorf("the interrupted attempt is not skipped: %+v", interrupted)
	}
	if steady.Failure == nil || steady.Failure.Message != "pass rate 0/2 (0%) is below the minimum 50%" || steady.Failure.Type != "passRate" ||
		strings.Count(steady.Failure.Body, "text does not contain") != 2 {
		t.Errorf("steady: failure %+v; want the rate below its minimum, and both attempts' reasons", steady.Failure)
	}
}

// startFailedRun is "flaky" run 4 times with a minimum of 0.5: its agent
// could not start at attempts 1 and 3, and attempts 2 and 4 passed.
func startFailedRun() report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, Duration: 4 * time.Second}
	for i := range 4 {
		r := report.Result{Name: "flaky", File: "s.yaml", Line: 1, Attempt: i + 1, Status: report.StatusPassed, MinPassRate: 0.5, Duration: time.Second,
			Turns: []report.TurnResult{{Index: 1, StopReason: "end_turn", Text: "reply"}}}
		if i%2 == 0 {
			r.Status, r.StartFailed, r.Error = report.StatusError, true, "the agent exited with code 1 before answering initialize"
			r.Turns[0] = report.TurnResult{Index: 1, StopReason: report.OutcomeSkipped}
		}
		rep.Scenarios = append(rep.Scenarios, reporttest.Complete(r))
	}
	return rep
}

// TestMinPassRateJUnitStartFailed: an attempt whose agent could not start
// is not forgiven by its scenario's met minimum (the run exits 3), so it
// has its own testcase, an <error type="startFailed">, besides the
// scenario's testcase, which passes: JUnit is not green when the run is
// not. The scenario's testcase is named "flaky (pass rate)", apart from
// its first attempt's ("flaky", as in the lines), so that a dashboard
// that merges testcases of one name keeps both.
func TestMinPassRateJUnitStartFailed(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JUnit(&buf, startFailedRun()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Time    string    `xml:"time,attr"`
				Failure *xProblem `xml:"failure"`
				Error   *xProblem `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.Bytes())
	}
	if got.Tests != 3 || got.Failures != 0 || got.Errors != 2 || len(got.Suites) != 1 || got.Suites[0].Time != "4.000" {
		t.Fatalf("tests %d, failures %d, errors %d, %d suites; want 3, 0, 2 and one suite of 4s\n%s", got.Tests, got.Failures, got.Errors, len(got.Suites), buf.Bytes())
	}
	var cases []string
	for _, c := range got.Suites[0].Cases {
		s := c.Name + " " + c.Time
		if c.Failure != nil {
			s += " failure"
		}
		if c.Error != nil {
			s += " error " + c.Error.Type + ": " + c.Error.Message
		}
		cases = append(cases, s)
	}
	want := []string{
		"flaky (pass rate) 4.000",
		"flaky 1.000 error startFailed: the agent exited with code 1 before answering initialize",
		"flaky #3 1.000 error startFailed: the agent exited with code 1 before answering initialize",
	}
	if diff := cmp.Diff(want, cases); diff != "" {
		t.Errorf("testcases (-want +got):\n%s\n%s", diff, buf.Bytes())
	}
}

// TestMinPassRateAnnotations: the failures of an attempt whose scenario
// met its minimum are warnings, those of a scenario below it errors.
func TestMinPassRateAnnotations(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "")
	var buf bytes.Buffer
	if err := output.GitHub(&buf, "", minimumRun(0.75, 0.5)); err != nil {
		t.Fatal(err)
	}
	var levels []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		level, rest, _ := strings.Cut(l, " ")
		title, _, _ := strings.Cut(strings.TrimPrefix(rest, "file=s.yaml,line=9,col=7,title="), "::")
		levels = append(levels, level+" "+title)
	}
	want := []string{
		"::error acprun%3A steady failed",
		"::error acprun%3A steady #2 failed",
		"::warning acprun%3A flaky #2 failed (its scenario met its minimum pass rate)",
		"::warning file=s.yaml,line=1,title=acprun%3A flaky #3 interrupted",
	}
	if diff := cmp.Diff(want, levels); diff != "" {
		t.Errorf("annotations (-want +got):\n%s\n%s", diff, buf.String())
	}
}

// TestMinPassRateNoVerdictAnnotations: a scenario with a minimum none of
// whose attempts gave a verdict has, besides a warning per interrupted
// attempt, an error at the scenario saying its minimum is not met, as
// JUnit and the exit code say: the run's annotations are not only
// warnings when it fails. The step summary's totals say it too. A
// scenario none of whose attempts started has no annotation, as any
// scenario not run.
func TestMinPassRateNoVerdictAnnotations(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "")
	rep := minimumRun(0.75, 0.5)
	for i, r := range rep.Scenarios {
		if r.Name == "steady" {
			r.Status, r.Failures, r.Turns[0].Failures = report.StatusInterrupted, nil, nil
			r.Error = "the run's --timeout passed during turn 1"
			rep.Scenarios[i] = r
		}
	}
	var buf bytes.Buffer
	if err := output.GitHub(&buf, "", rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if level, _, _ := strings.Cut(l, " "); level == "::error" {
			got = append(got, l)
		} else {
			got = append(got, level)
		}
	}
	want := []string{
		"::error file=s.yaml,line=12,title=acprun%3A steady below its minimum pass rate::no attempt gave a verdict (2 interrupted): the minimum 50%25 is not met",
		"::warning", "::warning", "::warning", "::warning", // flaky #2 forgiven, flaky #3, steady and steady #2 interrupted
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s\n%s", diff, buf.String())
	}
	if md, want := output.Markdown(rep), "**3 passed, 1 failed, 1 of 2 pass rates met, 3 interrupted** of 7"; !strings.Contains(md, want) {
		t.Errorf("the step summary lacks %q:\n%s", want, md)
	}
	// None of its attempts started (--fail-fast, an interrupt): not
	// annotated, as a scenario not run is not.
	for i, r := range rep.Scenarios {
		if r.Name == "steady" {
			rep.Scenarios[i].NotRun = true
		}
	}
	buf.Reset()
	if err := output.GitHub(&buf, "", rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "::error") {
		t.Errorf("annotations of a scenario not run: want no ::error\n%s", buf.String())
	}
}

// TestMinPassRateJUnitPrompt: the testcase of a --prompt run's minimum
// has the classname of its suite, "--prompt", as its attempts' have.
func TestMinPassRateJUnitPrompt(t *testing.T) {
	rep := minimumRun(0.5, 0.5)
	for i := range rep.Scenarios {
		rep.Scenarios[i].File, rep.Scenarios[i].Line = "", 0
	}
	var buf bytes.Buffer
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil || len(got.Suites) != 1 {
		t.Fatalf("parse: %v, want one suite\n%s", err, buf.Bytes())
	}
	for _, c := range got.Suites[0].Cases {
		if c.Classname != got.Suites[0].Name || c.Classname != "--prompt" {
			t.Errorf("testcase %q: classname %q in suite %q, want --prompt", c.Name, c.Classname, got.Suites[0].Name)
		}
	}
}

// TestStepSummarySaysWhatMadeTheVerdict: the step summary's totals say
// the pass rates met, the flaky tries and the reruns, as the text
// summary's do: a green run whose table shows failed attempts says why it
// passed.
func TestStepSummarySaysWhatMadeTheVerdict(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  report.Report
		want string
	}{
		{"pass rates", minimumRun(0.6, 0), "**3 passed, 3 failed, 1 of 1 pass rate met, 1 interrupted** of 7"},
		{"retries", reporttest.Retried(), "1 flaky, 2 reruns**"},
	} {
		if md := output.Markdown(tt.rep); !strings.Contains(md, tt.want) {
			t.Errorf("%s: the step summary lacks %q:\n%s", tt.name, tt.want, md)
		}
	}
}

// TestMinPassRateJUnitBodyIsText: the <failure> of a scenario below its
// minimum lists why its attempts did not pass as text, in CDATA, as any
// testcase's body is: a failure or a reply that holds "<", "&" or "]]>"
// still gives a document that parses and reads back as the text, and one
// whose lines begin with "::" (a workflow command) gives no line of the
// document that does.
func TestMinPassRateJUnitBodyIsText(t *testing.T) {
	rep := minimumRun(0.75, 0.5)
	const failure = `turn 1: s.yaml:9:7: text does not contain "a < b && c ]]> d"`
	for i := range rep.Scenarios {
		if r := &rep.Scenarios[i]; r.Name == "steady" {
			r.Failures = []string{failure}
			r.Turns[0].Failures = r.Failures
			r.Turns[0].Text = "reply </failure> &amp;\n::error::x"
		}
	}
	var buf bytes.Buffer
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(buf.String()) {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("the document holds the line %q", line)
		}
	}
	var got struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Failure *xProblem `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.Bytes())
	}
	var body string
	for _, c := range got.Cases {
		if c.Name == "steady (pass rate)" && c.Failure != nil {
			body = c.Failure.Body
		}
	}
	for _, want := range []string{"failed: " + failure, "| reply </failure> &amp;\n", "| ::error::x\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("steady's failure body = %q; want it to hold %q", body, want)
		}
	}
}
