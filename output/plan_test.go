package output_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// limits are the limits of a plan with the runner's defaults.
var limits = runner.Limits{Turn: 10 * time.Minute, CancelGrace: 10 * time.Second, KillGrace: 5 * time.Second}

// minimal is the plan of a scenario that sets nothing it need not.
func minimal() runner.ScenarioPlan {
	return runner.ScenarioPlan{
		Ref:     runner.Ref{Name: "basic", File: "s.yaml", Line: 1},
		Command: []string{"agent", "--acp"}, Cwd: "/w",
		Limits: limits, FS: true, Terminal: true, Roots: []string{"/w"},
		Turns: []runner.TurnPlan{{Prompt: "hi", Timeout: 10 * time.Minute, StopReasons: []string{"end_turn"}}},
	}
}

// TestPlan checks the --dry-run text of plans: each line appears only when
// the scenario has what it shows (budgets and sandboxes included), the rules line tells the three kinds of
// policy apart, long prompts are cut, argvs are shell-quoted and control
// characters escaped.
func TestPlan(t *testing.T) {
	with := func(f func(p *runner.ScenarioPlan)) runner.ScenarioPlan {
		p := minimal()
		f(&p)
		return p
	}
	tests := []struct {
		name  string
		plans []runner.ScenarioPlan
		want  string
	}{
		{
			name: "no plans",
			want: "",
		},
		{
			name:  "minimal",
			plans: []runner.ScenarioPlan{minimal()},
			want: `basic  (s.yaml:1)
  agent:    agent --acp
  cwd:      /w
  timeouts: scenario none, turn 10m0s, idle none, cancelGrace 10s, killGrace 5s
  client:   fs=true terminal=true readOnly=false roots=/w
  rules:    none (every request denied)
  turn 1:   "hi" (timeout 10m0s, expect end_turn)
`,
		},
		{
			name:  "reuse asked for, not done",
			plans: []runner.ScenarioPlan{with(func(p *runner.ScenarioPlan) { p.NoReuse = "its verdict reads files" })},
			want: `basic  (s.yaml:1)
  agent:    agent --acp
  cwd:      /w
  reuse:    no: its verdict reads files
  timeouts: scenario none, turn 10m0s, idle none, cancelGrace 10s, killGrace 5s
  client:   fs=true terminal=true readOnly=false roots=/w
  rules:    none (every request denied)
  turn 1:   "hi" (timeout 10m0s, expect end_turn)
`,
		},
		{
			name: "everything",
			plans: []runner.ScenarioPlan{with(func(p *runner.ScenarioPlan) {
				p.Ref.Agent = "claude"
				p.Reuse = true
				p.Workspace = &runner.WorkspacePlan{Git: "/repo", Ref: "HEAD"}
				p.Commands = []runner.CommandPlan{
					{Stage: "setup", Run: "make", Timeout: time.Minute},
					{Stage: "verify", Run: "go test ./...", Timeout: 2 * time.Minute, Sandboxed: true},
					{Stage: "teardown", Run: "rm -rf x", Timeout: time.Second},
				}
				p.Auth, p.Mode = "api-key", ""
				p.Model = "big"
				p.Config = []scenario.ConfigSetting{{ID: "effort", Value: "high"}, {ID: "thinking", Value: "true"}}
				p.McpServers = []runner.McpServerPlan{{Name: "files", Type: "stdio"}, {Name: "docs", Type: "http"}}
				p.EnvNames = []string{"A", "TOKEN"}
				p.Limits.Scenario, p.Limits.Idle = time.Hour, 30*time.Second
				p.ReadOnly, p.FS, p.Roots = true, false, []string{"/w", "/tmp/x"}
				p.Policy = &approve.Policy{
					Default: approve.Allow,
					Allow: []approve.Rule{{Pos: "s.yaml:9", Kind: []string{"read", "search"}},
						{Pos: "s.yaml:10", Command: []string{"go test *", "make"}, Input: map[string]string{"b": "x", "a": "^y"}, Always: true}},
					Deny: []approve.Rule{{Pos: "s.yaml:12", Title: []string{"*del*"}, Path: []string{"**/.env"}}},
				}
				cost, tokens, turnCost := 2.5, int64(200000), 0.5
				p.Budget = &scenario.UsageExpect{MaxCost: &cost, MaxTotalTokens: &tokens}
				p.Currency = "EUR"
				p.Sandbox = &runner.SandboxPlan{Write: []string{"/w", "/h/.claude"}, Hide: []string{"/h/.ssh", "/h/.aws"}, HideMissing: []string{"/w/secret"},
					Network: true, Ports: []int{443, 8080}, Level: "required"}
				p.Turns = append(p.Turns, runner.TurnPlan{Prompt: strings.Repeat("é", 61), Timeout: time.Second,
					StopReasons: []string{"end_turn", "cancelled"}, Budget: &scenario.UsageExpect{MaxCost: &turnCost}})
				p.Judges = []runner.JudgePlan{{Command: []string{"judge", "--acp"}, Turn: 2, Timeout: time.Minute, Sandboxed: true},
					{Command: []string{"claude-agent-acp"}, Timeout: 5 * time.Minute}}
			})},
			want: `basic  (s.yaml:1)
  agent:    agent --acp [claude]
  cwd:      /w
  reuse:    the agent process may serve other scenarios started the same way (if it offers session/close)
  workspace: git /repo at HEAD (a fresh checkout per attempt; cwd and roots are mapped into it)
  setup:    make (timeout 1m0s)
  verify:   go test ./... (timeout 2m0s, in the sandbox)
  teardown: rm -rf x (timeout 1s)
  auth:     api-key  mode: -
  session:  model big, effort=high, thinking=true (checked against what the agent offers when the session opens)
  mcp:      files (stdio), docs (http)
  env:      A, TOKEN (values hidden)
  timeouts: scenario 1h0m0s, turn 10m0s, idle 30s, cancelGrace 10s, killGrace 5s
  budget:   maxCost 2.5 EUR, maxTotalTokens 200000 (for the whole scenario; the turn that passes it is cancelled)
  client:   fs=false terminal=true readOnly=true roots=/w,/tmp/x
  sandbox:  level required, network on, ports 443,8080 (whether this host can enforce it is checked when the scenario starts)
    write /w, /h/.claude
    hide  /h/.ssh, /h/.aws, /w/secret (does not exist: nothing is hidden there)
  rules:    default allow, 2 allow, 1 deny
    deny  s.yaml:12 title=*del* path=**/.env
    allow s.yaml:9 kind=read|search
    allow s.yaml:10 command=go test *|make input.a=~^y input.b=~x always
  turn 1:   "hi" (timeout 10m0s, expect end_turn)
  turn 2:   "` + strings.Repeat("é", 60) + `…" (timeout 1s, expect end_turn|cancelled, budget maxCost 0.5 EUR)
  judge:    judge --acp (after turn 2, timeout 1m0s; in the sandbox, the workspace read-only)
  judge:    claude-agent-acp (after the last turn, timeout 5m0s)
`,
		},
		{
			name: "copied workspace, rules without a default, two scenarios",
			plans: []runner.ScenarioPlan{
				with(func(p *runner.ScenarioPlan) {
					p.Workspace = &runner.WorkspacePlan{From: "/src"}
					p.Mode = "code"
					p.Policy = &approve.Policy{}
					p.Sandbox = &runner.SandboxPlan{Write: []string{"/w"}, Level: "best-effort"}
				}),
				with(func(p *runner.ScenarioPlan) { p.Ref.Name, p.Ref.Line = "second", 7 }),
			},
			want: `basic  (s.yaml:1)
  agent:    agent --acp
  cwd:      /w
  workspace: copy of /src per attempt (cwd and roots are mapped into it)
  auth:     -  mode: code
  timeouts: scenario none, turn 10m0s, idle none, cancelGrace 10s, killGrace 5s
  client:   fs=true terminal=true readOnly=false roots=/w
  sandbox:  level best-effort, network off (whether this host can enforce it is checked when the scenario starts)
    write /w
    hide  none
  rules:    default deny, 0 allow, 0 deny
  turn 1:   "hi" (timeout 10m0s, expect end_turn)

second  (s.yaml:7)
  agent:    agent --acp
  cwd:      /w
  timeouts: scenario none, turn 10m0s, idle none, cancelGrace 10s, killGrace 5s
  client:   fs=true terminal=true readOnly=false roots=/w
  rules:    none (every request denied)
  turn 1:   "hi" (timeout 10m0s, expect end_turn)
`,
		},
		{
			name: "commands and patterns with blanks, quotes and control characters",
			plans: []runner.ScenarioPlan{with(func(p *runner.ScenarioPlan) {
				p.Command = []string{"./my agent", "--system-prompt", "be brief; rm -rf x", "", "a\nb\x1b[2J"}
				p.Commands = []runner.CommandPlan{{Stage: "setup", Run: "echo 'two words'  'x\ny'", Timeout: time.Minute}}
				p.Policy = &approve.Policy{Allow: []approve.Rule{{Pos: "s.yaml:4", Kind: []string{"read"}, Path: []string{"a\tb", "c d", "e\u202ef"},
					Input: map[string]string{"f": "^x\n"}}}}
				p.Judges = []runner.JudgePlan{{Command: []string{"judge", "it's"}, Timeout: time.Minute}}
			})},
			want: `basic  (s.yaml:1)
  agent:    './my agent' --system-prompt 'be brief; rm -rf x' '' 'a\x0ab\x1b[2J'
  cwd:      /w
  setup:    echo 'two words'  'x\x0ay' (timeout 1m0s)
  timeouts: scenario none, turn 10m0s, idle none, cancelGrace 10s, killGrace 5s
  client:   fs=true terminal=true readOnly=false roots=/w
  rules:    default deny, 1 allow, 0 deny
    allow s.yaml:4 kind=read path="a\tb"|c d|"e\u202ef" input.f=~"^x\n"
  turn 1:   "hi" (timeout 10m0s, expect end_turn)
  judge:    judge 'it'\''s' (after the last turn, timeout 1m0s)
`,
		},
		{
			name: "values from the file with control characters",
			plans: []runner.ScenarioPlan{with(func(p *runner.ScenarioPlan) {
				p.Cwd, p.Roots = "/w\nagent:    evil", []string{"/w", "/r\x1b[2J"}
				p.Workspace = &runner.WorkspacePlan{From: "/src\n", Protect: []string{"a\tb"}}
				p.Mode, p.Model = "m\x07", "x\ny"
			})},
			want: `basic  (s.yaml:1)
  agent:    agent --acp
  cwd:      /w\x0aagent:    evil
  workspace: copy of /src\x0a per attempt (cwd and roots are mapped into it)
  protect:  a b (an agent that changes them makes the attempt invalid)
  auth:     -  mode: m\x07
  session:  model x\x0ay (checked against what the agent offers when the session opens)
  timeouts: scenario none, turn 10m0s, idle none, cancelGrace 10s, killGrace 5s
  client:   fs=true terminal=true readOnly=false roots=/w,/r\x1b[2J
  rules:    none (every request denied)
  turn 1:   "hi" (timeout 10m0s, expect end_turn)
`,
		},
		{
			name:  "--allow-all",
			plans: []runner.ScenarioPlan{with(func(p *runner.ScenarioPlan) { p.Policy = approve.AllowAll() })},
			want:  "rules:    --allow-all (every request allowed)",
		},
		{
			name:  "--deny-all",
			plans: []runner.ScenarioPlan{with(func(p *runner.ScenarioPlan) { p.Policy = approve.DenyAll() })},
			want:  "rules:    --deny-all (every request denied)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Plan(&buf, tt.plans); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if strings.HasPrefix(tt.name, "--") { // only the rules line matters
				for line := range strings.Lines(got) {
					if strings.HasPrefix(strings.TrimSpace(line), "rules:") {
						got = strings.TrimSpace(line)
					}
				}
			}
			if diff := cmp.Diff(strings.Split(tt.want, "\n"), strings.Split(got, "\n")); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}

// failAfter fails every write after the first n bytes.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestPlanWriteError: a failed write is returned, not dropped.
func TestPlanWriteError(t *testing.T) {
	err := output.Plan(&failAfter{n: 40}, []runner.ScenarioPlan{minimal(), minimal()})
	if err == nil || err.Error() != "disk full" {
		t.Errorf("Plan on a failing writer = %v, want disk full", err)
	}
}
