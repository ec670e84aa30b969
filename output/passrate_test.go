package output_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
)

// TestPassRatesLeaveOutInterrupted: an interrupted attempt is not a
// sample: it is counted apart (one not run apart from one cut short, as
// the totals count them), the rates are those of the attempts that ran to
// their end, and a scenario none of whose attempts did has a row without
// a rate.
func TestPassRatesLeaveOutInterrupted(t *testing.T) {
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	for i, st := range []report.Status{report.StatusPassed, report.StatusFailed, report.StatusInterrupted, report.StatusPassed} {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: "a", File: "a.yaml", Attempt: i + 1, Status: st})
	}
	for i := range 2 {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: "b", File: "a.yaml", Attempt: i + 1, Status: report.StatusInterrupted, NotRun: i == 1, MinPassRate: 0.5})
	}
	got := report.PassRates(rep)
	if len(got) != 2 {
		t.Fatalf("pass rates %+v, want a's and b's", got)
	}
	if b := got[1]; b.Scenario != "b" || b.Attempts != 0 || b.Interrupted != 2 || b.NotRun != 1 {
		t.Errorf("b: %+v; want no attempts, 2 interrupted of which 1 not run", b)
	}
	p := got[0]
	if p.Scenario != "a" || p.Attempts != 3 || p.Passed != 2 || p.Interrupted != 1 || math.Abs(p.Rate-2.0/3) > 1e-9 || p.PassHatK.At(3) != 0 {
		t.Errorf("a: %+v; want 2 passed of 3 attempts, 1 interrupted", p)
	}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	// The table counts the attempts not run apart, as the totals do.
	for _, want := range []string{"2/3 (66.67%) pass@3=1.00 pass^3=0.00, 1 interrupted\n", "b         no verdict, 1 interrupted, 1 not run, min 50%",
		"2 interrupted, 1 not run"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the text does not say %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<property name="notRun" value="1"></property>`, `message="no attempt gave a verdict (1 interrupted, 1 not run)`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JUnit does not say %q:\n%s", want, buf.String())
		}
	}
}

// TestPassRateTableText checks the text table of a repeated run: pass@n
// and pass^n with 2 decimals, the two "login"s told apart by their files,
// and columns as wide as their widest cell.
func TestPassRateTableText(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	if err := output.Text(&buf, reporttest.Repeat()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	want := strings.Join([]string{
		"scenario                  claude                             codex",
		"login (login.yaml)        2/5 (40%) pass@5=1.00 pass^5=0.00  5/5 (100%) pass@5=1.00 pass^5=1.00",
		"login (admin/login.yaml)  0/2 (0%) pass@2=0.00 pass^2=0.00   -",
	}, "\n") + "\n"
	if !strings.Contains(out, want) {
		t.Errorf("text summary lacks the table\n%s\ngot:\n%s", want, out)
	}
}

// TestPassRateTableMatrixOnly checks a cell of a single attempt: no
// pass@k, and a column no wider than its cells.
func TestPassRateTableMatrixOnly(t *testing.T) {
	noColor(t)
	rep := reporttest.Repeat()
	var single []report.Result
	for _, r := range rep.Scenarios {
		if r.Attempt == 1 {
			r.Attempt = 0
			single = append(single, r)
		}
	}
	rep.Scenarios = single
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	want := "\nscenario                  claude    codex\n" +
		"login (login.yaml)        0/1 (0%)  1/1 (100%)\n" +
		"login (admin/login.yaml)  0/1 (0%)  -\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("text summary lacks the table\n%s\ngot:\n%s", want, buf.String())
	}
}

// TestJUnitPassRateProperties reads the testcase properties of a repeated
// run back as a CI tool would.
func TestJUnitPassRateProperties(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JUnit(&buf, reporttest.Repeat()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
				// Every child element, in order.
				Children []struct {
					XMLName  xml.Name
					Property []struct {
						Name  string `xml:"name,attr"`
						Value string `xml:"value,attr"`
					} `xml:"property"`
				} `xml:",any"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("parse JUnit: %v\n%s", err, buf.Bytes())
	}
	props := map[string]string{} // testcase name → its properties
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if len(c.Children) == 0 || c.Children[0].XMLName.Local != "properties" {
				t.Errorf("%s %s: children %+v; want <properties> first", s.Name, c.Name, c.Children)
				continue
			}
			var parts []string
			for _, p := range c.Children[0].Property {
				parts = append(parts, p.Name+"="+p.Value)
			}
			props[fmt.Sprintf("%s: %s", s.Name, c.Name)] = strings.Join(parts, " ")
		}
	}
	claude := "attempts=5 passed=2 passRate=0.4 pass@1=0.4 pass@2=0.7 pass@3=0.9 pass@4=1 pass@5=1 pass^1=0.4 pass^2=0.1 pass^3=0 pass^4=0 pass^5=0"
	codex := "attempts=5 passed=5 passRate=1 pass@1=1 pass@2=1 pass@3=1 pass@4=1 pass@5=1 pass^1=1 pass^2=1 pass^3=1 pass^4=1 pass^5=1"
	admin := "attempts=2 passed=0 passRate=0 pass@1=0 pass@2=0 pass^1=0 pass^2=0"
	want := map[string]string{
		"login.yaml: login [claude]":          claude,
		"login.yaml: login [claude] #2":       claude,
		"login.yaml: login [claude] #5":       claude,
		"login.yaml: login [codex]":           codex,
		"login.yaml: login [codex] #3":        codex,
		"admin/login.yaml: login [claude]":    admin,
		"admin/login.yaml: login [claude] #2": admin,
	}
	for name, w := range want {
		if props[name] != w {
			t.Errorf("properties of %s = %q; want %q", name, props[name], w)
		}
	}
	if len(props) != 12 {
		t.Errorf("%d testcases with properties; want all 12", len(props))
	}
}

// TestJUnitNoPropertiesWithoutRepeats checks that a run of single
// attempts adds no testcase properties.
func TestJUnitNoPropertiesWithoutRepeats(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JUnit(&buf, reporttest.Sample()); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("pass@")) || bytes.Contains(buf.Bytes(), []byte("<properties>")) {
		t.Errorf("JUnit of single attempts has pass-rate properties:\n%s", buf.Bytes())
	}
}

// TestPassRateTableWideNames checks that the table is aligned by the cells
// names take on a terminal, not by their characters: CJK and emoji take
// two cells each, a combining mark none.
func TestPassRateTableWideNames(t *testing.T) {
	noColor(t)
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	for _, name := range []string{"日本語", "e\u0301te\u0301", "✅ok", "🚀rocket"} {
		for i := range 2 {
			rep.Scenarios = append(rep.Scenarios, report.Result{Name: name, File: "a.yaml", Agent: report.AgentInfo{Name: "mock"}, Attempt: i + 1, Status: report.StatusPassed})
		}
	}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"scenario  mock",
		"日本語    2/2 (100%) pass@2=1.00 pass^2=1.00",
		"e\u0301te\u0301       2/2 (100%) pass@2=1.00 pass^2=1.00",
		"✅ok      2/2 (100%) pass@2=1.00 pass^2=1.00",
		"🚀rocket  2/2 (100%) pass@2=1.00 pass^2=1.00",
	}, "\n") + "\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("the table is not aligned by cells; want\n%s\ngot:\n%s", want, buf.String())
	}
}

// TestPassRateTableForgesNoCommand: a scenario named like a GitHub
// Actions workflow command ("::error ...") begins a row of the pass-rate
// table, which a step's log would run (a forged annotation): a zero-width
// space after its first ':' breaks it, and the table stays aligned.
func TestPassRateTableForgesNoCommand(t *testing.T) {
	noColor(t)
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	for _, name := range []string{"::error title=x::forged", "ok"} {
		for i := range 2 {
			rep.Scenarios = append(rep.Scenarios, report.Result{Name: name, File: "a.yaml", Attempt: i + 1, Status: report.StatusPassed})
		}
	}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if l := forgedLine(buf.String()); l != "" {
		t.Errorf("the text holds the line %q:\n%s", l, buf.String())
	}
	want := strings.Join([]string{
		"scenario                 pass rate",
		":\u200b:error title=x::forged  2/2 (100%) pass@2=1.00 pass^2=1.00",
		"ok                       2/2 (100%) pass@2=1.00 pass^2=1.00",
	}, "\n") + "\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("want the table\n%s\ngot:\n%s", want, buf.String())
	}
}
