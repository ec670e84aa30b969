package e2e_test

import (
	"fmt"
	"io"
	"os"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// backgroundWaiterArg, as the only argument of the test binary, makes it
// the background-waiter agent instead of running tests (see testAgents): an ACP
// agent the mock agent cannot play, one that stops waiting for a
// terminal/wait_for_exit it sent.
const backgroundWaiterArg = "acprun-e2e-background-waiter-agent"

// backgroundWaiter plays an agent that, in its first turn, starts "sleep
// 100" in a terminal, sends terminal/wait_for_exit for it and answers the
// prompt end_turn without waiting for the exit; later prompts it never
// answers, nor says anything, until session/cancel, answered cancelled.
func backgroundWaiter(in io.Reader, out io.Writer) int {
	send, sc := agentLines(in, out)
	const session = "waiter-1"
	var pending json.RawMessage
	prompts := 0
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				TerminalID string `json:"terminalId"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}})
		case m.Method == "session/new":
			send(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": session}})
		case m.Method == "session/prompt":
			pending = m.ID
			if prompts++; prompts == 1 {
				send(map[string]any{"id": 80, "method": "terminal/create", "params": map[string]any{
					"sessionId": session, "command": "sleep", "args": []string{"100"}}})
			}
		case m.Method == "session/cancel":
			send(map[string]any{"id": pending, "result": map[string]any{"stopReason": "cancelled"}})
		case m.Method == "" && string(m.ID) == "80":
			send(map[string]any{"id": 81, "method": "terminal/wait_for_exit", "params": map[string]any{
				"sessionId": session, "terminalId": m.Result.TerminalID}})
			send(map[string]any{"id": pending, "result": map[string]any{"stopReason": "end_turn"}})
		case m.Method != "" && m.ID != nil:
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found: " + m.Method}})
		}
	}
	return 0
}

// TestWaitForExitLeftBehindHoldsNoClock: a terminal/wait_for_exit the agent
// stopped waiting for (its turn ended end_turn) holds neither the wait
// before the next prompt nor the next turn's idle clock: turn 2, silent, is
// cancelled by its idleTimeout, not by the far later turnTimeout.
func TestWaitForExitLeftBehindHoldsNoClock(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": fmt.Sprintf(`name: idle-after-background
agent: {command: [%q, %s]}
idleTimeout: 1s
turnTimeout: 10s
permissions: {default: allow}
turns:
  - prompt: start the dev server in the background
  - prompt: now do something
    expect: {stopReason: cancelled, cancelCause: idleTimeout}
`, self, backgroundWaiterArg)})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 2 {
		t.Fatalf("results %+v, want one scenario of two turns", out.Scenarios)
	}
	turns := out.Scenarios[0].Turns
	if tr := turns[1]; tr.StopReason != "cancelled" || tr.CancelCause != "idleTimeout" {
		t.Errorf("turn 2: %s after %s, want cancelled after idleTimeout", tr.StopReason, tr.CancelCause)
	}
	// The cancel of turn 2 kills the command, after turn 1's end: its
	// record is the wait's at turn 1's end, every run.
	reqs := turns[0].ClientRequests
	const pending = "not answered: the command was still running when the turn ended"
	if len(reqs) != 2 || reqs[1].Method != "terminal/wait_for_exit" || reqs[1].Error != pending || reqs[1].Signal != "" {
		t.Errorf("turn 1's client requests %+v, want terminal/create, then terminal/wait_for_exit with error %q", reqs, pending)
	}
}
