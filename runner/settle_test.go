package runner

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
)

// The tests of this file hold acprun's handling of the agent's messages
// up (a gate before the handler, as a slow -v terminal or a loaded machine
// would), so that acprun has provably read more than it handled, and
// check that what the agent sent is recorded where it belongs all the
// same: which turn an update goes to depends on the agent's output, never
// on how fast acprun handles it.

// holdAt returns a gate that holds acprun up for 5s, in the bubble's time,
// at the agent's first message that mentions the tool call id "gate".
func holdAt() func(*acp.Request) {
	var once sync.Once
	return func(req *acp.Request) {
		if strings.Contains(string(req.Params), `"toolCallId":"gate"`) {
			once.Do(func() { time.Sleep(5 * time.Second) })
		}
	}
}

// rawAgent plays an agent that answers acprun's requests (by the order
// they come: initialize, session/new, the prompts, …) with the lines of
// answers[i], and reads on to the end of its input.
func rawAgent(answers ...[]string) func(ctx context.Context, in io.Reader, out io.Writer) error {
	return func(ctx context.Context, in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		for i := 0; sc.Scan(); {
			line := sc.Text()
			if !strings.Contains(line, `"id"`) || !strings.Contains(line, `"method"`) || i == len(answers) {
				continue
			}
			if _, err := io.WriteString(out, strings.Join(answers[i], "\n")+"\n"); err != nil {
				return err
			}
			i++
		}
		return sc.Err()
	}
}

// handshakeAgent plays an agent that answers initialize and session/new
// (session s1), then hands each later line acprun sends it to react, with
// its input and output, until react is done or its input ends.
func handshakeAgent(react func(line string, in io.Reader, out io.Writer) (done bool, err error)) func(ctx context.Context, in io.Reader, out io.Writer) error {
	answers := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
	}
	return func(ctx context.Context, in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		for i := 0; sc.Scan(); {
			line := sc.Text()
			if i < len(answers) {
				if strings.Contains(line, `"method"`) && strings.Contains(line, `"id"`) {
					if _, err := io.WriteString(out, answers[i]+"\n"); err != nil {
						return err
					}
					i++
				}
				continue
			}
			if done, err := react(line, in, out); done || err != nil {
				return err
			}
		}
		return sc.Err()
	}
}

// update is a session/update line of session s1.
func update(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
}

// notice is an error notice's update.
func notice(title string) string {
	return update(fmt.Sprintf(`{"sessionUpdate":"notice","severity":"error","title":%q,"description":"rate limit exceeded"}`, title))
}

// TestUpdatesAfterSessionNewAreSetup: what the agent sends after its
// session/new answer and before the first prompt is the setup's, in stream
// order, with those that came before the answer, even when acprun handles
// it late: an error notice there is no turn's (which would make the result
// invalid, an upstream error).
func TestUpdatesAfterSessionNewAreSetup(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		agent := rawAgent(
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`},
			[]string{
				notice("early"),
				`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
				update(`{"sessionUpdate":"tool_call","toolCallId":"gate","title":"connect","status":"failed"}`),
				notice("after"),
				update(`{"sessionUpdate":"available_commands_update","availableCommands":[]}`),
			},
			[]string{
				update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`),
				`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
			},
		)
		b := startAgentInBubble(t, t.TempDir(), agent, `name: s
agent: {command: [an-agent]}
turns: [{prompt: go, expect: {text: {matches: "^hi$"}}}]
`, holdAt())
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		if res.Status != report.StatusPassed {
			t.Errorf("status %s (%s; %q): the notice after session/new went to the turn", res.Status, res.Invalid, res.Failures)
		}
		want := map[string]int{"notice": 2, "tool_call": 1, "available_commands_update": 1}
		if fmt.Sprint(res.SetupUpdates) != fmt.Sprint(want) {
			t.Errorf("setupUpdates = %v; want %v", res.SetupUpdates, want)
		}
		if n := res.SetupNotices; len(n) != 2 || n[0].Title != "early" || n[1].Title != "after" {
			t.Errorf("setupNotices = %+v; want early, then after", n)
		}
		if u := res.Turns[0].Updates; len(u) != 1 || u["agent_message_chunk"] != 1 {
			t.Errorf("turn 1's updates = %v; want its one chunk", u)
		}
	})
}

// TestLateUpdatesStayWithTheirTurn: the updates an agent sends after a
// prompt's answer are that turn's, late, even when acprun is still
// handling them when the agent has long been quiet: the next prompt waits
// until acprun has handled them.
func TestLateUpdatesStayWithTheirTurn(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := startScriptInBubble(t, `turns:
  - steps: [{text: one}]
    after:
      - tool_call: {toolCallId: gate, title: slow, kind: read, status: completed}
      - text: " more"
  - steps: [{text: two}]
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: one
    expect: {text: {matches: "^one$"}}
  - prompt: two
    expect: {text: {matches: "^two$"}}
`, holdAt())
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		if res.Status != report.StatusPassed {
			t.Errorf("status %s (%q)", res.Status, res.Failures)
		}
		if t1 := res.Turns[0]; t1.LateUpdates != 2 || t1.LateText != " more" {
			t.Errorf("turn 1: %d late updates, late text %q; want 2, %q", t1.LateUpdates, t1.LateText, " more")
		}
		if t2 := res.Turns[1]; t2.Text != "two" || t2.Updates["tool_call"] != 0 {
			t.Errorf("turn 2: text %q, updates %v; want only its own", t2.Text, t2.Updates)
		}
	})
}

// TestCloseWaitsWhileAcprunIsBehind: the wait for session/close's answer
// is the agent's silence, not acprun's handling of what the agent sent
// before the answer: held up 5s, longer than closeTimeout, acprun still
// gets the answer.
func TestCloseWaitsWhileAcprunIsBehind(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := startScriptInBubble(t, `agentCapabilities: {sessionCapabilities: {close: true}}
turns:
  - steps: [{text: one}]
    after:
      - tool_call: {toolCallId: gate, title: slow, kind: read, status: completed}
      - text: " more"
`, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: one}]
`, holdAt())
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		// acprun is still handling the late updates: the agent's answer to
		// session/close comes after them.
		b.r.sendClose(t.Context(), b.r.sess.currentSessionID())
		res := b.finish(t, false)
		if c := res.SessionClose; c == nil || !c.OK {
			t.Errorf("sessionClose = %+v, warnings %q; want answered", c, res.Warnings)
		}
	})
}
