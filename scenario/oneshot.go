package scenario

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/approve"
)

// OneShotName is the name of the scenario of a run without a scenario
// file (see OneShot).
const OneShotName = "prompt"

// OneShotPos is the position of the scenario of a run without a scenario
// file: the flag that made it, as messages name it.
var OneShotPos = Pos{File: "--prompt"}

// OneShot returns the scenario of a run given a prompt and no scenario
// file (run --agent NAME --prompt TEXT): the scenario a file in the working
// directory would be that held only a name (OneShotName), agent: NAME and
// one turn. So the config's defaults apply to it as to any scenario: its
// permissions, when it gives some, else none (every permission request
// and terminal command denied); its timeouts, client and workspace. The
// turn is a placeholder, for the caller to replace with WithPrompts.
//
// agent is a named agent (see ResolveAgent); "" takes the config's default
// agent. Scenario.File is "" (there is none) and Pos is OneShotPos. An
// unknown agent, the mock agent without its script, or no agent at all
// is an error; a problem of the config's agent is an Errors.
func OneShot(agent string, opts LoadOptions) (*Scenario, []Warning, error) {
	doc := map[string]any{"name": OneShotName, "turns": []map[string]string{{"prompt": OneShotPos.File}}}
	switch {
	case agent != "":
		na, _, err := resolveNamed(agent, opts) // its unset variables are the scenario's, loaded below
		if err != nil {
			return nil, nil, err
		}
		if na.Agent.BareMock() {
			return nil, nil, errors.New(errBareMock)
		}
		doc["agent"] = agent
	case !opts.Config.HasDefaultAgent():
		return nil, nil, errors.New("no agent to send the prompt to: name one with --agent NAME (acprun agents lists them), or give the config file a defaults.agent")
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("one-shot scenario: %w", err)
	}
	scs, warns, err := LoadBytes("", data, opts)
	if err != nil {
		return nil, warns, err
	}
	sc := scs[0]
	sc.Pos = OneShotPos
	if sc.Expect.Pos.File == "" {
		sc.Expect.Pos = OneShotPos
	}
	if agent != "" {
		sc.Agent.Pos = Pos{File: approve.QuoteArgv([]string{"--agent", agent})}
	}
	return sc, warns, nil
}

// HasDefaultAgent reports whether the config gives scenarios without an
// agent key an agent (defaults.agent). c may be nil.
func (c *Config) HasDefaultAgent() bool {
	return c != nil && (c.defaultAgent != nil || c.Defaults.Agent != nil)
}

// FlagSettings are what run's flags set in every selected scenario, on top
// of what its file says.
type FlagSettings struct {
	// Allow and Deny are added after the scenario's own rules (deny rules
	// still beat allow rules). A scenario without permissions gets a
	// policy of just these rules, default deny.
	Allow, Deny []approve.Rule
	// Model, Mode and Auth, when set, replace agent.model, agent.mode and
	// agent.auth; ModelPos, ModePos and AuthPos are where they were given,
	// for the runner's messages.
	Model    string
	ModelPos Pos
	Mode     string
	ModePos  Pos
	Auth     string
	AuthPos  Pos
}

// WithFlags returns a copy of the scenario with fs applied; the scenario
// itself is unchanged, and so is its policy when fs adds no rule.
func (sc *Scenario) WithFlags(fs FlagSettings) *Scenario {
	c := *sc
	if len(fs.Allow)+len(fs.Deny) > 0 {
		c.Policy = sc.Policy.WithRules(fs.Allow, fs.Deny)
	}
	if fs.Model != "" {
		c.Agent.Model, c.Agent.ModelPos = fs.Model, fs.ModelPos
	}
	if fs.Mode != "" {
		c.Agent.Mode, c.Agent.ModePos = fs.Mode, fs.ModePos
	}
	if fs.Auth != "" {
		c.Agent.Auth, c.Agent.AuthPos = fs.Auth, fs.AuthPos
	}
	return &c
}
