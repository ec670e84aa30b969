package e2e_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// budgetNoCancel is a recording whose turn passed the scenario's budget
// (maxCost 1) with its first update, then went on and answered end_turn,
// with no session/cancel in the turn: the recording acprun had handled the
// answer before it could cancel.
const budgetNoCancel = `{"t":0,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"acprun","version":"(devel)"}}}}
{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"rec-agent","version":"1.0.0"}}}}
{"t":2,"dir":"c2a","msg":{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/rec","mcpServers":[]}}}
{"t":3,"dir":"a2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}}
{"t":100,"dir":"c2a","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"one"}]}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":5,"currency":"USD"}}}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"one more"}}}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" and another"}}}}}
{"t":101,"dir":"a2c","msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}}
`

// TestReplayOfABudgetPassedGivesOneResult: a turn that passed its budget
// with an update the agent followed with more text and end_turn replays
// as recorded every attempt, however acprun's session/cancel (which the
// recording lacks) fell among the replayed messages: end_turn with all
// the text, cancelCause budget, not cancelIgnored, failing on the budget.
// (replay's and runner's tests force each order.) A recording of the mock
// agent doing so replays to the recorded results.
func TestReplayOfABudgetPassedGivesOneResult(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"budget.jsonl": budgetNoCancel,
		"s.yaml":       "name: b\nagent: {replay: budget.jsonl}\npermissions: {default: allow}\nbudget: {maxCost: 1}\nturns:\n  - prompt: one\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "6")
	if res.code != 1 || strings.Contains(res.stderr, "cancelIgnored") {
		t.Errorf("exit %d, want 1 and no cancelIgnored warning\n%s", res.code, res.stderr)
	}
	for i, sc := range out.Scenarios {
		tr := sc.Turns[0]
		if tr.StopReason != "end_turn" || tr.Text != "one more and another" || tr.CancelCause != report.CauseBudget || tr.CancelIgnored ||
			len(tr.Failures) != 1 || !strings.Contains(tr.Failures[0], "budget.maxCost") {
			t.Errorf("attempt %d: turn %s, text %q, cancelCause %q, cancelIgnored %v, failures %q; want end_turn, all the text, budget, not ignored, the budget's failure",
				i+1, tr.StopReason, tr.Text, tr.CancelCause, tr.CancelIgnored, tr.Failures)
		}
	}

	scenario := "name: fix\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\nbudget: {maxCost: 1}\nturns:\n  - prompt: one\n"
	// onCancel: ignore: the recorded agent sends all its text however soon
	// acprun's cancel reaches it.
	recDir, rec := replayRecord(t, "onCancel: ignore\nturns:\n  - steps: [{usage_update: {used: 10, size: 100, cost: {amount: 5, currency: USD}}}, {text: one more}, {text: \" and another\"}]\n", scenario, nil)
	if tr := rec.Scenarios[0].Turns[0]; tr.StopReason != "end_turn" || tr.CancelCause != report.CauseBudget || tr.CancelIgnored {
		t.Fatalf("recording: turn %s, cancelCause %q, cancelIgnored %v; want end_turn, budget, not ignored", tr.StopReason, tr.CancelCause, tr.CancelIgnored)
	}
	rdir := replayDir(t, replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl")), scenario, nil)
	_, got := runResults(t, rdir, "s.yaml")
	if d := cmp.Diff(replayComparable(t, rec, recDir, rdir), replayComparable(t, got)); d != "" {
		t.Errorf("replay results differ from the recording (-recorded +replayed):\n%s", d)
	}
}

// TestReplayOfAnAgentThatExitedBetweenTurns: an agent that exited on its
// own (code 5) after answering turn 1 replays to the recorded results:
// turn 2 agent_exited, "the agent exited with code 5", exitCode 5, not a
// divergence; acprun replay exits with the recorded code.
func TestReplayOfAnAgentThatExitedBetweenTurns(t *testing.T) {
	t.Parallel()
	scenario := "name: fix\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n  - prompt: two\n  - prompt: three\n"
	recDir, rec := replayRecord(t, "turns:\n  - steps: [{text: done}]\n    after: [{exit: 5}]\n  - steps: [{text: never}]\n", scenario, nil)
	if tr := rec.Scenarios[0].Turns[1]; tr.StopReason != report.OutcomeAgentExited || tr.Error != "the agent exited with code 5" {
		t.Fatalf("recording: turn 2 %s (%s), want agent_exited with code 5", tr.StopReason, tr.Error)
	}
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	rdir := replayDir(t, transcript, scenario, nil)
	res, got := runResults(t, rdir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	tail := got.Scenarios[0].StderrTail
	got.Scenarios[0].StderrTail = "" // the replay says where it ends
	if d := cmp.Diff(replayComparable(t, rec, recDir, rdir), replayComparable(t, got)); d != "" {
		t.Errorf("replay results differ from the recording (-recorded +replayed):\n%s", d)
	}
	// Whether turn 2's prompt reached the agent before it exited is the
	// agent's own timing: the recording ends after turn 1's answer
	// ("here") or in turn 2's prompt ("there"); either way the replay says
	// how the agent exited, and the results are the recorded ones.
	if s := tail; strings.Contains(s, "diverged") || !strings.Contains(s, "the recorded agent exited with code 5 here") && !strings.Contains(s, "the recorded agent exited with code 5 there") {
		t.Errorf("stderr = %q, want the replay saying it ends where the agent did, and how", s)
	}
	cmd := exec.Command(acprunFor(t), "replay", "rec/fix.jsonl")
	cmd.Dir = rdir
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/x","mcpServers":[]}}
{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"mock-session-1","prompt":[{"type":"text","text":"one"}]}}
{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"mock-session-1","prompt":[{"type":"text","text":"two"}]}}
`)
	if r, _ := runCommand(t, cmd); r.code != 5 || !strings.Contains(r.stdout, `"stopReason":"end_turn"`) {
		t.Errorf("acprun replay: exit %d, want the recorded 5 after the answer\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
