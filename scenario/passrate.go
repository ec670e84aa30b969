package scenario

import (
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlnode"
)

// passRate reads expect.passRate: a fraction above 0 and at most 1 (0.8
// for 80%). It returns 0 and no position on a problem.
func (p *fileParser) passRate(n *yaml.Node) (float64, Pos) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!float" {
		p.Expected(n, "a pass rate, a number above 0 and at most 1 (0.8 for 80% of the attempts)")
		return 0, Pos{}
	}
	var f float64
	err := n.Decode(&f)
	switch {
	case err == nil && f > 1 && f <= 100:
		p.Errorf(n, "expected a pass rate above 0 and at most 1, got %s (write %g for %g%% of the attempts)", n.Value, f/100, f)
	case err != nil || math.IsNaN(f) || f <= 0 || f > 1:
		p.Errorf(n, "expected a pass rate above 0 and at most 1 (0.8 for 80%% of the attempts), got %s", n.Value)
	default:
		return f, p.pos(n)
	}
	return 0, Pos{}
}
