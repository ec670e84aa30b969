package runner

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// TestDryRun: a plan resolves what Run resolves (limits with the
// overrides, the policy --allow-all puts in place, no reuse for a
// scenario whose verdict looks at its workspace), defaults the git ref to
// HEAD, keeps the commands in the order they run and names the env
// without its values.
func TestDryRun(t *testing.T) {
	t.Parallel()
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
		noReuse    string
	}{
		{name: "the scenario's own", policy: own, turn: time.Minute, turns: []time.Duration{time.Minute, 5 * time.Second}},
		{
			name:   "overrides and --allow-all",
			opts:   Options{Policy: approve.AllowAll(), Overrides: Overrides{TurnTimeout: time.Hour, IdleTimeout: time.Second}},
			policy: approve.AllowAll(),
			turn:   time.Hour, idle: time.Second, turns: []time.Duration{time.Hour, time.Hour},
		},
		{
			name:   "--reuse-agents",
			opts:   Options{ReuseAgents: true},
			policy: own, turn: time.Minute, turns: []time.Duration{time.Minute, 5 * time.Second},
			noReuse: ownFiles,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := base
			want.Policy = tt.policy
			want.NoReuse = tt.noReuse
			want.Currency = scenario.DefaultCurrency
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

// TestDryRunBudgetAndSandbox: a plan carries the scenario's and each
// turn's budget, and the sandbox as the run would plan it: the session cwd
// and the named agent's state writable (with HOME from agent.env over the
// environment), the credentials hidden that exist (under acprun's HOME and
// the agent's), the scenario's own paths after them, those that do not
// exist set apart, without asking this host what it can enforce.
func TestDryRunBudgetAndSandbox(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home, agentHome, w := filepath.Join(dir, "home"), filepath.Join(dir, "agent-home"), filepath.Join(dir, "w")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(agentHome, ".aws"), filepath.Join(w, "secrets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cost, turnTokens := 1.5, int64(1000)
	sc := &scenario.Scenario{
		Name: "s", File: "s.yaml",
		Agent:  scenario.Agent{Name: "claude", Command: []string{"claude-acp"}, Cwd: w, Env: map[string]string{"HOME": agentHome}},
		Budget: &scenario.UsageExpect{MaxCost: &cost},
		Sandbox: &scenario.Sandbox{Write: []string{"/cache"}, Hide: []string{w + "/secrets", w + "/secret"},
			Network: true, Ports: []int{443}, Level: scenario.SandboxBestEffort},
		Turns: []scenario.Turn{
			{Prompt: []scenario.Part{{Text: "one"}}},
			{Prompt: []scenario.Part{{Text: "two"}}, Budget: &scenario.UsageExpect{MaxTotalTokens: &turnTokens}},
		},
	}
	plans := DryRun(Options{Environ: []string{"HOME=" + home, EnvTestNoPasswd + "=1"}}, []*scenario.Scenario{sc})
	p := plans[0]
	if p.Budget != sc.Budget || p.Turns[0].Budget != nil || p.Turns[1].Budget != sc.Turns[1].Budget {
		t.Errorf("budgets: scenario %v, turns %v and %v; want the scenario's and turn 2's", p.Budget, p.Turns[0].Budget, p.Turns[1].Budget)
	}
	if p.Currency != scenario.DefaultCurrency {
		t.Errorf("currency %q, want %s: no config names one", p.Currency, scenario.DefaultCurrency)
	}
	want := &SandboxPlan{
		Write:       []string{w, agentHome + "/.claude", agentHome + "/.claude.json", "/cache"},
		Hide:        []string{home + "/.ssh", agentHome + "/.aws", w + "/secrets"},
		HideMissing: []string{w + "/secret"},
		Network:     true, Ports: []int{443}, Level: "best-effort",
	}
	if diff := cmp.Diff(want, p.Sandbox); diff != "" {
		t.Errorf("sandbox (-want +got):\n%s", diff)
	}
	sc.Sandbox = nil
	if p := DryRun(Options{}, []*scenario.Scenario{sc})[0]; p.Sandbox != nil {
		t.Errorf("a scenario without a sandbox plans %+v", p.Sandbox)
	}
}

// TestDryRunRootsStartWithTheCwd: the roots a plan shows are those the run
// serves: the cwd, always, then client.roots.
func TestDryRunRootsStartWithTheCwd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		roots, want []string
	}{
		{roots: []string{"/w"}, want: []string{"/w"}},
		{roots: []string{"/other"}, want: []string{"/w", "/other"}},
		{roots: []string{"/other", "/w"}, want: []string{"/other", "/w"}},
	}
	for _, tt := range tests {
		sc := &scenario.Scenario{Name: "s", Agent: scenario.Agent{Command: []string{"agent"}, Cwd: "/w"},
			Client: scenario.Client{FS: true, Roots: tt.roots}, Turns: []scenario.Turn{{}}}
		if got := DryRun(Options{}, []*scenario.Scenario{sc})[0].Roots; !slices.Equal(got, tt.want) {
			t.Errorf("roots %q: plan shows %q; want %q", tt.roots, got, tt.want)
		}
	}
}

// TestDryRunPromptRedacted: a plan's prompt is redacted whole, as a run
// redacts: what shows the plan shows a cut of the prompt, in which the
// redaction of the printed text would no longer find the start of a
// secret the cut went through.
func TestDryRunPromptRedacted(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_PlanPromptSecret0123"
	sc := &scenario.Scenario{Name: "s", Agent: scenario.Agent{Command: []string{"agent"}, Cwd: "/w", Env: map[string]string{"API_KEY": secret}},
		Turns: []scenario.Turn{{Prompt: []scenario.Part{{Text: "use " + secret + " to deploy"}}}}}
	if got, want := DryRun(Options{}, []*scenario.Scenario{sc})[0].Turns[0].Prompt, "use [REDACTED] to deploy"; got != want {
		t.Errorf("the plan's prompt is %q, want %q", got, want)
	}
}
