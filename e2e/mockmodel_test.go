package e2e_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestMockAgentModelStep: through the built binary, the mock agent's
// model step asks the model at the base URL of its environment with the
// turn's prompt and says the answer; an error answer (a rate limit) is the
// turn's JSON-RPC error, with the status and the provider's message, which
// acprun takes for a provider's refusal as it does a real agent's: the run
// is invalid, not failed.
func TestMockAgentModelStep(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	bodies := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- r.Method + " " + r.URL.Path + " " + string(b)
		if requests.Add(1) > 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	t.Cleanup(srv.Close)
	scenario := "name: model\nagent: {command: [acprun, mock-agent, agent.mock.yaml], env: {ANTHROPIC_BASE_URL: '" + srv.URL + "'}}\n" +
		"permissions: {default: deny}\nturns: [{prompt: hi}, {prompt: again}]\n"
	res, out, _ := runOne(t, "default: {steps: [{model: {api: anthropic, model: claude-sonnet-4-5, prompt: 'Say {{prompt}}'}}]}\n", scenario)
	if res.code != exitInvalid || len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 2 {
		t.Fatalf("exit %d, results %+v; want an invalid scenario with two turns\n%s", res.code, out.Scenarios, res.stderr)
	}
	if inv := out.Scenarios[0].Invalid; inv == nil || inv.Reason != report.InvalidUpstream {
		t.Errorf("invalid %+v; want upstream (the provider's rate limit)", inv)
	}
	turns := out.Scenarios[0].Turns
	if turns[0].StopReason != "end_turn" || turns[0].Text != "Hi there" {
		t.Errorf("turn 1: %s %q; want end_turn with the model's answer", turns[0].StopReason, turns[0].Text)
	}
	if want := "model step: anthropic: 429 Too Many Requests: rate limited"; turns[1].StopReason != "error" || !strings.Contains(turns[1].Error, want) {
		t.Errorf("turn 2: %s %q; want an error holding %q", turns[1].StopReason, turns[1].Error, want)
	}
	for _, prompt := range []string{"Say hi", "Say again"} {
		if b := <-bodies; !strings.HasPrefix(b, "POST /v1/messages ") || !strings.Contains(b, `"content":"`+prompt+`"`) {
			t.Errorf("request %s; want POST /v1/messages asking %q", b, prompt)
		}
	}
}
