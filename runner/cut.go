package runner

import (
	"context"
	"errors"

	"github.com/acprun/acprun/report"
)

// cutShort reports whether the end of ctx (an interrupt, the run's
// --timeout) cut the run short, once its jobs have ended with results
// (nil: a job that did not start): ctx's end ended runCtx, the running
// jobs' (--fail-fast had not ended it first), and kept a job from
// starting (unless the run had stopped at Options.MaxFailures anyway:
// stopped), cut a scenario short (status interrupted: runCtx has one
// cause), or kept an attempt that errored or was invalid from its retry.
// An end that came once every job had ended, or while the last ones
// ended (a teardown, the agents kept for reuse stopping), stopped
// nothing: the run is whole.
func cutShort(ctx, runCtx context.Context, jobs []job, results [][]report.Result, stopped bool) bool {
	if runCtx.Err() == nil || ctx.Err() == nil || errors.Is(context.Cause(runCtx), errFailFast) {
		return false
	}
	for i, rs := range results {
		if len(rs) == 0 {
			if !stopped {
				return true
			}
			continue
		}
		last := rs[len(rs)-1]
		switch last.Status {
		case report.StatusInterrupted:
			return true
		case report.StatusError, report.StatusInvalid:
			if last.Retry < jobs[i].sc.Retries && !stopped {
				return true // it may have been retried
			}
		}
	}
	return false
}
