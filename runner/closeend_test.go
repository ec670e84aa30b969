package runner

import (
	"context"
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
