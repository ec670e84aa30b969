package runner

import (
	"context"
	"errors"
	"testing"
)

// TestEndedByRun: a job that ends after an interrupt (or the run's
// --timeout) ended the running jobs' context may have been cut short by
// it; not one that ends before, nor after --fail-fast ended them first.
func TestEndedByRun(t *testing.T) {
	errInterrupted := errors.New("interrupted")
	tests := []struct {
		name      string
		first     error // runCtx ended before ctx, with this cause
		interrupt bool  // ctx ended by an interrupt
		want      bool
	}{
		{"no interrupt", nil, false, false},
		{"an interrupt", nil, true, true},
		{"--fail-fast, then an interrupt", errFailFast, true, false},
		{"--fail-fast alone", errFailFast, false, false},
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
			if got := endedByRun(runCtx); got != tt.want {
				t.Errorf("endedByRun = %v, want %v", got, tt.want)
			}
		})
	}
}
