package scenario

import (
	"cmp"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/yamlnode"
)

// Gateway is a scenario's `gateway:` (or the config defaults', or
// --gateway's): how acprun's model gateway stands between the agent and
// its model.
type Gateway struct {
	Pos Pos // the gateway value; the flag for --gateway's
	// Mode is "record", "replay" or "meter" (GatewayModes); ModePos is
	// where it was given (the flag for --gateway's).
	Mode    string
	ModePos Pos
	// Dir is where the cassettes are, absolute: gateway.dir (relative to
	// the file that gives it), by default "cassettes" beside the scenario
	// file.
	Dir string
	// Timing replays at the recorded pace (run --gateway-timing); else at
	// once.
	Timing bool
	// Targets are how the agent is pointed at the gateway: at least one,
	// except for acprun's mock and replay agents without gateway.env
	// (the mock agent asks a model only in its model steps, whose variable
	// gateway.env names), which have none and need no gateway.
	Targets []GatewayTarget
	// Prices map a model to its price per million tokens: the config's
	// prices (shared by every scenario: do not change them); nil for none.
	// Currency is what they are in (the config's currency, default USD).
	Prices   map[string]gateway.Price
	Currency string
	// Given is what gateway.env, upstream and key say (each "" when not
	// given): Targets come from them, else from the named agent's
	// registry entry (WithAgent points the gateway at another agent so).
	Given GatewayTarget
	// KeyPos is where gateway.key was given.
	KeyPos Pos
	// Spelled holds gateway.upstream as its file writes it, where that
	// differs from its value (escapes, ${VAR}: see Agent.Spelled), when
	// the URL holds a password (a proxy's): a secret, which a line of the
	// file shows so. An upstream that is no http(s) base URL and has an
	// "@" (a password with an unescaped "/", "#" or a bad escape, which
	// url.Parse reads no password of) is kept whole too, its value with
	// its spellings. Nil when there is none.
	Spelled []string
}

// GatewayTarget is one base URL the agent reads.
type GatewayTarget struct {
	// Env is the environment variable the agent reads the base URL from.
	Env string
	// JSONPath, when not nil, says that Env holds a JSON document
	// (opencode's OPENCODE_CONFIG_CONTENT) and that the base URL goes at
	// this path inside it, merged into the document the agent's env
	// already holds (enforcement may have set one).
	JSONPath []string
	// Upstream is where record and meter forward: gateway.upstream, else
	// the agent's own value of Env (its agent.env, then acprun's
	// environment), else the provider's default base URL. It may be "" in
	// replay, which forwards nothing.
	Upstream string
	// KeyEnv is the API-key variable, set to gateway.DummyKey in replay;
	// "" for none.
	KeyEnv string
}

// GatewayModes are the modes of a gateway.
var GatewayModes = []string{string(gateway.Record), string(gateway.Replay), string(gateway.Meter)}

// DefaultCassetteDir is where cassettes go when gateway.dir is not given,
// beside the scenario file.
const DefaultCassetteDir = "cassettes"

// DefaultCurrency is the currency of the config's prices when it names
// none.
const DefaultCurrency = "USD"

// CostCurrency is the currency s's costs are counted in and its maxCost
// bounds are in: its Currency, else DefaultCurrency.
func (s *Scenario) CostCurrency() string { return cmp.Or(s.Currency, DefaultCurrency) }

// SameCurrency reports whether a cost in currency a can be added to or
// compared with one in b: they are the same currency (in any case, "usd"
// is USD), or either is not named ("", as from an agent that reports a
// cost without one), which is taken to be the other's.
func SameCurrency(a, b string) bool { return a == "" || b == "" || strings.EqualFold(a, b) }

var (
	gatewayKeys = []string{"mode", "dir", "env", "upstream", "key"}
	priceKeys   = []string{"input", "output", "cacheRead", "cacheWrite"}
)

// gatewayModesHelp says what each mode does, after a bad mode.
const gatewayModesHelp = "record calls the real provider and keeps its answers in a cassette, " +
	"replay answers from the cassette with no network and no key, meter calls the provider and counts what the agent spends"

// gateway reads the gateway key: a mode (gateway: meter), a mapping with
// a mode, or null or false for none, even when the config's defaults give
// one.
func (p *fileParser) gateway(n *yaml.Node) *Gateway {
	n = yamlnode.Deref(n)
	g := &Gateway{Pos: p.pos(n)}
	switch {
	case yamlnode.IsNull(n):
		return nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		if on, ok := p.boolean(n); ok && on {
			p.Errorf(n, "gateway: true does not say what the gateway does: write gateway: record, replay or meter, or a mapping with a mode ({mode: meter})")
		}
		return nil
	case n.Kind == yaml.ScalarNode:
		g.Mode, g.ModePos = p.gatewayMode(n), p.pos(n)
		return g
	case n.Kind != yaml.MappingNode:
		p.Expected(n, fmt.Sprintf("a gateway: record, replay or meter, or a mapping of %s (null or false for none)", joinWords(gatewayKeys, "or")))
		return nil
	}
	m, _ := p.mapping(n, gatewayKeys, nil)
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		switch kv.Key {
		case "mode":
			g.Mode, g.ModePos = p.gatewayMode(v), p.pos(v)
		case "dir":
			if dir, ok := p.interpArg(v); ok {
				if dir == "" {
					p.Errorf(v, "gateway dir is empty: name the directory of the cassettes, or leave dir out for %s/ beside the scenario file", DefaultCassetteDir)
					continue
				}
				g.Dir = p.abs(dir)
			}
		case "env", "key":
			name, ok := p.str(v)
			if !ok {
				continue
			}
			if name == "" || strings.ContainsAny(name, "=\x00$ ") {
				p.Errorf(v, "bad environment variable name %q: gateway.%s names a variable (such as %s), not its value", name, kv.Key, map[string]string{"env": "MY_BASE_URL", "key": "MY_API_KEY"}[kv.Key])
				continue
			}
			if msg := notGatewayVariable(kv.Key, name); msg != "" {
				p.Errorf(v, "%s", msg) // given all the same: see finishGateway
			}
			if kv.Key == "env" {
				g.Given.Env = name
			} else {
				g.Given.KeyEnv, g.KeyPos = name, p.pos(v)
			}
		case "upstream":
			errs, unset := len(p.Errs), len(p.unset)
			u, ok := p.interp(v)
			switch {
			case ok:
				msg := badUpstream(u)
				if msg != "" {
					p.Errorf(v, "gateway upstream %s", msg)
				}
				g.Given.Upstream = u // even when bad: it is given, and reported here alone
				switch {
				case len(redact.URLPassword(u)) > 0:
					g.Spelled = p.written(v)
				case msg != "" && strings.Contains(u, "@"):
					// No URL, but it may write a password url.Parse
					// cannot read ("http://user:pa/ss@proxy"): whole.
					g.Spelled = append(p.written(v), u)
				}
			case len(p.Errs) == errs && len(p.unset) > unset:
				// Its only problem is an unset variable, of the scenarios
				// that use it: it is given, and nothing more is said.
				g.Given.Upstream = v.Value
			}
		}
	}
	p.require(m, "mode")
	return g
}

// systemEnv are the variables of the system that the agent and the
// commands it runs rely on, which gateway.env (set to the gateway's URL)
// and gateway.key (set to a dummy key in a replay) may not name; nor may
// they name one that starts with one of systemEnvPrefixes: the dynamic
// loader's. The JSON schema lists them too
// (TestSchemaEnumsMatchParser).
var (
	systemEnv         = []string{"HOME", "LOGNAME", "PATH", "PWD", "SHELL", "TEMP", "TERM", "TMP", "TMPDIR", "USER"}
	systemEnvPrefixes = []string{"DYLD_", "LD_"}
)

// notGatewayVariable says why name may not be the variable of gateway.key
// (key "key") or gateway.env (key "env"), which may not name an API-key
// variable either (keyVariables), and what to write; "" when it may.
func notGatewayVariable(key, name string) string {
	system := slices.Contains(systemEnv, name) || slices.ContainsFunc(systemEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
	switch {
	case system && key == "key":
		return fmt.Sprintf("gateway.key names %s, a variable the agent and the commands it runs rely on, which a replay would set to a dummy key: "+
			"name the variable the agent reads its API key from (such as ANTHROPIC_API_KEY), or leave key out", name)
	case system:
		return fmt.Sprintf("gateway.env names %s, a variable the agent and the commands it runs rely on, which the gateway would set to its URL: "+
			"name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL", name)
	case key == "env" && slices.Contains(keyVariables(), name):
		return fmt.Sprintf("gateway.env names %s, an API-key variable, which the gateway would set to its URL: "+
			"name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL (the key's goes in gateway.key)", name)
	}
	return ""
}

// keyVariables are the API-key variables of the built-in agents' model
// providers, sorted.
func keyVariables() []string {
	var out []string
	for _, b := range builtinAgents {
		for _, t := range b.gateway {
			out = append(out, t.KeyEnv)
		}
		out = append(out, b.authEnv...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gatewayMode reads a gateway's mode; "" when it is not one.
func (p *fileParser) gatewayMode(n *yaml.Node) string {
	s, _ := p.oneOf(n, "gateway mode", GatewayModes, "modes", ": "+gatewayModesHelp)
	return s
}

// badUpstream says what is wrong with u as an upstream base URL; "" when
// nothing is. The value is not repeated: it may come from a variable.
func badUpstream(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" || parsed.RawQuery != "" || parsed.Fragment != "" {
		return "is not an http(s) base URL: give the provider's base URL, such as https://api.openai.com/v1"
	}
	return ""
}

// prices reads the config's prices: model names to their price per
// million tokens of each kind (input and output required).
func (p *fileParser) prices(n *yaml.Node) map[string]gateway.Price {
	n = yamlnode.Deref(n)
	if yamlnode.IsNull(n) {
		return nil
	}
	if _, ok := p.Want(n, yaml.MappingNode, "a mapping of model names to prices ({claude-sonnet-4-5: {input: 3, output: 15}})"); !ok {
		return nil
	}
	out := map[string]gateway.Price{}
	models, _ := p.mapping(n, nil, nil)
	for _, model := range models.pairs {
		m, ok := p.mapping(model.V, priceKeys, nil)
		if !ok {
			continue
		}
		var pr gateway.Price
		fields := map[string]*float64{"input": &pr.Input, "output": &pr.Output, "cacheRead": &pr.CacheRead, "cacheWrite": &pr.CacheWrite}
		for _, kv := range m.pairs {
			if f, ok := p.nonNegativeNumber(kv.V); ok {
				*fields[kv.Key] = f
			}
		}
		p.require(m, "input", "output")
		out[model.Key] = pr
	}
	return out
}

// flagPos is where --gateway MODE gives a scenario its gateway.
func flagPos(mode string) Pos { return Pos{File: "--gateway " + mode} }

// finishGateway gives s its gateway once its agent is known: --gateway's
// mode (on every scenario), the cassette directory's default, the
// config's prices and the targets that point the agent at the gateway.
// It checks the budgets' maxRequests, which need a gateway.
func (p *fileParser) finishGateway(s *Scenario) {
	fromFlag := false
	if mode := p.gatewayFlag; mode != "" {
		g := Gateway{Pos: flagPos(mode)}
		if s.Gateway != nil {
			g = *s.Gateway
		} else {
			fromFlag = true
		}
		g.Mode, g.ModePos = mode, flagPos(mode)
		s.Gateway = &g
	}
	if s.Gateway == nil {
		p.maxRequestsNeedGateway(s)
		return
	}
	a := *s.Gateway // the config's defaults' is shared
	s.Gateway = &a
	a.Dir = cmp.Or(a.Dir, filepath.Join(p.dir, DefaultCassetteDir))
	a.Timing = p.gatewayTiming
	if c := p.cfg; c != nil {
		a.Prices, a.Currency = c.Prices, c.Currency
	}
	a.Currency = cmp.Or(a.Currency, DefaultCurrency)
	if a.Mode == "" || len(s.Agent.Command) == 0 || a.refusedVariable() {
		return // reported already
	}
	g, problem := a.pointed(s.Agent, p.lookup)
	pos := a.Pos
	if problem == "" {
		if msg := g.keyIsBaseURL(); msg != "" {
			problem, pos = msg, cmp.Or(a.KeyPos, a.Pos)
		}
	}
	switch {
	case problem != "":
		switch {
		case fromFlag:
			pos = cmp.Or(s.Agent.Pos, s.Pos)
			problem += fmt.Sprintf(" (%s gives every scenario a gateway)", a.Pos.File)
		case a.Pos.File != p.Name:
			pos = cmp.Or(s.Agent.Pos, s.Pos)
			problem += fmt.Sprintf(" (the gateway is the config's, at %s)", a.Pos)
		}
		p.errorAt(pos, "%s", problem)
		return
	case len(g.Targets) == 0 && !fromFlag:
		p.warnf(a.Pos, "acprun's mock and replay agents have no base-URL variable of their own: the gateway has nothing to do (for the mock agent's model steps, set gateway.env to the variable they read, such as ANTHROPIC_BASE_URL)")
	}
	s.Gateway = g
}

// refusedVariable reports whether gateway.env or key names a variable it
// may not (notGatewayVariable), which is reported at its value: pointing
// the agent would only say so again.
func (g *Gateway) refusedVariable() bool {
	return notGatewayVariable("env", g.Given.Env) != "" || notGatewayVariable("key", g.Given.KeyEnv) != ""
}

// keyIsBaseURL says how g's key variable (gateway.key) is the variable of
// one of its base URLs, which the dummy key of a replay would overwrite;
// "" when it is not.
func (g *Gateway) keyIsBaseURL() string {
	for _, t := range g.Targets {
		if t.KeyEnv != "" && slices.ContainsFunc(g.Targets, func(u GatewayTarget) bool { return u.Env == t.KeyEnv }) {
			return fmt.Sprintf("gateway.key names %s, the variable the agent reads its model base URL from: "+
				"name its API-key variable (such as MY_API_KEY), or leave key out", t.KeyEnv)
		}
	}
	return ""
}

// maxRequestsNeedGateway reports each budget of s that has maxRequests,
// which only a gateway can count, when s has none.
func (p *fileParser) maxRequestsNeedGateway(s *Scenario) {
	budgets := []*UsageExpect{s.Budget}
	for _, t := range s.Turns {
		budgets = append(budgets, t.Budget)
	}
	for _, b := range budgets {
		if b != nil && b.MaxRequests != nil {
			p.errorAt(b.MaxRequestsPos, "budget maxRequests counts the agent's model requests through acprun's gateway, and this scenario has none: "+
				"add gateway: {mode: meter} to it (or to the config's defaults), or run it with --gateway meter")
		}
	}
}

// pointed returns a copy of g with the targets that point agent a at the
// gateway: those g.Given gives, else the named agent's (a config agent
// named like a built-in one is that agent); none for acprun's mock and
// replay agents when g.Given names no variable. problem, when not "", says
// why a cannot be pointed and what to write.
func (g *Gateway) pointed(a Agent, lookup func(string) (string, bool)) (_ *Gateway, problem string) {
	c := *g
	c.Targets = nil
	var known []GatewayTarget
	if b := builtinDef(a.Name); b != nil {
		known = b.gateway
	}
	given := g.Given
	switch {
	case given.Env != "":
		// A variable a built-in agent reads brings its default upstream
		// and key: ANTHROPIC_BASE_URL means Anthropic.
		t := given
		if k, ok := wellKnownTarget(given.Env); ok {
			t.Upstream = cmp.Or(t.Upstream, k.Upstream)
			t.KeyEnv = cmp.Or(t.KeyEnv, k.KeyEnv)
		}
		c.Targets = []GatewayTarget{t}
	case len(known) > 0:
		c.Targets = make([]GatewayTarget, len(known))
		for i, k := range known {
			k.JSONPath = slices.Clone(k.JSONPath)
			c.Targets[i] = k
		}
		if (given.Upstream != "" || given.KeyEnv != "") && len(known) > 1 {
			return nil, fmt.Sprintf("agent %s reads several base URLs (%s): give gateway.env with gateway.upstream to say which one to point at the gateway",
				a.Name, strings.Join(targetNames(known), ", "))
		}
		c.Targets[0].Upstream = cmp.Or(given.Upstream, c.Targets[0].Upstream)
		c.Targets[0].KeyEnv = cmp.Or(given.KeyEnv, c.Targets[0].KeyEnv)
	case noModelRequests(a):
		return &c, ""
	default:
		return nil, "acprun does not know how to point this agent at its gateway (it knows the built-in agents' variables: " +
			strings.Join(builtinNames(func(b *builtinEntry) bool { return len(b.gateway) > 0 }), ", ") + "): set gateway.env to the variable your agent reads its model base URL from, " +
			"and gateway.upstream to that URL (gateway: {mode: " + cmp.Or(g.Mode, "meter") + ", env: MY_BASE_URL, upstream: https://api.example.com/v1})"
	}
	for i := range c.Targets {
		t := &c.Targets[i]
		if given.Upstream == "" && g.Mode != string(gateway.Replay) { // a replay has no upstream
			if own, where := ownValue(*t, a.Env, lookup); own != "" {
				if msg := badUpstream(own); msg != "" {
					return nil, fmt.Sprintf("%s, where the gateway's upstream comes from, %s (or set gateway.upstream)", where, msg)
				}
				t.Upstream = own
			}
		}
		if g.Mode == string(gateway.Replay) {
			t.Upstream = "" // not used: nothing is forwarded
			continue
		}
		if t.Upstream == "" {
			return nil, fmt.Sprintf("acprun does not know where the agent's %s points: set gateway.upstream to the provider's base URL (such as https://api.openai.com/v1), "+
				"or set %[1]s in agent.env", t.Env)
		}
	}
	return &c, ""
}

// ownValue is the agent's own value of t's variable, the base URL it would
// use without the gateway: its agent.env value, else acprun's environment
// (for a JSON document, the string at t.JSONPath in it); "" when it has
// none. where names it for messages.
func ownValue(t GatewayTarget, env map[string]string, lookup func(string) (string, bool)) (value, where string) {
	v, where := env[t.Env], t.Env+" in agent.env"
	if v == "" {
		v, _ = lookup(t.Env)
		where = t.Env + " in acprun's environment"
	}
	if t.JSONPath == nil || v == "" {
		return v, where
	}
	var doc any
	if json.Unmarshal([]byte(v), &doc) != nil {
		return "", where
	}
	for _, k := range t.JSONPath {
		m, ok := doc.(map[string]any)
		if !ok {
			return "", where
		}
		doc = m[k]
	}
	s, _ := doc.(string)
	return s, where + " at " + strings.Join(t.JSONPath, ".")
}

// noModelRequests reports whether a is acprun's own mock or replay agent,
// which answer from a script or a transcript and ask no model.
func noModelRequests(a Agent) bool {
	return len(a.Command) >= 2 && filepath.Base(a.Command[0]) == "acprun" && (a.Command[1] == "mock-agent" || a.Command[1] == "replay")
}

// Name names the target for people: its variable, with the JSON path for
// a document ("OPENCODE_CONFIG_CONTENT provider.openai.options.baseURL").
func (t GatewayTarget) Name() string {
	if t.JSONPath == nil {
		return t.Env
	}
	return t.Env + " " + strings.Join(t.JSONPath, ".")
}

// targetNames names targets for messages.
func targetNames(ts []GatewayTarget) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

// wellKnownTarget is the target of a built-in agent whose variable is env,
// not inside a JSON document. A variable is one provider's in the whole
// registry (TestWellKnownTargetsAgree), so which agent's it is does not
// matter.
func wellKnownTarget(env string) (GatewayTarget, bool) {
	for _, b := range builtinAgents {
		if i := slices.IndexFunc(b.gateway, func(k GatewayTarget) bool { return k.Env == env && k.JSONPath == nil }); i >= 0 {
			return b.gateway[i], true
		}
	}
	return GatewayTarget{}, false
}
