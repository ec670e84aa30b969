package runner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestResolvePrecedence: for each limit, the first of override, turn,
// scenario and default that is set wins.
func TestResolvePrecedence(t *testing.T) {
	t.Parallel()
	const s = time.Second
	turns := func(ds ...time.Duration) []scenario.Turn {
		var ts []scenario.Turn
		for _, d := range ds {
			ts = append(ts, scenario.Turn{Timeout: d})
		}
		return ts
	}
	tests := []struct {
		name string
		sc   scenario.Scenario
		o    Overrides
		want Limits
	}{
		{
			name: "nothing set: the defaults, no scenario or idle bound",
			sc:   scenario.Scenario{Turns: turns(0)},
			want: Limits{Turn: DefaultTurnTimeout, Turns: []time.Duration{DefaultTurnTimeout}, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "no turns",
			sc:   scenario.Scenario{},
			want: Limits{Turn: DefaultTurnTimeout, Turns: []time.Duration{}, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "the scenario's values replace the defaults",
			sc:   scenario.Scenario{Timeout: 90 * s, TurnTimeout: 30 * s, IdleTimeout: 7 * s, CancelGrace: 3 * s, KillGrace: 2 * s, Turns: turns(0, 0)},
			want: Limits{Scenario: 90 * s, Turn: 30 * s, Turns: []time.Duration{30 * s, 30 * s}, Idle: 7 * s, CancelGrace: 3 * s, KillGrace: 2 * s},
		},
		{
			name: "a turn's own timeout beats the scenario's, for that turn only",
			sc:   scenario.Scenario{TurnTimeout: 30 * s, Turns: turns(0, 5*s, 0)},
			want: Limits{Turn: 30 * s, Turns: []time.Duration{30 * s, 5 * s, 30 * s}, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "a turn's own timeout beats the default",
			sc:   scenario.Scenario{Turns: turns(5*s, 0)},
			want: Limits{Turn: DefaultTurnTimeout, Turns: []time.Duration{5 * s, DefaultTurnTimeout}, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "the turn override beats turns and scenario",
			sc:   scenario.Scenario{TurnTimeout: 30 * s, Turns: turns(5*s, 0)},
			o:    Overrides{TurnTimeout: time.Minute},
			want: Limits{Turn: time.Minute, Turns: []time.Duration{time.Minute, time.Minute}, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "the idle override beats the scenario's",
			sc:   scenario.Scenario{IdleTimeout: 7 * s, Turns: turns(0)},
			o:    Overrides{IdleTimeout: 20 * s},
			want: Limits{Turn: DefaultTurnTimeout, Turns: []time.Duration{DefaultTurnTimeout}, Idle: 20 * s, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "the idle override sets one where the scenario has none",
			sc:   scenario.Scenario{Turns: turns(0)},
			o:    Overrides{IdleTimeout: 20 * s},
			want: Limits{Turn: DefaultTurnTimeout, Turns: []time.Duration{DefaultTurnTimeout}, Idle: 20 * s, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace},
		},
		{
			name: "overrides leave the scenario bound and the graces alone",
			sc:   scenario.Scenario{Timeout: 90 * s, CancelGrace: 3 * s, KillGrace: 2 * s, Turns: turns(0)},
			o:    Overrides{TurnTimeout: time.Minute, IdleTimeout: 20 * s},
			want: Limits{Scenario: 90 * s, Turn: time.Minute, Turns: []time.Duration{time.Minute}, Idle: 20 * s, CancelGrace: 3 * s, KillGrace: 2 * s},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(&tt.sc, tt.o)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}
