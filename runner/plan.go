package runner

import (
	"maps"
	"os"
	"slices"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/scenario"
)

// ScenarioPlan is what Run would do with one scenario under the same
// Options, with every default and override resolved: what --dry-run
// shows. Of the agent's env it holds only the names, but a secret that a
// scenario put elsewhere (a ${VAR} in a command) is in it: what shows a
// plan redacts it with Redactor. Only the turns' prompts, which a plan
// shows cut, are redacted already (see TurnPlan).
type ScenarioPlan struct {
	Ref     Ref      // Attempt is 0
	Command []string // the agent's argv, as the scenario gives it
	Cwd     string   // the session cwd
	// Reuse is set when the agent process may serve other scenarios
	// too (agent.reuse, --reuse-agents).
	Reuse bool
	// NoReuse says why the scenario, which asks to reuse its agent, runs
	// it on a process of its own all the same; "" when it does not ask,
	// or may.
	NoReuse string
	// Workspace is nil when every attempt works in Cwd itself.
	Workspace *WorkspacePlan
	// Sandbox is the OS sandbox around the agent side as planned, nil for
	// none; whether this host can enforce it is checked only when the
	// scenario starts.
	Sandbox *SandboxPlan
	// Gateway is the model gateway between the agent and its model, nil
	// for none.
	Gateway *scenario.Gateway
	// Budget bounds what the agent may spend in the whole scenario; nil
	// for none. Each turn's is in its TurnPlan.
	Budget *scenario.UsageExpect
	// Currency is what the budgets' maxCost are in: the config's
	// currency, else scenario.DefaultCurrency (Scenario.CostCurrency).
	Currency string
	// Commands are the setup, verify and teardown commands, in that order.
	Commands []CommandPlan
	Auth     string // the auth method to use; "" for none
	Mode     string // the session mode to set; "" for the agent's own
	Model    string // the model to select; "" for the agent's own
	// Config are the session config options to set, in order (checked
	// against what the agent offers only when the session is opened).
	Config []scenario.ConfigSetting
	// McpServers are the MCP servers given to session/new, before the
	// agent's mcpCapabilities filter them.
	McpServers []McpServerPlan
	EnvNames   []string // the names of the agent's env, sorted
	Limits     Limits
	// Retries is how many times an attempt that errored or was invalid
	// runs again.
	Retries  int
	FS       bool     // fs/* is served
	Terminal bool     // terminal/* is served
	ReadOnly bool     // writes are refused
	Roots    []string // the directories the agent may touch: its cwd, then client.roots
	// Policy answers the permission requests: Options.Policy when set
	// (--allow-all, --deny-all; its Source says so), else the scenario's.
	// Nil denies every request.
	Policy *approve.Policy
	// Session is set when the scenario continues its recorded session
	// (session.resume, --resume).
	Session *SessionPlan
	Turns   []TurnPlan
	// Judges are the judge agents asked about the work: a turn's, then
	// the scenario's.
	Judges []JudgePlan
}

// JudgePlan is one judge: its agent's argv, when it is asked (Turn is the
// turn's number, 0 for the scenario's, after its last turn), its timeout,
// and whether it runs in the scenario's sandbox (see judgeSandbox).
type JudgePlan struct {
	Command   []string
	Turn      int
	Timeout   time.Duration
	Sandboxed bool
}

// SessionPlan is where a resumed session is recorded: the state file and
// the scenario's key in it.
type SessionPlan struct {
	StateFile string
	Key       string
}

// McpServerPlan is one MCP server of the agent: its name and type
// ("stdio", "http", "sse" or another type as written).
type McpServerPlan struct {
	Name string
	Type string
}

// WorkspacePlan is where each attempt works: a copy of From, or a
// checkout of Ref of the git repository Git.
type WorkspacePlan struct {
	From string // "" when Git is set
	Git  string
	Ref  string // "HEAD" when the scenario names none
	// Protect are the globs of the files the agent must leave alone.
	Protect []string
}

// SandboxPlan is a scenario's sandbox with its defaults added: the paths
// the agent may write in (the session cwd first, as written: a workspace
// maps it into each attempt's copy) and may not read (those that exist
// now), its network, the only ports it may connect to (empty: any) and
// its level.
type SandboxPlan struct {
	Write, Hide []string
	// HideMissing lists the paths of sandbox.hide that do not exist now:
	// nothing is hidden there (the default hidden paths that do not
	// exist are left out).
	HideMissing []string
	Network     bool
	Ports       []int
	Level       string
}

// CommandPlan is one setup, verify or teardown command.
type CommandPlan struct {
	Stage   string // "setup", "verify" or "teardown"
	Run     string // the shell line
	Timeout time.Duration
	// Sandboxed is set for a verify command that runs in the scenario's
	// sandbox (sandbox.verify).
	Sandboxed bool
}

// TurnPlan is one turn: its prompt as text, its timeout, the stop
// reasons it expects and its budget (nil for none). The prompt is
// redacted whole with Redactor: a plan shows only its start, and the
// redaction of what shows it could not find there the start of a secret
// that the cut went through.
type TurnPlan struct {
	Prompt      string
	Timeout     time.Duration
	StopReasons []string
	Budget      *scenario.UsageExpect
}

// DryRun returns the plan of each scenario, in order, as Run would play
// it under opts: the limits come from Resolve with opts.Overrides and the
// policy from opts.Policy, as Run's do. It starts nothing.
func DryRun(opts Options, scenarios []*scenario.Scenario) []ScenarioPlan {
	opts.setDefaults()
	opts.red = Redactor(opts, scenarios)
	plans := make([]ScenarioPlan, 0, len(scenarios))
	for _, sc := range scenarios {
		plans = append(plans, planOf(sc, opts))
	}
	return plans
}

// Redactor returns what a run of scenarios under opts redacts: the
// values of the env of their agents, of those of opts.Loaded and of every
// agent of opts.Config, and the secret-looking variables of opts.Environ
// (this process's environment when unset), but those that are no secrets
// (part of a scenario's name or file, of an agent's name or of a word of
// the protocol, one of acprun's own words). With no scenarios, it is what
// acprun redacts of the config's agents wherever it shows them (acprun
// agents).
func Redactor(opts Options, scenarios []*scenario.Scenario) *redact.Redactor {
	opts.setDefaults()
	return opts.runRedactor(scenarios)
}

// planOf is the plan of one scenario.
func planOf(sc *scenario.Scenario, opts Options) ScenarioPlan {
	lim := Resolve(sc, opts.Overrides)
	p := ScenarioPlan{
		Ref:      newJob(sc, 0).ref,
		Command:  sc.Agent.Command,
		Cwd:      sc.Agent.Cwd,
		Auth:     sc.Agent.Auth,
		Mode:     sc.Agent.Mode,
		Model:    sc.Agent.Model,
		Config:   sc.Agent.Config,
		EnvNames: slices.Sorted(maps.Keys(sc.Agent.Env)),
		Limits:   lim,
		Retries:  sc.Retries,
		FS:       sc.Client.FS,
		Terminal: sc.Client.Terminal,
		ReadOnly: sc.Client.ReadOnly,
		Roots:    servedRoots(sc.Agent.Cwd, sc.Client.Roots),
		Policy:   policyOf(sc, opts),
		Budget:   sc.Budget,
		Currency: sc.CostCurrency(),
		Gateway:  sc.Gateway,
	}
	if sc.Agent.Reuse || opts.ReuseAgents {
		p.NoReuse = ownProcess(sc)
		p.Reuse = p.NoReuse == ""
	}
	if spec := sandboxSpec(sc, opts.Environ, ""); spec != nil {
		p.Sandbox = &SandboxPlan{Write: spec.Write, Network: spec.Network, Ports: spec.Ports, Level: string(spec.Level)}
		own := len(spec.Hide) - len(sc.Sandbox.Hide) // the defaults come first
		for i, h := range spec.Hide {
			if _, err := os.Stat(h); err == nil {
				p.Sandbox.Hide = append(p.Sandbox.Hide, h)
			} else if i >= own {
				p.Sandbox.HideMissing = append(p.Sandbox.HideMissing, h)
			}
		}
	}
	p.McpServers = mcpServerPlans(sc.Agent.McpServers)
	if resumes(&opts, sc) {
		key, _ := sessionKey(sc, opts.redactor(sc))
		p.Session = &SessionPlan{StateFile: sc.StateFile(), Key: key}
	}
	if ws := sc.Workspace; ws != nil {
		p.Workspace = &WorkspacePlan{From: ws.From, Git: ws.Git, Ref: ws.Ref}
		p.Workspace.Protect = mapped(ws.Protect, func(g scenario.Located) string { return g.Value })
		if ws.Git != "" && ws.Ref == "" {
			p.Workspace.Ref = "HEAD"
		}
	}
	for _, stage := range []struct {
		name string
		cmds []scenario.Command
	}{{"setup", sc.Setup}, {"verify", sc.Verify}, {"teardown", sc.Teardown}} {
		for _, c := range stage.cmds {
			p.Commands = append(p.Commands, CommandPlan{Stage: stage.name, Run: c.Run, Timeout: c.Limit(),
				Sandboxed: stage.name == "verify" && sc.Sandbox != nil && sc.Sandbox.Verify})
		}
	}
	for i, t := range sc.Turns {
		p.Turns = append(p.Turns, TurnPlan{Prompt: opts.red.String(t.PromptText()), Timeout: lim.Turns[i], StopReasons: t.Expect.StopReasons, Budget: t.Budget})
		if j := t.Expect.Judge; j != nil {
			p.Judges = append(p.Judges, JudgePlan{Command: j.Agent.Command, Turn: i + 1, Timeout: j.Limit(), Sandboxed: sc.Sandbox != nil})
		}
	}
	if j := sc.Expect.Judge; j != nil {
		p.Judges = append(p.Judges, JudgePlan{Command: j.Agent.Command, Timeout: j.Limit(), Sandboxed: sc.Sandbox != nil})
	}
	return p
}

// mcpServerPlans names the servers of a scenario's mcpServers (a JSON
// array); nil for none, or when it does not decode (the run says why).
func mcpServerPlans(raw json.RawMessage) []McpServerPlan {
	var servers []acp.McpServer
	if len(raw) == 0 || json.Unmarshal(raw, &servers) != nil {
		return nil
	}
	var out []McpServerPlan
	for _, s := range servers {
		typ := s.Type
		if typ == acp.McpStdio {
			typ = "stdio"
		}
		out = append(out, McpServerPlan{Name: s.Name, Type: typ})
	}
	return out
}

// policyOf is the policy that answers sc's permission requests under
// opts: opts.Policy when set, else the scenario's own.
func policyOf(sc *scenario.Scenario, opts Options) *approve.Policy {
	if opts.Policy != nil {
		return opts.Policy
	}
	return sc.Policy
}
