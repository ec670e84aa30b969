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
	"github.com/acprun/acprun/report"
)

// TestRequestsForAnotherSession: the agent's requests for a session other
// than the scenario's, an unknown one or one an earlier scenario closed
// on the same process, are refused as invalid params; nothing of them is
// served, nor recorded as the scenario's. One for an unknown session is
// the scenario's protocol violation; one for a session an earlier
// scenario closed is no scenario's: it is stray, and unfits the process.
func TestRequestsForAnotherSession(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		planted := filepath.Join(dir, "planted.txt")
		requests := []string{
			`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"OTHER","toolCall":{"toolCallId":"c1","title":"rm","kind":"edit"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`,
			`{"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"sessionId":"OTHER","path":"` + planted + `","content":"x"}}`,
			`{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"sessionId":"OLD","path":"` + filepath.Join(dir, "s.yaml") + `"}}`,
			`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"sessionId":"OTHER","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		}
		var b *bubbleRun
		res, sent := playRequests(t, dir, requests, func(br *bubbleRun) {
			b = br
			b.r.proc.bind.served("OLD")
		})

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
		for _, want := range []string{
			`{"jsonrpc":"2.0","id":"p","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
			`{"jsonrpc":"2.0","id":"w","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
			`{"jsonrpc":"2.0","id":"r","error":{"code":-32602,"message":"invalid params: session \"OLD\" is closed"}}`,
			`{"jsonrpc":"2.0","id":"e","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
		} {
			if !strings.Contains(sent, want) {
				t.Errorf("acprun sent:\n%s\nwant the answer %s", sent, want)
			}
		}
		if tr.Text != "done" || res.Status != "passed" {
			t.Errorf("status %s, text %q: want the turn to go on", res.Status, tr.Text)
		}
	})
}

// TestRequestsBeforeTheSessionIsKnown: requests the agent sends before
// session/new's answer, even before initialize's, wait until the session's
// id is known, as early updates do, and are then told apart like any:
// those for the scenario's session are served (and recorded as the
// setup's), one for another is refused, a protocol violation, and never
// served.
func TestRequestsBeforeTheSessionIsKnown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		planted, early := filepath.Join(dir, "planted.txt"), filepath.Join(dir, "early.txt")
		first := `{"jsonrpc":"2.0","id":"w1","method":"fs/write_text_file","params":{"sessionId":"OTHER","path":"` + planted + `","content":"x"}}
{"jsonrpc":"2.0","id":"w2","method":"fs/write_text_file","params":{"sessionId":"s1","path":"` + early + `","content":"early"}}
{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"rm","kind":"edit"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}
{"jsonrpc":"2.0","id":"w3","method":"fs/write_text_file","params":{"sessionId":"THIRD","path":"` + planted + `","content":"x"}}
`
		answers := rawAgent(
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`},
			[]string{`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`},
			[]string{`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`},
		)
		agent := func(ctx context.Context, in io.Reader, out io.Writer) error {
			if _, err := io.WriteString(out, first); err != nil {
				return err
			}
			return answers(ctx, in, out)
		}
		b := startAgentInBubble(t, dir, agent, `name: s
agent: {command: [an-agent]}
client: {fs: true}
permissions: {default: allow}
turns: [{prompt: go}]
`, nil)
		if err := b.handshake(t.Context()); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		b.r.playTurns(t.Context(), t.Context())
		res := b.finish(t, false)
		wantViolations := []string{`fs/write_text_file for unknown session "OTHER"; refused`, `fs/write_text_file for unknown session "THIRD"; refused`}
		if diff := cmp.Diff(wantViolations, res.Violations); diff != "" { // in stream order, every run
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(planted); err == nil {
			t.Errorf("fs/write_text_file for another session wrote %s", planted)
		}
		if data, err := os.ReadFile(early); err != nil || string(data) != "early" {
			t.Errorf("%s = %q, %v; want the scenario's session's early write served", early, data, err)
		}
		if res.Allowed != 1 || len(res.SetupPermissions) != 1 || len(res.SetupClientRequests) != 1 || res.SetupClientRequests[0].Path != early {
			t.Errorf("allowed %d, setup permissions %+v, setup client requests %+v; want the early permission request allowed and the early write, as the setup's",
				res.Allowed, res.SetupPermissions, res.SetupClientRequests)
		}
		var sent strings.Builder
		for _, l := range b.sentLines() {
			sent.Write(l)
		}
		for _, want := range []string{
			`{"jsonrpc":"2.0","id":"w1","error":{"code":-32602,"message":"invalid params: unknown session \"OTHER\""}}`,
			`{"jsonrpc":"2.0","id":"w2","result":{}}`,
			`{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"selected","optionId":"a"}}}`,
		} {
			if !strings.Contains(sent.String(), want) {
				t.Errorf("acprun sent:\n%s\nwant the answer %s", sent.String(), want)
			}
		}
	})
}

// TestSetupStuckOnAHeldRequest: an agent that waits for the answer to a
// request it sent before the session's id was known, before it answers
// acprun's setup request, waits forever (acprun holds the request until it
// knows the session): the setup request's error says so.
func TestSetupStuckOnAHeldRequest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		agent := func(ctx context.Context, in io.Reader, out io.Writer) error {
			if _, err := io.WriteString(out, `{"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"sessionId":"s1","path":"`+filepath.Join(dir, "early.txt")+`","content":"x"}}`+"\n"); err != nil {
				return err
			}
			_, err := io.Copy(io.Discard, in) // it waits for the answer, and answers nothing
			return err
		}
		b := startAgentInBubble(t, dir, agent, `name: s
agent: {command: [an-agent]}
client: {fs: true}
permissions: {default: allow}
timeout: 5s
cancelGrace: 1s
turns: [{prompt: go}]
`, nil)
		ctx, cancel := context.WithTimeoutCause(t.Context(), b.r.sc.Timeout, errScenarioTimeout)
		defer cancel()
		err := b.handshake(ctx)
		const want = "meanwhile the agent's fs/write_text_file waits for the session's id (session/new's answer): acprun serves no request for a session it does not know yet"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("handshake: %v; want an error that says %q", err, want)
		}
		b.finish(t, false)
	})
}

// TestRequestsWithoutSession: a request without the sessionId its method
// requires, or with a null one, is refused as invalid params and is the
// scenario's protocol violation, as one for an unknown session is: it is
// not served as the scenario's.
func TestRequestsWithoutSession(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		planted := filepath.Join(dir, "planted.txt")
		requests := []string{
			`{"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"path":"` + planted + `","content":"x"}}`,
			`{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"sessionId":null,"path":"` + filepath.Join(dir, "s.yaml") + `"}}`,
			`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"toolCall":{"toolCallId":"c1","title":"rm","kind":"edit"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`,
		}
		res, sent := playRequests(t, dir, requests, nil)

		want := []string{
			"fs/write_text_file without a sessionId, which is required; refused",
			"fs/read_text_file without a sessionId, which is required; refused",
			"session/request_permission without a sessionId, which is required; refused",
		}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		tr := res.Turns[0]
		if len(tr.Permissions) != 0 || len(tr.ClientRequests) != 0 || res.Allowed != 0 {
			t.Errorf("permissions %+v, client requests %+v, allowed %d: want none recorded as the scenario's", tr.Permissions, tr.ClientRequests, res.Allowed)
		}
		if _, err := os.Stat(planted); err == nil {
			t.Errorf("fs/write_text_file without a sessionId wrote %s", planted)
		}
		for _, id := range []string{"w", "r", "p"} {
			if want := `{"jsonrpc":"2.0","id":"` + id + `","error":{"code":-32602,"message":"invalid params: sessionId is required"}}`; !strings.Contains(sent, want) {
				t.Errorf("acprun sent:\n%s\nwant the answer %s", sent, want)
			}
		}
	})
}

// playRequests plays a turn in which the mock agent sends requests (JSON
// lines, as written) and then says done, to a client serving fs with every
// permission allowed; bind, when set, is given the run before the
// handshake. It returns
// the result and what acprun sent.
func playRequests(t *testing.T, dir string, requests []string, bind func(*bubbleRun)) (report.Result, string) {
	t.Helper()
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
	if bind != nil {
		bind(b)
	}
	if err := b.handshake(t.Context()); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	b.r.playTurns(t.Context(), t.Context())
	synctest.Wait()
	res := b.finish(t, false)
	var sent strings.Builder
	for _, l := range b.sentLines() {
		sent.Write(l)
	}
	return res, sent.String()
}
