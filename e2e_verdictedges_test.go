package main

import (
	"testing"
)

// TestUnchangedWhenNothingChanged: an agent that changes nothing in its
// workspace meets files.unchanged, at the turn and at the scenario: no
// changes is a known answer, not an unknown one.
func TestUnchangedWhenNothingChanged(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: nothing to do}]\n",
		"s.yaml": `name: idle
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: look only
    expect: {files: {unchanged: ["**"]}}
expect: {files: {unchanged: [a.txt]}}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != 0 || sc.Status != "passed" {
		t.Errorf("exit %d, status %s, failures %q; want 0, passed\n%s", res.code, sc.Status, sc.Failures, res.stderr)
	}
	if ws := sc.Workspace; ws == nil || ws.Created == nil || len(ws.Created)+len(ws.Modified)+len(ws.Deleted) != 0 {
		t.Errorf("workspace %+v, want empty lists of changes", ws)
	}
}
