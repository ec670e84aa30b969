package scenario

import (
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// Enforce says what permissions.enforce asks of the agent.
type Enforce string

// The values of permissions.enforce.
const (
	// EnforceOff leaves the agent as it is configured (enforce: false).
	EnforceOff Enforce = "off"
	// EnforceOn applies the named agent's Enforcement (enforce: true; the
	// default for a named agent).
	EnforceOn Enforce = "on"
	// EnforceStrict is EnforceOn, and a tool call that ran without a
	// permission request, which the policy would have denied, fails its
	// turn instead of being warned about (enforce: strict).
	EnforceStrict Enforce = "strict"
)

// Enforcement is what makes a named agent ask permission before every edit
// and shell command. Load has already appended Args to Agent.Command and
// added Env to Agent.Env; the runner writes the files.
type Enforcement struct {
	Args []string          // appended to the agent's command
	Env  map[string]string // added to the agent's environment
	// SettingsEnv, when set, is the environment variable that gets the
	// path of a file holding Settings (JSON), which the runner writes.
	SettingsEnv string
	Settings    string
	// ProjectSettings, when set, is a JSON object merged into the file
	// ProjectSettingsFile (relative to the session cwd). The runner writes
	// it only in a workspace copy, never in the user's own tree.
	ProjectSettingsFile string
	ProjectSettings     string
	// UnaskedModes are the agent's session modes (agent.mode, run's
	// --mode, or a config option of category mode) known to stop it
	// asking, whatever the above says: in them it acts, or refuses, on
	// its own. Setting one with enforcement on is an error
	// (Agent.UnaskedMode).
	UnaskedModes []string
	// ModeOptions are the ids of its permission options that switch it to
	// a mode other than the one of the same name, by that mode (see
	// approve.Request.ModeOptions).
	ModeOptions map[string]string
}

// AsksNot reports whether the agent is made to ask (permissions.enforce)
// and mode is one of its UnaskedModes: in it, the permission rules would
// not be consulted.
func (a *Agent) AsksNot(mode string) bool {
	return a.Enforcement != nil && slices.Contains(a.Enforcement.UnaskedModes, mode)
}

// UnaskedModes are the session modes in which the agent, known by its
// name, does not ask permission whatever its settings (its Enforcement's
// UnaskedModes), with permissions.enforce on or off; nil for an agent
// acprun knows none of. acprun never answers a permission request with an
// option that would switch the agent into one of them.
func (a *Agent) UnaskedModes() []string {
	e, _ := enforcementOf(a.Name)
	return e.UnaskedModes
}

// ModeOptions are the ids of the permission options of the agent, known
// by its name, that switch it to a mode not of the same name, by that
// mode (its Enforcement's ModeOptions); nil for an agent acprun knows none
// of. With UnaskedModes they say which options acprun never answers with.
func (a *Agent) ModeOptions() map[string]string {
	e, _ := enforcementOf(a.Name)
	return e.ModeOptions
}

// UnaskedModeProblem is the problem of an agent made to ask whose session
// mode (agent.mode, at ModePos) is one of its UnaskedModes; "" when there
// is none (see UnaskedMode).
func (a *Agent) UnaskedModeProblem() string {
	return a.UnaskedMode("agent.mode", a.Mode)
}

// UnaskedMode is the problem of setting the session mode of an agent made
// to ask to mode, with key (agent.mode, agent.config.mode), when mode is
// one of its UnaskedModes; "" when it is not. The mode would override
// what makes it ask, and the permission rules would never be consulted.
func (a *Agent) UnaskedMode(key, mode string) string {
	if !a.AsksNot(mode) {
		return ""
	}
	return fmt.Sprintf("%s: in mode %q %s does not ask permission (it acts, or refuses, on its own), so permissions.enforce cannot make it ask "+
		"and the permission rules would never be consulted: choose another mode, or set permissions.enforce: false to run in %q on purpose",
		key, mode, a.Name, mode)
}

// enforcementOf is the Enforcement of the named agent name, if it has one.
func enforcementOf(name string) (Enforcement, bool) {
	if b := builtinDef(name); b != nil && b.enforce != nil {
		return *b.enforce, true
	}
	return Enforcement{}, false
}

// defaultEnforce is permissions.enforce when the file does not give it:
// on for a named agent, off for one given by its command.
func defaultEnforce(agentName string) Enforce {
	if agentName != "" {
		return EnforceOn
	}
	return EnforceOff
}

// enforceValue reads permissions.enforce: true, false or strict.
func (p *fileParser) enforceValue(n *yaml.Node) (Enforce, bool) {
	n = yamlnode.Deref(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == string(EnforceStrict) {
		return EnforceStrict, true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		if b, _ := p.boolean(n); b {
			return EnforceOn, true
		}
		return EnforceOff, true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		p.Errorf(n, "%s", unknownMsg("enforce", n.Value, []string{"true", "false", "strict"}, "values"))
	} else {
		p.Expected(n, "true, false or strict")
	}
	return "", false
}

// enforce settles s.Enforce once the agent is known, and applies the named
// agent's Enforcement to s.Agent. An explicit enforce: true on an agent
// that has no such settings is warned about.
func (p *fileParser) enforce(s *Scenario) {
	if s.Enforce == "" {
		s.Enforce = defaultEnforce(s.Agent.Name)
	}
	if s.Enforce == EnforceOn && s.EnforcePos.Line > 0 {
		if _, ok := enforcementOf(s.Agent.Name); !ok {
			what := "this agent"
			if s.Agent.Name != "" {
				what = "agent " + s.Agent.Name
			}
			p.warnf(s.EnforcePos, "permissions.enforce: acprun knows no settings that make %s ask before it acts (only %s); "+
				"enforce: strict fails a turn whose tool calls ran without asking", what, joinWords(builtinNames(func(b *builtinEntry) bool { return b.enforce != nil }), "and"))
		}
	}
	if e, ok := enforcementOf(s.Agent.Name); ok && s.Enforce != EnforceOff {
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			if _, set := s.Agent.Env[k]; set {
				p.warnf(s.Agent.Pos, "agent.env sets %s, which permissions.enforce sets to make %s ask before it acts; yours is kept, "+
					"so %s may act without asking: leave %s out, or set permissions.enforce: false", k, s.Agent.Name, s.Agent.Name, k)
			}
		}
	}
	s.Agent.applyEnforcement(s.Enforce)
}

// applyEnforcement applies the named agent's Enforcement when enforce asks
// for it: its args after the command (each at the command's last word,
// which they follow), its env under the agent's own (a variable the
// scenario sets is left as set), and Agent.Enforcement.
func (a *Agent) applyEnforcement(enforce Enforce) {
	a.Enforcement = nil
	e, ok := enforcementOf(a.Name)
	if !ok || enforce == EnforceOff || enforce == "" {
		return
	}
	at := a.Pos
	if n := len(a.Command); n > 0 {
		at = a.WordPos(n - 1)
	}
	pos := make([]Pos, len(a.Command), len(a.Command)+len(e.Args))
	copy(pos, a.ArgvPos)
	for range e.Args {
		pos = append(pos, at)
	}
	a.Command, a.ArgvPos = append(slices.Clip(a.Command), e.Args...), pos
	if len(e.Env) > 0 {
		env := maps.Clone(e.Env)
		maps.Copy(env, a.Env)
		a.Env = env
	}
	a.Enforcement = &e
}

// Enforced reports whether word i of the agent's command is one that
// permissions.enforce added (Enforcement.Args), not the file.
func (a *Agent) Enforced(i int) bool {
	return a.Enforcement != nil && i < len(a.Command) && i >= len(a.Command)-len(a.Enforcement.Args)
}
