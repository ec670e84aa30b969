package main

import (
	"errors"
	"os"
	"slices"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// agentsCmd is `acprun agents`: the named agents scenarios, --agent and
// probe can use.
type agentsCmd struct {
	configFlag `set:"configHolds=named agents"`
}

// Help is the long help of agents.
func (c *agentsCmd) Help() string {
	return `Lists the named agents: acprun's built-in ones and those of the config file,
which may replace built-in ones. A scenario uses one with "agent: NAME" or
"agent: {name: NAME, args: [...]}"; "run --agent NAME" runs scenarios against it;
"probe NAME" shows what it offers. AUTH ENV names the variables an agent
expects its credentials in, and whether each is set here (never its value).
Commands and descriptions are redacted as a run's outputs are: the values of
the agents' env and of acprun's secret-looking environment variables. A config
agent that a run or a probe would refuse here (a variable it uses is unset, its
cwd is not a directory) is listed, an unset variable as empty, with a warning at
the config's word.`
}

// Run prints the table, redacted as a run redacts its outputs
// (globals.redactor): of the secret-looking variables of the environment
// and of the values of every agent's env, since any row may quote another
// agent's secret, but for the agents' names, the words of the protocol and
// acprun's own.
func (c *agentsCmd) Run(g *globals) error {
	cfg, err := c.config(g)
	if err != nil {
		return usageError(g, nil, err)
	}
	builtin := map[string]bool{}
	for _, na := range scenario.BuiltinAgents() {
		builtin[na.Name] = true
	}
	environ := os.Environ()
	var rows []output.AgentRow
	var warnings []scenario.Warning
	for _, na := range cfg.NamedAgents() {
		if na.Source != scenario.SourceBuiltin {
			warnings = append(warnings, refused(na.Name, cfg)...)
		}
		source := na.Source
		if source != scenario.SourceBuiltin && builtin[na.Name] {
			source += " (replaces built-in)"
		}
		rows = append(rows, output.AgentRow{Name: na.Name, Command: slices.Clone(na.Agent.Command), Auth: na.Agent.Auth,
			AuthEnv: runner.AuthEnv(na.Agent, environ), Source: source, Description: na.Description})
	}
	printWarnings(g, nil, warnings)
	g.redactor(nil).Value(&rows)
	return output.Agents(g.Stdout, rows)
}

// refused are the problems for which a run or a probe of the config agent
// name would refuse it here (a variable it uses is unset, its cwd is not a
// directory), as warnings at the config's word: the table lists it as far
// as it can, an unset variable as empty.
func refused(name string, cfg *scenario.Config) []scenario.Warning {
	_, err := scenario.ResolveAgent(name, scenario.LoadOptions{Config: cfg})
	var errs scenario.Errors
	if !errors.As(err, &errs) {
		return nil
	}
	out := make([]scenario.Warning, len(errs))
	for i, e := range errs {
		out[i] = scenario.Warning{Pos: scenario.Pos{File: e.File, Line: e.Line, Col: e.Col}, Msg: e.Msg}
	}
	return out
}
