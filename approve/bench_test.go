package approve_test

import (
	"strconv"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/approve"
)

// BenchmarkDecideManyCommands guards against work quadratic in the
// commands of one command line (an agent's, as long as a line may be):
// each one no rule allows is collected once.
func BenchmarkDecideManyCommands(b *testing.B) {
	var line strings.Builder
	for i := range 20000 {
		line.WriteString("c" + strconv.Itoa(i) + "; ")
	}
	req := execReq(line.String())
	p := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Command: []string{"go test *"}}}}
	b.SetBytes(int64(line.Len()))
	for b.Loop() {
		p.Decide(req)
	}
}
