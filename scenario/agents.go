package scenario

import (
	"cmp"
	"errors"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/yamlnode"
)

// NamedAgent is an agent that scenarios, `run --agent` and `acprun probe`
// refer to by name: one of BuiltinAgents, or one defined in a config file.
type NamedAgent struct {
	Name        string
	Description string
	// Source is "built-in", or the config file that defines the agent.
	Source string
	// Agent says how to start it. Agent.Name is the name and Agent.Pos its
	// place in the config file (zero for a built-in). Cwd is "" unless the
	// config sets it (then the scenario's cwd is used); McpServers is nil
	// when none are given.
	Agent Agent
}

// SourceBuiltin is the Source of the built-in agents.
const SourceBuiltin = "built-in"

// builtinEntry is one of the well-known ACP agents acprun knows by name.
type builtinEntry struct {
	name, description, auth string
	command                 []string
	// authEnv is the environment variables it expects its credentials in
	// (none known for goose and opencode, which take theirs from their own
	// configuration).
	authEnv []string
	// state is where it keeps its state (logins, settings, sessions,
	// caches), which it must be able to write inside a sandbox: an
	// environment variable naming a directory ($CODEX_HOME), then what to
	// use when it is unset or empty (~/.codex); ~ is $HOME, "|" separates
	// the alternatives.
	state []string
	// tempEnv lists the variables besides TMPDIR it reads its temporary
	// directory from, set to the sandbox's private one (claude writes
	// under /tmp unless CLAUDE_CODE_TMPDIR says otherwise).
	tempEnv []string
	// enforce is what makes it ask before every edit and shell command
	// (checked by hand on each agent); nil for none.
	enforce *Enforcement
	// gateway is how acprun points it at its model gateway: the variables
	// it reads its providers' base URLs from, each with the provider's
	// default base URL as Upstream and its API-key variable (checked in
	// each agent's source); nil when unknown.
	gateway []GatewayTarget
	// env is set in its environment, unless agent.env sets it otherwise:
	// what turns off work no one headless sees (claude's prompt
	// suggestions, a model request after every turn, with the whole
	// conversation, whose answer only an editor shows).
	env map[string]string
}

// The providers' public base URLs and API-key variables, as the agents'
// SDKs have them.
var (
	anthropicTarget = GatewayTarget{Env: "ANTHROPIC_BASE_URL", Upstream: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY"}
	openAITarget    = GatewayTarget{Env: "OPENAI_BASE_URL", Upstream: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY"}
)

// builtinAgents are the well-known ACP agents acprun knows by name.
var builtinAgents = []builtinEntry{
	// claude-agent-acp moved from Zed (@zed-industries, last 0.23.1) to the
	// ACP organisation (@agentclientprotocol), the same program.
	{name: "claude", description: "Claude Code through its ACP adapter (needs Node.js; ANTHROPIC_API_KEY or a Claude login)",
		command: []string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}, authEnv: []string{"ANTHROPIC_API_KEY"},
		state: []string{"$CLAUDE_CONFIG_DIR|~/.claude", "~/.claude.json"}, tempEnv: []string{"CLAUDE_CODE_TMPDIR"},
		enforce: &Enforcement{ProjectSettingsFile: ".claude/settings.json",
			ProjectSettings: `{"permissions":{"defaultMode":"default","ask":["Bash","Edit","Write"]}}`,
			UnaskedModes:    []string{"bypassPermissions", "dontAsk", "auto"}, // acceptEdits still asks: the ask rules outrank it; auto: "Claude handles permission decisions"
			// ExitPlanMode's options: 0.23's are named after the mode each
			// switches to, the @agentclientprotocol adapter's are these.
			ModeOptions: map[string]string{"exit-plan-auto": "auto", "exit-plan-bypass": "bypassPermissions",
				"exit-plan-accept-edits": "acceptEdits", "exit-plan-default": "default", "exit-plan-clear-auto": "auto",
				"exit-plan-clear-bypass": "bypassPermissions", "exit-plan-clear-accept-edits": "acceptEdits"}},
		gateway: []GatewayTarget{anthropicTarget}, env: map[string]string{"CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false"}},
	{name: "codex", description: "OpenAI Codex through Zed's ACP adapter (needs Node.js and OPENAI_API_KEY)", auth: "openai-api-key",
		command: []string{"npx", "-y", "@zed-industries/codex-acp"}, authEnv: []string{"OPENAI_API_KEY"},
		state: []string{"$CODEX_HOME|~/.codex"},
		// Still Zed's codex-acp: @agentclientprotocol/codex-acp (2.x) is another
		// program, which ignores the -c below, starts in its mode agent (a
		// model reviews its approval requests) and calls its key auth
		// api-key. Its agent-full-access is full-access, and agent does not
		// ask the client either.
		enforce: &Enforcement{Args: []string{"-c", "approval_policy=untrusted"}, UnaskedModes: []string{"full-access", "agent-full-access", "agent"}},
		gateway: []GatewayTarget{openAITarget}}, // its built-in openai provider reads OPENAI_BASE_URL
	{name: "gemini", description: "Google Gemini CLI in ACP mode (needs Node.js; GEMINI_API_KEY or a Google login)",
		command: []string{"npx", "-y", "@google/gemini-cli", "--acp"}, authEnv: []string{"GEMINI_API_KEY"},
		state:   []string{"~/.gemini"},
		enforce: &Enforcement{Args: []string{"--approval-mode", "default"}, UnaskedModes: []string{"yolo", "autoEdit"}}, // autoEdit: "Auto-approves edit tools"
		gateway: []GatewayTarget{{Env: "GOOGLE_GEMINI_BASE_URL", Upstream: "https://generativelanguage.googleapis.com", KeyEnv: "GEMINI_API_KEY"}}},
	{name: "goose", description: "Block's goose in ACP mode (goose installed and configured)",
		command: []string{"goose", "acp"},
		state:   []string{"$XDG_CONFIG_HOME/goose|~/.config/goose", "$XDG_DATA_HOME/goose|~/.local/share/goose", "$XDG_STATE_HOME/goose|~/.local/state/goose"},
		gateway: []GatewayTarget{ // its anthropic and openai providers (the latter appends OPENAI_BASE_PATH, v1/chat/completions)
			{Env: "ANTHROPIC_HOST", Upstream: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY"},
			{Env: "OPENAI_HOST", Upstream: "https://api.openai.com", KeyEnv: "OPENAI_API_KEY"}}},
	{name: "mock", description: "acprun's scripted mock agent; give the script: agent: {name: mock, args: [x.mock.yaml]}",
		command: []string{"acprun", "mock-agent"}},
	{name: "opencode", description: "opencode in ACP mode (opencode installed and configured)",
		command: []string{"opencode", "acp"},
		state: []string{"$XDG_DATA_HOME/opencode|~/.local/share/opencode", "$XDG_CONFIG_HOME/opencode|~/.config/opencode",
			"$XDG_STATE_HOME/opencode|~/.local/state/opencode", "$XDG_CACHE_HOME/opencode|~/.cache/opencode"},
		enforce: &Enforcement{Env: map[string]string{"OPENCODE_CONFIG_CONTENT": `{"permission":{"edit":"ask","bash":"ask"}}`}},
		gateway: []GatewayTarget{ // its providers' options in the config document
			{Env: "OPENCODE_CONFIG_CONTENT", JSONPath: []string{"provider", "anthropic", "options", "baseURL"}, Upstream: "https://api.anthropic.com/v1", KeyEnv: "ANTHROPIC_API_KEY"},
			{Env: "OPENCODE_CONFIG_CONTENT", JSONPath: []string{"provider", "openai", "options", "baseURL"}, Upstream: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY"}}},
	// qwen reads OPENAI_API_KEY only when started with --auth-type=openai
	// (its auth method "openai" says so in its _meta); started so, it
	// needs no authenticate, which would also write the choice into the
	// user's ~/.qwen/settings.json and delete a cached Qwen OAuth login.
	{name: "qwen", description: "Qwen Code in ACP mode with its OpenAI-compatible auth (needs Node.js and OPENAI_API_KEY)",
		command: []string{"npx", "-y", "@qwen-code/qwen-code", "--acp", "--auth-type=openai"}, authEnv: []string{"OPENAI_API_KEY"},
		state: []string{"~/.qwen"},
		enforce: &Enforcement{Args: []string{"--approval-mode", "default"}, SettingsEnv: "QWEN_CODE_SYSTEM_SETTINGS_PATH",
			Settings:     `{"tools":{"approvalMode":"default"},"permissions":{"ask":["Bash","Edit"]}}`,
			UnaskedModes: []string{"yolo", "auto-edit", "auto"}}, // auto-edit approves edits, auto lets a classifier approve
		gateway: []GatewayTarget{openAITarget}}, // its OpenAI-compatible auth reads OPENAI_BASE_URL
}

// builtinDef returns the built-in agent called name, nil for none. Its
// state and enforcement follow the name: a config agent that takes a
// built-in's name is that agent, started its own way.
func builtinDef(name string) *builtinEntry {
	for i := range builtinAgents {
		if builtinAgents[i].name == name {
			return &builtinAgents[i]
		}
	}
	return nil
}

// BuiltinAgents returns the agents acprun knows by name, sorted by name:
// claude, codex, gemini, goose, mock (acprun's own mock agent, which needs
// its script as an argument), opencode and qwen. A config file may
// override any of them.
func BuiltinAgents() []NamedAgent {
	out := make([]NamedAgent, len(builtinAgents))
	for i, b := range builtinAgents {
		out[i] = NamedAgent{Name: b.name, Description: b.description, Source: SourceBuiltin,
			Agent: Agent{Name: b.name, Command: slices.Clone(b.command), Auth: b.auth, AuthEnv: slices.Clone(b.authEnv), Env: maps.Clone(b.env)}}
	}
	return out
}

func builtinAgent(name string) (NamedAgent, bool) {
	for _, na := range BuiltinAgents() {
		if na.Name == name {
			return na, true
		}
	}
	return NamedAgent{}, false
}

// NamedAgents returns every agent known by name: the built-in ones and the
// config's, a config agent replacing a built-in one of the same name,
// sorted by name. c may be nil (built-in agents only). Config agents are
// shown as LoadConfig read them (see Config.Agents).
func (c *Config) NamedAgents() []NamedAgent {
	byName := map[string]NamedAgent{}
	for _, na := range BuiltinAgents() {
		byName[na.Name] = na
	}
	if c != nil {
		maps.Copy(byName, c.Agents)
	}
	out := slices.Collect(maps.Values(byName))
	slices.SortFunc(out, func(a, b NamedAgent) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// agentNames returns the names of every agent known by name, sorted.
func agentNames(c *Config) []string {
	var names []string
	for _, na := range c.NamedAgents() {
		names = append(names, na.Name)
	}
	return names
}

// ResolveAgent returns the agent named name (see Config.NamedAgents), as a
// scenario would have it with `agent: NAME`: Agent.Name set, McpServers
// "[]" when none, Cwd "" unless the config sets it. Variables in a config
// agent are expanded with opts.LookupEnv. An unknown name is an error that
// suggests a close one or lists the known names; a problem in the config
// file is an Errors, and so is a cwd that is not a directory, as a
// scenario's load reports it, at the cwd value. An unset variable and a
// cwd that is not a directory are both in the Errors; a cwd an unset
// variable gives has that variable's problem alone.
func ResolveAgent(name string, opts LoadOptions) (Agent, error) {
	opts.DeferUnset = true // the unset variables, then the cwd
	na, unset, err := resolveNamed(name, opts)
	if err != nil {
		return Agent{}, err
	}
	p := &fileParser{}
	if len(na.Agent.Unset["cwd"]) == 0 {
		p.checkCwd(&na.Agent)
	}
	if errs := append(unset, p.Errs...); len(errs) > 0 {
		return Agent{}, sorted(errs)
	}
	a := na.Agent
	if a.McpServers == nil {
		a.McpServers = json.RawMessage("[]")
	}
	return a, nil
}

// resolveNamed returns the agent named name, and the problems of the
// unset variables it uses when opts.DeferUnset, as a scenario that names
// it has them (Scenario.Unset); without it, they are errors.
func resolveNamed(name string, opts LoadOptions) (NamedAgent, Errors, error) {
	p := &fileParser{lookup: opts.lookupEnv(), cfg: opts.Config, deferUnset: opts.DeferUnset}
	na, ok := p.named(name)
	if !ok {
		return NamedAgent{}, nil, errors.New(unknownMsg("agent", name, agentNames(opts.Config), "agents"))
	}
	if len(p.Errs) > 0 {
		return NamedAgent{}, nil, sorted(p.Errs)
	}
	return na, sorted(p.unset), nil
}

// WithAgent returns a copy of the scenario that runs the agent named name
// instead of its own, for running scenarios against several agents. The
// copy takes the named agent's command, auth, mode, model and config (option
// ids and values are an agent's own); its env is the variables the
// scenario's agent gives itself (Agent.OwnEnv, not those of the agent it
// names, which may be its credentials) with the named agent's on top; its
// mcpServers are the named agent's when it has some, else the scenario's; it reuses its agent
// process when either agent says reuse. Its session cwd is the one the
// scenario's agent gives itself (Agent.OwnCwd), else the named agent's,
// else the default (the scenario file's directory, or its workspace's
// source), and its client roots follow it when the scenario gives none;
// a named agent's cwd that is not a directory is an Errors, as for
// ResolveAgent. Agent.Name is name. The scenario's gateway
// is pointed at the named agent: an agent acprun cannot point is an error.
// With opts.DeferUnset, the unset variables of the named agent are the
// copy's Unset too, as when the scenario names it, and those of the
// values of the scenario's agent that the copy does not take are not.
// The copy shares the turns, policy and other values with sc.
//
// A scenario whose agent already is the agent named name (agent: NAME,
// agent: {name: NAME, ...}, the config's default agent of that name) is
// copied as it is: its agent, with the changes it makes to the named one
// (args, model, mode, config, env, cwd), is that agent.
func (sc *Scenario) WithAgent(name string, opts LoadOptions) (*Scenario, error) {
	if sc.Agent.Name != "" && sc.Agent.Name == name {
		c := *sc
		return &c, nil
	}
	na, unset, err := resolveNamed(name, opts)
	if err != nil {
		return nil, err
	}
	if na.Agent.BareMock() {
		return nil, errors.New(errBareMock)
	}
	c := *sc
	c.Unset = sc.unsetWith(na.Agent, unset)
	a := na.Agent
	if err := sc.cwdFor(&a); err != nil {
		return nil, err
	}
	a.Pos = sc.Agent.Pos // the command, and where its words are, the config's
	if len(sc.Agent.OwnEnv) > 0 {
		env := maps.Clone(sc.Agent.OwnEnv)
		maps.Copy(env, a.Env)
		a.Env = env
	}
	a.OwnEnv = sc.Agent.OwnEnv
	a.Spelled = slices.Concat(a.Spelled, sc.Agent.Spelled) // its own env's among them
	if a.McpServers == nil {
		a.McpServers, a.McpServerPos = sc.Agent.McpServers, sc.Agent.McpServerPos
	}
	if a.McpServers == nil {
		a.McpServers = json.RawMessage("[]")
	}
	if sc.Agent.Reuse && !a.Reuse {
		a.Reuse, a.ReusePos = true, sc.Agent.ReusePos
	}
	c.Agent = a
	if c.Client.RootsPos == (Pos{}) && slices.Equal(sc.Client.Roots, []string{sc.Agent.Cwd}) {
		c.Client.Roots, c.Client.RootPos = []string{a.Cwd}, nil // the default follows the cwd
	}
	if c.EnforcePos == (Pos{}) { // the default follows the agent
		c.Enforce = defaultEnforce(name)
	}
	c.Agent.applyEnforcement(c.Enforce)
	if g := sc.Gateway; g != nil {
		var problem string
		if c.Gateway, problem = g.pointed(c.Agent, opts.lookupEnv()); problem == "" {
			problem = c.Gateway.keyIsBaseURL()
		}
		if problem != "" {
			return nil, errors.New(problem)
		}
	}
	return &c, nil
}

// cwdFor sets the session cwd of a, the named agent that WithAgent runs
// sc with: the cwd sc's agent gives itself, else a's own (checked as
// ResolveAgent checks it), else the default (defaultCwd).
func (sc *Scenario) cwdFor(a *Agent) error {
	switch {
	case sc.Agent.OwnCwd:
		a.Cwd, a.OwnCwd, a.CwdPos = sc.Agent.Cwd, true, sc.Agent.CwdPos
	case a.Cwd != "":
		p := &fileParser{}
		if p.checkCwd(a); len(p.Errs) > 0 {
			return sorted(p.Errs)
		}
	default:
		a.Cwd, a.CwdPos = sc.defaultCwd(), Pos{}
	}
	return nil
}

// defaultCwd is the session cwd of sc's agent when no cwd key gives one,
// as Load sets it: its workspace's source (which the runner maps to each
// attempt's copy), else the directory of its file.
func (sc *Scenario) defaultCwd() string {
	if w := sc.Workspace; w != nil && w.Source() != "" {
		return w.Source()
	}
	return absOr(filepath.Dir(sc.File))
}

// unsetWith is the Unset of sc's copy that runs the named agent a (see
// WithAgent), with unset the problems of a's own values: sc's, without
// those of the values of sc's agent that the copy does not take (its
// command, its named agent's env, …) unless a judge's agent has them too
// (the same config agent), and with unset.
func (sc *Scenario) unsetWith(a Agent, unset Errors) Errors {
	taken := map[string]bool{"cwd": sc.Agent.OwnCwd, "env": sc.Agent.OwnEnv != nil, "mcpServers": a.McpServers == nil}
	var dropped Errors
	for k, probs := range sc.Agent.Unset {
		if !taken[k] {
			dropped = append(dropped, probs...)
		}
	}
	if len(dropped) == 0 && len(unset) == 0 {
		return sc.Unset
	}
	judges := []*Judge{sc.Expect.Judge}
	for _, t := range sc.Turns {
		judges = append(judges, t.Expect.Judge)
	}
	for _, j := range judges {
		if j == nil {
			continue
		}
		for _, probs := range j.Agent.Unset {
			unset = append(unset, probs...)
		}
	}
	kept := slices.DeleteFunc(slices.Clone(sc.Unset), func(e *srcerr.Error) bool {
		return slices.ContainsFunc(dropped, func(d *srcerr.Error) bool { return *d == *e })
	})
	return sorted(append(kept, unset...))
}

// named returns the agent called name: from the config (its node parsed
// again with p's lookup, so that unset variables matter only for agents in
// use; problems go to p.Errs), else a built-in one. ok is false for an
// unknown name; the caller reports it.
func (p *fileParser) named(name string) (na NamedAgent, ok bool) {
	if c := p.cfg; c != nil {
		if n, found := c.agentNodes[name]; found {
			cp := p.sub(c)
			na := cp.namedAgent(name, n)
			p.absorb(cp)
			return na, true
		}
		if na, found := c.Agents[name]; found {
			na.Agent.Command = slices.Clone(na.Agent.Command)
			na.Agent.Env = maps.Clone(na.Agent.Env)
			return na, true
		}
	}
	return builtinAgent(name)
}

// agentSpec is an agent as written: the name of a named agent, a mapping
// with a command, or a mapping with a name and changes to that agent.
type agentSpec struct {
	pos         Pos
	name        string
	nameNode    *yaml.Node // nil when the agent names no agent (or an empty name)
	command     []string   // nil when not given
	args        []string
	commandPos  []Pos             // where each word of command was given
	argsPos     []Pos             // where each of args was given
	env         map[string]string // nil when not given
	cwd         *string           // absolute, or "" for the default
	cwdPos      Pos               // the cwd value
	auth, mode  *string
	modePos     Pos // the mode value
	model       *string
	modelPos    Pos             // the model value
	config      []ConfigSetting // nil when not given
	mcp         json.RawMessage // nil when not given
	mcpPos      []Pos           // where each server of mcp was given
	spelled     []string        // see Agent.Spelled
	description string
	replay      string // the absolute path of the transcript of agent: {replay: path}
	replayPos   Pos    // the replay value
	reuse       *bool  // nil when not given
	reusePos    Pos

	commandSuggested bool // an unknown key was taken for a misspelt command

	unset map[string]Errors // the problems of unset variables in its values (see Agent.Unset)

	empty []emptyValue // keys given an empty value (see checkEmpty)
}

// agentSpec reads an agent: with keys agentKeys a scenario's (or the
// config defaults') agent, a string or a mapping; with namedAgentKeys the
// definition of a named agent in a config file, a mapping. In a config
// file, a relative program path (with a /) resolves against its directory.
func (p *fileParser) agentSpec(n *yaml.Node, keys []string) agentSpec {
	n = yamlnode.Deref(n)
	spec := agentSpec{pos: p.pos(n)}
	scenarioForm := slices.Contains(keys, "name")
	if n.Kind == yaml.ScalarNode && !yamlnode.IsNull(n) && scenarioForm {
		p.agentName(&spec, n)
		return spec
	}
	if n.Kind != yaml.MappingNode {
		if scenarioForm {
			p.Expected(n, "an agent name or a mapping with a command")
		} else {
			p.Expected(n, "a mapping with a command")
		}
		return spec
	}
	m, _ := p.mapping(n, keys, nil)
	spelled := len(p.spelled)
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		first := len(p.unset)
		switch kv.Key {
		case "name":
			if _, ok := p.str(v); ok {
				p.agentName(&spec, v)
			}
		case "command":
			spec.command = p.command(v)
			if spec.command == nil {
				spec.command = []string{}
			}
			spec.commandPos = p.wordPositions(v, len(spec.command))
			if prog := spec.command; p.inConfig && len(prog) > 0 && strings.Contains(prog[0], "/") && !filepath.IsAbs(prog[0]) {
				prog[0] = p.abs(prog[0])
			}
		case "args":
			nodes, _ := p.strNodes(v, false, false)
			spec.args = []string{}
			for _, a := range nodes {
				if w, ok := p.interpArg(a); ok {
					spec.args = append(spec.args, w)
					spec.argsPos = append(spec.argsPos, p.pos(a))
				}
			}
		case "env":
			spec.env = p.env(v)
		case "cwd":
			if cwd, ok := p.interpArg(v); ok {
				p.noteEmpty(&spec, v, "cwd", cwd)
				if cwd != "" {
					cwd = p.abs(cwd)
				}
				spec.cwd, spec.cwdPos = &cwd, p.pos(v)
			}
		case "auth":
			if s, ok := p.interp(v); ok {
				p.noteEmpty(&spec, v, "auth", s)
				spec.auth = &s
			}
		case "mode":
			if s, ok := p.interp(v); ok {
				p.noteEmpty(&spec, v, "mode", s)
				spec.mode, spec.modePos = &s, p.pos(v)
			}
		case "model":
			if s, ok := p.interp(v); ok {
				p.noteEmpty(&spec, v, "model", s)
				spec.model, spec.modelPos = &s, p.pos(v)
			}
		case "config":
			spec.config = p.sessionConfig(v)
		case "mcpServers":
			spec.mcp, spec.mcpPos = p.mcpServers(v)
		case "description":
			if !yamlnode.IsNull(v) {
				spec.description, _ = p.str(v)
			}
		case "replay":
			if path, ok := p.interp(v); ok {
				spec.replay, _ = p.existingFile(v, "replay transcript", path, -1)
				spec.replayPos = p.pos(v)
			}
		case "reuse":
			if b, ok := p.boolean(v); ok {
				spec.reuse, spec.reusePos = &b, p.pos(v)
			}
		}
		spec.noteUnset(kv.Key, p.unset[first:])
	}
	spec.spelled = slices.Clip(p.spelled[spelled:]) // the spellings of its env and mcpServers values
	if !scenarioForm {
		spec.commandSuggested = m.suggested["command"]
		return spec
	}
	name, cmd, replay := m.has["name"], m.has["command"], m.has["replay"]
	switch {
	case replay != nil && (name != nil || cmd != nil):
		other := "name"
		if cmd != nil {
			other = "command"
		}
		p.Errorf(replay, "use either replay (a recorded transcript) or %s, not both", other)
	case replay != nil:
		if args := m.has["args"]; args != nil {
			p.Errorf(args, "args adds arguments to a named agent's command: a replay agent takes none")
		}
		spec.command = replayCommand(spec.replay)
		spec.commandPos = []Pos{2: spec.replayPos} // the transcript is the value; the rest is acprun's
	case name != nil && cmd != nil:
		p.Errorf(cmd, "use either name (a named agent) or command, not both")
	case name == nil:
		p.require(m, "command")
		if args := m.has["args"]; args != nil {
			p.Errorf(args, "args adds arguments to a named agent's command: give name, or write them in command")
		}
	}
	return spec
}

// agentName gives spec the name of a named agent, the scalar n.
func (p *fileParser) agentName(spec *agentSpec, n *yaml.Node) {
	spec.name = n.Value
	if strings.TrimSpace(n.Value) == "" {
		p.Errorf(n, "agent name is empty")
	} else {
		spec.nameNode = n
	}
}

// noteUnset notes the problems of the unset variables in the value of
// key, by the key of Agent.Unset they go under.
func (spec *agentSpec) noteUnset(key string, probs Errors) {
	if len(probs) == 0 {
		return
	}
	if key != "env" && key != "cwd" && key != "mcpServers" {
		key = ""
	}
	if spec.unset == nil {
		spec.unset = map[string]Errors{}
	}
	spec.unset[key] = append(spec.unset[key], probs...)
}

// noteEmpty notes that key, whose value n gives, is empty (s): an empty
// value drops the named agent's own, and is an error where there is none
// to drop (see checkEmpty). While LoadConfig checks its agents leniently,
// an empty value from a variable is not noted: Load checks it again, with
// the environment, where a scenario uses it.
func (p *fileParser) noteEmpty(spec *agentSpec, n *yaml.Node, key, s string) {
	fromVar := strings.Contains(yamlnode.Deref(n).Value, "${")
	if s != "" || fromVar && p.lenient {
		return
	}
	spec.empty = append(spec.empty, emptyValue{key: key, n: n, fromVar: fromVar})
}

// emptyValue is an agent key given an empty value.
type emptyValue struct {
	key     string
	n       *yaml.Node
	fromVar bool // the value comes from a variable (${VAR:-}, ${EMPTY})
}

// emptyWants says, for each key that may drop a named agent's value, what
// to give instead of an empty value, and what leaving the key out means.
var emptyWants = map[string][2]string{
	"cwd":   {"a directory", " for the scenario file's directory"},
	"auth":  {"the id of an auth method the agent offers", " to skip authenticate"},
	"mode":  {"the id of a session mode the agent offers", " for the agent's default"},
	"model": {"the id of a model the agent offers", " for the agent's default"},
}

// checkEmpty reports each key of spec given an empty value that has
// nothing to drop, base (the named agent the spec changes, or none) having
// no value for it: an error at the value that says what to give, and,
// when a variable gives it, that the variable may be unset.
func (p *fileParser) checkEmpty(spec agentSpec, base Agent) {
	own := map[string]string{"cwd": base.Cwd, "auth": base.Auth, "mode": base.Mode, "model": base.Model}
	for _, e := range spec.empty {
		if own[e.key] != "" {
			continue // drops the named agent's
		}
		hint := ""
		if e.fromVar {
			hint = " (is the variable that gives it unset?)"
		}
		w := emptyWants[e.key]
		p.Errorf(e.n, "%s is empty%s: give %s, or leave %s out%s", e.key, hint, w[0], e.key, w[1])
	}
}

// wordPositions is where each of the n words of the command value n was
// given: each item of a list, the value itself for the words of a string.
func (p *fileParser) wordPositions(n *yaml.Node, count int) []Pos {
	n = yamlnode.Deref(n)
	out := make([]Pos, count)
	for i := range out {
		if n.Kind == yaml.SequenceNode && i < len(n.Content) {
			out[i] = p.pos(n.Content[i])
		} else {
			out[i] = p.pos(n)
		}
	}
	return out
}

// agentFromSpec turns a scenario's agent into an Agent: the named agent
// with the spec's changes, or the spec's own command. Cwd is "" unless set.
func (p *fileParser) agentFromSpec(spec agentSpec) Agent {
	base := Agent{Name: spec.name}
	if spec.nameNode != nil {
		if na, ok := p.named(spec.name); ok {
			base = na.Agent
			if na.Agent.BareMock() && len(spec.args) == 0 && spec.command == nil {
				p.Errorf(spec.nameNode, "%s", errBareMock)
			}
		} else {
			p.Errorf(spec.nameNode, "%s%s", unknownMsg("agent", spec.name, agentNames(p.cfg), "agents"), unloadedConfigHint(p.dir, p.cfg))
		}
	}
	p.checkEmpty(spec, base)
	a := overlay(base, spec)
	a.Pos = spec.pos
	a.OwnEnv = maps.Clone(spec.env)
	a.OwnCwd = spec.cwd != nil
	for k, probs := range base.Unset {
		if k == "env" {
			k = "" // the named agent's variables are not the scenario's own
		}
		spec.noteUnset(k, probs)
	}
	a.Unset = spec.unset
	if a.McpServers == nil {
		a.McpServers = json.RawMessage("[]")
	}
	return a
}

// overlay returns base changed by what spec gives: its command replaces
// base's and its args are appended; its env variables are added to base's;
// cwd, auth, mode, model, mcpServers and reuse replace base's when given; its
// config settings replace base's of the same id and add the others.
func overlay(base Agent, spec agentSpec) Agent {
	a := base
	a.Command = slices.Clone(base.Command)
	a.ArgvPos = make([]Pos, len(base.Command)) // a named agent's words: where its config gives them, a built-in's nowhere
	copy(a.ArgvPos, base.ArgvPos)
	if spec.command != nil {
		a.Command = slices.Clone(spec.command)
		a.ArgvPos = slices.Clone(spec.commandPos)
	}
	a.Command = append(a.Command, spec.args...)
	a.ArgvPos = append(a.ArgvPos, spec.argsPos...)
	a.Spelled = slices.Concat(base.Spelled, spec.spelled)
	a.Env = maps.Clone(base.Env)
	if spec.env != nil {
		if a.Env == nil {
			a.Env = map[string]string{}
		}
		maps.Copy(a.Env, spec.env)
	}
	replace(&a.Cwd, &a.CwdPos, spec.cwd, spec.cwdPos)
	if spec.auth != nil {
		a.Auth = *spec.auth
	}
	replace(&a.Mode, &a.ModePos, spec.mode, spec.modePos)
	replace(&a.Model, &a.ModelPos, spec.model, spec.modelPos)
	a.Config = mergeConfig(base.Config, spec.config)
	if len(a.Config) == 0 {
		a.Config = nil
	}
	if spec.mcp != nil {
		a.McpServers, a.McpServerPos = spec.mcp, spec.mcpPos
	}
	if spec.reuse != nil {
		a.Reuse, a.ReusePos = *spec.reuse, spec.reusePos
	}
	return a
}

// replace sets *v to *given, and *pos to at, when given is not nil; an
// empty value has no position.
func replace(v *string, pos *Pos, given *string, at Pos) {
	if given == nil {
		return
	}
	*v, *pos = *given, at
	if *v == "" {
		*pos = Pos{}
	}
}

// replayCommand is the command of agent: {replay: transcript}: acprun's
// own replay agent, which the runner starts from the running binary.
func replayCommand(transcript string) []string {
	return []string{"acprun", "replay", transcript}
}

// ReplayTranscript is the transcript that the agent of agent: {replay:
// PATH} (see replayCommand), or of a command [acprun, replay, PATH] (its
// flags, such as --timing, aside), plays back, and where the file gives
// it: PATH as the agent opens it, relative to its cwd when that is set.
// The path is "" for any other agent.
func (a *Agent) ReplayTranscript() (string, Pos) {
	i := FileWord(a.Command, "replay")
	if i < 0 {
		return "", Pos{}
	}
	path := a.Command[i]
	if !filepath.IsAbs(path) && a.Cwd != "" {
		path = filepath.Join(a.Cwd, path)
	}
	return path, a.WordPos(i)
}

// FileWord is the index in command of the word that names the file
// acprun's own agent plays, for command [acprun, sub, ...] with sub
// "mock-agent" (its script) or "replay" (its transcript): the first word
// after sub that is not a flag (a word starting with "-", such as
// --timing), or the word after a "--" that ends the flags, as acprun's
// command line reads it. It is -1 for any other command, and for one
// that names no file (its command line says what is wrong).
func FileWord(command []string, sub string) int {
	if len(command) < 3 || command[0] != "acprun" || command[1] != sub {
		return -1
	}
	for i := 2; i < len(command); i++ {
		switch w := command[i]; {
		case w == "--":
			if i+1 < len(command) {
				return i + 1
			}
			return -1
		case !strings.HasPrefix(w, "-") || w == "-":
			return i
		}
	}
	return -1
}

// errBareMock is the problem of the mock agent without a script.
const errBareMock = "the mock agent needs its script: agent: {name: mock, args: [agents/x.mock.yaml]}, " +
	"or a config agent with the script in its command"

// BareMock reports whether a is the built-in mock agent without the
// script it needs as an argument (acprun mock-agent, as the built-in
// mock, or a config agent that only changes it, gives it). A config
// agent whose own command is acprun mock-agent is not: its command is the
// config's problem, which acprun's command line finds at the command's
// words, as it finds acprun replay without a transcript.
func (a *Agent) BareMock() bool {
	return slices.Equal(a.Command, []string{"acprun", "mock-agent"}) &&
		(len(a.ArgvPos) < 2 || a.ArgvPos[1] == (Pos{})) // no word of a config's
}

// agentNameRE is what a config may name an agent.
var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// namedAgent reads the definition of the agent name in a config file. A
// definition without command changes the built-in agent of the same name,
// if any; one with a command keeps its authEnv and the env it is given
// (the same agent, started another way, takes the same credentials and
// settings), under the definition's own env.
func (p *fileParser) namedAgent(name string, n *yaml.Node) NamedAgent {
	spec := p.agentSpec(n, namedAgentKeys)
	na := NamedAgent{Name: name, Description: spec.description, Source: p.Name}
	var base Agent
	if spec.command == nil {
		if b, ok := builtinAgent(name); ok {
			base = b.Agent
			na.Description = cmp.Or(na.Description, b.Description)
		} else if yamlnode.Deref(n).Kind == yaml.MappingNode && !spec.commandSuggested {
			p.Errorf(yamlnode.Deref(n), "missing required key %q (only an agent that changes a built-in one may leave it out: %s)",
				"command", strings.Join(builtinNames(nil), ", "))
		}
	}
	p.checkEmpty(spec, base)
	na.Agent = overlay(base, spec)
	na.Agent.Name = name
	na.Agent.Unset = spec.unset
	na.Agent.Pos = p.pos(yamlnode.Deref(n))
	if b, ok := builtinAgent(name); ok { // the same agent, started another way
		na.Agent.AuthEnv = b.Agent.AuthEnv
		if env := maps.Clone(b.Agent.Env); env != nil { // under the definition's own
			maps.Copy(env, na.Agent.Env)
			na.Agent.Env = env
		}
	}
	return na
}

// builtinNames returns the names of the built-in agents, in the
// registry's order (sorted), of those that keep says when it is not nil.
func builtinNames(keep func(*builtinEntry) bool) []string {
	var names []string
	for i := range builtinAgents {
		if b := &builtinAgents[i]; keep == nil || keep(b) {
			names = append(names, b.name)
		}
	}
	return names
}
