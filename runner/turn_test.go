package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	process "github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestAnsweredTurnIsNotCancelled: when the answer is dispatched right after
// Await gave up on the deadline, the turn still finished by itself: no
// session/cancel, no cancelIgnored.
func TestAnsweredTurnIsNotCancelled(t *testing.T) {
	t.Parallel()
	expiredCtx, cancel := context.WithCancel(context.Background())
	cancel()
	call := answeredPrompt(t)
	var resp acp.PromptResponse
	// What Await returned when the deadline won the race by a hair.
	expired, err := afterAwait(expiredCtx, newTurnState(&report.TurnResult{Index: 1}), call, &resp, context.Cause(expiredCtx))
	if expired || err != nil || resp.StopReason != acp.StopEndTurn {
		t.Errorf("afterAwait = expired %v, %v, stopReason %q; want the answer, not a cancel", expired, err, resp.StopReason)
	}
}

// answeredPrompt sends session/prompt to an agent that answers it
// end_turn at once, and returns the call once its answer is dispatched.
func answeredPrompt(t *testing.T) *acp.Call {
	a, b := net.Pipe()
	conn := acp.NewConn(a, a, nil, nil)
	t.Cleanup(func() {
		conn.Close()
		b.Close()
	})
	go func() {
		line, err := bufio.NewReader(b).ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &m)
		_, _ = b.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"stopReason":"end_turn"}}` + "\n"))
	}()
	call := conn.Call(context.Background(), acp.MethodSessionPrompt, map[string]string{"sessionId": "s"})
	<-call.Done()
	return call
}

// TestAwaitAnswerExpires: without an answer, an ended context asks for a
// cancel.
func TestAwaitAnswerExpires(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	conn := acp.NewConn(a, a, nil, nil)
	defer conn.Close()
	defer b.Close()
	go func() { _, _ = bufio.NewReader(b).ReadBytes('\n') }() // read the prompt, never answer
	ctx, cancel := context.WithCancel(context.Background())
	call := conn.Call(context.Background(), acp.MethodSessionPrompt, map[string]string{"sessionId": "s"})
	cancel()
	var resp acp.PromptResponse
	if expired, err := awaitAnswer(ctx, newTurnState(&report.TurnResult{Index: 1}), call, &resp); !expired || err == nil {
		t.Errorf("awaitAnswer = %v, expired %v; want expired", err, expired)
	}
}

// TestAgentClosesItsPipes: an agent that ran and stopped leaves no file
// descriptor of acprun's open (stdin, stdout and stderr pipes).
func TestAgentClosesItsPipes(t *testing.T) {
	// Not parallel: it counts the test binary's descriptors.
	before := openFDs(t)
	for range 3 {
		a, err := startAgent(agentConfig{Argv: []string{"/bin/sh", "-c", "echo log >&2; exit 0"}, Env: os.Environ()})
		if err != nil {
			t.Fatal(err)
		}
		<-a.Exited()
		a.CloseAfter(context.Background(), time.Second, time.Second, time.Time{})
	}
	// More after is a leak; fewer is an earlier test's descriptor closed
	// meanwhile.
	if after := openFDs(t); after > before {
		t.Errorf("open file descriptors: %d before, %d after three agents; want none left", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestStderrTailIsValidUTF8: invalid bytes and a character split by the
// cut never reach the results.
func TestStderrTailIsValidUTF8(t *testing.T) {
	t.Parallel()
	tb := process.NewTail(8)
	tb.Write([]byte("héllo wörld \xff\xfe ok"))
	got := stderrText(tb, nil)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "[…]") || !strings.HasSuffix(got, " ok") {
		t.Errorf("tail = %q, want valid UTF-8 marked as cut", got)
	}
	tb = process.NewTail(100)
	tb.Write([]byte("bad \xff\xfe bytes"))
	if got := stderrText(tb, nil); got != "bad \uFFFD bytes" {
		t.Errorf("tail = %q, want the invalid bytes replaced", got)
	}
}

// TestStderrTailCutThroughASecret: where the cut went through a secret,
// what is left of it is redacted too.
func TestStderrTailCutThroughASecret(t *testing.T) {
	t.Parallel()
	tb := process.NewTail(24)
	tb.Write([]byte("token ghp_abcdefghijklmnop1234 FFFF"))
	got := stderrText(tb, redact.New("ghp_abcdefghijklmnop1234"))
	if want := "[…][REDACTED] FFFF"; got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
}

// TestStderrTailSplitSecret: a secret wrapped over two lines is redacted
// in the tail, and so is the beginning of one at its end, where a write
// the agent had not finished, or acprun not read whole, was cut.
func TestStderrTailSplitSecret(t *testing.T) {
	t.Parallel()
	red := redact.New("ghp_abcdefghijklmnop1234")
	for in, want := range map[string]string{
		"key ghp_abcdefghij\nklmnop1234\nnext\n": "key [REDACTED]\nnext\n",
		"log\nkey ghp_abcdefgh":                  "log\nkey [REDACTED]",
	} {
		tb := process.NewTail(100)
		tb.Write([]byte(in))
		if got := stderrText(tb, red); got != want {
			t.Errorf("tail of %q = %q, want %q", in, got, want)
		}
	}
}

// TestStderrSharesSplitSecret: a pooled agent's stderr is taken in
// shares, one per scenario; a secret that the agent wrote across the
// boundary of two shares is redacted in both: its beginning at the end of
// the first, its rest at the beginning of the second.
func TestStderrSharesSplitSecret(t *testing.T) {
	t.Parallel()
	const secret = "ghp_abcdefghijklmnop1234"
	out, err := process.NewOutput(100)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		out.File().Close()
		<-out.ReadDone()
	}()
	red := redact.New(secret)
	for _, share := range []struct{ wrote, want string }{
		{"first key " + secret[:10], "first key [REDACTED]"},
		{secret[10:] + " second\n", "[REDACTED] second\n"},
		{"third\n", "third\n"},
		// Wrapped over the boundary: the line break that ends the first
		// share is no end of the secret, nor one that begins the second.
		{"fourth key " + secret[:10] + "\n", "fourth key [REDACTED]\n"},
		{secret[10:17] + "\n" + secret[17:] + " fifth\n", "[REDACTED] fifth\n"},
	} {
		if _, err := out.File().WriteString(share.wrote); err != nil {
			t.Fatal(err)
		}
		if got := stderrText(out.Take(), red); got != share.want {
			t.Errorf("share %q = %q, want %q", share.wrote, got, share.want)
		}
	}
}

// TestPromptNotSentIsSkipped: when the turn's context ends before a byte of
// the prompt is written, and the agent still reads (session/cancel goes
// out), the turn never ran: it is not the agent's fault.
func TestPromptNotSentIsSkipped(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	conn := acp.NewConn(a, a, nil, nil)
	defer conn.Close()
	defer b.Close()
	got := make(chan string, 10)
	go func() {
		r := bufio.NewReader(b)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(got)
				return
			}
			got <- line
		}
	}()
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	call := conn.NewCall(acp.MethodSessionPrompt, acp.PromptRequest{SessionID: "s"})
	conn.Send(expired, call)
	run := &scenarioRun{
		opts:  &Options{Abort: make(chan struct{})},
		sc:    &scenario.Scenario{},
		sess:  &session{sessionID: "s"},
		agent: &Agent{Conn: conn},
	}
	var resp acp.PromptResponse
	_, err := run.cancel(newTurnState(&report.TurnResult{Index: 1}), call, &resp, cancelMeta(report.CauseTurnTimeout, false))
	if !errors.Is(err, errNotSent) {
		t.Errorf("cancel = %v, want errNotSent", err)
	}
	if line := <-got; !strings.Contains(line, `"method":"session/cancel"`) {
		t.Errorf("first line the agent got = %s, want session/cancel (the prompt never went out)", line)
	}
}

// TestAgentSendsAnOutcomeName: an agent that answers a prompt with the name
// of one of acprun's outcomes cannot pass for an agent that exited or hung,
// nor for a turn that never ran: the turn ran and broke the protocol
// (error, saying what the agent sent), the next turn is played, and the
// attempt failed, so retries do not run it again.
func TestAgentSendsAnOutcomeName(t *testing.T) {
	t.Parallel()
	const sc = `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
retries: 1
turns:
  - prompt: one%s
  - prompt: two
`
	for _, tt := range []struct{ name, sent, expect, want string }{
		{"error", report.OutcomeError, "", "end_turn"},
		{"agent_exited", report.OutcomeAgentExited, "", "end_turn"},
		{"unresponsive", report.OutcomeUnresponsive, "", "end_turn"},
		{"skipped", report.OutcomeSkipped, "", "end_turn"},
		{"expected agent_exited", report.OutcomeAgentExited, "\n    expect: {stopReason: agent_exited}", "agent_exited"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := runFiles(t, t.Context(), map[string]string{
				"a.mock.yaml": "turns: [{steps: [{text: did it}], stopReason: " + tt.sent + "}, {steps: [{text: two}]}]\n",
				"s.yaml":      fmt.Sprintf(sc, tt.expect),
			}, Options{})
			var got []string
			for _, r := range rep.Scenarios {
				got = append(got, tryLine(r))
			}
			if want := []string{"s r0 failed"}; !slices.Equal(got, want) {
				t.Fatalf("tries = %q; want %q", got, want)
			}
			r := rep.Scenarios[0]
			var stops []string
			for _, tr := range r.Turns {
				stops = append(stops, tr.StopReason)
			}
			if want := []string{"error", "end_turn"}; !slices.Equal(stops, want) || r.Error != "" {
				t.Errorf("stop reasons %q, error %q; want %q and no error", stops, r.Error, want)
			}
			wantErr := `the agent answered session/prompt with stopReason "` + tt.sent + `": not an ACP stop reason but a name acprun reserves for its own outcomes (a protocol violation)`
			if got := r.Turns[0].Error; got != wantErr {
				t.Errorf("turn 1 error = %q; want %q", got, wantErr)
			}
			if want := "stopReason error, want " + tt.want + " (" + wantErr + ")"; len(r.Failures) != 1 || !strings.HasSuffix(r.Failures[0], want) {
				t.Errorf("failures = %q; want one ending %q", r.Failures, want)
			}
		})
	}
}

// TestCancelMetaSaysTheGatewayFoundIt: a turn's session/cancel says
// "acprun/cancelAt": "gateway" only when the gateway's stop gave the turn
// its cause (a model request refused over a budget, or one that diverged),
// not when a context above it did (a budget passed by the usage the agent
// reported, a timeout), even when the gateway stops the turn after it; a
// replay tells by it a cancel it cannot meet again.
func TestCancelMetaSaysTheGatewayFoundIt(t *testing.T) {
	for _, tt := range []struct {
		name  string
		stop  func(above, gateway context.CancelCauseFunc)
		want  string
		cause string
	}{
		{"refused at the gateway", func(_, gw context.CancelCauseFunc) { gw(errBudget) },
			`{"acprun/cancelAt":"gateway","acprun/cancelCause":"budget"}`, report.CauseBudget},
		{"diverged at the gateway", func(_, gw context.CancelCauseFunc) { gw(errDivergence) },
			`{"acprun/cancelAt":"gateway","acprun/cancelCause":"divergence"}`, report.CauseDivergence},
		{"the reported usage passed the budget", func(above, gw context.CancelCauseFunc) { above(errBudget); gw(errBudget) },
			`{"acprun/cancelCause":"budget"}`, report.CauseBudget},
		{"a timeout, then the gateway", func(above, gw context.CancelCauseFunc) { above(errTurnTimeout); gw(errBudget) },
			`{"acprun/cancelCause":"turnTimeout"}`, report.CauseTurnTimeout},
		{"the gateway, then a timeout", func(above, gw context.CancelCauseFunc) { gw(errBudget); above(errTurnTimeout) },
			`{"acprun/cancelAt":"gateway","acprun/cancelCause":"budget"}`, report.CauseBudget},
	} {
		t.Run(tt.name, func(t *testing.T) {
			above, cancelAbove := context.WithCancelCause(context.Background())
			turn, stop := context.WithCancelCause(above)
			tt.stop(cancelAbove, stop)
			cause := context.Cause(turn)
			name := cancelCause(cause)
			if got := string(cancelMeta(name, foundAtGateway(above, cause))); got != tt.want || name != tt.cause {
				t.Errorf("cause %s, _meta %s; want %s, %s", name, got, tt.cause, tt.want)
			}
		})
	}
	if foundAtGateway(nil, errBudget) {
		t.Error("foundAtGateway without a gateway = true")
	}
}
