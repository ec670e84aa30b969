package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
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

// TestReplayOfAnAgentThatExited: an agent that exited in turn 2 of three
// replays as it ran: turn 2 ends agent_exited, turn 3 is skipped and the
// scenario errors, instead of turn 2 failing with an error of the replay
// and turn 3 being played against a recording that holds no such prompt.
func TestReplayOfAnAgentThatExited(t *testing.T) {
	t.Parallel()
	script := "turns:\n  - steps: [{text: ok}]\n  - steps: [{text: working}, {exit: 3}]\n"
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
  - prompt: three
`
	recDir, rec := replayRecord(t, script, scenario, nil)
	if sc := rec.Scenarios[0]; sc.Status != "error" || sc.Turns[1].StopReason != "agent_exited" {
		t.Fatalf("recording: %s, turn 2 %s; want an error, agent_exited", sc.Status, sc.Turns[1].StopReason)
	}
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	dir := replayDir(t, transcript, scenario, nil)
	res, got := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	sc := got.Scenarios[0]
	if !strings.Contains(sc.StderrTail, "rec/fix.jsonl:8: the recording ends in turn 2, session/prompt not answered nor cancelled: the recorded agent exited with code 3 there, and so does the replay") {
		t.Errorf("stderr = %q, want a line saying where the recording ends", sc.StderrTail)
	}
	got.Scenarios[0].StderrTail = ""
	if diff := cmp.Diff(replayComparable(t, rec, recDir, dir), replayComparable(t, got)); diff != "" {
		t.Errorf("replayed results differ (-recorded +replayed):\n%s", diff)
	}
}

// TestReplayOfASetupTimeout: a session/new that the scenario's timeout
// cut short, the agent answering acprun's $/cancel_request, replays as
// it ran (errorCause setupTimeout, the same message), instead of erring
// at once with the recorded cancelled answer.
func TestReplayOfASetupTimeout(t *testing.T) {
	t.Parallel()
	script := "delay: {session/new: never}\nturns:\n  - steps: [{text: hi}]\n"
	scenario := `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
timeout: 500ms
turns:
  - prompt: one
`
	recDir, rec := replayRecord(t, script, scenario, nil)
	if sc := rec.Scenarios[0]; sc.ErrorCause != "setupTimeout" {
		t.Fatalf("recording: errorCause %q (%s), want setupTimeout", sc.ErrorCause, sc.Error)
	}
	transcript := replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))
	dir := replayDir(t, transcript, scenario, nil)
	_, got := runResults(t, dir, "s.yaml")
	for _, r := range []report.Results{rec, got} {
		if c := r.Scenarios[0].SetupCancel; c != nil {
			c.WaitedMs = 0 // how long the answer took: a timing
		}
	}
	if diff := cmp.Diff(replayComparable(t, rec, recDir, dir), replayComparable(t, got)); diff != "" {
		t.Errorf("replayed results differ (-recorded +replayed):\n%s", diff)
	}
}

// TestByteOrderMarkIsRead: a results file and a transcript saved again by
// an editor that starts them with a UTF-8 byte order mark are read as
// acprun wrote them: merge takes the results, a replay plays the
// transcript.
func TestByteOrderMarkIsRead(t *testing.T) {
	t.Parallel()
	scenario := "name: fix\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: go\n    expect: {text: {contains: hi}}\n"
	recDir, _ := replayRecord(t, "turns: [{steps: [{text: hi}]}]\n", scenario, nil)
	results := "\ufeff" + string(replayRead(t, filepath.Join(recDir, "rec.json")))
	transcript := append([]byte("\ufeff"), replayRead(t, filepath.Join(recDir, "tr", "fix.jsonl"))...)
	dir := replayDir(t, transcript, scenario, map[string]string{"rec.json": results})
	if r := acprun(t, dir, "merge", "rec.json", "-o", "merged.json"); r.code != 0 {
		t.Errorf("merge of results with a byte order mark: exit %d\n%s", r.code, r.stderr)
	}
	if r := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); r.code != 0 {
		t.Errorf("replay of a transcript with a byte order mark: exit %d\n%s", r.code, r.stderr)
	}
}
