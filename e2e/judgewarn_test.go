package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestJudgeWarnings: a judge that breaks the protocol (lines that are not
// JSON, an update for a session it does not have, a tool_call_update
// without a toolCallId) or edits without asking is said to in the
// scenario's warnings, the judge named (the scenario's, or turn 1's): in
// the JSON, its summary's count, and the text summary; the judge's record
// lists its protocol violations. A read it made unasked is no warning: a
// judge is asked to read. The verdict stays the judge's PASS, under
// permissions.enforce: strict too.
func TestJudgeWarnings(t *testing.T) {
	t.Parallel()
	const judge = "{agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: good}"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{text: done}]}\n",
		"judge.mock.yaml": `default:
  steps:
    - garbage: "not json"
    - garbage: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"nope","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}'
    - update: {sessionUpdate: tool_call_update, status: completed}
    - tool_call: {toolCallId: r1, title: Read main.go, kind: read, status: completed}
    - tool_call: {toolCallId: e1, title: Edit main.go, kind: edit, status: completed}
    - text: "PASS\nok"
`,
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny, enforce: strict}\nturns:\n" +
			"  - {prompt: one, expect: {judge: " + judge + "}}\n  - prompt: two\n" +
			"expect: {judge: " + judge + "}\n",
	})
	own := []string{
		`judge: tool call e1 ("Edit main.go") ran without a permission request; acprun denies a judge every permission: the denial had no effect on it`,
		`judge: protocol violation: invalid JSON-RPC message: not a JSON object: "not json" (8 bytes)`,
		`judge: protocol violation: session/update for unknown session "nope"`,
		`judge: protocol violation: session/update tool_call_update: no toolCallId, which is required; ignored, as it updates no tool call that can be told`,
	}
	var want []string
	for _, w := range own {
		want = append(want, "turn 1: "+w)
	}
	want = append(want, own...)
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != exitOK || sc.Status != report.StatusPassed {
		t.Errorf("exit %d, status %s, failures %q; want 0, passed: a judge's warnings change no verdict\n%s", res.code, sc.Status, sc.Failures, res.stderr)
	}
	if !slices.Equal(sc.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(sc.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if out.Summary.Warnings != len(want) {
		t.Errorf("summary.warnings %d, want %d", out.Summary.Warnings, len(want))
	}
	for _, w := range append([]string{"WARN s"}, want...) {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, res.stderr)
		}
	}
	// The judge's violations, as the JSON names them.
	var raw struct {
		Scenarios []struct {
			Violations []string `json:"violations"`
			Judge      struct {
				Violations []string `json:"violations"`
			} `json:"judge"`
			Turns []struct {
				Judge *struct {
					Violations []string `json:"violations"`
				} `json:"judge"`
			} `json:"turns"`
		} `json:"scenarios"`
	}
	readJSON(t, filepath.Join(dir, "out.json"), &raw)
	r := raw.Scenarios[0]
	if len(r.Violations) != 0 || len(r.Judge.Violations) != 3 || r.Turns[0].Judge == nil || len(r.Turns[0].Judge.Violations) != 3 {
		t.Errorf("violations %q, judge's %q, turn 1's judge's %+v; want none, then 3 each", r.Violations, r.Judge.Violations, r.Turns[0].Judge)
	}
}

// TestJudgeThatWritesInTheWorkspace: a turn's judge without a sandbox that
// writes in the workspace with its own tools is warned about, naming what
// it changed, which the change set then takes for the agent's.
func TestJudgeThatWritesInTheWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"proj/a.txt":      "a\n",
		"agent.mock.yaml": "default: {steps: [{text: done}]}\n",
		"judge.mock.yaml": "default: {steps: [{writeFile: {path: notes.txt, content: mine}}, {text: PASS}]}\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nworkspace: {from: proj}\nturns:\n" +
			"  - {prompt: one, expect: {judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: good}}}\n  - prompt: two\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	want := "turn 1: judge: the workspace changed while it ran (created notes.txt): a judge without a sandbox writes with its own tools, " +
		"and what it writes counts as the agent's; give the scenario a sandbox: to keep its judges read-only"
	if !slices.Contains(sc.Warnings, want) || !strings.Contains(res.stderr, "warning: "+want) {
		t.Errorf("warnings %q; want %q, also on stderr:\n%s", sc.Warnings, want, res.stderr)
	}
	if sc.Workspace == nil || !slices.Equal(sc.Workspace.Created, []string{"notes.txt"}) {
		t.Errorf("workspace %+v; want notes.txt created (taken for the agent's, as the warning says)", sc.Workspace)
	}
}
