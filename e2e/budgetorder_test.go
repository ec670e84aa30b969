package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestBudgetCancelsLaterPermissions: the usage_update that passes the
// budget cancels the turn in its place in the stream: the permission
// request the agent sends after it is answered cancelled, never allowed,
// and the file stays as it was, every attempt. (The mock agent may see
// the cancel before it asks, and ask nothing: that is its own timing.)
func TestBudgetCancelsLaterPermissions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - text: a
      - usage_update: {used: 20, size: 100, cost: {amount: 3.0, currency: USD}}
      - tool_call: {toolCallId: e1, title: Edit f.txt, kind: edit, locations: [{path: f.txt}]}
      - permission: {toolCallId: e1}
        allowed: [{write: {path: f.txt, content: "edited\n"}}, {text: " allowed"}]
        cancelled: [{text: " cancelled"}]
`,
		"s.yaml": "name: bperm\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nbudget: {maxCost: 1.0}\ncancelGrace: 5s\nturns:\n  - prompt: one\n",
		"f.txt":  "original\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "12")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	for i, sc := range out.Scenarios {
		tr := sc.Turns[0]
		if sc.Allowed != 0 || tr.CancelCause != report.CauseBudget || strings.Contains(tr.Text, "allowed") {
			t.Errorf("attempt %d: %d allowed, cancelCause %q, text %q; want nothing allowed after the budget passed", i+1, sc.Allowed, tr.CancelCause, tr.Text)
		}
		for _, p := range tr.Permissions {
			if p.Decision != "cancelled" {
				t.Errorf("attempt %d: permission %+v, want cancelled", i+1, p)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "original\n" {
		t.Errorf("f.txt = %q, want it unchanged", b)
	}
}

// TestBudgetPassedJustBeforeTheAnswer: a budget passed by the last update
// before the agent's answer is a cancel for the budget every attempt, the
// turn failing on it, whether acprun saw the budget passed before the
// answer was dispatched or not. That answer, the agent's next message
// after the update (as claude-agent-acp sends it), never ignored the
// cancel, however fast acprun wrote it: no cancelIgnored, no warning,
// even from an agent that waits for the cancel, then answers end_turn.
func TestBudgetPassedJustBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	for _, script := range []string{
		"turns:\n  - steps: [{text: a}, {usage_update: {used: 20, size: 100, cost: {amount: 3.0, currency: USD}}}]\n  - steps: [{text: two}]\n",
		"onCancel: end_turn\nturns:\n  - steps: [{usage_update: {used: 20, size: 100, cost: {amount: 3.0, currency: USD}}}, {waitForCancel: true}]\n",
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": script,
			"s.yaml":          "name: tight\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nbudget: {maxCost: 1.0}\ncancelGrace: 5s\nturns:\n  - prompt: one\n    expect: {stopReason: [end_turn, cancelled]}\n  - prompt: two\n",
		})
		res, out := runResults(t, dir, "s.yaml", "--repeat", "6")
		if res.code != 1 || strings.Contains(res.stderr, "cancelIgnored") {
			t.Errorf("%s: exit %d, want 1 and no cancelIgnored warning\n%s", script, res.code, res.stderr)
		}
		for i, sc := range out.Scenarios {
			tr := sc.Turns[0]
			if tr.CancelCause != report.CauseBudget || tr.CancelIgnored || len(tr.Failures) != 1 || !strings.Contains(tr.Failures[0], "budget.maxCost") || sc.Turns[1].StopReason != report.OutcomeSkipped {
				t.Errorf("%s: attempt %d: turn 1 cancelCause %q, cancelIgnored %v, failures %q, turn 2 %s; want cancelled for the budget, not ignored, failing on it alone, turn 2 skipped",
					script, i+1, tr.CancelCause, tr.CancelIgnored, tr.Failures, sc.Turns[1].StopReason)
			}
		}
	}
}

// TestTerminalWaitCancelledEveryRun: the mock agent waiting for a
// command's exit when the turn times out takes the cancel it read before
// the exit's answer, every attempt: it says the wait was cancelled, kills
// and releases the terminal, and answers cancelled.
func TestTerminalWaitCancelledEveryRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - tool_call: {toolCallId: t1, title: sleep, kind: execute, status: in_progress}\n      - terminal: {command: sleep, args: [\"30\"], toolCallId: t1, waitForExit: true, output: true}\n      - text: \" after\"\n",
		"s.yaml":          "name: term\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturnTimeout: 500ms\ncancelGrace: 5s\nturns:\n  - prompt: one\n    expect: {stopReason: cancelled}\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "8")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for i, sc := range out.Scenarios {
		tr := sc.Turns[0]
		if tr.StopReason != "cancelled" || !strings.HasSuffix(tr.Text, "error: terminal/wait_for_exit: cancelledkill: okrelease: ok") {
			t.Errorf("attempt %d: %s, text %q; want the wait cancelled, the terminal killed and released", i+1, tr.StopReason, tr.Text)
		}
	}
}
