package e2e_test

import (
	"context"
	"path/filepath"
	"strconv"
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

func TestGrandchildHoldingStdoutDoesNotBlock(t *testing.T) {
	underRace(t)
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

// TestIdleTimeoutFlag: --idle-timeout replaces the scenario's idle
// timeout. (The idle clock itself is tested in runner, on a fake clock.)
func TestIdleTimeoutFlag(t *testing.T) {
	underRace(t)
	t.Parallel()
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
}

// TestIdleTimeoutTiedWithTurnTimeout: an idle timeout equal to the turn's
// gives the turn's timeout as the cause, every run (it used to be either).
func TestIdleTimeoutTiedWithTurnTimeout(t *testing.T) {
	t.Parallel()
	_, _, turns := runCancelScenario(t, waitingAgent, `
name: tie
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 300ms
idleTimeout: 300ms
turns:
  - prompt: one
`)
	if turns[0].CancelCause != "turnTimeout" {
		t.Errorf("turn = %+v, want cancelled by turnTimeout", turns[0])
	}
}

func TestInterruptWritesPartialResults(t *testing.T) {
	underRace(t)
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
	underRace(t)
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

// TestAgentThatStopsReadingCannotHoldTheTurn: an agent that never reads
// its prompt (larger than a pipe holds) cannot hold the turn past its
// deadline and cancelGrace: the rest of the prompt and the cancel get
// cancelGrace to go out, then the agent is unresponsive.
func TestAgentThatStopsReadingCannotHoldTheTurn(t *testing.T) {
	underRace(t)
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
cancelGrace: 2s
turns:
  - prompt:
      - text: read this
      - file: big.txt
`,
	})
	runWithin(t, dir, time.Minute, "acprun stayed stuck writing to an agent that does not read")
	res := readResults(t, filepath.Join(dir, "out.json"))
	tr := res.Scenarios[0].Turns[0]
	if tr.StopReason != "unresponsive" || tr.CancelCause != "turnTimeout" || !strings.Contains(tr.Error, "the agent did not read its input within 2s (cancelGrace)") {
		t.Errorf("turn %s after %s (%s), want unresponsive after turnTimeout, saying the agent did not read within cancelGrace", tr.StopReason, tr.CancelCause, tr.Error)
	}
	assertNoProcessesIn(t, dir)
}

// TestCancelGoesOutBeforeTheTerminalsDie: a turn cancelled while the agent
// waits for a command's exit kills the command only once session/cancel is
// out, so the agent reads the cancel before the exit and ends the turn
// cancelled, every run: read the other way round, the exit looks like the
// command's own end and the agent may finish its turn end_turn. The agent
// stops waiting on the cancel, so the exit's answer may come after the
// scenario closed the agent's input: then it never went out, and the
// transcript has none.
func TestCancelGoesOutBeforeTheTerminalsDie(t *testing.T) {
	underRace(t)
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
	if cancelAt < 0 || exitAt >= 0 && exitAt < cancelAt {
		t.Errorf("session/cancel at line %d, the answer to terminal/wait_for_exit at line %d; want the cancel, before the answer if that went out", cancelAt, exitAt)
	}
}

// TestHeldPermissionCancelledAnswerGoesOut: an agent that answers the
// prompt cancelled as soon as session/cancel comes, without waiting for
// the answer to its pending permission request (held by answerDelay), as
// the ACP Go SDK's example agent does, still gets the cancelled answer:
// the turn ends only once it is written, so the scenario cannot close the
// agent's input first. The mock agent sends the request raw (garbage:),
// which it does not wait for; the transcript has a line only once its
// write ended whole. Ten attempts side by side, so that the end of one
// comes while the others keep the machine busy.
func TestHeldPermissionCancelledAnswerGoesOut(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - garbage: '{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"mock-session-1","toolCall":{"toolCallId":"t1","title":"edit config.json","kind":"edit"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}'
      - waitForCancel: true
`,
		"s.yaml": `name: held
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1h}
turns:
  - prompt: go
    timeout: 2s
    expect: {stopReason: cancelled}
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr", "--repeat", "10", "-j", "10")
	if res.code != 0 || len(out.Scenarios) != 10 {
		t.Fatalf("exit %d with %d results, want 0 with 10\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	for _, sc := range out.Scenarios {
		turn := sc.Turns[0]
		if p := turn.Permissions; len(p) != 1 || p[0].Outcome != "cancelled" || turn.StopReason != "cancelled" {
			t.Errorf("%s: stopReason %q, permissions %+v; want cancelled, the request answered cancelled", sc.Transcript, turn.StopReason, p)
		}
		var answers []string
		for _, l := range readTranscript(t, filepath.Join(dir, sc.Transcript)).lines {
			if l.Dir == "c2a" && l.ID == `"p"` {
				answers = append(answers, string(l.Result))
			}
		}
		if len(answers) != 1 || !strings.Contains(answers[0], `"outcome":"cancelled"`) {
			t.Errorf("%s: answers written to the permission request: %q; want its cancelled answer", sc.Transcript, answers)
		}
	}
}

// TestRepeatIsBounded: --repeat beyond 1000 attempts per scenario, or
// beyond 100000 attempts in all, exits 2 before any agent starts.
func TestRepeatIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vals := make([]string, 101)
	for i := range vals {
		vals[i] = strconv.Itoa(i)
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"s.yaml": `name: first
agent: {command: [sh, -c, ': > started; exec "$0" mock-agent agent.mock.yaml', ` + strconv.Quote(acprunBin) + `]}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {text: {contains: bye}}
`,
		"many.yaml": `name: many
vars: {n: [` + strings.Join(vals, ", ") + `]}
agent: {command: [sh, -c, ': > started; exec "$0" mock-agent agent.mock.yaml', ` + strconv.Quote(acprunBin) + `]}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {text: {contains: bye}}
`,
	})
	// --fail-fast: without the bounds, a run stops at its first attempt.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"s.yaml", "--repeat", "1001", "--fail-fast"}, "acprun: --repeat 1001: want at most 1000 attempts per scenario (they give its pass rate within about 3 points)\n"},
		{[]string{"s.yaml", "--repeat", "100000000", "--dry-run"}, "acprun: --repeat 100000000: want at most 1000 attempts per scenario (they give its pass rate within about 3 points)\n"},
		{[]string{"many.yaml", "--repeat", "1000", "--fail-fast"}, "acprun: --repeat 1000: 101 scenarios × 1000 attempts is 101000, want at most 100000 attempts in a run: select fewer scenarios (--run, --tag, --shard) or repeat them fewer times\n"},
	} {
		res := acprun(t, dir, append([]string{"run"}, tt.args...)...)
		if res.code != exitUsage || res.stderr != tt.want {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %d and:\n%s", tt.args, res.code, res.stderr, exitUsage, tt.want)
		}
		if agentStarted(dir) {
			t.Fatalf("%v: an agent started", tt.args)
		}
	}
}
