package runner

import (
	"context"
	"errors"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestCutShort: an interrupt cut the run short only when it kept a job
// from starting, cut a scenario short or kept a retry from running; one
// that came once every job had ended, or after --fail-fast had ended
// them, stopped nothing.
func TestCutShort(t *testing.T) {
	errInterrupted := errors.New("interrupted")
	jobs := []job{{sc: &scenario.Scenario{}}, {sc: &scenario.Scenario{Retries: 1}}}
	passed := []report.Result{{Status: report.StatusPassed}}
	errored := []report.Result{{Status: report.StatusError}}
	interrupted := []report.Result{{Status: report.StatusInterrupted}}
	lastTry := []report.Result{{Status: report.StatusError, Retry: 1}} // jobs[1]'s retries all run
	tests := []struct {
		name      string
		interrupt bool  // ctx ended by an interrupt
		first     error // runCtx ended before it, with this cause
		results   [][]report.Result
		stopped   bool
		want      bool
	}{
		{"no interrupt", false, nil, [][]report.Result{passed, passed}, false, false},
		{"after every job ended", true, nil, [][]report.Result{errored, lastTry}, false, false},
		{"a job not started", true, nil, [][]report.Result{passed, nil}, false, true},
		{"a job not started at --max-failures", true, nil, [][]report.Result{errored, nil}, true, false},
		{"a scenario cut short", true, nil, [][]report.Result{interrupted, passed}, false, true},
		{"a retry not run", true, nil, [][]report.Result{passed, errored}, false, true},
		{"after --fail-fast=cancel", true, errFailFast, [][]report.Result{interrupted, nil}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, interrupt := context.WithCancelCause(context.Background())
			defer interrupt(nil)
			runCtx, cancelRun := context.WithCancelCause(ctx)
			defer cancelRun(nil)
			if tt.first != nil {
				cancelRun(tt.first)
			}
			if tt.interrupt {
				interrupt(errInterrupted)
			}
			if got := cutShort(ctx, runCtx, jobs, tt.results, tt.stopped); got != tt.want {
				t.Errorf("cutShort = %v, want %v", got, tt.want)
			}
		})
	}
}
