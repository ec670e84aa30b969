package runner

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/mockagent"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// The tests of this file run the scenario's session and turns against the
// mock agent in this process, over pipes, inside a synctest bubble: every
// deadline (turn, idle, cancel grace, answer delay) runs on the bubble's
// clock, which moves only when every goroutine waits. How fast the machine
// runs the agent is then no part of the result: the agent answers at once,
// in the bubble's time, and a deadline passes exactly when it is due.
// Starting and stopping an agent process is the business of the tests
// that run a real one (Run's).

// playInBubble plays the scenario src (s.yaml) against the mock agent's
// script as runScenario does between starting the agent and stopping it
// (the handshake, the turns, the record and the verdict), and returns the
// result. It must run in a synctest bubble.
func playInBubble(t *testing.T, script, src string) report.Result {
	t.Helper()
	b := startInBubble(t, script, src)
	if err := b.handshake(t.Context()); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	b.r.playTurns(t.Context(), t.Context())
	return b.finish(t, false)
}

// bubbleRun is a scenario's run against the mock agent played in this
// process, over pipes (see playInBubble).
type bubbleRun struct {
	r         *scenarioRun
	res       *report.Result
	conn      *acp.Conn
	clientOut io.Closer  // the agent's stdin
	played    chan error // the mock agent's end
	stop      func()     // ends the mock agent as a kill would

	mu   sync.Mutex
	sent [][]byte // every line acprun wrote to the agent
	// onLine, when set (before the handshake), sees every line of the
	// connection as the tap does, in the reader's or the writer's
	// goroutine.
	onLine func(dir acp.Direction, line []byte)
}

// sentLines returns every line acprun wrote to the agent so far.
func (b *bubbleRun) sentLines() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.sent)
}

// startInBubble readies the scenario src and starts the mock agent's
// script, connected to the scenario's binding; nothing is sent yet.
func startInBubble(t *testing.T, script, src string) *bubbleRun {
	t.Helper()
	return startScriptInBubble(t, script, src, nil)
}

// startScriptInBubble is startInBubble with gate, when set, called with
// each message of the agent's before acprun handles it.
func startScriptInBubble(t *testing.T, script, src string, gate func(*acp.Request)) *bubbleRun {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "agent.mock.yaml")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := mockagent.Parse(file, []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return startAgentInBubble(t, dir, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return mockagent.Run(ctx, s, in, out, io.Discard)
	}, src, gate)
}

// startAgentInBubble readies the scenario src and starts agent on the
// agent's stdin and stdout, connected to the scenario's binding; nothing
// is sent yet. The scenario's file is in dir; gate, when set, is called
// with each message of the agent's before acprun handles it.
func startAgentInBubble(t *testing.T, dir string, agent func(ctx context.Context, in io.Reader, out io.Writer) error, src string, gate func(*acp.Request)) *bubbleRun {
	t.Helper()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	scs, _, err := scenario.LoadBytes(file, []byte(src), scenario.LoadOptions{})
	if err != nil {
		t.Fatalf("load:\n%v", err)
	}
	ctx := t.Context()
	j := newJob(scs[0], 0)
	b := &bubbleRun{played: make(chan error, 1)}
	opts := &Options{Environ: []string{}, Abort: make(chan struct{}), tap: func(dir acp.Direction, line []byte, _ time.Time) {
		b.mu.Lock()
		if dir == acp.Sent {
			b.sent = append(b.sent, slices.Clone(line))
		}
		onLine := b.onLine
		b.mu.Unlock()
		if onLine != nil {
			onLine(dir, line)
		}
	}}
	res := newResult(j, opts)
	b.res = &res
	r := &scenarioRun{opts: opts, runCtx: ctx, sc: j.sc, res: &res, mark: reap.New(), red: redact.New()}
	r.jo = (&observer{}).forJob(j.ref, r.red)
	r.sess = r.newSession()
	t.Cleanup(r.sess.client.close)
	b.r = r

	// The agent's stdin and stdout, and the connection over them.
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	b.clientOut = clientOut
	agentCtx, stop := context.WithCancel(ctx)
	b.stop = stop
	go func() {
		b.played <- agent(agentCtx, agentIn, agentOut)
		agentOut.Close()
	}()
	p := &proc{bind: newBinding(nil), mark: r.mark}
	p.bind.bind(r.link())
	var h acp.Handler = p.bind
	if gate != nil {
		h = acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
			gate(req)
			return p.bind.Handle(ctx, req)
		})
	}
	b.conn = acp.NewConn(clientIn, clientOut, h, &acp.Options{Peer: "agent", OnViolation: p.bind.violation, Tap: p.bind.tap})
	r.proc, r.agent = p, &Agent{Conn: b.conn}
	return b
}

// handshake initializes the agent and opens the scenario's session, as
// startProc and openSession do, within ctx.
func (b *bubbleRun) handshake(ctx context.Context) error {
	r := b.r
	hs := handshake{caps: r.sess.client.capabilities(), version: "test", auth: r.sc.Agent.Auth, authHint: authHint, wait: r.setupWait(),
		authEnv: AuthEnv(r.sc.Agent, r.opts.Environ), command: r.sc.Agent.Command}
	var err error
	r.proc.init, err = hs.initialize(ctx, b.conn)
	r.proc.bind.endPrelude()
	r.noteInit()
	if err == nil {
		err = r.openSession(ctx, nil)
	}
	return err
}

// finish ends the agent's input, lets the agent play what is left (after:
// steps) and end, handles what it wrote, and returns the result with its
// verdict. With kill, an agent that does not end by itself is ended (as
// the kill ladder would); without, it must end.
func (b *bubbleRun) finish(t *testing.T, kill bool) report.Result {
	t.Helper()
	b.clientOut.Close()
	if kill {
		synctest.Wait()
		b.stop()
	}
	if err := <-b.played; err != nil && !(kill && errors.Is(err, context.Canceled)) {
		t.Errorf("the mock agent: %v", err)
	}
	<-b.conn.Done()
	b.conn.Close()
	b.r.collect()
	b.r.checkWork(t.Context()) // the last turn's, as play does once the agent stopped
	b.r.evaluate()
	return *b.res
}

// TestIdleTimeout: the idle timeout cancels a turn whose agent says
// nothing, and does not while acprun holds a permission request of the
// agent's longer than it (the answer delay): the agent is not idle then,
// acprun is busy. Run in a bubble, the result cannot depend on how fast
// the agent answers around the wait.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	// An idle timeout shorter than the answer delay.
	const patient = `
name: patient
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1500ms}
turnTimeout: 1m
idleTimeout: 500ms
turns:
  - prompt: one
`
	t.Run("fires when the agent is silent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			res := playInBubble(t, waitingAgent, `
name: silent
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 1m
idleTimeout: 300ms
turns:
  - prompt: one
`)
			if tr := res.Turns[0]; tr.StopReason != "cancelled" || tr.CancelCause != "idleTimeout" {
				t.Errorf("turn = %+v, want cancelled by idleTimeout", tr)
			}
		})
	})
	t.Run("does not fire during a long permission wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			res := playInBubble(t, `
turns:
  - steps:
      - permission: {toolCallId: t1, title: ls, kind: read}
        allowed: [{text: "allowed"}]
`, patient)
			if tr := res.Turns[0]; tr.StopReason != "end_turn" || tr.CancelCause != "" || tr.Text != "allowed" {
				t.Errorf("turn = %+v, want end_turn with no cancel", tr)
			}
		})
	})
	t.Run("fires after the permission answer when the agent falls silent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			res := playInBubble(t, `
turns:
  - steps:
      - permission: {toolCallId: t1, title: ls, kind: read}
        allowed: [{waitForCancel: true}]
`, patient+"    expect: {stopReason: cancelled}\n")
			tr := res.Turns[0]
			if tr.StopReason != "cancelled" || tr.CancelCause != "idleTimeout" {
				t.Errorf("turn = %+v, want cancelled by idleTimeout", tr)
			}
			// The idle clock restarts at the answer: the quiet before the
			// turn, 1.5s of delay, then 0.5s of silence, in the bubble's
			// time.
			if took := time.Since(start); took != settleQuiet+2*time.Second {
				t.Errorf("the turn was cancelled after %s, want 2.1s: the quiet before it, the answer delay, then the idle timeout", took)
			}
		})
	})
}

// waitingAgent works on its first turn until it is cancelled, and answers
// its second.
const waitingAgent = `
turns:
  - steps:
      - text: "working"
      - tool_call: {toolCallId: t1, title: long job, kind: execute, status: in_progress}
      - waitForCancel: true
  - steps: [{text: second}]
`

// TestTurnTimeoutAnsweredCancelled: at the turn's timeout acprun sends
// session/cancel; the agent answers cancelled. What came before the cancel
// is kept, the unfinished tool call is no longer in progress, and the next
// turn is skipped: it did not run, so it fails.
func TestTurnTimeoutAnsweredCancelled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, waitingAgent, `name: slow
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
turns:
  - prompt: one
    expect: {stopReason: cancelled}
  - prompt: two
`)
		turns := res.Turns
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
		// Failed, not interrupted nor errored: acprun run exits 1.
		if res.Status != "failed" || len(res.Failures) != 1 || !strings.HasPrefix(res.Failures[0], "turn 2: "+res.File+":8:5: not run: turn 1 was cancelled after turnTimeout") {
			t.Errorf("status %s (%q), want failed for turn 2 alone", res.Status, res.Failures)
		}
	})
}

// TestCancelSaysItsCause: acprun's session/cancel says why it was sent in
// its _meta (report.MetaCancelCause), with the turn's cancelCause, so that
// a transcript tells a cancel the scenario's own limits made (a replay
// makes it again) from one the run made (an interrupt, --timeout,
// --fail-fast: a replay cannot).
func TestCancelSaysItsCause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cause error // the end of the run's context once the turn has begun; nil: none
		want  string
	}{
		{"turn timeout", nil, report.CauseTurnTimeout},
		{"interrupt", errors.New("interrupted"), report.CauseInterrupt},
		{"run timeout", ErrRunTimeout, report.CauseRunTimeout},
		{"fail fast", errFailFast, report.CauseFailFast},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startInBubble(t, waitingAgent, `name: slow
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
turns:
  - prompt: one
`)
				ctx, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				if tc.cause != nil {
					b.onLine = func(dir acp.Direction, line []byte) {
						if dir == acp.Received && strings.Contains(string(line), `"text":"working"`) {
							cancel(tc.cause)
						}
					}
				}
				if err := b.handshake(ctx); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				b.r.playTurns(ctx, ctx)
				res := b.finish(t, false)
				if tr := res.Turns[0]; tr.CancelCause != tc.want {
					t.Errorf("turn 1 cancelCause %q, want %q", tr.CancelCause, tc.want)
				}
				var causes []string
				for _, line := range b.sentLines() {
					var m struct {
						Method string `json:"method"`
						Params struct {
							Meta map[string]string `json:"_meta"`
						} `json:"params"`
					}
					if err := json.Unmarshal(line, &m); err == nil && m.Method == acp.MethodSessionCancel {
						causes = append(causes, m.Params.Meta[report.MetaCancelCause])
					}
				}
				if want := []string{tc.want}; !slices.Equal(causes, want) {
					t.Errorf("session/cancel sent with causes %q, want %q", causes, want)
				}
			})
		})
	}
}

// TestContinueAfterCancel: with continueAfterCancel the turn after a
// cancelled one is played.
func TestContinueAfterCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, waitingAgent, `name: slow
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
continueAfterCancel: true
turns:
  - prompt: one
    expect: {stopReason: cancelled}
  - prompt: two
`)
		if tr := res.Turns[1]; tr.StopReason != "end_turn" || tr.Text != "second" {
			t.Errorf("turn 2 = %+v, want it played after the cancel", tr)
		}
	})
}

// TestTimeoutWhilePermissionPending: a permission request still in its
// answer delay when the turn times out is answered cancelled, after
// session/cancel, and the agent plays its cancelled branch.
func TestTimeoutWhilePermissionPending(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `
turns:
  - steps:
      - permission: {toolCallId: t1, title: rm -rf build, kind: execute}
        allowed: [{text: "allowed"}]
        rejected: [{text: "rejected"}]
        cancelled: [{text: "permission cancelled"}]
`, `name: pending
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow, answerDelay: 1h}
turnTimeout: 200ms
turns:
  - prompt: one
`)
		// The turn did not finish by itself: acprun run exits 1.
		if res.Status != "failed" {
			t.Errorf("status %s, want failed (%q)", res.Status, res.Failures)
		}
		tr := res.Turns[0]
		if tr.StopReason != "cancelled" || tr.CancelCause != "turnTimeout" {
			t.Errorf("turn = %+v, want cancelled by turnTimeout", tr)
		}
		if len(tr.Permissions) != 1 || tr.Permissions[0].Outcome != "cancelled" || tr.Permissions[0].Decision != "cancelled" {
			t.Errorf("permissions = %+v, want the pending request answered cancelled", tr.Permissions)
		}
		if tr.Text != "permission cancelled" {
			t.Errorf("text = %q, want the agent's cancelled branch", tr.Text)
		}
	})
}

// playHeldAnswer plays, in the bubble, one turn of agent (with the
// scenario's permissions) that its 1s timeout cancels, and checks the line
// the agent sent on got, which it read after a pause once the turn was
// over for it: the cancelled answer (holding each of want) that acprun
// held. what names it in failures. It returns the attempt's result.
func playHeldAnswer(t *testing.T, agent func(ctx context.Context, in io.Reader, out io.Writer) error, permissions string, got <-chan string, what string, want ...string) report.Result {
	t.Helper()
	b := startAgentInBubble(t, t.TempDir(), agent, "name: s\nagent: {command: [an-agent]}\npermissions: "+permissions+
		"\ncancelGrace: 30s\nturns:\n  - prompt: go\n    timeout: 1s\n    expect: {stopReason: cancelled}\n", nil)
	if err := b.handshake(t.Context()); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	b.r.playTurns(t.Context(), t.Context())
	synctest.Wait() // the agent has taken what it read
	select {
	case line := <-got:
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("the agent read %s after its answer; want %s cancelled answer", line, what)
				break
			}
		}
	default:
		t.Errorf("the turn ended before %s cancelled answer was written", what)
	}
	return b.finish(t, false)
}

// TestHeldCancelledAnswerIsWrittenBeforeTheTurnEnds: an agent that
// answers the prompt cancelled as soon as session/cancel comes, without
// waiting for the answer to its pending permission request (held by
// answerDelay), still gets that cancelled answer before the turn ends,
// even when it reads it only 10s later: the scenario does not go on (to
// close the agent's input) before the answer is out. The agent reads
// acprun's lines itself; in the bubble its 10s pass only once acprun
// waits for it.
func TestHeldCancelledAnswerIsWrittenBeforeTheTurnEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		got := make(chan string, 1) // the line the agent read after its pause
		agent := func(ctx context.Context, in io.Reader, out io.Writer) error {
			sc := bufio.NewScanner(in)
			answers := []string{
				`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
				`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"edit"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`,
			}
			for sc.Scan() {
				line := sc.Text()
				switch {
				case len(answers) > 0 && strings.Contains(line, `"method"`) && strings.Contains(line, `"id"`):
					if _, err := io.WriteString(out, answers[0]+"\n"); err != nil {
						return err
					}
					answers = answers[1:]
				case strings.Contains(line, `"session/cancel"`):
					if _, err := io.WriteString(out, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`+"\n"); err != nil {
						return err
					}
					time.Sleep(10 * time.Second)
					if sc.Scan() {
						got <- sc.Text()
					}
				}
			}
			return sc.Err()
		}
		res := playHeldAnswer(t, agent, "{default: allow, answerDelay: 1h}", got, "the permission's", `"id":"p"`, `"outcome":"cancelled"`)
		if p := res.Turns[0].Permissions; len(p) != 1 || p[0].Outcome != "cancelled" {
			t.Errorf("permissions = %+v, want the held request answered cancelled", p)
		}
		if w := res.Turns[0].Warnings; len(w) != 0 {
			t.Errorf("turn warnings %q, want none", w)
		}
	})
}

// TestHeldCancelledElicitationIsWrittenBeforeTheTurnEnds: as for a held
// permission request, the cancelled answer to an elicitation/create that
// came while the turn was being cancelled goes out before the turn ends,
// even when the agent answers the prompt first and reads only 10s later.
// The agent asks while acprun's session/cancel waits for it to read; its
// answer then waits for session/cancel to be out.
func TestHeldCancelledElicitationIsWrittenBeforeTheTurnEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		got := make(chan string, 1) // the line the agent read after its pause
		agent := func(ctx context.Context, in io.Reader, out io.Writer) error {
			sc := bufio.NewScanner(in)
			write := func(line string) error {
				_, err := io.WriteString(out, line+"\n")
				return err
			}
			answers := []string{
				`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
			}
			for sc.Scan() {
				line := sc.Text()
				switch {
				case len(answers) > 0:
					if err := write(answers[0]); err != nil {
						return err
					}
					answers = answers[1:]
				case strings.Contains(line, `"session/prompt"`):
					time.Sleep(2 * time.Second) // past the turn's timeout, without reading
					if err := write(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"sessionId":"s1","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{}}}}`); err != nil {
						return err
					}
					if err := write(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`); err != nil {
						return err
					}
				case strings.Contains(line, `"session/cancel"`):
					time.Sleep(10 * time.Second)
					if sc.Scan() {
						got <- sc.Text()
					}
				}
			}
			return sc.Err()
		}
		res := playHeldAnswer(t, agent, "{default: allow}", got, "the elicitation's", `"id":"e"`, `"action":"cancel"`)
		if e := res.Turns[0].Elicitations; len(e) != 1 || e[0].Action != "cancel" {
			t.Errorf("elicitations = %+v, want the question answered cancel", e)
		}
	})
}

// TestCancelAnsweredEndTurnIsFlagged: an agent that answers session/cancel
// with end_turn has its turn flagged cancelIgnored, with a warning.
func TestCancelAnsweredEndTurnIsFlagged(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `
onCancel: end_turn
turns:
  - steps: [{waitForCancel: true}]
`, `name: rude
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
turns:
  - prompt: one
    expect: {stopReason: end_turn}
`)
		if tr := res.Turns[0]; tr.StopReason != "end_turn" || !tr.CancelIgnored || tr.CancelCause != "turnTimeout" {
			t.Errorf("turn = %+v, want end_turn flagged cancelIgnored", tr)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "cancelIgnored") {
			t.Errorf("warnings %q do not flag the ignored cancel", res.Warnings)
		}
	})
}

// TestToolCallAfterCancelIsCancelled: a tool call the agent announces
// after session/cancel, and never finishes, is cancelled with the rest.
func TestToolCallAfterCancelIsCancelled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `turns:
  - onCancel: ignore
    steps:
      - tool_call: {toolCallId: before, title: before, kind: read, status: in_progress}
      - waitForCancel: true
      - tool_call: {toolCallId: after, title: after, kind: read, status: in_progress}
      - tool_call: {toolCallId: done, title: done, kind: read, status: completed}
      - stop: cancelled
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turnTimeout: 300ms
turns:
  - prompt: one
    expect: {stopReason: cancelled}
`)
		got := map[string]string{}
		for _, c := range res.Turns[0].ToolCalls {
			got[c.ID] = c.Status
		}
		want := map[string]string{"before": "cancelled", "after": "cancelled", "done": "completed"}
		if len(got) != len(want) || got["before"] != want["before"] || got["after"] != want["after"] || got["done"] != want["done"] {
			t.Errorf("tool call statuses = %v, want %v", got, want)
		}
	})
}

// TestLateUpdateKeepsInTurnStatus: a tool call in progress at the answer
// and completed by a late update keeps its in-turn status, with the late
// one beside it.
func TestLateUpdateKeepsInTurnStatus(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res := playInBubble(t, `turns:
  - steps: [{tool_call: {toolCallId: c1, title: build, kind: execute, status: in_progress}}]
    after: [{tool_call_update: {toolCallId: c1, status: completed}}]
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
turns: [{prompt: go}]
`)
		if res.Status != report.StatusPassed {
			t.Fatalf("status %s (%q, %q)", res.Status, res.Error, res.Failures)
		}
		tr := res.Turns[0]
		if len(tr.ToolCalls) != 1 || tr.ToolCalls[0].Status != "in_progress" || tr.ToolCalls[0].LateStatus != "completed" || tr.ToolCalls[0].Late {
			t.Errorf("tool calls = %+v, want c1 in_progress at the answer, completed late", tr.ToolCalls)
		}
	})
}

// TestForeignSessionBeforeSessionNew: an update for another session that
// comes before session/new answers is a violation, not ours.
func TestForeignSessionBeforeSessionNew(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		foreign := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"someone-else","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"FOREIGN"}}}}`
		res := playInBubble(t, `updatesBeforeSessionNew:
  - garbage: '`+foreign+`'
  - update: {sessionUpdate: available_commands_update, availableCommands: []}
turns:
  - steps: [{text: hi}]
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: go}]
`)
		if res.SetupUpdates["agent_message_chunk"] != 0 || res.SetupUpdates["available_commands_update"] != 1 {
			t.Errorf("setupUpdates = %v, want only the update of our session", res.SetupUpdates)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), `unknown session "someone-else"`) {
			t.Errorf("warnings = %q, want the foreign update reported", res.Warnings)
		}
	})
}

// lagConn is a connection whose peer the test writes to with note: each
// call writes one notification, and h handles them (nil: at once). A note
// after the test's end does nothing.
func lagConn(t *testing.T, h acp.Handler) (*acp.Conn, func()) {
	t.Helper()
	if h == nil {
		h = acp.HandlerFunc(func(context.Context, *acp.Request) (any, error) { return nil, nil })
	}
	r, w := io.Pipe()
	c := acp.NewConn(r, io.Discard, h, nil)
	t.Cleanup(func() {
		w.Close()
		c.Close()
	})
	return c, func() {
		_, err := io.WriteString(w, `{"jsonrpc":"2.0","method":"note"}`+"\n")
		if err != nil && !errors.Is(err, io.ErrClosedPipe) { // a flood at the test's end
			t.Errorf("note: %v", err)
		}
	}
}

// TestWaitQuiet: the wait before a turn (and a probe's listening) ends
// once the agent has been quiet for the quiet period, at most after the
// bound, or when the agent is gone; acprun serving a request is not
// quiet.
func TestWaitQuiet(t *testing.T) {
	t.Parallel()
	const quiet, most = 100 * time.Millisecond, time.Second
	waited := func(a *activity, c *acp.Conn, gone <-chan struct{}) time.Duration {
		start := time.Now()
		a.waitQuiet(context.Background(), c, quiet, most, gone)
		return time.Since(start)
	}
	synctest.Test(t, func(t *testing.T) {
		a := newActivity()
		c, note := lagConn(t, nil)
		go func() {
			for range 3 {
				time.Sleep(80 * time.Millisecond)
				note()
			}
		}()
		if d := waited(a, c, nil); d != 340*time.Millisecond {
			t.Errorf("quiet after messages until 240ms: waited %s, want 340ms", d)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		a := newActivity()
		c, _ := lagConn(t, nil)
		done := a.serving()
		go func() {
			time.Sleep(500 * time.Millisecond)
			done()
		}()
		if d := waited(a, c, nil); d != 600*time.Millisecond {
			t.Errorf("serving a request until 500ms: waited %s, want 600ms", d)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		a := newActivity()
		c, _ := lagConn(t, nil)
		defer a.serving()() // busy throughout
		if d := waited(a, c, nil); d != most {
			t.Errorf("never quiet: waited %s, want the bound %s", d, most)
		}
		gone := make(chan struct{})
		time.AfterFunc(30*time.Millisecond, func() { close(gone) })
		if d := waited(a, c, gone); d != 30*time.Millisecond {
			t.Errorf("agent gone at 30ms: waited %s", d)
		}
	})
}

// TestWaitQuietWhileBehind: the wait never ends while acprun has messages
// read and not handled, and its bound counts only the time it was not
// behind: a handler that holds acprun up for 3s while the agent keeps
// talking (a note every 50ms, never quiet) makes the 1s bound end at 4s.
func TestWaitQuietWhileBehind(t *testing.T) {
	t.Parallel()
	const quiet, most = 100 * time.Millisecond, time.Second
	synctest.Test(t, func(t *testing.T) {
		n := 0
		c, note := lagConn(t, acp.HandlerFunc(func(context.Context, *acp.Request) (any, error) {
			if n++; n == 5 {
				time.Sleep(3 * time.Second)
			}
			return nil, nil
		}))
		stop := every(50*time.Millisecond, note)
		start := time.Now()
		newActivity().waitQuiet(context.Background(), c, quiet, most, nil)
		d := time.Since(start)
		stop()
		if d < 4*time.Second || d > 4*time.Second+quiet {
			t.Errorf("waited %s; want 4s: the bound, and the 3s acprun was behind", d)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		// Quiet from the start, but acprun is still handling what it read:
		// the wait ends quiet after the last message handled.
		release := make(chan struct{})
		c, note := lagConn(t, acp.HandlerFunc(func(context.Context, *acp.Request) (any, error) {
			<-release
			return nil, nil
		}))
		note()
		note()
		time.AfterFunc(5*time.Second, func() { close(release) })
		start := time.Now()
		newActivity().waitQuiet(context.Background(), c, quiet, most, nil)
		if d := time.Since(start); d != 5*time.Second+quiet {
			t.Errorf("waited %s; want 5.1s: quiet after acprun handled what it had read at 5s", d)
		}
	})
}

// every calls f every d until the returned stop is called.
func every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(d):
				f()
			}
		}
	}()
	return func() { close(done) }
}

// TestWaitQuietBound: an agent that floods faster than acprun handles, or
// a handler that never ends (an answer the agent does not read), keeps
// acprun behind: the wait ends after settleBound all the same.
func TestWaitQuietBound(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, note := lagConn(t, acp.HandlerFunc(func(context.Context, *acp.Request) (any, error) {
			time.Sleep(20 * time.Millisecond)
			return nil, nil
		}))
		stop := every(10*time.Millisecond, note)
		start := time.Now()
		newActivity().waitQuiet(context.Background(), c, settleQuiet, settleMax, nil)
		d := time.Since(start)
		stop()
		if d != settleBound {
			t.Errorf("flooded: waited %s; want %s", d, settleBound)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		stuck := make(chan struct{})
		defer close(stuck)
		c, note := lagConn(t, acp.HandlerFunc(func(context.Context, *acp.Request) (any, error) {
			<-stuck
			return nil, nil
		}))
		note()
		start := time.Now()
		newActivity().waitQuiet(context.Background(), c, settleQuiet, settleMax, nil)
		if d := time.Since(start); d != settleBound {
			t.Errorf("a handler stuck: waited %s; want %s", d, settleBound)
		}
	})
}

// TestServingWithinEndsWithItsTurn: a request served within a turn (a
// terminal/wait_for_exit) holds the idle clock and the wait before a
// prompt only until its turn ends, not until it is answered: the wait
// before the next prompt is the quiet period after the turn's end, and the
// next turn's idle clock runs.
func TestServingWithinEndsWithItsTurn(t *testing.T) {
	t.Parallel()
	const quiet, most = 100 * time.Millisecond, 5 * time.Second
	synctest.Test(t, func(t *testing.T) {
		a := newActivity()
		c, _ := lagConn(t, nil)
		ended := make(chan struct{})
		done := a.servingWithin(ended)
		defer done() // never answered during the test
		if idle := a.idleFor(time.Now().Add(time.Hour), c.Lag()); idle != 0 {
			t.Errorf("idle %s while the request's turn runs, want 0", idle)
		}
		time.AfterFunc(300*time.Millisecond, func() { close(ended) })
		start := time.Now()
		a.waitQuiet(context.Background(), c, quiet, most, nil)
		if d := time.Since(start); d != 400*time.Millisecond {
			t.Errorf("turn ended at 300ms: waited %s before the next prompt, want 400ms", d)
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		a.watchIdle(ctx, cancel, time.Second, c)
		if cause := context.Cause(ctx); !errors.Is(cause, errIdleTimeout) {
			t.Errorf("the next turn's idle clock: cause %v, want %v", cause, errIdleTimeout)
		}
	})
}

// TestIdleTimeoutTiedWithTheTurnsDeadline: an idle limit that runs out
// with the turn's deadline, or after it, never cancels the turn: the cause
// is the turn's timeout, every run (both timers firing at one instant
// used to pick either).
func TestIdleTimeoutTiedWithTheTurnsDeadline(t *testing.T) {
	t.Parallel()
	for _, limit := range []time.Duration{time.Second, 2 * time.Second} {
		synctest.Test(t, func(t *testing.T) {
			c, _ := lagConn(t, nil)
			turnCtx, stop := context.WithTimeoutCause(context.Background(), time.Second, errTurnTimeout)
			defer stop()
			ctx, cancel := context.WithCancelCause(turnCtx)
			defer cancel(nil)
			newActivity().watchIdle(ctx, cancel, limit, c)
			if cause := context.Cause(ctx); !errors.Is(cause, errTurnTimeout) {
				t.Errorf("idle limit %s, turn timeout 1s: cause %v, want %v", limit, cause, errTurnTimeout)
			}
		})
	}
}
