package e2e_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// runCancelScenario runs one scenario on a mock script and returns the
// exit code, its result and its turns, once none of its processes is left.
func runCancelScenario(t *testing.T, script, scenario string, args ...string) (int, report.Result, []report.TurnResult) {
	t.Helper()
	res, out, dir := runOne(t, script, scenario, args...)
	if len(out.Scenarios) != 1 {
		t.Fatalf("scenarios = %d, want 1\nstderr:\n%s", len(out.Scenarios), res.stderr)
	}
	assertNoProcessesIn(t, dir)
	return res.code, out.Scenarios[0], out.Scenarios[0].Turns
}

// assertNoProcessesIn fails when a live process has dir as its working
// directory: the agent and everything it started must be gone.
func assertNoProcessesIn(t *testing.T, dir string) {
	t.Helper()
	for _, p := range testkit.Leftovers(t, testkit.InDir(dir)) {
		t.Errorf("process %s left running in %s", p, dir)
	}
}

const waitingAgent = `
turns:
  - steps:
      - text: "working"
      - tool_call: {toolCallId: t1, title: long job, kind: execute, status: in_progress}
      - waitForCancel: true
  - steps: [{text: second}]
`

func TestTurnTimeoutAnsweredCancelled(t *testing.T) {
	t.Parallel()
	code, sc, turns := runCancelScenario(t, waitingAgent, `
name: slow
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
turns:
  - prompt: one
    expect: {stopReason: cancelled}
  - prompt: two
`)
	if code != exitFailed {
		t.Errorf("exit %d, want %d (the turn expected cancelled; the skipped turn did not run, so it fails)", code, exitFailed)
	}
	if turns[0].StopReason != "cancelled" || turns[0].CancelCause != "turnTimeout" || turns[0].CancelIgnored {
		t.Errorf("turn 1 = %+v, want cancelled by turnTimeout", turns[0])
	}
	if turns[0].Text != "working" {
		t.Errorf("turn 1 text = %q, want what came before the cancel", turns[0].Text)
	}
	if len(turns[0].ToolCalls) != 1 || turns[0].ToolCalls[0].Status == "in_progress" {
		t.Errorf("turn 1 tool calls = %+v, want the unfinished call no longer in progress", turns[0].ToolCalls)
	}
	if turns[1].StopReason != "skipped" {
		t.Errorf("turn 2 = %+v, want skipped (no continueAfterCancel)", turns[1])
	}
	if sc.Status != "failed" || len(sc.Failures) != 1 || !strings.HasPrefix(sc.Failures[0], "turn 2: s.yaml:9:5: not run: turn 1 was cancelled after turnTimeout") {
		t.Errorf("status %s (%q), want failed for turn 2 alone", sc.Status, sc.Failures)
	}
}

func TestContinueAfterCancel(t *testing.T) {
	t.Parallel()
	_, _, turns := runCancelScenario(t, waitingAgent, `
name: slow
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
continueAfterCancel: true
turns:
  - prompt: one
    expect: {stopReason: cancelled}
  - prompt: two
`)
	if turns[1].StopReason != "end_turn" || turns[1].Text != "second" {
		t.Errorf("turn 2 = %+v, want it played after the cancel", turns[1])
	}
}

func TestTimeoutWhilePermissionPending(t *testing.T) {
	t.Parallel()
	code, _, turns := runCancelScenario(t, `
turns:
  - steps:
      - permission: {toolCallId: t1, title: rm -rf build, kind: execute}
        allowed: [{text: "allowed"}]
        rejected: [{text: "rejected"}]
        cancelled: [{text: "permission cancelled"}]
`, `
name: pending
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1h}
turnTimeout: 200ms
turns:
  - prompt: one
`)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	tr := turns[0]
	if tr.StopReason != "cancelled" || tr.CancelCause != "turnTimeout" {
		t.Errorf("turn = %+v, want cancelled by turnTimeout", tr)
	}
	if len(tr.Permissions) != 1 || tr.Permissions[0].Outcome != "cancelled" || tr.Permissions[0].Decision != "cancelled" {
		t.Errorf("permissions = %+v, want the pending request answered cancelled", tr.Permissions)
	}
	if tr.Text != "permission cancelled" {
		t.Errorf("text = %q, want the agent's cancelled branch", tr.Text)
	}
}

func TestCancelAnsweredEndTurnIsFlagged(t *testing.T) {
	t.Parallel()
	_, _, turns := runCancelScenario(t, `
onCancel: end_turn
turns:
  - steps: [{waitForCancel: true}]
`, `
name: rude
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
turns:
  - prompt: one
    expect: {stopReason: end_turn}
`)
	if tr := turns[0]; tr.StopReason != "end_turn" || !tr.CancelIgnored || tr.CancelCause != "turnTimeout" {
		t.Errorf("turn = %+v, want end_turn flagged cancelIgnored", tr)
	}
}

func TestAgentIgnoringCancelIsUnresponsive(t *testing.T) {
	t.Parallel()
	start := time.Now()
	code, sc, turns := runCancelScenario(t, `
ignoreSigterm: true
turns:
  - steps: [{text: "busy"}, {hang: true}]
`, `
name: deaf
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
cancelGrace: 300ms
killGrace: 1m
turns:
  - prompt: one
  - prompt: two
`)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if turns[0].StopReason != "unresponsive" || turns[1].StopReason != "skipped" || sc.Status != "error" {
		t.Errorf("turns = %+v, status %s; want unresponsive, then skipped, status error", turns, sc.Status)
	}
	// killGrace is a minute: the unresponsive agent must be killed at once,
	// not politely waited for.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("run took %s: the unresponsive agent was waited for", d)
	}
}

func TestGrandchildHoldingStdoutDoesNotBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{spawnGrandchild: true}, {text: done}]\n",
		"s.yaml": `name: grandchild
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
killGrace: 2m
turns:
  - prompt: one
    expect: {text: {contains: done}}
`,
	})
	out, err := runWithin(t, dir, 40*time.Second, "acprun did not finish: a grandchild holding the pipes kept it waiting")
	if err != nil {
		t.Fatalf("acprun: %v\n%s", err, out)
	}
	assertNoProcessesIn(t, dir)
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	t.Run("fires when the agent is silent", func(t *testing.T) {
		_, _, turns := runCancelScenario(t, waitingAgent, `
name: silent
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 1m
idleTimeout: 300ms
turns:
  - prompt: one
`)
		if turns[0].StopReason != "cancelled" || turns[0].CancelCause != "idleTimeout" {
			t.Errorf("turn = %+v, want cancelled by idleTimeout", turns[0])
		}
	})
	t.Run("does not fire during a long permission wait", func(t *testing.T) {
		_, _, turns := runCancelScenario(t, `
turns:
  - steps:
      - permission: {toolCallId: t1, title: ls, kind: read}
        allowed: [{text: "allowed"}]
`, `
name: patient
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1500ms}
turnTimeout: 1m
idleTimeout: 500ms
turns:
  - prompt: one
`)
		if turns[0].StopReason != "end_turn" || turns[0].CancelCause != "" || turns[0].Text != "allowed" {
			t.Errorf("turn = %+v, want end_turn with no cancel", turns[0])
		}
	})
	t.Run("flag overrides the file", func(t *testing.T) {
		_, _, turns := runCancelScenario(t, waitingAgent, `
name: silent
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
idleTimeout: 1h
turns:
  - prompt: one
`, "--idle-timeout", "300ms")
		if turns[0].CancelCause != "idleTimeout" {
			t.Errorf("turn = %+v, want cancelled by --idle-timeout", turns[0])
		}
	})
}

func TestAgentExitingMidTurn(t *testing.T) {
	t.Parallel()
	code, sc, turns := runCancelScenario(t, `
turns:
  - steps: [{stderr: "fatal: out of memory"}, {exit: 7}]
`, `
name: crash
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
`)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if turns[0].StopReason != "agent_exited" || !strings.Contains(turns[0].Error, "code 7") {
		t.Errorf("turn 1 = %+v, want agent_exited with code 7", turns[0])
	}
	if !strings.Contains(sc.StderrTail, "fatal: out of memory") {
		t.Errorf("stderr tail = %q, want the agent's last words", sc.StderrTail)
	}
}

func TestInterruptWritesPartialResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n  - steps: [{text: working}, {waitForCancel: true}]\n",
		"s.yaml": `name: first
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
  - prompt: three
---
name: second
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
`,
	})
	// The transcript is a FIFO: following it tells the test when the agent
	// is working on the second turn (it says so), with no polling.
	run := runFollowingTranscript(t, t.Context(), dir, "first", "-j", "1")
	run.waitFor("the second turn started", `"dir":"a2c"`, `"text":"working"`)
	run.interrupt()
	out := run.waitInterrupted()
	if len(out.Scenarios) != 2 || out.Scenarios[0].Name != "first" {
		t.Fatalf("scenarios = %+v, want the first, then the second as not run", out.Scenarios)
	}
	if first := out.Scenarios[0]; first.Status != "interrupted" || first.Error != "acprun was interrupted during turn 2" {
		t.Errorf("first: status %s, error %q; want interrupted during turn 2", first.Status, first.Error)
	}
	if second := out.Scenarios[1]; !second.NotRun || second.Status != "interrupted" || len(second.Turns) != 1 || second.Turns[0].StopReason != "skipped" {
		t.Errorf("second = %+v, want not run (it never started): status interrupted, its turn skipped", second)
	}
	turns := out.Scenarios[0].Turns
	if len(turns) != 3 || turns[0].StopReason != "end_turn" || turns[1].StopReason != "cancelled" ||
		turns[1].CancelCause != "interrupt" || turns[2].StopReason != "skipped" {
		t.Errorf("turns = %+v, want end_turn, cancelled by interrupt, skipped", turns)
	}
	assertNoProcessesIn(t, dir)
}

func TestSecondInterruptKillsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "ignoreSigterm: true\nturns:\n  - steps: [{spawnGrandchild: true}, {hang: true}]\n",
		"s.yaml": `name: stubborn
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
cancelGrace: 10m
killGrace: 10m
turns:
  - prompt: one
`,
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run := runFollowingTranscript(t, ctx, dir, "stubborn")
	run.waitFor("the prompt", `"method":"session/prompt"`)
	run.interrupt()
	run.waitFor("the cancel", `"method":"session/cancel"`) // the first interrupt cancels the turn
	run.interrupt()                                        // the second skips the 10m graces
	out := run.waitInterrupted()
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 || out.Scenarios[0].Turns[0].CancelCause != "interrupt" {
		t.Errorf("results = %+v, want the turn cancelled by interrupt", out.Scenarios)
	}
	assertNoProcessesIn(t, dir)
}

func TestAgentThatStopsReadingCannotHoldTheTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// Answers initialize and session/new, then never reads again.
		"agent.sh": shHandshakeEmbedded + "exec sleep 3600\n",
		// 272 KiB: four times what a pipe holds, and small enough that the
		// race-enabled binary starts writing the prompt well within the
		// turn's timeout on a loaded machine (4.5 MiB took a second idle,
		// and under load the timeout came first: the prompt was not sent).
		"big.txt": strings.Repeat("0123456789abcdef\n", 1<<14),
		"s.yaml": `name: deaf-reader
agent: {command: [sh, agent.sh]}
permissions: {default: deny}
turnTimeout: 5s
cancelGrace: 1m
turns:
  - prompt:
      - text: read this
      - file: big.txt
`,
	})
	runWithin(t, dir, time.Minute, "acprun stayed stuck writing to an agent that does not read")
	res := readResults(t, filepath.Join(dir, "out.json"))
	tr := res.Scenarios[0].Turns[0]
	if tr.StopReason != "unresponsive" || tr.CancelCause != "turnTimeout" || !strings.Contains(tr.Error, "stopped reading") {
		t.Errorf("turn = %+v, want unresponsive after turnTimeout, saying the agent stopped reading", tr)
	}
	assertNoProcessesIn(t, dir)
}

// TestCancelGoesOutBeforeTheTerminalsDie: a turn cancelled while the agent
// waits for a command's exit kills the command only once session/cancel is
// out, so the agent reads the cancel before the exit and ends the turn
// cancelled, every run: read the other way round, the exit looks like the
// command's own end and the agent may finish its turn end_turn.
func TestCancelGoesOutBeforeTheTerminalsDie(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - terminal: {command: sleep, args: [\"3600\"], waitForExit: true}\n      - text: after the command\n",
		"s.yaml":          "name: waits\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nclient: {terminal: true}\npermissions: {default: allow}\nturnTimeout: 1s\nturns:\n  - prompt: go\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if turn := sc.Turns[0]; turn.StopReason != "cancelled" || turn.CancelCause != "turnTimeout" {
		t.Errorf("turn: stopReason %q, cancelCause %q; want cancelled after turnTimeout", turn.StopReason, turn.CancelCause)
	}
	tr := readTranscript(t, filepath.Join(dir, sc.Transcript))
	cancelAt, exitAt, waitID := -1, -1, ""
	for i, l := range tr.lines {
		switch {
		case l.Dir == "a2c" && l.Method == "terminal/wait_for_exit":
			waitID = l.ID
		case l.Dir == "c2a" && l.Method == "session/cancel":
			cancelAt = i
		case l.Dir == "c2a" && l.Method == "" && waitID != "" && l.ID == waitID:
			exitAt = i
		}
	}
	if cancelAt < 0 || exitAt < 0 || exitAt < cancelAt {
		t.Errorf("session/cancel at line %d, the answer to terminal/wait_for_exit at line %d; want both, the cancel first", cancelAt, exitAt)
	}
}
