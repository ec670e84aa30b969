package runner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// TestDryRun: a plan resolves what Run resolves (limits with the
// overrides, the policy --allow-all puts in place), defaults the git ref
// to HEAD, keeps the commands in the order they run and names the env
// without its values.
func TestDryRun(t *testing.T) {
	own := &approve.Policy{Allow: []approve.Rule{{Pos: "s.yaml:4", Kind: []string{"read"}}}}
	sc := &scenario.Scenario{
		Name: "s", File: "s.yaml", Pos: scenario.Pos{Line: 2},
		Agent: scenario.Agent{Name: "mock", Command: []string{"agent"}, Cwd: "/w",
			Env: map[string]string{"TOKEN": "secret", "A": "1"}, Mode: "code", Model: "big",
			Config:     []scenario.ConfigSetting{{ID: "effort", Value: "high"}},
			McpServers: []byte(`[{"name":"files","command":"/f","args":[],"env":[]},{"type":"http","name":"docs","url":"http://x","headers":[]}]`)},
		TurnTimeout: time.Minute,
		Client:      scenario.Client{FS: true, Roots: []string{"/w"}},
		Workspace:   &scenario.Workspace{Git: "/repo"},
		Teardown:    []scenario.Command{{Run: "c", Timeout: 3 * time.Second}},
		Setup:       []scenario.Command{{Run: "a"}},
		Verify:      []scenario.Command{{Run: "b", Timeout: 2 * time.Second}},
		Policy:      own,
		Turns: []scenario.Turn{
			{Prompt: []scenario.Part{{Text: "one"}}, Expect: scenario.Expect{StopReasons: []string{"end_turn"}}},
			{Prompt: []scenario.Part{{Text: "two"}}, Timeout: 5 * time.Second},
		},
	}
	base := ScenarioPlan{
		Ref:       Ref{Name: "s", File: "s.yaml", Line: 2, Agent: "mock", Turns: 2},
		Command:   []string{"agent"},
		Cwd:       "/w",
		Workspace: &WorkspacePlan{Git: "/repo", Ref: "HEAD"},
		Commands: []CommandPlan{
			{Stage: "setup", Run: "a", Timeout: scenario.DefaultCommandTimeout},
			{Stage: "verify", Run: "b", Timeout: 2 * time.Second},
			{Stage: "teardown", Run: "c", Timeout: 3 * time.Second},
		},
		Mode:       "code",
		Model:      "big",
		Config:     []scenario.ConfigSetting{{ID: "effort", Value: "high"}},
		McpServers: []McpServerPlan{{Name: "files", Type: "stdio"}, {Name: "docs", Type: "http"}},
		EnvNames:   []string{"A", "TOKEN"},
		FS:         true,
		Roots:      []string{"/w"},
		Turns: []TurnPlan{
			{Prompt: "one", StopReasons: []string{"end_turn"}},
			{Prompt: "two"},
		},
	}
	tests := []struct {
		name       string
		opts       Options
		policy     *approve.Policy
		turns      []time.Duration
		turn, idle time.Duration
	}{
		{name: "the scenario's own", policy: own, turn: time.Minute, turns: []time.Duration{time.Minute, 5 * time.Second}},
		{
			name:   "overrides and --allow-all",
			opts:   Options{Policy: approve.AllowAll(), Overrides: Overrides{TurnTimeout: time.Hour, IdleTimeout: time.Second}},
			policy: approve.AllowAll(),
			turn:   time.Hour, idle: time.Second, turns: []time.Duration{time.Hour, time.Hour},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := base
			want.Policy = tt.policy
			want.Limits = Limits{Turn: tt.turn, Turns: tt.turns, Idle: tt.idle, CancelGrace: DefaultCancelGrace, KillGrace: DefaultKillGrace}
			want.Turns = []TurnPlan{base.Turns[0], base.Turns[1]}
			for i := range want.Turns {
				want.Turns[i].Timeout = tt.turns[i]
			}
			got := DryRun(tt.opts, []*scenario.Scenario{sc})
			if diff := cmp.Diff([]ScenarioPlan{want}, got); diff != "" {
				t.Errorf("DryRun (-want +got):\n%s", diff)
			}
		})
	}
}
