package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// TestReplayOfAGatewayBudgetCancel: a run whose gateway refused turn 2's
// model request over budget.maxRequests records acprun's session/cancel
// (cancelCause budget, found at the gateway) and the mock agent's
// cancelled answer. Replayed, the agent makes no model requests, so no
// budget passes and no client cancels there: turn 2 ends at once as
// recorded (stopReason cancelled), instead of waiting for a cancel that
// only its turnTimeout would send.
func TestReplayOfAGatewayBudgetCancel(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	files := gatewayFiles(gatewayAPIs[0], up.URL, "second")
	files["s.yaml"] = strings.Replace(files["s.yaml"], "turns:", "budget: {maxRequests: 1}\nturns:", 1)
	writeFiles(t, dir, files)
	res, rec := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	r := rec.Scenarios[0]
	if res.code != exitFailed || len(r.Turns) != 2 || r.Turns[1].CancelCause != report.CauseBudget || r.Turns[1].StopReason != "cancelled" {
		t.Fatalf("record: exit %d, turns %+v; want turn 2 cancelled (budget)\n%s", res.code, r.Turns, res.stderr)
	}
	transcript := string(replayRead(t, filepath.Join(dir, "tr", "g.jsonl")))
	if !strings.Contains(transcript, `"_meta":{"acprun/cancelAt":"gateway","acprun/cancelCause":"budget"}`) {
		t.Errorf("the transcript's session/cancel does not say the gateway found the budget passed:\n%s", transcript)
	}

	// The replay keeps the scenario's gateway and budget; a turnTimeout
	// bounds the wait of a replay that waits for a cancel.
	replayed := strings.Replace(files["s.yaml"], "agent: {command: [acprun, mock-agent, agent.mock.yaml]}", "agent: {replay: tr/g.jsonl}\nturnTimeout: 20s", 1)
	writeFiles(t, dir, map[string]string{"r.yaml": replayed})
	res, rp := runResults(t, dir, "r.yaml")
	p := rp.Scenarios[0]
	if res.code != exitFailed || len(p.Turns) != 2 {
		t.Fatalf("replay: exit %d, turns %+v; want 2 turns, failed\n%s", res.code, p.Turns, res.stderr)
	}
	if tr := p.Turns[0]; tr.StopReason != "end_turn" || tr.Text != r.Turns[0].Text {
		t.Errorf("replayed turn 1 = %s %q, want end_turn %q as recorded", tr.StopReason, tr.Text, r.Turns[0].Text)
	}
	if tr := p.Turns[1]; tr.StopReason != "cancelled" || tr.CancelCause != "" || tr.Error != "" {
		t.Errorf("replayed turn 2 = %s (cancelCause %q) %q; want it ended at once as recorded: cancelled, by no cancel of the replay's", tr.StopReason, tr.CancelCause, tr.Error)
	}
	if !strings.Contains(p.StderrTail, "tr/g.jsonl:") || !strings.Contains(p.StderrTail, "budget") {
		t.Errorf("stderr = %q, want the transcript's line of the gateway's budget cancel", p.StderrTail)
	}
}
