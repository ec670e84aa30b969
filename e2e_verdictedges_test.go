package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acprun/acprun/runner"
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

// TestAgentDiesBeforeAnswering: an agent that exits before answering a
// call of the handshake is reported by how it ended and the call it left
// unanswered, not by the broken pipe or the closed stream acprun met, and
// its line says no turn ran rather than "skipped".
func TestAgentDiesBeforeAnswering(t *testing.T) {
	for _, tc := range []struct{ name, sh, want string }{
		{"initialize", "echo bye >&2; exit 7", "the agent exited with code 7 before answering initialize"},
		{"session/new", "read -r line; printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,\"agentCapabilities\":{}}}'; exit 5",
			"the agent exited with code 5 before answering session/new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": fmt.Sprintf(`name: dies
agent: {command: [sh, -c, %q]}
permissions: {default: deny}
turns: [{prompt: one}, {prompt: two}]
`, tc.sh)})
			res, out := runResults(t, dir, "s.yaml")
			sc := out.Scenarios[0]
			if res.code != exitAgent || sc.Status != runner.StatusError || !sc.StartFailed {
				t.Errorf("exit %d, status %s, startFailed %v; want %d, error, true", res.code, sc.Status, sc.StartFailed, exitAgent)
			}
			if sc.Error != tc.want {
				t.Errorf("error %q, want %q", sc.Error, tc.want)
			}
			if want := "ERROR dies (no turn ran, "; !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "(skipped") {
				t.Errorf("stderr does not say %q, or says skipped:\n%s", want, res.stderr)
			}
		})
	}
}
