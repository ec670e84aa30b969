package e2e_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// backgroundRacerArg, as the only argument of the test binary, makes it
// the background-racer agent instead of running tests (see testAgents).
const backgroundRacerArg = "acprun-e2e-background-racer-agent"

// racerUpdates is how many updates the background racer sends before it
// answers a prompt: about 1 MB, more than acprun reads ahead of their
// handling (4096 messages) and than the pipe holds. Without catching up,
// acprun took the turn for running every time (5 of 5 runs).
const racerUpdates = 8_000

// backgroundRacer plays an agent that answers each prompt end_turn after
// a flood of updates and then, at once, asks its model in the background
// (at $ANTHROPIC_BASE_URL, as claude asks for a session title once it has
// answered): its request reaches acprun's gateway while the answer is
// still in the pipe behind the updates, unread.
func backgroundRacer(in io.Reader, out io.Writer) int {
	w := bufio.NewWriterSize(out, 64<<10)
	send, sc := agentLines(in, w)
	flush := func() {
		if w.Flush() != nil {
			os.Exit(3)
		}
	}
	const session = "racer-1"
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}})
		case m.Method == "session/new":
			send(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": session}})
		case m.Method == "session/prompt":
			for range racerUpdates {
				send(map[string]any{"method": "session/update", "params": map[string]any{"sessionId": session,
					"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "x"}}}})
			}
			send(map[string]any{"id": m.ID, "result": map[string]any{"stopReason": "end_turn"}})
			flush()
			askTitle()
		case m.Method != "" && m.ID != nil:
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found: " + m.Method}})
		}
		flush()
	}
	return 0
}

// askTitle sends a model request for a session title to the Anthropic API
// at $ANTHROPIC_BASE_URL, and drops the answer, an error or not.
func askTitle() {
	body := `{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"title"}]}`
	resp, err := http.Post(strings.TrimRight(os.Getenv("ANTHROPIC_BASE_URL"), "/")+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// TestGatewayBackgroundRequestBehindTheAnswer: an agent that answers its
// prompt, then at once makes a model request the cassette does not have
// (a background one), while acprun is still far behind in reading its
// updates: the request is a stray every run, a warning that fails
// nothing, since the agent had answered before it made the request; and
// it falls under the scenario's budget only, not under the turn's, which
// it would pass. acprun catches up with what the agent wrote before
// deciding; without that, it took the turn for still running: the
// divergence failed it, and the turn's budget refused the request.
func TestGatewayBackgroundRequestBehindTheAnswer(t *testing.T) {
	underRace(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, budget := range map[string]string{"no budget": "", "turn budget": "\n    budget: {maxRequests: 0}"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"s.yaml": fmt.Sprintf(`name: g
agent: {command: [%q, %s]}
gateway: {mode: replay, env: ANTHROPIC_BASE_URL}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {stopReason: end_turn}%s
`, self, backgroundRacerArg, budget),
				"cassettes/g.cassette.json": `{"version": 1, "exchanges": []}`,
			})
			res, rep := runResults(t, dir, "s.yaml")
			sc := rep.Scenarios[0]
			if res.code != exitOK || sc.Status != report.StatusPassed {
				t.Fatalf("exit %d, %s, failures %q; want exit %d, passed\n%s", res.code, sc.Status, sc.Failures, exitOK, res.stderr)
			}
			if tr := sc.Turns[0]; tr.StopReason != "end_turn" || tr.CancelCause != "" || tr.CancelIgnored || len(tr.Failures) > 0 || len(tr.Text) != racerUpdates {
				t.Errorf("turn 1: stopReason %q, cancelCause %q, cancelIgnored %v, failures %q, %d bytes of text; want end_turn, not cancelled, %d bytes",
					tr.StopReason, tr.CancelCause, tr.CancelIgnored, tr.Failures, len(tr.Text), racerUpdates)
			}
			want := "gateway: request 1 (POST /v1/messages): not in the cassette (it has 0 requests); " +
				"it came after turn 1 had answered, so it fails no turn: the replay answered it with an error"
			if !strings.Contains(strings.Join(sc.Warnings, "\n"), want) {
				t.Errorf("warnings %q; want %q", sc.Warnings, want)
			}
			if g := sc.Gateway; g == nil || g.Requests != 1 || g.Unrecorded != 1 {
				t.Errorf("gateway %+v; want 1 request, unrecorded", g)
			}
		})
	}
}
