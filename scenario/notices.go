package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// NoticeLevels are the severities of the agent's notices, from the least
// to the most severe: the values expect.notices.max may name.
var NoticeLevels = []string{"info", "warning", "error"}

// noticesKeys are the keys of expect.notices.
var noticesKeys = []string{"max"}

// NoticesExpect bounds the severity of the notices the agent sends
// (expect.notices): none may be above Max. A severity ACP does not define
// counts as error.
type NoticesExpect struct {
	Pos Pos
	// Max is one of NoticeLevels; MaxPos is where it was written.
	Max    string
	MaxPos Pos
}

// noticesExpect reads expect.notices.
func (p *fileParser) noticesExpect(n *yaml.Node) *NoticesExpect {
	n = yamlnode.Deref(n)
	e := &NoticesExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, noticesKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		if s, ok := p.oneOf(v, "notice severity", NoticeLevels, "severities", ""); ok {
			e.Max, e.MaxPos = s, p.pos(v)
		}
	}
	p.needsOne(m, "notices", noticesKeys)
	return e
}
