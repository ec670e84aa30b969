package report_test

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

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
			if got, want := report.PassAtK(tt.n, tt.c, k), tt.at[k-1]; math.Abs(got-want) > 1e-12 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want %v", tt.n, tt.c, k, got, want)
			}
			if got, want := report.PassHatK(tt.n, tt.c, k), tt.hat[k-1]; math.Abs(got-want) > 1e-12 {
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
			if got := report.PassAtK(n, 0, k); got != 0 {
				t.Errorf("PassAtK(%d, 0, %d) = %v; want exactly 0", n, k, got)
			}
			if got := report.PassAtK(n, n, k); got != 1 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want exactly 1", n, n, k, got)
			}
			if got := report.PassAtK(n, n-k+1, k); got != 1 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want exactly 1 (fewer than k failures)", n, n-k+1, k, got)
			}
			if got := report.PassHatK(n, n, k); got != 1 {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want exactly 1", n, n, k, got)
			}
			if got := report.PassHatK(n, k-1, k); got != 0 {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want exactly 0 (fewer than k passes)", n, k-1, k, got)
			}
		}
	}
	for _, args := range [][3]int{{4, 2, 0}, {4, 2, 5}, {4, 5, 1}, {4, -1, 1}, {0, 0, 0}} {
		if got := report.PassAtK(args[0], args[1], args[2]); !math.IsNaN(got) {
			t.Errorf("PassAtK%v = %v; want NaN", args, got)
		}
		if got := report.PassHatK(args[0], args[1], args[2]); !math.IsNaN(got) {
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
			if got := report.PassAtK(n, c, k); math.Abs(got-wantAt) > 1e-9 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want %v", n, c, k, got, wantAt)
			}
			// pass^k gets tiny: compare relative to it.
			if got := report.PassHatK(n, c, k); math.Abs(got-wantHat) > 1e-9*wantHat {
				t.Errorf("PassHatK(%d, %d, %d) = %v; want %v", n, c, k, got, wantHat)
			}
		}
	}
}

// TestPassRatesOfRepeatedRun checks the grouping by file, scenario and
// agent and every k of a repeated run.
func TestPassRatesOfRepeatedRun(t *testing.T) {
	got := report.PassRates(reporttest.Repeat())
	want := []report.PassRate{
		{
			Scenario: "login", File: "login.yaml", Agent: "claude", Attempts: 5, Passed: 2, Rate: 0.4,
			PassAtK:  report.ByK{0.4, 0.7, 0.9, 1, 1},
			PassHatK: report.ByK{0.4, 0.1, 0, 0, 0},
		},
		{
			Scenario: "login", File: "login.yaml", Agent: "codex", Attempts: 5, Passed: 5, Rate: 1,
			PassAtK:  report.ByK{1, 1, 1, 1, 1},
			PassHatK: report.ByK{1, 1, 1, 1, 1},
		},
		{
			Scenario: "login", File: "admin/login.yaml", Agent: "claude", Attempts: 2, Passed: 0, Rate: 0,
			PassAtK:  report.ByK{0, 0},
			PassHatK: report.ByK{0, 0},
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
	if err := report.Write(&buf, reporttest.Repeat()); err != nil {
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
	if _, err := report.Read(&buf); err != nil {
		t.Errorf("Read of the JSON = %v", err)
	}
}

// TestByKJSON checks the order of the keys past 9, the rounding, and
// reading back what was written.
func TestByKJSON(t *testing.T) {
	var b report.ByK
	for k := 1; k <= 12; k++ {
		b = append(b, report.PassAtK(12, 1, k))
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"1":0.0833,"2":0.1667,"3":0.25,"4":0.3333,"5":0.4167,"6":0.5,"7":0.5833,"8":0.6667,"9":0.75,"10":0.8333,"11":0.9167,"12":1}`
	if string(data) != want {
		t.Errorf("json.Marshal(ByK) = %s; want %s", data, want)
	}
	var back report.ByK
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

// TestReadTakesTheOldPassAtK checks that results written before
// passAtK became an object (a single number, pass@n) still read, so
// acprun merge takes them; their summary is computed again from the
// scenarios (schemaVersion 1).
func TestReadTakesTheOldPassAtK(t *testing.T) {
	doc := `{"schemaVersion": 1, "summary": {"passRates": [{"scenario": "a", "attempts": 2, "passed": 1, "passRate": 0.5, "passAtK": 1}]},
		"scenarios": [{"name": "a", "file": "a.yaml", "line": 1, "attempt": 1, "status": "passed", "turns": []},
			{"name": "a", "file": "a.yaml", "line": 1, "attempt": 2, "status": "failed", "turns": []}]}`
	res, err := report.Read(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Read = %v", err)
	}
	if got := res.Summary.PassRates; len(got) != 1 || got[0].Attempts != 2 || got[0].Passed != 1 || got[0].PassAtK.At(2) != 1 {
		t.Errorf("passRates read = %+v; want one with 2 attempts, 1 passed, pass@2 1", got)
	}
}

// TestPassRatesOnlyToCompare: no pass rates for one run of scenarios that
// name their agents; some for two agents of one scenario or two attempts.
func TestPassRatesOnlyToCompare(t *testing.T) {
	one := func(name, agent string, attempt int) report.Result {
		return report.Result{Name: name, File: "s.yaml", Attempt: attempt, Agent: report.AgentInfo{Name: agent}, Status: report.StatusPassed}
	}
	tests := []struct {
		name string
		rs   []report.Result
		want int
	}{
		{"named agents, once", []report.Result{one("a", "claude", 0), one("b", "codex", 0)}, 0},
		{"a matrix", []report.Result{one("a", "claude", 0), one("a", "codex", 0)}, 2},
		{"repeated", []report.Result{one("a", "", 1), one("a", "", 2)}, 1},
	}
	for _, tt := range tests {
		if got := len(report.PassRates(report.Report{Scenarios: tt.rs})); got != tt.want {
			t.Errorf("%s: %d pass rates, want %d", tt.name, got, tt.want)
		}
	}
}

// TestPercents: a pass rate and its minimum are formatted alike, to 2
// decimals at most, unless a rate below its minimum would then read equal
// to it: then to as many more as it takes.
func TestPercents(t *testing.T) {
	met := func(rate, min float64) *bool { m := rate >= min; return &m }
	tests := []struct {
		name              string
		rate, min         float64
		wantRate, wantMin string
	}{
		{"no minimum", 2.0 / 3, 0, "66.67%", "0%"},
		{"whole", 0.8, 0.8, "80%", "80%"},
		{"below, told apart at 2 decimals", 2.0 / 3, 0.667, "66.67%", "66.7%"},
		{"below, equal at 2 decimals", 2.0 / 3, 0.6667, "66.667%", "66.67%"},
		{"below, equal at 3 decimals", 2.0 / 3, 0.66667, "66.6667%", "66.667%"},
		{"met, equal at 2 decimals", 0.66671, 0.6667, "66.67%", "66.67%"},
		{"met", 2.0 / 3, 0.6, "66.67%", "60%"},
		{"none passed", 0, 0.5, "0%", "50%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := report.PassRate{Rate: tt.rate, MinPassRate: tt.min}
			if tt.min > 0 {
				p.Met = met(tt.rate, tt.min)
			}
			rate, min := p.Percents()
			if rate != tt.wantRate || min != tt.wantMin {
				t.Errorf("Percents() of %v against %v = %s, %s; want %s, %s", tt.rate, tt.min, rate, min, tt.wantRate, tt.wantMin)
			}
		})
	}
	// Every rate of up to 100 attempts below a minimum just above it reads
	// below it.
	for n := 1; n <= 100; n++ {
		for c := 0; c < n; c++ {
			rate := float64(c) / float64(n)
			for _, d := range []float64{1e-3, 1e-5, 5e-6, 1e-7, 1e-9, 1e-12} {
				p := report.PassRate{Rate: rate, MinPassRate: rate + d, Met: met(rate, rate+d)}
				r, m := p.Percents()
				rf, err1 := strconv.ParseFloat(strings.TrimSuffix(r, "%"), 64)
				mf, err2 := strconv.ParseFloat(strings.TrimSuffix(m, "%"), 64)
				if err1 != nil || err2 != nil || rf >= mf {
					t.Errorf("Percents() of %d/%d against %v = %s, %s; want the rate below the minimum", c, n, rate+d, r, m)
				}
			}
		}
	}
}

// TestFractions: a pass rate and its minimum as JUnit's properties give
// them are formatted alike, as the results round a rate (4 decimals), unless
// a rate below its minimum would then read equal to it: then to as many more
// as it takes, so a machine that compares them reads the verdict.
func TestFractions(t *testing.T) {
	met := func(rate, min float64) *bool { m := rate >= min; return &m }
	tests := []struct {
		name              string
		rate, min         float64
		wantRate, wantMin string
	}{
		{"no minimum", 2.0 / 3, 0, "0.6667", "0"},
		{"whole", 0.8, 0.8, "0.8", "0.8"},
		{"below, told apart at 4 decimals", 2.0 / 3, 0.667, "0.6667", "0.667"},
		{"below, equal at 4 decimals", 2.0 / 3, 0.6667, "0.66667", "0.6667"},
		{"below, equal at 5 decimals", 2.0 / 3, 0.66667, "0.666667", "0.66667"},
		{"met, equal at 4 decimals", 0.66671, 0.6667, "0.6667", "0.6667"},
		{"none passed", 0, 0.5, "0", "0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := report.PassRate{Rate: tt.rate, MinPassRate: tt.min}
			if tt.min > 0 {
				p.Met = met(tt.rate, tt.min)
			}
			rate, min := p.Fractions()
			if rate != tt.wantRate || min != tt.wantMin {
				t.Errorf("Fractions() of %v against %v = %s, %s; want %s, %s", tt.rate, tt.min, rate, min, tt.wantRate, tt.wantMin)
			}
		})
	}
	for n := 1; n <= 100; n++ {
		for c := 0; c < n; c++ {
			rate := float64(c) / float64(n)
			for _, d := range []float64{1e-3, 1e-5, 5e-6, 1e-7, 1e-9, 1e-12} {
				p := report.PassRate{Rate: rate, MinPassRate: rate + d, Met: met(rate, rate+d)}
				r, m := p.Fractions()
				rf, err1 := strconv.ParseFloat(r, 64)
				mf, err2 := strconv.ParseFloat(m, 64)
				if err1 != nil || err2 != nil || rf >= mf {
					t.Errorf("Fractions() of %d/%d against %v = %s, %s; want the rate below the minimum", c, n, rate+d, r, m)
				}
			}
		}
	}
}
