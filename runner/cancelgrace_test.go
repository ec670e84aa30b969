package runner

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acprun/acprun/report"
)

// slowObserver wants every update, and takes a while over each: acprun
// falls behind reading what the agent sent.
type slowObserver struct{}

func (slowObserver) ScenarioStarted(Ref)                      {}
func (slowObserver) TurnStarted(Ref, int)                     {}
func (slowObserver) TurnFinished(Ref, report.TurnResult)      {}
func (slowObserver) Warning(Ref, string)                      {}
func (slowObserver) PermissionDecided(Ref, report.Permission) {}
func (slowObserver) ScenarioFinished(Ref, report.Result)      {}
func (slowObserver) WantsUpdates() bool                       { return true }
func (slowObserver) Update(Ref, Update)                       { time.Sleep(10 * time.Millisecond) }

// TestCancelGraceWaitsForWhatAcprunHasNotRead: the answer to a cancel that
// the agent sent in time but that waits behind a backlog acprun has not
// handled yet (here 100 updates that take it a second) ends the turn
// cancelled, not unresponsive: cancelGrace counts the time acprun is not
// behind, as the idle clock does, so the outcome is the agent's, not
// acprun's speed's.
func TestCancelGraceWaitsForWhatAcprunHasNotRead(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		agent := handshakeAgent(func(line string, _ io.Reader, out io.Writer) (bool, error) {
			var err error
			switch {
			case strings.Contains(line, `"session/prompt"`):
				var b strings.Builder
				for n := range 100 {
					b.WriteString(update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c%d","title":"step","kind":"read"}`, n)) + "\n")
				}
				_, err = io.WriteString(out, b.String())
			case strings.Contains(line, `"session/cancel"`):
				_, err = io.WriteString(out, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`+"\n")
			}
			return false, err
		})
		b := startAgentInBubble(t, t.TempDir(), agent, `name: s
agent: {command: [an-agent]}
permissions: {default: deny}
turnTimeout: 100ms
cancelGrace: 300ms
turns: [{prompt: go, expect: {stopReason: cancelled}}]
`, nil)
		b.r.jo = (&observer{o: slowObserver{}}).forJob(b.r.ref, b.r.red)
		b.r.sess.obs = b.r.jo
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		if tr := res.Turns[0]; tr.StopReason != "cancelled" || res.Status != report.StatusPassed || tr.Updates["tool_call"] != 100 {
			t.Errorf("turn: %s, status %s (%q, %q), %d tool calls; want cancelled, passed, all 100", tr.StopReason, res.Status, res.Error, res.Failures, tr.Updates["tool_call"])
		}
	})
}
