package scenario

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// Sandbox is the OS sandbox a scenario asks for around its agent, the
// processes the agent starts, the terminals acprun runs for it and its
// judges (the sandbox key), and with Verify its verify commands: never
// around setup and teardown. Its paths are what
// the file lists; the runner adds the defaults (SandboxWrite, SandboxHide).
type Sandbox struct {
	Pos Pos // the sandbox value

	// Write lists the paths the agent may write in besides the defaults
	// (absolute; ~ and ${VAR} expanded, relative ones resolved against the
	// file's directory).
	Write []string
	// WritePos says where each of Write is given, for the warnings about
	// it (a path that does not exist, or is hidden).
	WritePos []Pos
	// Hide lists the paths the agent may not read besides the defaults
	// (absolute, as Write).
	Hide []string
	// HidePos says where each of Hide is given, for the warning about it
	// (a path that does not exist).
	HidePos []Pos
	// Network is true for network: on (the default), false for off.
	Network bool
	// Ports, with Network, are the only TCP ports the agent may connect to;
	// empty: any.
	Ports []int
	// Level is SandboxRequired (the default) or SandboxBestEffort.
	Level string
	// Verify runs the verify commands in the sandbox too (sandbox.verify:
	// true), as the agent ran: they may run what it wrote. Off by default.
	Verify bool
}

// Sandbox levels: what a host that cannot enforce the whole sandbox does.
const (
	// SandboxRequired: the scenario ends as an error before the agent
	// starts, naming what the host lacks.
	SandboxRequired = "required"
	// SandboxBestEffort: the agent runs with what the host can enforce, and
	// a warning says what is not.
	SandboxBestEffort = "best-effort"
)

var (
	sandboxKeys   = []string{"write", "hide", "network", "ports", "level", "verify"}
	sandboxLevels = []string{SandboxRequired, SandboxBestEffort}
)

// sandbox reads the sandbox key: a mapping (every key optional; {} is the
// default sandbox), true for the default sandbox, or null or false for
// none, even when the config's defaults give one.
func (p *fileParser) sandbox(n *yaml.Node) *Sandbox {
	n = yamlnode.Deref(n)
	sb := &Sandbox{Pos: p.pos(n), Network: true, Level: SandboxRequired}
	switch {
	case yamlnode.IsNull(n):
		return nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		if on, _ := p.boolean(n); !on {
			return nil
		}
		return sb
	case n.Kind != yaml.MappingNode:
		p.Expected(n, "a sandbox: a mapping of write, hide, network, ports, level and verify ({} for the defaults), or true, or false for none")
		return nil
	}
	m, _ := p.mapping(n, sandboxKeys, nil)
	for _, kv := range m.pairs {
		switch kv.Key {
		case "write":
			sb.Write, sb.WritePos = p.sandboxPaths(kv.V, "write")
		case "hide":
			sb.Hide, sb.HidePos = p.sandboxPaths(kv.V, "hide")
		case "network":
			sb.Network, _ = p.network(kv.V)
		case "ports":
			sb.Ports = p.ports(kv.V)
		case "verify":
			sb.Verify, _ = p.boolean(kv.V)
		case "level":
			if s, ok := p.oneOf(yamlnode.Deref(kv.V), "sandbox level", sandboxLevels, "levels",
				": required ends the scenario before its agent starts when this host cannot enforce the sandbox, best-effort runs it with what the host can do"); ok {
				sb.Level = s
			}
		}
	}
	if k := m.has["ports"]; k != nil && !sb.Network {
		p.Errorf(k, "sandbox ports allow outbound TCP to those ports only, with network on; network off allows no connection at all: remove ports, or set network: on")
	}
	return sb
}

// sandboxPaths reads the write or hide paths of a sandbox: a string or a
// list of strings, each interpolated, with a leading ~ for the home
// directory ($HOME), relative to the file's directory; and where each is.
func (p *fileParser) sandboxPaths(n *yaml.Node, key string) ([]string, []Pos) {
	nodes, _ := p.strNodes(n, true, false)
	out := []string{}
	var pos []Pos
	for _, v := range nodes {
		s, ok := p.interpArg(v)
		if !ok {
			continue
		}
		switch {
		case s == "":
			p.Errorf(v, "sandbox %s path is empty", key)
			continue
		case s == "~" || strings.HasPrefix(s, "~/"):
			home, _ := p.lookup("HOME")
			if home == "" {
				p.Errorf(v, "sandbox %s path %s starts with ~, and HOME is not set: set HOME, or write the path in full", key, s)
				continue
			}
			s = filepath.Join(home, s[1:])
		case strings.HasPrefix(s, "~"):
			p.Errorf(v, "sandbox %s path %s: only ~ and ~/ stand for the home directory (~user does not): write the path in full", key, s)
			continue
		}
		out = append(out, p.abs(s))
		pos = append(pos, p.pos(v))
	}
	return out, pos
}

// network reads a sandbox's network: on or off (true or false).
func (p *fileParser) network(n *yaml.Node) (bool, bool) {
	n = yamlnode.Deref(n)
	if n.Kind == yaml.ScalarNode {
		switch {
		case n.ShortTag() == "!!bool":
			return p.boolean(n)
		case n.Value == "on":
			return true, true
		case n.Value == "off":
			return false, true
		}
	}
	got := yamlnode.Describe(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		got = strconv.Quote(n.Value)
	}
	p.Errorf(n, "expected network: on (connections allowed, to ports only when it lists some) or off (no connection), got %s", got)
	return true, false
}

// ports reads a sandbox's ports: a TCP port (1 to 65535) or a list of
// them.
func (p *fileParser) ports(n *yaml.Node) []int {
	n = yamlnode.Deref(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			p.Errorf(n, "ports is empty: list the TCP ports the agent may connect to, or leave ports out to allow any")
		}
	}
	var out []int
	for _, it := range items {
		it = yamlnode.Deref(it)
		port, isInt, err := wholeValue(it)
		if !isInt || err != nil || port < 1 || port > 65535 {
			got := yamlnode.Describe(it)
			if it.Kind == yaml.ScalarNode && it.ShortTag() != "!!null" {
				got = it.Value
			}
			p.Errorf(it, "expected a TCP port from 1 to 65535, got %s", got)
			continue
		}
		out = append(out, int(port))
	}
	return out
}

// npmCache is where npx keeps the packages it runs: writable for the
// agents started through npx or npm.
var npmCache = []string{"$npm_config_cache|~/.npm"}

// defaultHide are the paths a sandbox hides whatever the scenario says:
// credentials an agent has no business reading.
var defaultHide = []string{"~/.ssh", "~/.aws", "~/.config/gh", "~/.netrc", "~/.docker"}

// SandboxWrite returns the paths the agent of a may write in besides the
// session cwd, the scenario's temporary directory and what its sandbox
// lists: the state directories of the named agent a.Name (claude:
// ~/.claude and ~/.claude.json; codex: $CODEX_HOME or ~/.codex; gemini:
// ~/.gemini; goose and opencode: their XDG directories; qwen: ~/.qwen),
// and npm's cache when the agent's command is npx or npm. getenv looks
// variables up in the agent's environment; paths whose variables are
// unset (HOME included) are left out.
func SandboxWrite(a Agent, getenv func(string) string) []string {
	var specs []string
	if b := builtinDef(a.Name); b != nil {
		specs = slices.Clone(b.state)
	}
	if len(a.Command) > 0 {
		if prog := filepath.Base(a.Command[0]); prog == "npx" || prog == "npm" {
			specs = append(specs, npmCache...)
		}
	}
	return expandState(specs, getenv)
}

// SandboxTempEnv returns the variables besides TMPDIR that the named agent
// a.Name reads its temporary directory from (claude: CLAUDE_CODE_TMPDIR),
// which a sandbox points at its private one as it does TMPDIR.
func SandboxTempEnv(a Agent) []string {
	if b := builtinDef(a.Name); b != nil {
		return slices.Clone(b.tempEnv)
	}
	return nil
}

// SandboxHide returns the paths every sandbox hides: ~/.ssh, ~/.aws,
// ~/.config/gh, ~/.netrc and ~/.docker under each of homes, in turn.
func SandboxHide(homes []string) []string {
	var out []string
	for _, home := range homes {
		for _, p := range defaultHide {
			out = append(out, filepath.Join(home, p[1:]))
		}
	}
	return out
}

// expandState expands specs (see builtinEntry.state): the first alternative
// whose variables are all set.
func expandState(specs []string, getenv func(string) string) []string {
	var out []string
	for _, spec := range specs {
		for alt := range strings.SplitSeq(spec, "|") {
			if p, ok := expandStatePath(alt, getenv); ok {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// expandStatePath expands a leading ~ or $NAME of one alternative; ok is
// false when the variable is unset or empty, or the result not absolute.
func expandStatePath(s string, getenv func(string) string) (string, bool) {
	switch {
	case strings.HasPrefix(s, "~"):
		home := getenv("HOME")
		if home == "" {
			return "", false
		}
		s = home + s[1:]
	case strings.HasPrefix(s, "$"):
		name, rest, _ := strings.Cut(s[1:], "/")
		v := getenv(name)
		if v == "" {
			return "", false
		}
		s = filepath.Join(v, rest)
	}
	if !filepath.IsAbs(s) {
		return "", false
	}
	return filepath.Clean(s), true
}
