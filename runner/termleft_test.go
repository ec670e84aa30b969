package runner

import (
	"slices"
	"strings"
	"testing"
)

// TestTerminalLeftRunningWarns: a terminal the agent never released,
// still running at the scenario's end, is killed with a warning that
// names it and its command; one it released, or whose command exited, is
// no warning.
func TestTerminalLeftRunningWarns(t *testing.T) {
	t.Parallel()
	rep := runOne(t, `
turns:
  - steps:
      - terminal: {command: "sleep 1000"}
      - terminal: {command: "sleep 999", release: true}
      - terminal: {command: "true", waitForExit: true}
      - text: started
`, `
name: left
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns: [{prompt: go}]
`)
	res := rep.Scenarios[0]
	want := `terminal term-1 ("sleep 1000") was still running at the scenario's end and was killed; the agent never released it`
	var about []string
	for _, w := range res.Warnings {
		if strings.Contains(w, "terminal") {
			about = append(about, w)
		}
	}
	if !slices.Equal(about, []string{want}) {
		t.Errorf("warnings %q; want the one %q", res.Warnings, want)
	}
	if res.Status != "passed" {
		t.Errorf("status %s; want passed", res.Status)
	}
}
