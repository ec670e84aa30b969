package e2e_test

import (
	"strings"
	"testing"
)

// TestWaitForExitPendingAtTurnEndRecorded: a terminal/wait_for_exit the
// agent sent without waiting for its answer, whose command (sleep 1000)
// was still running when the turn ended, is in the turn's clientRequests
// every attempt, recorded as pending then; the command is killed at the
// scenario's end. The mock agent sends the wait raw (garbage:), which it
// does not wait for.
func TestWaitForExitPendingAtTurnEndRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "sleep 1000"}
      - garbage: '{"jsonrpc":"2.0","id":"w","method":"terminal/wait_for_exit","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - text: done
`,
		"s.yaml": "name: pending\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturns: [{prompt: go}]\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "3")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	want := `terminal/create term-1:  | terminal/wait_for_exit term-1: not answered: the command was still running when the turn ended`
	for i, sc := range out.Scenarios {
		var got []string
		for _, r := range sc.Turns[0].ClientRequests {
			got = append(got, r.Method+" "+r.TerminalID+": "+r.Error+r.Signal)
		}
		if g := strings.Join(got, " | "); g != want {
			t.Errorf("attempt %d: client requests %s\nwant %s", i+1, g, want)
		}
	}
}
