package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/mockagent"
)

// TestRequestsForAnotherSession: the agent's requests for a session other
// than the scenario's, an unknown one or one an earlier scenario closed
// on the same process, are refused as invalid params; nothing of them is
// served, nor recorded as the scenario's. One for an unknown session is
// the scenario's protocol violation; one for a session an earlier
// scenario closed is no scenario's: it is stray, and unfits the process.
func TestRequestsForAnotherSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		planted := filepath.Join(dir, "planted.txt")
		requests := []string{
			`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"OTHER","toolCall":{"toolCallId":"c1","title":"rm","kind":"edit"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`,
			`{"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"sessionId":"OTHER","path":"` + planted + `","content":"x"}}`,
			`{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"sessionId":"OLD","path":"` + filepath.Join(dir, "s.yaml") + `"}}`,
			`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"sessionId":"OTHER","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		}
		var script strings.Builder
		script.WriteString("turns:\n  - steps:\n")
		for _, r := range requests {
			script.WriteString("      - garbage: '" + r + "'\n")
		}
		script.WriteString("      - text: done\n")
		s, err := mockagent.Parse(filepath.Join(dir, "agent.mock.yaml"), []byte(script.String()))
		if err != nil {
			t.Fatal(err)
		}
		b := startAgentInBubble(t, dir, func(ctx context.Context, in io.Reader, out io.Writer) error {
			return mockagent.Run(ctx, s, in, out, io.Discard)
		}, `name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
client: {fs: true}
permissions: {default: allow}
turns: [{prompt: go}]
`, nil)
		b.r.proc.bind.served("OLD")
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		synctest.Wait()
		res := b.finish(t, false)

		want := []string{
			`session/request_permission for unknown session "OTHER"; refused`,
			`fs/write_text_file for unknown session "OTHER"; refused`,
			`elicitation/create for unknown session "OTHER"; refused`,
		}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		if got, want := b.r.proc.bind.strayProblem(), `fs/read_text_file for session "OLD", which an earlier scenario closed on this agent process`; got != want {
			t.Errorf("strayProblem = %q; want %q", got, want)
		}
		tr := res.Turns[0]
		if len(tr.Permissions) != 0 || len(tr.ClientRequests) != 0 || len(tr.Elicitations) != 0 || res.Allowed != 0 {
			t.Errorf("permissions %+v, client requests %+v, elicitations %+v, allowed %d: want none recorded as the scenario's", tr.Permissions, tr.ClientRequests, tr.Elicitations, res.Allowed)
		}
		if _, err := os.Stat(planted); err == nil {
			t.Errorf("fs/write_text_file for another session wrote %s", planted)
		}
		var sent strings.Builder
		for _, l := range b.sentLines() {
			sent.Write(l)
		}
		for _, want := range []string{
			`{"jsonrpc":"2.0","id":"p","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
			`{"jsonrpc":"2.0","id":"w","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
			`{"jsonrpc":"2.0","id":"r","error":{"code":-32602,"message":"invalid params: session \"OLD\" is closed"}}`,
			`{"jsonrpc":"2.0","id":"e","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
		} {
			if !strings.Contains(sent.String(), want) {
				t.Errorf("acprun sent:\n%s\nwant the answer %s", sent.String(), want)
			}
		}
		if tr.Text != "done" || res.Status != "passed" {
			t.Errorf("status %s, text %q: want the turn to go on", res.Status, tr.Text)
		}
	})
}
