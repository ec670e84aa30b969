package scenario

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// ConfigSetting is one session config option to set (a key of
// agent.config): the option's id and the value to give it, as written.
// The runner checks both against the configOptions the agent offers.
type ConfigSetting struct {
	ID string
	// Value is the scalar's text after interpolation: a select option's
	// value id, or "true"/"false" for a boolean option.
	Value string
	// Pos is where the value was given, in the scenario or config file.
	Pos Pos
}

// sessionConfig reads agent.config: a mapping of config option ids to
// scalar values, in the order written. A value that is empty after
// interpolation is kept, for mergeConfig: it leaves its option unset. The
// result is non-nil when the key is given.
func (p *fileParser) sessionConfig(n *yaml.Node) []ConfigSetting {
	out := []ConfigSetting{}
	m, ok := p.mapping(n, nil, nil)
	if !ok {
		return out
	}
	for _, kv := range m.pairs {
		if strings.TrimSpace(kv.Key) == "" {
			p.Errorf(kv.K, "config option id is empty")
			continue
		}
		v := yamlnode.Deref(kv.V)
		if v.Kind != yaml.ScalarNode || yamlnode.IsNull(v) {
			p.Errorf(v, "config option %q: expected a value (a string, number or true/false), got %s", kv.Key, yamlnode.Describe(v))
			continue
		}
		s, ok := p.interp(v)
		if !ok {
			continue
		}
		out = append(out, ConfigSetting{ID: kv.Key, Value: s, Pos: p.pos(v)})
	}
	return out
}

// mergeConfig returns base's settings with over's on top: an id in both
// takes over's value in base's place, over's new ids come after, and an
// empty value removes its id.
func mergeConfig(base, over []ConfigSetting) []ConfigSetting {
	out := slices.Clone(base)
	for _, s := range over {
		i := slices.IndexFunc(out, func(b ConfigSetting) bool { return b.ID == s.ID })
		switch {
		case s.Value == "" && i >= 0:
			out = slices.Delete(out, i, i+1)
		case s.Value == "":
		case i >= 0:
			out[i] = s
		default:
			out = append(out, s)
		}
	}
	return out
}
