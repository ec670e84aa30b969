package runner

import (
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestResultMinPassRate: each result records the minimum pass rate of
// its scenario, its expect.passRate winning over the run's.
func TestResultMinPassRate(t *testing.T) {
	for _, tt := range []struct{ scenario, run, want float64 }{
		{0, 0, 0}, {0, 0.8, 0.8}, {0.5, 0.8, 0.5}, {0.9, 0, 0.9},
	} {
		sc := &scenario.Scenario{Name: "s", Expect: scenario.Expect{PassRate: tt.scenario}}
		if got := newResult(newJob(sc, 1), &Options{MinPassRate: tt.run}).MinPassRate; got != tt.want {
			t.Errorf("passRate %g, --min-pass-rate %g: minPassRate %g, want %g", tt.scenario, tt.run, got, tt.want)
		}
	}
}
