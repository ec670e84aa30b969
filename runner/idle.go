package runner

import (
	"context"
	"sync"
	"time"

	"github.com/acprun/acprun/acp"
)

// activity tracks when the agent was last heard from, and whether acprun is
// busy serving one of its requests: the idle clock stops while it is. A
// message counts when acprun has handled it, not when it was read: while
// acprun is behind (it has messages read and not yet handled, see
// acp.Conn.Lag) the agent is never idle, so that how fast acprun handles
// what the agent sends never decides what is recorded where.
type activity struct {
	mu   sync.Mutex
	last time.Time
	busy int
}

func newActivity() *activity { return &activity{last: time.Now()} }

// touch records activity at at: a wait that starts, a request served.
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

// servingWithin marks the start of serving one request whose hold on the
// idle clock ends at the latest when within is closed: the returned func
// marks the request's end, and whichever comes first restarts the idle
// clock. It is how a terminal/wait_for_exit holds the clock only within the
// turn that sent it (see session.Handle).
func (a *activity) servingWithin(within <-chan struct{}) func() {
	done := a.serving()
	var once sync.Once
	release := func() { once.Do(done) }
	handled := make(chan struct{})
	go func() {
		select {
		case <-within:
			release()
		case <-handled:
		}
	}()
	return func() {
		close(handled)
		release()
	}
}

// idleFor returns how long the agent has been idle at now, with the
// connection's lag l: since the later of the last touch and the last
// message handled; 0 while acprun is behind or busy.
func (a *activity) idleFor(now time.Time, l acp.Lag) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy > 0 || l.Behind {
		return 0
	}
	return now.Sub(later(a.last, l.Since))
}

// watchIdle cancels ctx with errIdleTimeout once the agent on conn has been
// idle for limit. It returns when ctx ends. An idle limit that runs out at
// ctx's deadline or after it leaves the cancel to the deadline, so that
// the cause does not depend on which of two timers fires first.
func (a *activity) watchIdle(ctx context.Context, cancel context.CancelCauseFunc, limit time.Duration, conn *acp.Conn) {
	a.touch(time.Now()) // the start of the wait counts as activity
	t := time.NewTimer(limit)
	defer t.Stop()
	deadline, hasDeadline := ctx.Deadline()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			idle := a.idleFor(now, conn.Lag())
			if idle >= limit {
				if hasDeadline && !now.Add(limit-idle).Before(deadline) {
					<-ctx.Done() // the deadline's cause, not idleness
					return
				}
				cancel(errIdleTimeout)
				return
			}
			t.Reset(limit - idle)
		}
	}
}

// Before each turn acprun waits until the agent has been quiet for
// settleQuiet, so that updates it sends right after a prompt's answer are
// recorded, late, with that turn rather than the next, and those it sends
// right after session/new with the setup. The quiet is counted from the
// last message handled, and the wait never ends while acprun is behind;
// settleMax bounds only the time acprun is not behind (an agent that keeps
// talking; long enough for one that floods slowly, as a -race build on a
// loaded machine does), settleBound the whole wait (an agent that floods
// faster than acprun handles).
const (
	settleQuiet = 100 * time.Millisecond
	settleMax   = 5 * time.Second
	settleBound = 30 * time.Second
)

// waitQuiet waits until the agent on conn has been quiet for quiet and
// acprun is not behind, or until acprun has waited most while not behind,
// or until ctx ends or gone is closed (nil: never). Then it waits until
// every message read so far has been handled: what comes next (a prompt)
// comes after all of them. It waits settleBound at most in all: an agent
// that floods without end, or that does not read an answer acprun writes,
// holds it no longer.
func (a *activity) waitQuiet(ctx context.Context, conn *acp.Conn, quiet, most time.Duration, gone <-chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, settleBound)
	defer cancel()
	a.settle(ctx, conn, quiet, most, gone)
	_ = conn.WaitHandled(ctx) // the end of ctx is the caller's to handle
}

// settle is waitQuiet's wait for quiet, until ctx ends.
func (a *activity) settle(ctx context.Context, conn *acp.Conn, quiet, most time.Duration, gone <-chan struct{}) {
	start, lag0 := time.Now(), conn.Lag()
	t := time.NewTimer(quiet)
	t.Stop()
	defer t.Stop()
	for {
		l := conn.Lag()
		if l.Behind {
			if conn.WaitHandled(ctx) != nil {
				return
			}
			continue
		}
		now := time.Now()
		idle := a.idleFor(now, l)
		spent := now.Sub(start) - (l.Total - lag0.Total) // not behind
		if idle >= quiet || spent >= most {
			return
		}
		t.Reset(min(quiet-idle, most-spent))
		select {
		case <-ctx.Done():
			return
		case <-gone:
			return
		case <-t.C:
		}
	}
}
