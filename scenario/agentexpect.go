package scenario

import (
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

var (
	agentExpectKeys = []string{"name", "version"}
	textMatchKeys   = []string{"matches"}
)

// AgentExpect is which agent a scenario must run against (expect.agent),
// as initialize's agentInfo names it: an attempt whose agent does not match
// is invalid (agent), not failed, and plays no turn.
type AgentExpect struct {
	Pos Pos
	// Name and Version must match agentInfo's; nil when not given.
	Name, Version *TextMatch
}

// TextMatch is a string a value must be equal to (Exact), or, when Re is
// set, a regular expression it must match ({matches: RE}, as text and
// stdout expectations take one).
type TextMatch struct {
	Pos   Pos
	Exact string
	Re    *regexp.Regexp
}

// Match reports whether s meets m.
func (m TextMatch) Match(s string) bool {
	if m.Re != nil {
		return m.Re.MatchString(s)
	}
	return s == m.Exact
}

// String says what m wants, for messages: "claude-code-acp" (quoted) or
// /^0\.5\./.
func (m TextMatch) String() string {
	if m.Re != nil {
		return "/" + m.Re.String() + "/"
	}
	return strconv.Quote(m.Exact)
}

// agentExpect reads expect.agent: {name, version}, each a string or
// {matches: RE}.
func (p *fileParser) agentExpect(n *yaml.Node) *AgentExpect {
	n = yamlnode.Deref(n)
	e := &AgentExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, agentExpectKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "name":
			e.Name = p.textMatch(kv.V, "name")
		case "version":
			e.Version = p.textMatch(kv.V, "version")
		}
	}
	p.needsOne(m, "agent", agentExpectKeys)
	return e
}

// textMatch reads what the value named what must be: a string (equal to
// it), or {matches: RE}.
func (p *fileParser) textMatch(n *yaml.Node, what string) *TextMatch {
	n = yamlnode.Deref(n)
	t := &TextMatch{Pos: p.pos(n)}
	switch {
	case n.Kind != yaml.MappingNode && (n.Kind != yaml.ScalarNode || yamlnode.IsNull(n)):
		p.Expected(n, fmt.Sprintf("the agent's %s (a string) or {matches: RE}", what))
		return t
	case n.Kind != yaml.MappingNode:
		s, ok := p.str(n)
		if ok && s == "" {
			p.Errorf(n, "%s is empty: give the agent's %s, or {matches: RE}", what, what)
		}
		t.Exact = s
		return t
	}
	m, ok := p.mapping(n, textMatchKeys, nil)
	if !ok {
		return t
	}
	for _, kv := range m.pairs {
		if re, ok := p.wantedPattern(kv.V, "matches", what, "so it could never fail; give what must appear"); ok {
			t.Re = re
		}
	}
	p.require(m, "matches")
	return t
}
