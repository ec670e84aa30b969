package runner

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestCloseOfAnAgentThatEnds: an agent that ends after its last turn
// (closes its output, or its input and then exits) gets the same result
// whether acprun saw the end before it sent session/close (closeSession
// sends nothing then) or after: no sessionClose and no warning. Which of
// the two it is depends on timing alone; the agent's output is the same.
// One that closes its input and lives on, silent, is not answering: the
// write it refused is waited out as an answer that does not come; an
// answer that is no valid JSON-RPC answer is said as one.
func TestCloseOfAnAgentThatEnds(t *testing.T) {
	t.Parallel()
	const answer = `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}` + "\n"
	cases := []struct {
		name string
		// end is what the agent does once it answered the prompt.
		end func(ctx context.Context, in io.Reader) (done bool)
		// closeAnswer, when set, is its answer to session/close.
		closeAnswer string
		// kill: the agent does not end by itself.
		kill      bool
		wantError string // the sessionClose's error; "" for none recorded
	}{
		{name: "its output ends at session/close", end: nil},
		{name: "it closes its input, then exits", end: func(_ context.Context, in io.Reader) bool {
			in.(io.Closer).Close()
			time.Sleep(time.Second)
			return true
		}},
		{name: "it answers session/close invalidly", closeAnswer: `{"id":4,"result":null}`,
			wantError: `invalid answer: missing "jsonrpc":"2.0"`},
		{name: "it closes its input and lives on", kill: true, wantError: "not answered: the agent was silent for 2s",
			end: func(ctx context.Context, in io.Reader) bool {
				in.(io.Closer).Close()
				<-ctx.Done()
				return true
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, stop := context.WithCancel(t.Context())
				defer stop()
				agent := handshakeAgent(func(line string, in io.Reader, out io.Writer) (bool, error) {
					switch {
					case strings.Contains(line, `"session/prompt"`):
						if _, err := io.WriteString(out, answer); err != nil {
							return true, err
						}
						if c.end != nil {
							return c.end(ctx, in), nil
						}
					case strings.Contains(line, `"session/close"`):
						if c.closeAnswer != "" {
							_, err := io.WriteString(out, c.closeAnswer+"\n")
							return true, err
						}
						return true, nil // its output ends, unanswered
					}
					return false, nil
				})
				b := startAgentInBubble(t, t.TempDir(), agent, "name: s\nagent: {command: [an-agent]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n", nil)
				if err := b.handshake(t.Context()); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				b.r.playTurns(t.Context(), t.Context())
				b.r.sendClose(t.Context(), b.r.sess.currentSessionID())
				stop()
				res := b.finish(t, c.kill)
				got := ""
				if res.SessionClose != nil {
					got = res.SessionClose.Error
				}
				if got != c.wantError || (res.SessionClose == nil) != (c.wantError == "") {
					t.Errorf("sessionClose = %+v, warnings %q; want error %q", res.SessionClose, res.Warnings, c.wantError)
				}
				if c.wantError == "" && len(res.Warnings) != 0 {
					t.Errorf("warnings %q; want none", res.Warnings)
				}
			})
		})
	}
}

// TestCloseAfterACutWaitsCancelGrace: once the scenario was cut short (an
// interrupt, --fail-fast=cancel), before session/close or while acprun
// waits for its answer, an agent that keeps talking without answering is
// waited for cancelGrace from the cut, not until it goes silent (30 s at
// most); one that answers within it is recorded as answered.
func TestCloseAfterACutWaitsCancelGrace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// cutAfter is when the scenario is cut short, after session/close
		// is sent; 0: before.
		cutAfter  time.Duration
		answerIn  time.Duration // 0: never
		wantError string
		wantMs    int64
	}{
		{name: "cut before, never answered", wantError: "not answered within cancelGrace (3s) after acprun was interrupted", wantMs: 3000},
		{name: "cut during the wait, never answered", cutAfter: 4 * time.Second, wantError: "not answered within cancelGrace (3s) after acprun was interrupted", wantMs: 7000},
		{name: "cut before, answered within cancelGrace", answerIn: 2500 * time.Millisecond, wantMs: 2500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, stop := context.WithCancel(t.Context())
				defer stop()
				agent := handshakeAgent(func(line string, in io.Reader, out io.Writer) (bool, error) {
					if !strings.Contains(line, `"session/close"`) {
						return false, nil
					}
					start := time.Now()
					for ctx.Err() == nil { // a message every 500ms: never silent for 2s
						if c.answerIn > 0 && time.Since(start) >= c.answerIn {
							_, err := io.WriteString(out, `{"jsonrpc":"2.0","id":3,"result":{}}`+"\n")
							return false, err
						}
						if _, err := io.WriteString(out, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"more"}}`)+"\n"); err != nil {
							return true, err
						}
						time.Sleep(500 * time.Millisecond)
					}
					return true, nil
				})
				b := startAgentInBubble(t, t.TempDir(), agent, "name: s\nagent: {command: [an-agent]}\npermissions: {default: deny}\ncancelGrace: 3s\nturns: [{prompt: go}]\n", nil)
				if err := b.handshake(t.Context()); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				scCtx, cut := context.WithCancelCause(t.Context())
				if c.cutAfter == 0 {
					cut(errors.New("interrupted"))
				} else {
					timer := time.AfterFunc(c.cutAfter, func() { cut(errors.New("interrupted")) })
					defer timer.Stop()
				}
				b.r.sendClose(scCtx, b.r.sess.currentSessionID())
				stop()
				res := b.finish(t, true)
				sc := res.SessionClose
				if sc == nil || sc.Error != c.wantError || sc.OK != (c.wantError == "") || sc.DurationMs != c.wantMs {
					t.Errorf("sessionClose = %+v; want error %q after %dms", sc, c.wantError, c.wantMs)
				}
			})
		})
	}
}

// TestCloseCutByTheDeadlineSaysWhose: a wait for the answer to
// session/close that the scenario's deadline cuts short says whose
// deadline it was: the run's --timeout when that is the scenario's
// deadline, else the scenario's timeout.
func TestCloseCutByTheDeadlineSaysWhose(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		runsAt    time.Duration // the run's deadline, from now; 0: none
		wantError string
	}{
		{name: "the run's --timeout", runsAt: 5 * time.Second, wantError: "not answered before the run's --timeout passed"},
		{name: "the scenario's timeout", runsAt: time.Hour, wantError: "not answered before the scenario's timeout passed"},
		{name: "no --timeout", wantError: "not answered before the scenario's timeout passed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, stop := context.WithCancel(t.Context())
				defer stop()
				agent := handshakeAgent(func(line string, in io.Reader, out io.Writer) (bool, error) {
					if !strings.Contains(line, `"session/close"`) {
						return false, nil
					}
					for ctx.Err() == nil { // a message every 500ms: never silent for 2s
						if _, err := io.WriteString(out, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"more"}}`)+"\n"); err != nil {
							return true, err
						}
						time.Sleep(500 * time.Millisecond)
					}
					return true, nil
				})
				b := startAgentInBubble(t, t.TempDir(), agent, "name: s\nagent: {command: [an-agent]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n", nil)
				if err := b.handshake(t.Context()); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				d := time.Now().Add(5 * time.Second)
				if c.runsAt > 0 {
					runCtx, cancelRun := context.WithDeadline(t.Context(), time.Now().Add(c.runsAt))
					defer cancelRun()
					b.r.runCtx = runCtx
				}
				scCtx, cancelSc := context.WithDeadline(t.Context(), d)
				defer cancelSc()
				b.r.sendClose(scCtx, b.r.sess.currentSessionID())
				stop()
				res := b.finish(t, true)
				if sc := res.SessionClose; sc == nil || sc.Error != c.wantError || sc.DurationMs != 5000 {
					t.Errorf("sessionClose = %+v; want error %q after 5000ms", sc, c.wantError)
				}
			})
		})
	}
}
