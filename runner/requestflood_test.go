package runner

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestRequestsInLineDoNotPileUp: fs/* and terminal/* requests are served
// one at a time, in their order; those that wait for their turn wait in
// acprun's queue of what it read, which is bounded, so that an agent that
// floods requests faster than acprun serves them fills its pipe, not
// acprun's memory (a request waiting off the line holds a goroutine). Held
// behind the first request (the checks of the workspace hold the requests
// that come after a turn's answer), the agent's flood stops well short of
// its end; released, every request is served, in order.
func TestRequestsInLineDoNotPileUp(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const n = 20000 // far more than acprun queues
		flood := make(chan struct{})
		var written atomic.Int64
		agent := handshakeAgent(func(line string, in io.Reader, out io.Writer) (bool, error) {
			if !strings.Contains(line, `"session/prompt"`) {
				return false, nil
			}
			if _, err := io.WriteString(out, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`+"\n"); err != nil {
				return true, err
			}
			<-flood
			go io.Copy(io.Discard, in) // it reads every answer
			for i := range n {
				if _, err := fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/nonexistent/f%d"}}`+"\n", 100+i, i); err != nil {
					return true, err
				}
				written.Add(1)
			}
			return true, nil
		})
		b := startAgentInBubble(t, t.TempDir(), agent, "name: s\nagent: {command: [an-agent]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n", nil)
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		release := b.r.sess.holdRequests(b.r.sess.turnState(1))
		close(flood)
		synctest.Wait()
		if got := written.Load(); got > n/2 {
			t.Errorf("the agent wrote %d requests while the first waited; want its writes held up well before %d", got, n)
		}
		release()
		res := b.finish(t, false)
		if got := len(res.Turns[0].ClientRequests); got != n {
			t.Fatalf("%d client requests recorded; want %d", got, n)
		}
		for i, cr := range res.Turns[0].ClientRequests {
			if want := fmt.Sprintf("/nonexistent/f%d", i); cr.Path != want || !cr.Late {
				t.Fatalf("client request %d: %+v; want %s, late", i, cr, want)
			}
		}
	})
}
