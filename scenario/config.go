package scenario

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/yamlnode"
)

// ConfigFile is the name of the config file acprun looks for in the
// working directory.
const ConfigFile = "acprun.yaml"

// ConfigFileYML is the other spelling of ConfigFile, which acprun does not
// read from the working directory but refuses there (a config the user
// believes is read), and which directory walks skip as they skip
// ConfigFile.
const ConfigFileYML = "acprun.yml"

// Config is an acprun config file: defaults for every scenario and named
// agents. Pass it to Load in LoadOptions.Config.
type Config struct {
	File string // the file as the user named it

	Defaults Defaults

	// Agents are the agents the file defines, by name. They are shown with
	// the variables set when LoadConfig ran (an unset one as empty): Load,
	// ResolveAgent and WithAgent read a config file's agent again when it
	// is used, so that an unset variable is an error only for the
	// scenarios that use that agent. An agent added to the map by hand is
	// used as it is.
	Agents map[string]NamedAgent

	// Prices map a model, as requests name it, to its price per million
	// tokens of each kind, for the gateway's costs (prices:); nil for
	// none: acprun has no prices of its own. Currency is what they are in
	// (currency:), "" when not given (DefaultCurrency).
	Prices   map[string]gateway.Price
	Currency string
	// PricesPos is where prices: is written; zero when it is not.
	PricesPos Pos

	dir          string                // absolute directory of the file
	read         yamlnode.Reader       // the file as read, for reading its nodes again
	agentNodes   map[string]*yaml.Node // agent definitions, read again when used
	defaultAgent *yaml.Node            // defaults.agent, read again when used
	defaults     *yaml.Node            // the defaults mapping, for scenarios with vars (see templatedDefaults)
	// defaultsPos is where the value of each key of the defaults is
	// written, for the warnings about a scenario's timeouts.
	defaultsPos map[string]Pos
	// defaultsUnset holds, by key of the defaults, the problems of the
	// unset variables in its value: problems of the scenarios that use
	// that default (see applyDefaults), not of the config.
	defaultsUnset map[string]Errors
}

// Defaults are the scenario settings a config gives every scenario. A
// scenario key replaces the config's value of that key as a whole, except
// that client merges key by key.
type Defaults struct {
	// Agent is the agent of scenarios without an agent key; nil for none.
	// Like Agents, it is read again when used. Cwd is "" unless set.
	Agent *Agent
	// Scenario holds the other keys of defaults as a scenario holds its
	// own (see applyDefaults for those it gives); what is not given is
	// zero. Client applies when Client.Set; paths are absolute (relative
	// ones are resolved against the config file's directory); a
	// Session.StateFile of "" is each scenario's default.
	Scenario Scenario
}

// The keys of the config file's mappings.
var (
	configKeys   = []string{"defaults", "agents", "prices", "currency"}
	defaultsKeys = []string{"agent", "timeout", "turnTimeout", "idleTimeout", "cancelGrace", "killGrace",
		"continueAfterCancel", "retries", "budget", "client", "permissions", "answers", "workspace", "sandbox", "gateway", "setup", "verify", "teardown", "session"}
	namedAgentKeys = []string{"description", "command", "env", "cwd", "auth", "mode", "model", "config", "mcpServers", "reuse"}
)

// LoadConfig reads a config file (see the package documentation). Every
// problem is reported at once as an Errors, positioned like the problems of
// scenario files. opts.LookupEnv expands variables; opts.Config is
// ignored. With problems, the config is returned as far as it could be
// read (nil when the file could not be, nothing of it after a YAML
// syntax error): it is fit for nothing but knowing the secrets it holds,
// its agents' env values, which the problems' source lines may repeat and
// the caller redacts from them. A symbolic link that leads nowhere (or in
// a loop) is said to be pointed at a config file or removed.
func LoadConfig(path string, opts LoadOptions) (*Config, error) {
	data, err := inputfile.Read(path, MaxFileBytes)
	if err != nil {
		msg := bareError(err).Error()
		if isLink(err) {
			msg += "; acprun reads its config from it: point the link at a config file, or remove it"
		}
		return nil, Errors{{File: path, Msg: msg}}
	}
	return LoadConfigBytes(path, data, opts)
}

// LoadConfigBytes is LoadConfig for a file's contents; relative paths in it
// resolve against filepath.Dir(file). With problems, it returns the config
// as far as it was read too, for its secrets only.
func LoadConfigBytes(file string, data []byte, opts LoadOptions) (*Config, error) {
	if msg := notConfig(data); msg != "" {
		return &Config{File: file}, Errors{{File: file, Msg: msg}}
	}
	c := &Config{File: file, dir: absOr(filepath.Dir(file)), read: yamlnode.Reader{Name: file, Src: data, Templates: true}, Agents: map[string]NamedAgent{}, agentNodes: map[string]*yaml.Node{}}
	c.Defaults.Scenario.Client = Client{FS: true, Terminal: true}
	p := c.parser(opts.lookupEnv())
	p.config(c)
	if len(p.Errs) > 0 {
		return c, sorted(p.Errs) // as far as read, for its secrets
	}
	return c, nil
}

// notConfig says what a file given as the config file holds instead, and
// what to do with it, when it is another of acprun's files but scenarios
// (which the config's own keys say, key by key); "" otherwise.
func notConfig(data []byte) string {
	k := jsonKind(data)
	if k == nil {
		k = keysKind(data)
	}
	if k == configKind {
		return ""
	}
	return k.instead("acprun's config file (defaults, named agents, prices, currency)")
}

func (c *Config) parser(lookup func(string) (string, bool)) *fileParser {
	return &fileParser{Reader: c.read.Again(), dir: c.dir, lookup: lookup, cfg: c, inConfig: true}
}

// config reads the one document of a config file into c.
func (p *fileParser) config(c *Config) {
	var doc *yaml.Node
	for d := range p.Documents() {
		if doc == nil {
			doc = d
			continue
		}
		if len(d.Content) > 0 && !yamlnode.IsNull(d.Content[0]) {
			p.Errorf(d.Content[0], "a config file holds one YAML document")
		}
		break
	}
	if doc == nil || len(doc.Content) == 0 || yamlnode.IsNull(doc.Content[0]) {
		return // an empty file, or a syntax error
	}
	p.ExpandAliases(doc)
	c.read = p.Again() // its nodes are read again with what it knows of aliases
	m, ok := p.mapping(doc.Content[0], configKeys, func(k string) string {
		switch {
		case slices.Contains(defaultsKeys, k):
			return k + " belongs under defaults"
		case slices.Contains(scenarioKeys, k):
			return "scenarios go in files of their own, not in the config file"
		}
		return ""
	})
	if !ok {
		return
	}
	// Agents first: the default agent may name one.
	if v := m.value("agents"); v != nil {
		p.configAgents(v, c)
	}
	if v := m.value("defaults"); v != nil {
		p.defaults(v, c)
	}
	if v := m.value("prices"); v != nil {
		c.Prices, c.PricesPos = p.prices(v), p.pos(yamlnode.Deref(v))
	}
	if v := m.value("currency"); v != nil {
		if got := notCurrency(v); got != "" {
			p.Errorf(v, "expected a currency such as USD or EUR, got %s: name the currency of the prices, or leave it out for %s", got, DefaultCurrency)
		} else if s, ok := p.str(v); ok {
			if strings.TrimSpace(s) == "" {
				p.Errorf(v, "currency is empty: name the currency of the prices (USD, EUR…), or leave it out for %s", DefaultCurrency)
			}
			c.Currency = s
		}
	}
}

// notCurrency describes v, aliases followed, when it is a number or a
// boolean, which no currency is ("the number 5"); "" for anything else.
func notCurrency(v *yaml.Node) string {
	n := yamlnode.Deref(v)
	if n.Kind != yaml.ScalarNode {
		return ""
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	}
	return ""
}

// configAgents reads the agents mapping: names to agent definitions.
func (p *fileParser) configAgents(n *yaml.Node, c *Config) {
	n = yamlnode.Deref(n)
	if yamlnode.IsNull(n) {
		return
	}
	if _, ok := p.Want(n, yaml.MappingNode, "a mapping of agent names to agents"); !ok {
		return
	}
	m, _ := p.mapping(n, nil, nil)
	for _, kv := range m.pairs {
		if !agentNameRE.MatchString(kv.Key) {
			p.Errorf(kv.K, "bad agent name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", kv.Key)
			continue
		}
		c.agentNodes[kv.Key] = kv.V
		p.leniently(func() { c.Agents[kv.Key] = p.namedAgent(kv.Key, kv.V) })
	}
}

// defaults reads the defaults mapping.
func (p *fileParser) defaults(n *yaml.Node, c *Config) {
	if yamlnode.IsNull(n) {
		return
	}
	m, ok := p.mapping(n, defaultsKeys, func(k string) string {
		if slices.Contains(scenarioKeys, k) {
			return k + " belongs in a scenario"
		}
		return ""
	})
	if !ok {
		return
	}
	c.defaults = n
	c.defaultsPos = map[string]Pos{}
	for _, kv := range m.pairs {
		c.defaultsPos[kv.Key] = p.pos(yamlnode.Deref(kv.V))
		if kv.Key != "agent" {
			p.deferringUnset(func() { p.setting(kv.Key, kv.V, &c.Defaults.Scenario) })
			if len(p.unset) > 0 {
				if c.defaultsUnset == nil {
					c.defaultsUnset = map[string]Errors{}
				}
				c.defaultsUnset[kv.Key] = p.unset
			}
			continue
		}
		c.defaultAgent = kv.V
		p.leniently(func() {
			a := p.agentFromSpec(p.agentSpec(kv.V, agentKeys))
			c.Defaults.Agent = &a
		})
	}
}

// defaultPos is where the config's defaults give key; pos when they do
// not, or there is no config, or it was made by hand.
func (p *fileParser) defaultPos(key string, pos Pos) Pos {
	if p.cfg != nil {
		if at, ok := p.cfg.defaultsPos[key]; ok {
			return at
		}
	}
	return pos
}

// leniently runs f with every unset variable expanding to "" without an
// error: LoadConfig checks agents this way, and Load checks them again with
// the real environment when a scenario uses them.
func (p *fileParser) leniently(f func()) {
	lookup, lenient := p.lookup, p.lenient
	p.lookup = func(k string) (string, bool) {
		if v, ok := lookup(k); ok {
			return v, true
		}
		return "", true
	}
	p.lenient = true
	defer func() { p.lookup, p.lenient = lookup, lenient }()
	f()
}

// deferringUnset runs f with the problems of unset variables sent to
// p.unset, which it empties first: LoadConfig reads the defaults this way,
// and applyDefaults gives those problems to the scenarios that use them.
func (p *fileParser) deferringUnset(f func()) {
	deferUnset := p.deferUnset
	p.deferUnset, p.unset = true, nil
	defer func() { p.deferUnset = deferUnset }()
	f()
}

// applyDefaults gives s, the scenario of the document root, the config's
// defaults, before its own keys are read. When s has vars, the defaults
// root uses that hold templates are read again with their values, as if
// root held them; it returns the agent among them for defaultAgent, nil
// when there is none.
func (p *fileParser) applyDefaults(s *Scenario, root *yaml.Node) (agent *yaml.Node) {
	if p.cfg == nil {
		return nil
	}
	d := &p.cfg.Defaults.Scenario
	s.Timeout, s.TurnTimeout, s.IdleTimeout = d.Timeout, d.TurnTimeout, d.IdleTimeout
	s.CancelGrace, s.KillGrace = d.CancelGrace, d.KillGrace
	s.ContinueAfterCancel = d.ContinueAfterCancel
	s.Retries = d.Retries
	s.Budget = d.Budget // never changed: the scenario's own replaces it
	if d.Client.Set {
		s.Client = d.Client
		s.Client.Roots, s.Client.RootPos = slices.Clone(d.Client.Roots), slices.Clone(d.Client.RootPos)
	}
	s.Policy, s.AnswerDelay = d.Policy, d.AnswerDelay
	s.Enforce, s.EnforcePos = d.Enforce, d.EnforcePos
	s.Answers = d.Answers // never changed: the scenario's own replaces it
	if d.Workspace != nil {
		w := *d.Workspace
		s.Workspace = &w
	}
	s.Sandbox = d.Sandbox // never changed: the scenario's own replaces it
	s.Gateway = d.Gateway // never changed: finishGateway makes copies
	s.Setup, s.Verify, s.Teardown = slices.Clone(d.Setup), slices.Clone(d.Verify), slices.Clone(d.Teardown)
	s.Session = d.Session
	rendered := map[string]bool{} // the defaults read again with s's vars
	if t := p.templatedDefaults(root); s.Vars != nil && t != nil {
		cp := p.sub(p.cfg)
		cp.deferUnset = true // for p.unsetVars, without those of roots root replaces
		m, _ := cp.mapping(cp.substitute(t, s.Vars), nil, nil)
		for _, kv := range m.pairs {
			rendered[kv.Key] = true
			first := len(cp.unset)
			if kv.Key == "agent" {
				agent = kv.V
			} else {
				cp.setting(kv.Key, kv.V, s)
			}
			if replacesDefault(root, kv.Key) {
				cp.unset = cp.unset[:first] // client's roots, which root's replace
			}
		}
		p.Errs = append(p.Errs, cp.Errs...)
		p.unsetVars(cp.unset)
	}
	for _, key := range slices.Sorted(maps.Keys(p.cfg.defaultsUnset)) {
		if !rendered[key] && !replacesDefault(root, key) {
			p.unsetVars(p.cfg.defaultsUnset[key])
		}
	}
	return agent
}

// replacesDefault reports whether the scenario of the document root gives
// the value of the config's default key itself: it gives key, or for
// client, which merges key by key, the roots that hold variables.
func replacesDefault(root *yaml.Node, key string) bool {
	v := topValue(root, key)
	if key == "client" && v != nil {
		return topValue(v, "roots") != nil
	}
	return v != nil
}

// templatedDefaults is a mapping of the config's defaults that hold a
// template and that the scenario of the document root uses: those whose
// key root does not give (client, which merges, whether or not). A
// scenario with vars has their templates rendered and checked as its own
// (see expand); nil when there are none.
func (p *fileParser) templatedDefaults(root *yaml.Node) *yaml.Node {
	if p.cfg == nil || p.cfg.defaults == nil {
		return nil
	}
	pairs, _, _ := yamlnode.Pairs(p.cfg.defaults, yamlnode.Options{Merge: true})
	t := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range pairs {
		if kv.Key != "client" && topValue(root, kv.Key) != nil {
			continue
		}
		found := false
		templated(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{kv.K, kv.V}}, func(n *yaml.Node) {
			found = found || strings.Contains(n.Value, "{{")
		})
		if found {
			t.Content = append(t.Content, kv.K, kv.V)
		}
	}
	if len(t.Content) == 0 {
		return nil
	}
	return t
}

// defaultAgent returns the config's default agent, read again with p's
// lookup, from rendered when it is not nil (the agent applyDefaults
// rendered); problems go to p (see absorb).
func (p *fileParser) defaultAgent(rendered *yaml.Node) Agent {
	c := p.cfg
	var a Agent
	if n := cmp.Or(rendered, c.defaultAgent); n != nil {
		cp := p.sub(c)
		a = cp.agentFromSpec(cp.agentSpec(n, agentKeys))
		p.absorb(cp)
	} else {
		a = *c.Defaults.Agent
		a.Command = slices.Clone(a.Command)
		a.Env = maps.Clone(a.Env)
	}
	a.OwnEnv = nil   // the default agent's variables are its own: another agent does not get them
	a.OwnCwd = false // and so is its cwd
	return a
}

// unloadedConfigHint says, for an unknown agent named in a scenario file
// of directory dir (absolute), that a config file near it was not loaded:
// the first acprun.yaml (or acprun.yml) found in dir or above it up to the
// working directory (only in dir when dir is outside it), unless it is
// cfg's own file. It is "" when there is none, and else starts with "; "
// to follow the error's message.
func unloadedConfigHint(dir string, cfg *Config) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	found, shown := "", ""
	for d := dir; found == ""; d = filepath.Dir(d) {
		for _, name := range []string{ConfigFile, ConfigFileYML} {
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
				found = filepath.Join(d, name)
				break
			}
		}
		rel, err := filepath.Rel(wd, d)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.Dir(d) == d {
			break // the working directory, or dir is outside it
		}
	}
	if found == "" || cfg != nil && cfg.File != "" && sameFile(found, cfg.File) {
		return ""
	}
	shown = found
	if rel, err := filepath.Rel(wd, found); err == nil && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		shown = rel
	}
	from := "acprun reads its config from acprun.yaml in the working directory, or from --config FILE"
	if cfg != nil && cfg.File != "" {
		from = fmt.Sprintf("acprun read its config from %s (--config FILE, else acprun.yaml in the working directory)", cfg.File)
	}
	return fmt.Sprintf("; %s was not loaded: %s; pass --config %s", shown, from, approve.QuoteWord(shown))
}

// sameFile reports whether paths a and b name the same file (through
// symlinks and relative paths too).
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
