package e2e_test

import (
	"context"
	"testing"
	"time"
)

// TestInterruptBoundsTheWaitForSessionClose: after an interrupt the agent
// gets cancelGrace to answer session/close, not until it goes silent
// (30 s at most): an agent that keeps talking after its last answer
// cannot hold an interrupted run, which a CI runner's SIGTERM then SIGKILL
// would cut before the results are written.
func TestInterruptBoundsTheWaitForSessionClose(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// It answers the first prompt, then talks every 0.2 s, reading nothing.
		"agent.sh": shHandshakeClose + "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" +
			"while :; do " + chunk("late") + "sleep 0.2; done\n",
		"s.yaml": `name: chatty
agent: {command: [sh, agent.sh]}
permissions: {default: deny}
cancelGrace: 1s
killGrace: 1s
turns:
  - prompt: one
  - prompt: two
`,
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run := runFollowingTranscript(t, ctx, dir, "chatty")
	run.waitFor("a late chunk", `"text":"late"`) // before the second prompt, which waits for quiet
	run.interrupt()
	out := run.waitInterrupted()
	if len(out.Scenarios) != 1 {
		t.Fatalf("scenarios = %+v, want 1", out.Scenarios)
	}
	sc := out.Scenarios[0]
	if want := "not answered within cancelGrace (1s) after acprun was interrupted"; sc.SessionClose == nil || sc.SessionClose.Error != want {
		t.Errorf("sessionClose = %+v, want error %q", sc.SessionClose, want)
	}
	if sc.Status != "interrupted" {
		t.Errorf("status %s, want interrupted", sc.Status)
	}
	assertNoProcessesIn(t, dir)
}

// TestRunTimeoutCutsTheWaitForSessionCloseSaysSo: an agent that keeps
// talking after its last answer, without answering session/close, is
// waited for until the run's --timeout, and the results say that it was
// --timeout that cut the wait (not the scenario's own timeout).
func TestRunTimeoutCutsTheWaitForSessionCloseSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// It answers the prompt, is quiet for a while (acprun sends
		// session/close), then talks every 0.2 s, reading nothing.
		"agent.sh": shHandshakeClose + "read -r line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'` + "\n" +
			"sleep 0.5\nwhile :; do " + chunk("late") + "sleep 0.2; done\n",
		"s.yaml": "name: chatty\nagent: {command: [sh, agent.sh]}\npermissions: {default: deny}\nkillGrace: 1s\nturns:\n  - prompt: one\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--timeout", "8s")
	if len(out.Scenarios) != 1 {
		t.Fatalf("scenarios = %+v, want 1\n%s", out.Scenarios, res.stderr)
	}
	if want := "not answered before the run's --timeout passed"; out.Scenarios[0].SessionClose == nil || out.Scenarios[0].SessionClose.Error != want {
		t.Errorf("sessionClose = %+v, want error %q\n%s", out.Scenarios[0].SessionClose, want, res.stderr)
	}
	assertNoProcessesIn(t, dir)
}
