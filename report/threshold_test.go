package report_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// thresholdRun is scenario a repeated 5 times (3 passed, 1 failed, 1
// errored) against one agent and b 3 times (1 passed, 1 failed, 1
// interrupted), each with the minimum given.
func thresholdRun(minA, minB float64) report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	add := func(name string, min float64, sts ...report.Status) {
		for i, st := range sts {
			rep.Scenarios = append(rep.Scenarios, report.Result{Name: name, File: "s.yaml", Line: lineOf(name), Attempt: i + 1, Status: st, MinPassRate: min})
		}
	}
	p, f, e, in := report.StatusPassed, report.StatusFailed, report.StatusError, report.StatusInterrupted
	add("a", minA, p, f, p, e, p)
	add("b", minB, p, in, f)
	return rep
}

// TestPassRateMinimum: the rate of the attempts that gave a verdict
// (errored ones included, interrupted ones not) is compared with the
// results' minPassRate, which is met when reached exactly.
func TestPassRateMinimum(t *testing.T) {
	tests := []struct {
		minA, minB   float64
		metA, metB   *bool
		attemptsB    int
		interruptedB int
	}{
		{minA: 0.6, minB: 0.5, metA: ptr(true), metB: ptr(true), attemptsB: 2, interruptedB: 1},
		{minA: 0.61, minB: 0.51, metA: ptr(false), metB: ptr(false), attemptsB: 2, interruptedB: 1},
		{minA: 1, minB: 0, metA: ptr(false), attemptsB: 2, interruptedB: 1},
	}
	for _, tt := range tests {
		rates := report.PassRates(thresholdRun(tt.minA, tt.minB))
		if len(rates) != 2 {
			t.Fatalf("min %g, %g: %d pass rates, want 2", tt.minA, tt.minB, len(rates))
		}
		a, b := rates[0], rates[1]
		if a.Attempts != 5 || a.Passed != 3 || a.MinPassRate != tt.minA || !equalPtr(a.Met, tt.metA) {
			t.Errorf("a with min %g: %d/%d, min %g, met %v; want 3/5, met %v", tt.minA, a.Passed, a.Attempts, a.MinPassRate, fmtPtr(a.Met), fmtPtr(tt.metA))
		}
		if b.Attempts != tt.attemptsB || b.Interrupted != tt.interruptedB || b.MinPassRate != tt.minB || !equalPtr(b.Met, tt.metB) {
			t.Errorf("b with min %g: %d/%d, %d interrupted, min %g, met %v; want met %v", tt.minB, b.Passed, b.Attempts, b.Interrupted, b.MinPassRate, fmtPtr(b.Met), fmtPtr(tt.metB))
		}
	}
}

// TestPassRateMinimumAlone: one attempt with a minimum is a row of its
// own, as a repeated run's would be.
func TestPassRateMinimumAlone(t *testing.T) {
	rep := report.Report{Scenarios: []report.Result{{Name: "a", File: "s.yaml", Status: report.StatusFailed, MinPassRate: 0.5}}}
	rates := report.PassRates(rep)
	if len(rates) != 1 || rates[0].Met == nil || *rates[0].Met {
		t.Fatalf("pass rates %+v; want one, not met", rates)
	}
	if report.PassRates(report.Report{Scenarios: []report.Result{{Name: "a", File: "s.yaml", Status: report.StatusFailed}}}) != nil {
		t.Error("one attempt without a minimum has a pass rate; want none")
	}
}

// TestForgiven: a failed or errored attempt of a scenario that met its
// minimum is forgiven; a passed or interrupted one, one whose agent did
// not start, a retried try, and every attempt of a scenario below its
// minimum are not.
func TestForgiven(t *testing.T) {
	rep := thresholdRun(0.5, 0.5)
	rep.Scenarios = append(rep.Scenarios,
		report.Result{Name: "a", File: "s.yaml", Attempt: 6, Status: report.StatusError, StartFailed: true, MinPassRate: 0.5},
		report.Result{Name: "a", File: "s.yaml", Attempt: 7, Status: report.StatusFailed, Retried: true, MinPassRate: 0.5},
		report.Result{Name: "a", File: "s.yaml", Attempt: 7, Retry: 1, Status: report.StatusPassed, Flaky: true, MinPassRate: 0.5},
	)
	forgiven := report.Forgiven(rep)
	var got []string
	for _, r := range rep.Scenarios {
		if forgiven(r) {
			got = append(got, r.Label())
		}
	}
	// a: 4 of 7 attempts passed (the one that could not start counts as
	// errored, the retried try not at all); b: 1 of 2.
	if want := []string{"a #2", "a #4", "b #3"}; !slices.Equal(got, want) {
		t.Errorf("forgiven %v, want %v", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

func equalPtr(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func fmtPtr(b *bool) any {
	if b == nil {
		return "none"
	}
	return *b
}

// TestRerunMinPassRate: --rerun-failed leaves out the failed attempts of
// a scenario that met its minimum pass rate, and picks one below it.
func TestRerunMinPassRate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	rep := thresholdRun(0.6, 0.6) // a: 3 of 5 met; b: 1 of 2 below
	set, err := report.ReadRerun(writeJSON(t, dir, "prev.json", rep))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range set.Filter([]*scenario.Scenario{{Name: "a", File: "s.yaml"}, {Name: "b", File: "s.yaml"}}) {
		got = append(got, sc.Name)
	}
	if want := []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("rerun %v, want %v", got, want)
	}
}

// TestMinPassRateInvalid: an invalid attempt is no sample of the rate,
// and is never forgiven: it measured nothing.
func TestMinPassRateInvalid(t *testing.T) {
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	for i, st := range []report.Status{report.StatusPassed, report.StatusInvalid, report.StatusFailed, report.StatusPassed} {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: "a", File: "s.yaml", Attempt: i + 1, Status: st, MinPassRate: 0.6})
	}
	rates := report.PassRates(rep)
	if len(rates) != 1 || rates[0].Attempts != 3 || rates[0].Invalid != 1 || rates[0].Met == nil || !*rates[0].Met {
		t.Fatalf("pass rates %+v; want 2 of 3 samples, 1 invalid, min 0.6 met", rates)
	}
	forgiven := report.Forgiven(rep)
	var got []string
	for _, r := range rep.Scenarios {
		if forgiven(r) {
			got = append(got, r.Label())
		}
	}
	if want := []string{"a #3"}; !slices.Equal(got, want) {
		t.Errorf("forgiven %v, want %v (the failed attempt, not the invalid one)", got, want)
	}
}

// TestPassRateNoVerdict: a scenario none of whose attempts gave a verdict
// (interrupted, not run, invalid) keeps its row, with no attempts counted,
// no rate to speak of (0, no pass@k) and, against a minimum, the minimum
// not met: a run cut short is not a passing one. Its results round-trip.
func TestPassRateNoVerdict(t *testing.T) {
	in, inv := report.StatusInterrupted, report.StatusInvalid
	tests := []struct {
		name                 string
		min                  float64
		sts                  []report.Status
		notRun               int // attempt not run (0: none)
		interrupted, invalid int
		met                  *bool
	}{
		{name: "interrupted, with a minimum", min: 0.5, sts: []report.Status{in, in}, interrupted: 2, met: ptr(false)},
		{name: "one not run, with a minimum", min: 0.5, sts: []report.Status{in, in}, notRun: 2, interrupted: 2, met: ptr(false)},
		{name: "interrupted and invalid, repeated", sts: []report.Status{in, inv}, interrupted: 1, invalid: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := report.Report{SchemaVersion: report.SchemaVersion}
			rep.Scenarios = append(rep.Scenarios,
				report.Result{Name: "fast", File: "f.yaml", Attempt: 1, Status: report.StatusPassed, MinPassRate: tt.min},
				report.Result{Name: "fast", File: "f.yaml", Attempt: 2, Status: report.StatusPassed, MinPassRate: tt.min})
			for i, st := range tt.sts {
				rep.Scenarios = append(rep.Scenarios, report.Result{Name: "slow", File: "s.yaml", Attempt: i + 1, Status: st, MinPassRate: tt.min, NotRun: i+1 == tt.notRun})
			}
			rates := report.PassRates(rep)
			if len(rates) != 2 {
				t.Fatalf("pass rates %+v; want fast's and slow's", rates)
			}
			p := rates[1]
			if p.Scenario != "slow" || p.File != "s.yaml" || p.Attempts != 0 || p.Passed != 0 || p.Rate != 0 || len(p.PassAtK) != 0 || len(p.PassHatK) != 0 ||
				p.Interrupted != tt.interrupted || p.Invalid != tt.invalid || p.MinPassRate != tt.min || !equalPtr(p.Met, tt.met) {
				t.Errorf("slow: %+v, met %v; want 0 attempts, %d interrupted, %d invalid, min %g, met %v", p, fmtPtr(p.Met), tt.interrupted, tt.invalid, tt.min, fmtPtr(tt.met))
			}
			if forgiven := report.Forgiven(rep); slices.ContainsFunc(rep.Scenarios, forgiven) {
				t.Errorf("an attempt is forgiven; want none")
			}
			var buf bytes.Buffer
			if err := report.Write(&buf, rep); err != nil {
				t.Fatal(err)
			}
			read, err := report.Read(&buf)
			if err != nil {
				t.Fatalf("read the results back: %v", err)
			}
			if got := read.Summary.PassRates; len(got) != 2 || got[1].Attempts != 0 || !equalPtr(got[1].Met, tt.met) {
				t.Errorf("read back: pass rates %+v; want slow's, as written", got)
			}
		})
	}
}
