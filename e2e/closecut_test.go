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
