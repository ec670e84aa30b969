package e2e_test

import (
	"strings"
	"testing"
)

// TestResponseWithMethodIsAViolation: an agent that answers its prompt with
// a message that also carries a method is not answered (it is handled as a
// request, and refused), and the results say what it sent: a protocol
// violation naming the method and the member dropped. The prompt's id is
// 3 (after initialize and session/new).
func TestResponseWithMethodIsAViolation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - garbage: '{"jsonrpc":"2.0","id":3,"method":"session/update","result":{"stopReason":"end_turn"}}'
    stopReason: end_turn
`,
		"s.yaml": `name: stray-method
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
`})
	_, out := runResults(t, dir, "s.yaml")
	if len(out.Scenarios) != 1 {
		t.Fatalf("%d results, want 1", len(out.Scenarios))
	}
	const want = `request "session/update" with a result member, which only a response has: handled as a request, its result ignored`
	found := false
	for _, v := range out.Scenarios[0].Violations {
		found = found || strings.HasPrefix(v, want)
	}
	if !found {
		t.Errorf("violations %q, want one starting %q", out.Scenarios[0].Violations, want)
	}
}
