package runner

import (
	"time"

	"github.com/acprun/acprun/scenario"
)

// Overrides are the limits a run imposes on every scenario
// (--turn-timeout, --idle-timeout). Zero fields leave the scenarios' own.
type Overrides struct {
	// TurnTimeout replaces every turn's timeout, including those a turn
	// sets itself.
	TurnTimeout time.Duration
	// IdleTimeout replaces every scenario's idle timeout.
	IdleTimeout time.Duration
}

// Limits are the deadlines and grace periods one attempt of a scenario
// runs under, with the run's overrides and the defaults applied: what Run
// enforces and what --dry-run shows.
type Limits struct {
	// Scenario bounds the whole attempt; 0 for no bound.
	Scenario time.Duration
	// Turn is the timeout of a turn that sets none of its own.
	Turn time.Duration
	// Turns holds each turn's timeout, by the turn's index.
	Turns []time.Duration
	// Idle cancels a turn when the agent sends nothing for that long; 0
	// for never.
	Idle time.Duration
	// CancelGrace is how long a cancelled turn waits for the prompt's
	// answer before the agent is stopped.
	CancelGrace time.Duration
	// KillGrace is how long the agent has to exit after its stdin is
	// closed, before it is signalled.
	KillGrace time.Duration
}

// Resolve returns the limits sc runs under with the overrides o. The
// precedence, first set wins: a turn's timeout is o.TurnTimeout, the
// turn's own, the scenario's turnTimeout, DefaultTurnTimeout; the idle
// timeout is o.IdleTimeout, the scenario's, none; the graces are the
// scenario's, else DefaultCancelGrace and DefaultKillGrace. The
// scenario's values already include the config file's defaults.
func Resolve(sc *scenario.Scenario, o Overrides) Limits {
	l := Limits{
		Scenario:    sc.Timeout,
		Turn:        first(o.TurnTimeout, sc.TurnTimeout, DefaultTurnTimeout),
		Turns:       make([]time.Duration, len(sc.Turns)),
		Idle:        first(o.IdleTimeout, sc.IdleTimeout),
		CancelGrace: first(sc.CancelGrace, DefaultCancelGrace),
		KillGrace:   first(sc.KillGrace, DefaultKillGrace),
	}
	for i, t := range sc.Turns {
		l.Turns[i] = first(o.TurnTimeout, t.Timeout, l.Turn)
	}
	return l
}

// first returns the first positive duration of ds, or 0.
func first(ds ...time.Duration) time.Duration {
	for _, d := range ds {
		if d > 0 {
			return d
		}
	}
	return 0
}

// limits are the limits of this attempt.
func (r *scenarioRun) limits() Limits { return Resolve(r.sc, r.opts.Overrides) }
