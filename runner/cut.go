package runner

import (
	"context"
	"errors"
)

// endedByRun reports whether runCtx, the running jobs' context, has been
// ended by the run's end (an interrupt, the run's --timeout), rather than
// by --fail-fast before it. A job that ends after that may have been cut
// short by it (a turn, verify, a retry, the wait for a transcript's
// reader): the run is cut short. An interrupt that comes once every job
// has ended stops nothing, and leaves the run whole.
func endedByRun(runCtx context.Context) bool {
	return runCtx.Err() != nil && !errors.Is(context.Cause(runCtx), errFailFast)
}
