package output_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// repeatReport is a --repeat run against two named agents: login.yaml's
// "login" five times each (claude passes attempts 2 and 4, codex all),
// and another "login", in admin/login.yaml, twice against claude only,
// failing both times.
func repeatReport() report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: sampleReport().StartedAt, Duration: ms(900)}
	add := func(file, agent string, attempt int, pass bool) {
		r := report.Result{
			Name: "login", File: file, Line: 1, Attempt: attempt,
			Agent:    report.AgentInfo{Name: agent, Command: []string{agent}},
			Status:   report.StatusPassed,
			Duration: ms(10),
			Turns:    []report.TurnResult{{Index: 1, Prompt: "log in", StopReason: "end_turn", Duration: ms(10)}},
		}
		if !pass {
			r.Status = report.StatusFailed
			r.Failures = []string{`turn 1: text does not contain "welcome"`}
			r.Turns[0].Failures = []string{`text does not contain "welcome"`}
		}
		rep.Scenarios = append(rep.Scenarios, result(r))
	}
	for _, agent := range []string{"claude", "codex"} {
		for attempt := 1; attempt <= 5; attempt++ {
			add("login.yaml", agent, attempt, agent == "codex" || attempt%2 == 0)
		}
	}
	for attempt := 1; attempt <= 2; attempt++ {
		add("admin/login.yaml", "claude", attempt, false)
	}
	return rep
}

// TestPassAtKAndPassHatK checks the estimators against values worked out
// by hand from the binomial coefficients.
func TestPassAtKAndPassHatK(t *testing.T) {
	tests := []struct {
		n, c    int
		at, hat []float64 // for k = 1..n
	}{
		{4, 0, []float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}},
		{4, 1, []float64{0.25, 0.5, 0.75, 1}, []float64{0.25, 0, 0, 0}},
		{4, 2, []float64{0.5, 5.0 / 6, 1, 1}, []float64{0.5, 1.0 / 6, 0, 0}},
		{4, 3, []float64{0.75, 1, 1, 1}, []float64{0.75, 0.5, 0.25, 0}},
		{4, 4, []float64{1, 1, 1, 1}, []float64{1, 1, 1, 1}},
		{5, 2, []float64{0.4, 0.7, 0.9, 1, 1}, []float64{0.4, 0.1, 0, 0, 0}},
		{1, 0, []float64{0}, []float64{0}},
		{1, 1, []float64{1}, []float64{1}},
	}
	for _, tt := range tests {
		for k := 1; k <= tt.n; k++ {
			if got, want := output.PassAtK(tt.n, tt.c, k), tt.at[k-1]; math.Abs(got-want) > 1e-12 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want %v", tt.n, tt.c, k, got, want)
			}
			if got, want := output.PassHatK(tt.n, tt.c, k), tt.hat[k-1]; math.Abs(got-want) > 1e-12 {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want %v", tt.n, tt.c, k, got, want)
			}
		}
	}
}

// TestPassAtKEdges checks that the edges are exact, not merely close,
// and that arguments out of range give NaN rather than a number.
func TestPassAtKEdges(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100, 1000} {
		for k := 1; k <= n; k++ {
			if got := output.PassAtK(n, 0, k); got != 0 {
				t.Errorf("PassAtK(%d, 0, %d) = %v; want exactly 0", n, k, got)
			}
			if got := output.PassAtK(n, n, k); got != 1 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want exactly 1", n, n, k, got)
			}
			if got := output.PassAtK(n, n-k+1, k); got != 1 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want exactly 1 (fewer than k failures)", n, n-k+1, k, got)
			}
			if got := output.PassHatK(n, n, k); got != 1 {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want exactly 1", n, n, k, got)
			}
			if got := output.PassHatK(n, k-1, k); got != 0 {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want exactly 0 (fewer than k passes)", n, k-1, k, got)
			}
		}
	}
	for _, args := range [][3]int{{4, 2, 0}, {4, 2, 5}, {4, 5, 1}, {4, -1, 1}, {0, 0, 0}} {
		if got := output.PassAtK(args[0], args[1], args[2]); !math.IsNaN(got) {
			t.Errorf("PassAtK%v = %v; want NaN", args, got)
		}
		if got := output.PassHatK(args[0], args[1], args[2]); !math.IsNaN(got) {
			t.Errorf("PassHatK%v = %v; want NaN", args, got)
		}
	}
}

// TestPassAtKLargeN compares the estimators with the binomial
// coefficients computed through log-gamma, for n where the coefficients
// themselves overflow float64.
func TestPassAtKLargeN(t *testing.T) {
	lchoose := func(n, k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return a - b - c
	}
	n := 2000
	for _, c := range []int{1, 10, 500, 1000, 1990} {
		for _, k := range []int{1, 2, 5, 10, 100} {
			wantHat := 0.0
			if c >= k {
				wantHat = math.Exp(lchoose(c, k) - lchoose(n, k))
			}
			wantAt := 1.0
			if n-c >= k {
				wantAt = 1 - math.Exp(lchoose(n-c, k)-lchoose(n, k))
			}
			if got := output.PassAtK(n, c, k); math.Abs(got-wantAt) > 1e-9 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want %v", n, c, k, got, wantAt)
			}
			// pass^k gets tiny: compare relative to it.
			if got := output.PassHatK(n, c, k); math.Abs(got-wantHat) > 1e-9*wantHat {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want %v", n, c, k, got, wantHat)
			}
		}
	}
}

// TestPassRatesOfRepeatedRun checks the grouping by file, scenario and
// agent and every k of a repeated run.
func TestPassRatesOfRepeatedRun(t *testing.T) {
	got := output.PassRates(repeatReport())
	want := []output.PassRate{
		{
			Scenario: "login", File: "login.yaml", Agent: "claude", Attempts: 5, Passed: 2, Rate: 0.4,
			PassAtK:  output.ByK{0.4, 0.7, 0.9, 1, 1},
			PassHatK: output.ByK{0.4, 0.1, 0, 0, 0},
		},
		{
			Scenario: "login", File: "login.yaml", Agent: "codex", Attempts: 5, Passed: 5, Rate: 1,
			PassAtK:  output.ByK{1, 1, 1, 1, 1},
			PassHatK: output.ByK{1, 1, 1, 1, 1},
		},
		{
			Scenario: "login", File: "admin/login.yaml", Agent: "claude", Attempts: 2, Passed: 0, Rate: 0,
			PassAtK:  output.ByK{0, 0},
			PassHatK: output.ByK{0, 0},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("PassRates (-want +got):\n%s", diff)
	}
}

// TestPassRatesJSON checks summary.passRates in the JSON: file, passAtK
// and passHatK as objects keyed by k with 4 decimals, keys in numeric
// order, and that the document reads back.
func TestPassRatesJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JSON(&buf, repeatReport()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary struct {
			PassRates []map[string]any `json:"passRates"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{
			"scenario": "login", "file": "login.yaml", "agent": "claude", "attempts": 5.0, "passed": 2.0, "passRate": 0.4,
			"passAtK":  map[string]any{"1": 0.4, "2": 0.7, "3": 0.9, "4": 1.0, "5": 1.0},
			"passHatK": map[string]any{"1": 0.4, "2": 0.1, "3": 0.0, "4": 0.0, "5": 0.0},
		},
		{
			"scenario": "login", "file": "login.yaml", "agent": "codex", "attempts": 5.0, "passed": 5.0, "passRate": 1.0,
			"passAtK":  map[string]any{"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0, "5": 1.0},
			"passHatK": map[string]any{"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0, "5": 1.0},
		},
		{
			"scenario": "login", "file": "admin/login.yaml", "agent": "claude", "attempts": 2.0, "passed": 0.0, "passRate": 0.0,
			"passAtK":  map[string]any{"1": 0.0, "2": 0.0},
			"passHatK": map[string]any{"1": 0.0, "2": 0.0},
		},
	}
	if diff := cmp.Diff(want, doc.Summary.PassRates); diff != "" {
		t.Errorf("summary.passRates (-want +got):\n%s", diff)
	}
	if _, err := output.ReadResults(&buf); err != nil {
		t.Errorf("ReadResults of the JSON = %v", err)
	}
}

// TestByKJSON checks the order of the keys past 9, the rounding, and
// reading back what was written.
func TestByKJSON(t *testing.T) {
	var b output.ByK
	for k := 1; k <= 12; k++ {
		b = append(b, output.PassAtK(12, 1, k))
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"1":0.0833,"2":0.1667,"3":0.25,"4":0.3333,"5":0.4167,"6":0.5,"7":0.5833,"8":0.6667,"9":0.75,"10":0.8333,"11":0.9167,"12":1}`
	if string(data) != want {
		t.Errorf("json.Marshal(ByK) = %s; want %s", data, want)
	}
	var back output.ByK
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("json.Unmarshal(%s) = %v", data, err)
	}
	if diff := cmp.Diff(b, back, cmpopts.EquateApprox(0, 5e-5)); diff != "" {
		t.Errorf("ByK read back (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"0":1}`, `{"1":1,"3":1}`, `{"x":1}`, `"1"`, `[1]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("json.Unmarshal(%s) into ByK = nil error; want an error", bad)
		}
	}
}

// TestPassRatesLeaveOutInterrupted: an interrupted attempt is not a
// sample: it is counted apart, the rates are those of the attempts that
// ran to their end, and a scenario none of whose attempts did has no row.
func TestPassRatesLeaveOutInterrupted(t *testing.T) {
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	for i, st := range []report.Status{report.StatusPassed, report.StatusFailed, report.StatusInterrupted, report.StatusPassed} {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: "a", File: "a.yaml", Attempt: i + 1, Status: st})
	}
	for i := range 2 {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: "b", File: "a.yaml", Attempt: i + 1, Status: report.StatusInterrupted, NotRun: i == 1})
	}
	got := output.PassRates(rep)
	if len(got) != 1 {
		t.Fatalf("pass rates %+v, want a's only", got)
	}
	p := got[0]
	if p.Scenario != "a" || p.Attempts != 3 || p.Passed != 2 || p.Interrupted != 1 || math.Abs(p.Rate-2.0/3) > 1e-9 || p.PassHatK.At(3) != 0 {
		t.Errorf("a: %+v; want 2 passed of 3 attempts, 1 interrupted", p)
	}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if want := "2/3 (67%) pass@3=1.00 pass^3=0.00, 1 interrupted"; !strings.Contains(buf.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, buf.String())
	}
}

// TestReadResultsTakesTheOldPassAtK checks that results written before
// passAtK became an object (a single number, pass@n) still read, so
// acprun merge takes them; their summary is computed again from the
// scenarios (schemaVersion 1).
func TestReadResultsTakesTheOldPassAtK(t *testing.T) {
	doc := `{"schemaVersion": 1, "summary": {"passRates": [{"scenario": "a", "attempts": 2, "passed": 1, "passRate": 0.5, "passAtK": 1}]},
		"scenarios": [{"name": "a", "file": "a.yaml", "attempt": 1, "status": "passed", "turns": []},
			{"name": "a", "file": "a.yaml", "attempt": 2, "status": "failed", "turns": []}]}`
	res, err := output.ReadResults(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("ReadResults = %v", err)
	}
	if got := res.Summary.PassRates; len(got) != 1 || got[0].Attempts != 2 || got[0].Passed != 1 || got[0].PassAtK.At(2) != 1 {
		t.Errorf("passRates read = %+v; want one with 2 attempts, 1 passed, pass@2 1", got)
	}
}

// TestPassRateTableText checks the text table of a repeated run: pass@n
// and pass^n with 2 decimals, the two "login"s told apart by their files,
// and columns as wide as their widest cell.
func TestPassRateTableText(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	if err := output.Text(&buf, repeatReport()); err != nil {
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
	rep := repeatReport()
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
	if err := output.JUnit(&buf, repeatReport()); err != nil {
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
	if err := output.JUnit(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("pass@")) || bytes.Contains(buf.Bytes(), []byte("<properties>")) {
		t.Errorf("JUnit of single attempts has pass-rate properties:\n%s", buf.Bytes())
	}
}
