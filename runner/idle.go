package runner

import (
	"context"
	"sync"
	"time"
)

// activity tracks when the agent last sent a message, and whether acprun is
// busy serving one of its requests: the idle clock stops while it is.
type activity struct {
	mu   sync.Mutex
	last time.Time
	busy int
}

func newActivity() *activity { return &activity{last: time.Now()} }

// touch records a message from the agent.
func (a *activity) touch(at time.Time) {
	a.mu.Lock()
	if at.After(a.last) {
		a.last = at
	}
	a.mu.Unlock()
}

// serving marks the start of serving one request; the returned func marks
// its end, which restarts the idle clock.
func (a *activity) serving() func() {
	a.mu.Lock()
	a.busy++
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		a.busy--
		a.last = time.Now()
		a.mu.Unlock()
	}
}

// idleFor returns how long the agent has been idle; 0 while acprun is busy.
func (a *activity) idleFor(now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy > 0 {
		return 0
	}
	return now.Sub(a.last)
}

// watchIdle cancels ctx with errIdleTimeout once the agent has been idle for
// limit. It returns when ctx ends.
func (a *activity) watchIdle(ctx context.Context, cancel context.CancelCauseFunc, limit time.Duration) {
	a.touch(time.Now()) // the turn's start counts as activity
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			idle := a.idleFor(now)
			if idle >= limit {
				cancel(errIdleTimeout)
				return
			}
			t.Reset(limit - idle)
		}
	}
}

// Between turns acprun waits until the agent has been quiet for
// settleQuiet (at most settleMax), so that updates it sends right after a
// prompt's answer are recorded, late, with that turn rather than the next.
const (
	settleQuiet = 100 * time.Millisecond
	settleMax   = 2 * time.Second
)

// waitQuiet waits until the agent has been quiet for quiet, at most
// most, or until ctx ends or gone is closed (nil: never).
func (a *activity) waitQuiet(ctx context.Context, quiet, most time.Duration, gone <-chan struct{}) {
	deadline := time.NewTimer(most)
	defer deadline.Stop()
	wait := time.NewTimer(quiet)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-gone:
			return
		case <-deadline.C:
			return
		case now := <-wait.C:
			idle := a.idleFor(now)
			if idle >= quiet {
				return
			}
			wait.Reset(quiet - idle)
		}
	}
}
