package runner

import (
	"strings"
	"testing"
)

// TestWaitForExitPendingAtTurnEnd: a terminal/wait_for_exit the agent
// sent without waiting for its answer, whose command (sleep 1000) was
// still running at the turn's end, is recorded in its turn's
// clientRequests as it was then, not answered, and not as a later end of
// the command answered it: the turn's record does not depend on when its
// commands end. One command ends by a kill in the next turn, the other at
// the scenario's end. The mock agent sends the requests raw (garbage:).
func TestWaitForExitPendingAtTurnEnd(t *testing.T) {
	t.Parallel()
	rep := runOne(t, `
turns:
  - steps:
      - terminal: {command: "sleep 1000"}
      - garbage: '{"jsonrpc":"2.0","id":"w","method":"terminal/wait_for_exit","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - text: done
  - steps:
      - terminal: {command: "sleep 1000"}
      - garbage: '{"jsonrpc":"2.0","id":"w2","method":"terminal/wait_for_exit","params":{"sessionId":"mock-session-1","terminalId":"term-2"}}'
      - garbage: '{"jsonrpc":"2.0","id":"k","method":"terminal/kill","params":{"sessionId":"mock-session-1","terminalId":"term-1"}}'
      - text: done
`, `
name: pending
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
client: {terminal: true}
permissions: {default: allow}
turns: [{prompt: one}, {prompt: two}]
`)
	const pending = "not answered: the command was still running when the turn ended"
	for i, want := range []string{
		"terminal/create term-1:  | terminal/wait_for_exit term-1: " + pending,
		"terminal/create term-2:  | terminal/wait_for_exit term-2: " + pending + " | terminal/kill term-1: ",
	} {
		var got []string
		for _, r := range rep.Scenarios[0].Turns[i].ClientRequests {
			got = append(got, r.Method+" "+r.TerminalID+": "+r.Error+r.Signal)
		}
		if g := strings.Join(got, " | "); g != want {
			t.Errorf("turn %d: client requests %s\nwant %s", i+1, g, want)
		}
	}
}
