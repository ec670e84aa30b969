package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplayKeepsTheDeadlinesCause: a turn that its turnTimeout cancelled,
// while the agent talked more often than the scenario's shorter
// idleTimeout, replays cancelled by turnTimeout again: the replay sends
// that turn's messages at their recorded pace, as the deadline needs the
// time to pass anyway, rather than all at once and then nothing, which
// the idleTimeout would cancel first.
func TestReplayKeepsTheDeadlinesCause(t *testing.T) {
	t.Parallel()
	script := "turns:\n  - steps: [{text: a}, {sleep: 300ms}, {text: b}, {sleep: 300ms}, {text: c}, {sleep: 300ms}, {text: d}, {sleep: 300ms}, {text: e}, {sleep: 300ms}, {text: f}, {sleep: 300ms}, {text: g}]\n"
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
idleTimeout: 1s
turns:
  - prompt: go
    timeout: 1500ms
    expect: {stopReason: cancelled, cancelCause: turnTimeout}
`
	recDir, rec := replayRecord(t, script, scenario, nil)
	if tr := rec.Scenarios[0].Turns[0]; tr.CancelCause != "turnTimeout" {
		t.Fatalf("recording: turn cancelled after %q, want turnTimeout", tr.CancelCause)
	}
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	dir := replayDir(t, transcript, scenario, nil)
	res, got := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if tr := got.Scenarios[0].Turns[0]; tr.StopReason != "cancelled" || tr.CancelCause != "turnTimeout" {
		t.Errorf("turn = %s (%s), want cancelled by turnTimeout", tr.StopReason, tr.CancelCause)
	}
}

var _ = cmp.Diff
var _ = strings.Contains
