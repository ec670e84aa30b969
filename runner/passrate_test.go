package runner

import (
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestResultMinPassRate: each result records the minimum pass rate of
// its scenario, its expect.passRate winning over the run's.
func TestResultMinPassRate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ scenario, run, want float64 }{
		{0, 0, 0}, {0, 0.8, 0.8}, {0.5, 0.8, 0.5}, {0.9, 0, 0.9},
	} {
		sc := &scenario.Scenario{Name: "s", Expect: scenario.Expect{PassRate: tt.scenario}}
		if got := newResult(newJob(sc, 1), &Options{MinPassRate: tt.run}).MinPassRate; got != tt.want {
			t.Errorf("passRate %g, --min-pass-rate %g: minPassRate %g, want %g", tt.scenario, tt.run, got, tt.want)
		}
	}
}

// TestFailFastMinPassRate: a failed attempt of a scenario with a minimum
// pass rate stops the run (--fail-fast) only when it leaves the rate out
// of reach; one of a scenario without a minimum stops it at once.
func TestFailFastMinPassRate(t *testing.T) {
	t.Parallel()
	failed := func(name string, min float64) report.Result {
		return report.Result{Name: name, File: "s.yaml", Status: report.StatusFailed, MinPassRate: min}
	}
	stop := &failureStop{max: 1, repeat: 5}
	// 0.6 of 5: 2 attempts may fail; the third leaves it out of reach.
	for i, want := range []bool{false, false, true} {
		if got := stop.count(failed("a", 0.6)); got != want {
			t.Errorf("failed attempt %d of a (min 0.6 of 5): stops %v, want %v", i+1, got, want)
		}
	}
	stop = &failureStop{max: 2, repeat: 5}
	stop.count(failed("a", 1)) // min 1: the first failure leaves it out of reach
	if stop.failed.Load() != 1 {
		t.Errorf("min 1: %d failures counted after one failed attempt, want 1", stop.failed.Load())
	}
	if !stop.count(failed("b", 0)) {
		t.Error("a failed scenario without a minimum did not count as the second failure")
	}
	if stop.count(report.Result{Name: "c", Status: report.StatusError, MinPassRate: 0.2}) {
		t.Error("an errored attempt of c (min 0.2 of 5, 4 may fail) stopped the run")
	}
}

// TestFailFastMinPassRateInvalid: an invalid attempt, which counts as a
// failure of its own, is no sample of the rate: the failed attempt that
// leaves the rate out of reach over the attempts that are samples counts
// as the scenario's failure, once.
func TestFailFastMinPassRateInvalid(t *testing.T) {
	t.Parallel()
	attempt := func(status report.Status) report.Result {
		return report.Result{Name: "a", File: "s.yaml", Status: status, MinPassRate: 0.75}
	}
	stop := &failureStop{max: 3, repeat: 4}
	// 0.75 of 4: one attempt invalid leaves 3 samples, of which none may fail.
	for i, tt := range []struct {
		status  report.Status
		counted int64
	}{
		{report.StatusInvalid, 1},
		{report.StatusFailed, 2}, // at most 2 of 3 samples can pass
		{report.StatusFailed, 2}, // the scenario counted once
	} {
		stop.count(attempt(tt.status))
		if got := stop.failed.Load(); got != tt.counted {
			t.Errorf("attempt %d (%s) of a (min 0.75 of 4): %d failures counted, want %d", i+1, tt.status, got, tt.counted)
		}
	}
	// The same attempts ending the other way round (-j: the failed one
	// first, while the rate is still within reach) count the same.
	stop = &failureStop{max: 2, repeat: 4}
	for i, tt := range []struct {
		status  report.Status
		counted int64
		stops   bool
	}{
		{report.StatusFailed, 0, false}, // 3 of 4 can still pass
		{report.StatusInvalid, 2, true}, // itself, and now at most 2 of 3
		{report.StatusFailed, 2, false},
	} {
		stops := stop.count(attempt(tt.status))
		if got := stop.failed.Load(); got != tt.counted || stops != tt.stops {
			t.Errorf("attempt %d (%s) of a (min 0.75 of 4, --max-failures 2), the failed one first: %d failures counted, stops %v; want %d, %v", i+1, tt.status, got, stops, tt.counted, tt.stops)
		}
	}
}

// TestFailureStopReason: the jobs a stopped run did not start name the
// flag the user gave (--max-failures 1 is not --fail-fast) and what it
// counted: scenarios, or with --repeat attempts.
func TestFailureStopReason(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		stop *failureStop
		want string
	}{
		{&failureStop{max: 1, failFast: true}, "the run stopped at its first failed scenario (--fail-fast)"},
		{&failureStop{max: 1}, "the run stopped at its first failed scenario (--max-failures 1)"},
		{&failureStop{max: 3, failFast: true}, "the run stopped after 3 failed scenarios (--max-failures 3)"},
		{&failureStop{max: 3, repeat: 1}, "the run stopped after 3 failed scenarios (--max-failures 3)"},
		// With --repeat each attempt counts: 3 may be of one scenario.
		{&failureStop{max: 3, repeat: 3}, "the run stopped after 3 failed attempts (--max-failures 3)"},
		{&failureStop{max: 1, failFast: true, repeat: 2}, "the run stopped at its first failed attempt (--fail-fast)"},
	} {
		if got := tt.stop.reason(); got != tt.want {
			t.Errorf("reason() of max %d, failFast %t, repeat %d = %q, want %q", tt.stop.max, tt.stop.failFast, tt.stop.repeat, got, tt.want)
		}
	}
}
