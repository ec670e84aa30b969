package runner

import (
	"fmt"

	"slices"
	"strings"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
)

// env is the environment of everything the scenario starts (its agent,
// the agent's terminals, setup, verify and teardown commands): acprun's,
// the scenario's agent.env, and the scenario's mark (see package reap).
func (r *scenarioRun) env() []string {
	return r.mark.Set(mergeEnv(r.opts.Environ, r.sc.Agent.Env))
}

// killLeftovers kills what the scenario left running outside the process
// groups of what it started: the processes that left their group
// (daemons, setsid) and still carry its mark. It runs once the agent and
// its terminals are stopped (endAgent), before anything looks at the
// workspace, and again at the scenario's end. It warns when there were
// any: they were the agent's, since terminals and commands (setup, verify,
// teardown) kill their own when they end.
func (r *scenarioRun) killLeftovers() {
	r.warnLeftovers(r.mark.Kill())
}

// warnLeftovers warns about the processes the agent left running outside
// its process group, which acprun killed.
func (r *scenarioRun) warnLeftovers(killed []reap.Process) {
	if len(killed) == 0 {
		return
	}
	commands := mapped(killed, func(p reap.Process) string { return shortCommand(r.red, p.Command) })
	slices.Sort(commands)
	commands = slices.Compact(commands)
	r.res.Warnings = append(r.res.Warnings, fmt.Sprintf(
		"the agent left %s running outside its process group (daemonized, setsid); acprun killed them: %s",
		plural(len(killed), "process", "processes"), strings.Join(commands, "; ")))
}

// shortCommand is a command line for a message: at most 80 bytes, cut at
// a character boundary (marked "…"), redacted with red knowing the whole
// line (redact.Redactor.Excerpt), so that it shows no part of a secret
// that the cut goes through.
func shortCommand(red *redact.Redactor, command string) string {
	if command == "" {
		return "(no command line)"
	}
	if len(command) <= maxShownCommand {
		return red.String(command)
	}
	return red.Excerpt(command, 0, termtext.Boundary(command, maxShownCommand), false) + "…"
}

// maxShownCommand is how many bytes of a command line shortCommand keeps.
const maxShownCommand = 80
