package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// NoticeLevels are the severities of the agent's notices, from the least
// to the most severe: the values expect.notices.max may name, but the last
// (nothing is above it, so that bound could never fail).
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

// noticesExpect reads expect.notices. A max of error, which no notice is
// above, could never fail: it is an error.
func (p *fileParser) noticesExpect(n *yaml.Node) *NoticesExpect {
	n = yamlnode.Deref(n)
	e := &NoticesExpect{Pos: p.pos(n)}
	m, ok := p.mapping(n, noticesKeys, nil)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		v := yamlnode.Deref(kv.V)
		s, ok := p.oneOf(v, "notice severity", NoticeLevels, "severities", "")
		switch {
		case !ok:
		case s == NoticeLevels[len(NoticeLevels)-1]:
			// Nothing is above the most severe level, not even a
			// severity ACP does not define (taken as error).
			p.Errorf(v, "notices.max %s allows every notice (a severity ACP does not define counts as error), so it could never fail; "+
				"give warning (no error notice) or info (no warning or error notice)", s)
		default:
			e.Max, e.MaxPos = s, p.pos(v)
		}
	}
	p.needsOne(m, "notices", noticesKeys)
	return e
}
