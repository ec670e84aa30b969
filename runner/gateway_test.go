package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	json "github.com/go-json-experiment/json/v1"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// anthropicUpstream is a fake Anthropic Messages API that streams "echo:
// PROMPT" for each request, reporting 100 input and 20 output tokens (and
// 10 cache reads); it counts the requests it served.
func anthropicUpstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		n.Add(1)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad body"}}`, http.StatusBadRequest)
			return
		}
		var prompt string
		if json.Unmarshal(req.Messages[len(req.Messages)-1].Content, &prompt) != nil {
			prompt = string(req.Messages[len(req.Messages)-1].Content)
		}
		text, _ := json.Marshal("echo: " + prompt)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{
			`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"` + req.Model + `","content":[],"stop_reason":null,"usage":{"input_tokens":100,"cache_read_input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":1}}}`,
			`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(text) + `}}`,
			`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
			`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":20}}`,
			`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
		} {
			fmt.Fprint(w, ev+"\n\n")
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// modelAgent is a mock agent script whose turns each ask the model once,
// with the turn's prompt, and show its answer.
const modelAgent = `turns:
  - steps: [{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}]
  - steps: [{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}]
`

// gatewayScenario is a two-turn scenario on modelAgent through the gateway
// in mode, with its cassettes in dir, forwarding to upstream; extra is
// added at the top level.
func gatewayScenario(mode, dir, upstream, second, extra string) string {
	return fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
gateway: {mode: %s, dir: %q, env: ANTHROPIC_BASE_URL, upstream: %q, key: ANTHROPIC_API_KEY}
%s
turns:
  - prompt: first
    expect: {text: {contains: "echo: first"}}
  - prompt: %s
    expect: {text: {contains: "echo: %s"}}
`, mode, dir, upstream, extra, second, second)
}

// TestGatewayRecordReplay: a recorded run and its replay, with the
// upstream gone, give the agent the same answers and the turns the same
// usage, read from the model's stream; the cassette holds no key.
func TestGatewayRecordReplay(t *testing.T) {
	up, served := anthropicUpstream(t)
	dir := t.TempDir()
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret-key-1234567890")
	rec := runOne(t, modelAgent, gatewayScenario("record", dir, up.URL, "second", ""))
	r := rec.Scenarios[0]
	if r.Status != report.StatusPassed {
		t.Fatalf("record: %s %q %q", r.Status, r.Failures, r.Error)
	}
	if served.Load() != 2 {
		t.Fatalf("upstream served %d requests, want 2", served.Load())
	}
	wantUsage := &report.Usage{TotalTokens: 130, InputTokens: 100, OutputTokens: 20, CachedReadTokens: 10}
	for _, tr := range r.Turns {
		if diff := gocmp.Diff(wantUsage, tr.Usage); diff != "" {
			t.Errorf("record: turn %d usage (-want +got):\n%s", tr.Index, diff)
		}
	}
	if r.Gateway == nil || r.Gateway.Requests != 2 || r.Gateway.Mode != "record" {
		t.Fatalf("record: gateway %+v", r.Gateway)
	}
	data, err := os.ReadFile(r.Gateway.Cassette)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(r.Gateway.Cassette) != dir || strings.Contains(string(data), "sk-ant-secret") || !json.Valid(data) {
		t.Fatalf("cassette %s: in the wrong place, invalid or holding the key:\n%s", r.Gateway.Cassette, data)
	}

	up.Close()
	t.Setenv("ANTHROPIC_API_KEY", "")
	rep := runOne(t, modelAgent, gatewayScenario("replay", dir, "http://127.0.0.1:1", "second", ""))
	p := rep.Scenarios[0]
	if p.Status != report.StatusPassed {
		t.Fatalf("replay: %s %q %q", p.Status, p.Failures, p.Error)
	}
	for i, tr := range p.Turns {
		if tr.Text != r.Turns[i].Text || tr.StopReason != r.Turns[i].StopReason {
			t.Errorf("replay: turn %d: %q %s, recorded %q %s", tr.Index, tr.Text, tr.StopReason, r.Turns[i].Text, r.Turns[i].StopReason)
		}
		if diff := gocmp.Diff(wantUsage, tr.Usage); diff != "" {
			t.Errorf("replay: turn %d usage (-want +got):\n%s", tr.Index, diff)
		}
	}

	// A changed prompt is a divergence: its turn fails naming it.
	div := runOne(t, modelAgent, gatewayScenario("replay", dir, "http://127.0.0.1:1", "changed", "")).Scenarios[0]
	if div.Status != report.StatusFailed || div.Turns[1].CancelCause != report.CauseDivergence {
		t.Fatalf("divergence: %s, turn 2 cancelCause %q, failures %q", div.Status, div.Turns[1].CancelCause, div.Failures)
	}
	if len(div.Turns[1].Failures) == 0 || !strings.Contains(strings.Join(div.Turns[1].Failures, "\n"), `recorded "second", received "changed"`) {
		t.Errorf("divergence: turn 2 failures %q, want one naming the prompt that changed", div.Turns[1].Failures)
	}
	if div.Turns[0].Failures != nil {
		t.Errorf("divergence: turn 1 failures %q, want none", div.Turns[0].Failures)
	}
	// The recorded second request was not served: counted, but the
	// failure says why, and no warning repeats it.
	if div.Gateway == nil || div.Gateway.Unplayed != 1 || strings.Contains(strings.Join(div.Warnings, "\n"), "not asked for") {
		t.Errorf("divergence: gateway %+v, warnings %q; want 1 unplayed, no warning", div.Gateway, div.Warnings)
	}
}

// TestGatewayBudget: with a budget of one model request, the gateway
// refuses the second: its turn is cancelled (cancelCause budget) and fails
// naming the budget; the agent reports no usage of its own.
func TestGatewayBudget(t *testing.T) {
	t.Parallel()
	up, served := anthropicUpstream(t)
	src := gatewayScenario("meter", t.TempDir(), up.URL, "second", "budget: {maxRequests: 1}")
	r := runOne(t, modelAgent, src).Scenarios[0]
	if served.Load() != 1 {
		t.Errorf("upstream served %d requests, want 1", served.Load())
	}
	if r.Status != report.StatusFailed || r.Turns[1].CancelCause != report.CauseBudget {
		t.Fatalf("%s, turn 2 cancelCause %q, failures %q", r.Status, r.Turns[1].CancelCause, r.Failures)
	}
	got := strings.Join(r.Turns[1].Failures, "\n")
	if !strings.Contains(got, "budget.maxRequests: the agent's model requests reached the scenario's budget of 1") {
		t.Errorf("turn 2 failures %q, want the budget named", r.Turns[1].Failures)
	}
	if r.Gateway.Requests != 1 || r.Gateway.Cassette != "" {
		t.Errorf("gateway %+v, want 1 request and no cassette in meter", r.Gateway)
	}
}

// TestGatewayReusedProcess: scenarios sharing an agent process each get
// their own cassette, holding their own model requests: the process's
// route is bound to the scenario it serves.
func TestGatewayReusedProcess(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	dir := t.TempDir()
	doc := func(name string) string {
		return fmt.Sprintf("---\nname: %s\nagent: {command: [acprun, mock-agent, agent.mock.yaml], reuse: true}\n"+
			"gateway: {mode: record, dir: %q, env: ANTHROPIC_BASE_URL, upstream: %q}\nturns: [{prompt: %s, expect: {text: {contains: \"echo: %[1]s\"}}}]\n", name, dir, up.URL, name)
	}
	script := closingAgent + "turns:\n  - steps: [{model: {api: anthropic, model: m, prompt: \"{{prompt}}\"}}]\n"
	rep := runScenarios(t, Options{Parallel: 1}, doc("alpha")+doc("beta"), map[string]string{"agent.mock.yaml": script})
	for _, r := range rep.Scenarios {
		if r.Status != report.StatusPassed || r.Agent.Pool == nil || r.Gateway == nil || r.Gateway.Requests != 1 {
			t.Fatalf("%s: %s, pool %+v, gateway %+v, failures %q, error %q", r.Name, r.Status, r.Agent.Pool, r.Gateway, r.Failures, r.Error)
		}
		data, err := os.ReadFile(r.Gateway.Cassette)
		if err != nil {
			t.Fatal(err)
		}
		if other := map[string]string{"alpha": "beta", "beta": "alpha"}[r.Name]; !strings.Contains(string(data), `"content": "`+r.Name+`"`) || strings.Contains(string(data), `"content": "`+other+`"`) {
			t.Errorf("%s: its cassette does not hold just its own request:\n%s", r.Name, data)
		}
	}
	if a, b := rep.Scenarios[0].Agent.Pool.Pid, rep.Scenarios[1].Agent.Pool.Pid; a != b {
		t.Errorf("pids %d, %d: want one process", a, b)
	}
}

// TestGatewayEventWaitsForCancel: the gateway's OnEvent (gatewayEvent)
// cancels the running turn and returns only once session/cancel is out, or
// the turn has ended, so that the agent gets the cancel before the refusal
// or divergence it is told of: an agent (claude) that fails its prompt on
// the error answer would otherwise race acprun's cancel, and the turn's
// stop reason and cancelCause would hang on which came first. It reports
// whether session/cancel is out, for the gateway's answer to say.
func TestGatewayEventWaitsForCancel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		kind          gateway.EventKind
		end           func(s *session, t *turnState)
		want          error
		wantCancelled bool
	}{
		{"refused, cancel sent", gateway.Refused, func(s *session, t *turnState) { s.sentCancel(t, false) }, errBudget, true},
		{"diverged, cancel sent", gateway.Diverged, func(s *session, t *turnState) { s.sentCancel(t, false) }, errDivergence, true},
		{"refused, answered first", gateway.Refused, func(s *session, t *turnState) { s.finish(context.Background(), t, turnOutcome{stopReason: "end_turn"}) }, errBudget, false},
		// The turn's answer came before session/cancel went out, so before
		// the gateway's answer to the request: the turn did not wait on it
		// (a background request sent as the turn ended), and it is none of
		// the turn's.
		{"diverged, answered first", gateway.Diverged, func(s *session, t *turnState) { s.finish(context.Background(), t, turnOutcome{stopReason: "end_turn"}) }, errDivergence, false},
		{"diverged, answer read before the cancel was written", gateway.Diverged, func(s *session, t *turnState) { s.sentCancel(t, true) }, errDivergence, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &session{}
				r := &scenarioRun{sess: s}
				turn := s.startTurn(1, "go", nil, false)
				ctx, stop := context.WithCancelCause(t.Context())
				s.watchGateway(turn, stop, gateway.Spent{})
				var told, cancelled atomic.Bool
				go func() {
					cancelled.Store(r.gatewayEvent(gateway.Event{Kind: tt.kind, Message: "over"}))
					told.Store(true)
				}()
				synctest.Wait()
				if !errors.Is(context.Cause(ctx), tt.want) {
					t.Fatalf("turn cause %v, want %v", context.Cause(ctx), tt.want)
				}
				if told.Load() {
					t.Fatal("gatewayEvent returned before session/cancel was sent or the turn ended")
				}
				tt.end(s, turn)
				synctest.Wait()
				if !told.Load() {
					t.Fatal("gatewayEvent still waits after session/cancel was sent or the turn ended")
				}
				if cancelled.Load() != tt.wantCancelled {
					t.Errorf("gatewayEvent reported cancelled %v, want %v", cancelled.Load(), tt.wantCancelled)
				}
				// Once the cancel is out or the turn has ended, at once.
				if got := r.gatewayEvent(gateway.Event{Kind: tt.kind, Message: "again"}); got != tt.wantCancelled {
					t.Errorf("gatewayEvent again reported cancelled %v, want %v", got, tt.wantCancelled)
				}
				if tt.kind != gateway.Diverged {
					return
				}
				// The turn fails for a divergence it waited on, and for
				// no other: that one is a warning.
				wantFailure, wantStrays := "gateway: over", []string(nil)
				if !tt.wantCancelled {
					wantFailure = ""
					again := "turn 1 had answered without it"
					if isClosed(turn.ended) {
						again = "it came after turn 1 had answered"
					}
					wantStrays = []string{
						"gateway: over; turn 1 had answered without it, so it fails no turn: the replay answered it with an error",
						"gateway: again; " + again + ", so it fails no turn: the replay answered it with an error",
					}
				}
				if got := s.gatewayFailure(turn); got != wantFailure {
					t.Errorf("the turn's gateway failure %q, want %q", got, wantFailure)
				}
				if diff := gocmp.Diff(wantStrays, s.strayRequests()); diff != "" {
					t.Errorf("stray requests (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestGatewayEventBetweenTurns: a refusal between turns cancels nothing,
// and gatewayEvent says so at once (the answer carries no
// gateway.CancelledHeader: no session/cancel will come).
func TestGatewayEventBetweenTurns(t *testing.T) {
	t.Parallel()
	s := &session{}
	r := &scenarioRun{sess: s}
	turn := s.startTurn(1, "go", nil, false)
	s.watchGateway(turn, func(error) {}, gateway.Spent{})
	s.finish(t.Context(), turn, turnOutcome{stopReason: "end_turn"})
	if r.gatewayEvent(gateway.Event{Kind: gateway.Refused, Message: "over"}) {
		t.Error("gatewayEvent reported a cancel between turns")
	}
}

// TestGatewayDivergenceOutsideTurns: a replay's request that matches no
// recorded one while no turn runs (before the first prompt, after a
// turn's answer: a background request) cancels nothing and fails no turn:
// gatewayEvent reports false (the gateway goes on replaying), and the
// request is kept for a warning that says when it came.
func TestGatewayDivergenceOutsideTurns(t *testing.T) {
	t.Parallel()
	s := &session{}
	r := &scenarioRun{sess: s}
	if r.gatewayEvent(gateway.Event{Kind: gateway.Diverged, Message: "request 1: early"}) {
		t.Error("gatewayEvent reported a cancel before the first turn")
	}
	turn := s.startTurn(1, "go", nil, false)
	if r.gatewayEvent(gateway.Event{Kind: gateway.Diverged, Message: "request 2: before the prompt"}) {
		t.Error("gatewayEvent reported a cancel before the turn's prompt")
	}
	s.watchGateway(turn, func(error) { t.Error("the turn was stopped") }, gateway.Spent{})
	s.finish(t.Context(), turn, turnOutcome{stopReason: "end_turn"})
	if r.gatewayEvent(gateway.Event{Kind: gateway.Diverged, Message: "request 3: late"}) {
		t.Error("gatewayEvent reported a cancel after the turn's answer")
	}
	const fails = ", so it fails no turn: the replay answered it with an error"
	want := []string{
		"gateway: request 1: early; it came before turn 1's prompt" + fails,
		"gateway: request 2: before the prompt; it came before turn 1's prompt" + fails,
		"gateway: request 3: late; it came after turn 1 had answered" + fails,
	}
	if diff := gocmp.Diff(want, s.strayRequests()); diff != "" {
		t.Errorf("stray requests (-want +got):\n%s", diff)
	}
	if got := s.gatewayFailure(turn); got != "" {
		t.Errorf("the turn's gateway failure %q, want none", got)
	}
}

// TestGatewayDivergenceAfterAnswerHandled: once the prompt's answer has
// been handled (its call is done), the turn runs no more, though the
// runner has yet to take the answer: a divergence then cancels nothing and
// is a stray "after turn 1 had answered", the same words as once the turn
// has ended, so that the warning does not depend on how soon the runner
// took the answer.
func TestGatewayDivergenceAfterAnswerHandled(t *testing.T) {
	t.Parallel()
	conn := acp.NewConn(strings.NewReader(""), io.Discard, nil, nil)
	conn.Close()
	s := &session{}
	r := &scenarioRun{sess: s}
	turn := s.startTurn(1, "go", nil, false)
	s.watchGateway(turn, func(error) {
		t.Error("the turn was stopped")
		go s.sentCancel(turn, true) // as the runner would, the answer read first (stop runs under s.mu)
	}, gateway.Spent{})
	s.sendPrompt(t.Context(), turn, conn, acp.PromptRequest{SessionID: "s1"}) // done at once: the Conn is closed
	if r.gatewayEvent(gateway.Event{Kind: gateway.Diverged, Message: "request 1: title"}) {
		t.Error("gatewayEvent reported a cancel after the turn's answer was handled")
	}
	want := []string{"gateway: request 1: title; it came after turn 1 had answered, so it fails no turn: the replay answered it with an error"}
	if diff := gocmp.Diff(want, s.strayRequests()); diff != "" {
		t.Errorf("stray requests (-want +got):\n%s", diff)
	}
}

// TestGatewayAdmitAfterAnswerHandled: a model request that comes once the
// prompt's answer has been handled, though the runner has yet to take it,
// falls under the scenario's budget only: the turn's, which it would pass,
// no longer applies, as it would not once the turn has ended.
func TestGatewayAdmitAfterAnswerHandled(t *testing.T) {
	t.Parallel()
	none := int64(0)
	s := &session{}
	r := &scenarioRun{sess: s, sc: &scenario.Scenario{Turns: []scenario.Turn{{Budget: &scenario.UsageExpect{MaxRequests: &none}}}}}
	turn := s.startTurn(1, "go", nil, false)
	if msg := r.admitModelRequest(gateway.Spent{}); !strings.Contains(msg, "budget.maxRequests") {
		t.Errorf("admitted while the turn runs: %q; want its budget's refusal", msg)
	}
	conn := acp.NewConn(strings.NewReader(""), io.Discard, nil, nil)
	conn.Close()
	s.sendPrompt(t.Context(), turn, conn, acp.PromptRequest{SessionID: "s1"}) // done at once: the Conn is closed
	if msg := r.admitModelRequest(gateway.Spent{}); msg != "" {
		t.Errorf("after the answer was handled: %q; want admitted", msg)
	}
}

// TestGatewayRefusalsFailTurnOnce: two requests refused in one turn (an
// agent that asks twice at once) pass its budget once: the first refusal
// is the turn's one budget failure, as the first usage_update over a
// budget is.
func TestGatewayRefusalsFailTurnOnce(t *testing.T) {
	t.Parallel()
	s := &session{}
	r := &scenarioRun{sess: s}
	turn := s.startTurn(1, "go", nil, false)
	ctx, stop := context.WithCancelCause(t.Context())
	s.watch(turn, &budgetWatch{})
	s.watchGateway(turn, stop, gateway.Spent{})
	r.gatewayStop(gateway.Event{Kind: gateway.Refused, Message: "over"})
	r.gatewayStop(gateway.Event{Kind: gateway.Refused, Message: "over again"})
	if !errors.Is(context.Cause(ctx), errBudget) {
		t.Errorf("turn cause %v, want %v", context.Cause(ctx), errBudget)
	}
	if got, gw := s.budgetFailure(turn, &report.TurnResult{}, nil), s.gatewayFailure(turn); got != "over" || gw != "" {
		t.Errorf("budget failure %q, gateway failure %q; want the first refusal once", got, gw)
	}
}

// TestCassetteName: a cassette's name depends on its scenario's name,
// agent, attempt and retry alone; names a file name does not keep as they
// are (characters replaced, upper case) get a hash of the name, so that
// "fix vet" and "fix:vet", or "Fix" and "fix", get cassettes of their own.
func TestCassetteName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ref  Ref
		want string
	}{
		{Ref{Name: "g"}, "g.cassette.json"},
		{Ref{Name: "fix-vet", Agent: "claude"}, "fix-vet@claude.cassette.json"},
		{Ref{Name: "fix-vet", Agent: "claude", Attempt: 2, Retry: 1}, "fix-vet@claude#2-retry1.cassette.json"},
		{Ref{Name: "fix vet"}, "fix_vet~e61d4ec1.cassette.json"},
		{Ref{Name: "fix:vet"}, "fix_vet~92fc28fa.cassette.json"},
		{Ref{Name: "fix:vet", Attempt: 3}, "fix_vet#3~92fc28fa.cassette.json"},
		{Ref{Name: "Fix"}, "Fix~21f1595b.cassette.json"},
		{Ref{Name: "fix", Agent: "Mock"}, "fix@Mock~6ecbc4e9.cassette.json"},
	} {
		if got := cassetteName(c.ref); got != c.want {
			t.Errorf("%+v: %s, want %s", c.ref, got, c.want)
		}
	}
}

// TestCheckCassettes: two tries of a run that would record or replay the
// same cassette are an error at the later scenario naming the earlier;
// names that sanitise alike do not share one, nor do scenarios of other
// gateway.dirs or in meter.
func TestCheckCassettes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	load := func(src string) []*scenario.Scenario {
		t.Helper()
		scs, _, err := scenario.LoadBytes(filepath.Join(dir, "s.yaml"), []byte(src), scenario.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return scs
	}
	// doc is a scenario whose gateway has gw added, and its top level top.
	doc := func(name, mode, gw, top string) string {
		return fmt.Sprintf("---\nname: %q\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: %s, env: ANTHROPIC_BASE_URL, upstream: http://127.0.0.1:1%s}\n%sturns: [{prompt: hi}]\n", name, mode, gw, top)
	}
	file := filepath.Join(dir, "s.yaml")
	clash := load(doc("x", "record", "", "retries: 1\n") + doc("x-retry1", "replay", "", ""))
	want := fmt.Sprintf(`%s:8:1: gateway: scenario "x-retry1" and scenario "x", retry 1 (at %s:2:1) would share the cassette %s: `+
		"give one of them another name (or agent), or its own gateway.dir", file, file, filepath.Join(dir, "cassettes", "x-retry1.cassette.json"))
	if err := CheckCassettes(Options{}, clash); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	for _, scs := range [][]*scenario.Scenario{
		load(doc("fix vet", "record", "", "") + doc("fix:vet", "record", "", "") + doc("Fix", "record", "", "") + doc("fix", "record", "", "")),
		load(doc("x", "meter", "", "retries: 1\n") + doc("x-retry1", "meter", "", "")),
		load(doc("x", "record", "", "retries: 1\n") + doc("x-retry1", "record", ", dir: other", "")),
	} {
		if err := CheckCassettes(Options{Repeat: 3}, scs); err != nil {
			t.Error(err)
		}
	}
}

// TestGatewayCwdThroughSymlink: a session cwd given through a symbolic
// link is named <workspace> in the cassette as given and as the agent's
// getcwd() says it, symlinks resolved, so that the recording replays in
// another directory.
func TestGatewayCwdThroughSymlink(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	cassettes := t.TempDir()
	// place makes a directory reached through a link, and returns both.
	place := func() (link, real string) {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		real, link = filepath.Join(base, "real"), filepath.Join(base, "link")
		if err := os.Mkdir(real, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(real, "agent.mock.yaml"), []byte(modelAgent), 0o644); err != nil {
			t.Fatal(err)
		}
		return link, real
	}
	src := func(mode, link, real string) string {
		return fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml], cwd: %q}
gateway: {mode: %s, dir: %q, env: ANTHROPIC_BASE_URL, upstream: %q}
turns:
  - prompt: "cwd is %s"
  - prompt: "and %s/a.go"
`, link, mode, cassettes, up.URL, real, link)
	}
	link, real := place()
	r := runOne(t, modelAgent, src("record", link, real)).Scenarios[0]
	if r.Status != report.StatusPassed {
		t.Fatalf("record: %s %q %q", r.Status, r.Failures, r.Error)
	}
	data, err := os.ReadFile(r.Gateway.Cassette)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), filepath.Base(filepath.Dir(real))) || !strings.Contains(string(data), `"content": "cwd is <workspace>"`) ||
		!strings.Contains(string(data), `"content": "and <workspace>/a.go"`) {
		t.Fatalf("cassette names the directory:\n%s", data)
	}
	link, real = place()
	p := runOne(t, modelAgent, src("replay", link, real)).Scenarios[0]
	if p.Status != report.StatusPassed {
		t.Fatalf("replay elsewhere: %s %q %q", p.Status, p.Failures, p.Error)
	}
}

// TestGatewayMaxCostUnpriced: a model with no price (claude's side
// requests to a small model) does not turn budget.maxCost off: the priced
// requests still count against it, the turn's cost is theirs, and a
// warning names the model whose cost is unknown, once.
func TestGatewayMaxCostUnpriced(t *testing.T) {
	t.Parallel()
	up, served := anthropicUpstream(t)
	step := `{model: {api: anthropic, model: %s, prompt: "%s"}}`
	files := map[string]string{
		"acprun.yaml": "prices:\n  claude-test: {input: 1, output: 10}\n", // 100 in, 20 out: 0.0003 a request
		"agent.mock.yaml": "turns:\n  - steps: [" + strings.Join([]string{
			fmt.Sprintf(step, "claude-small", "title"), fmt.Sprintf(step, "claude-small", "title again"),
			fmt.Sprintf(step, "claude-test", "one"), fmt.Sprintf(step, "claude-test", "two"), fmt.Sprintf(step, "claude-test", "three"),
		}, ", ") + "]\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nbudget: {maxCost: 0.0005}\npermissions: {default: deny}\nturns: [{prompt: go}]\n", up.URL),
	}
	r := runPriced(t, files)
	// Two unpriced requests, then two priced ones (0.0006 ≥ 0.0005): the
	// fifth is refused.
	if served.Load() != 4 || r.Status != report.StatusFailed || r.Turns[0].CancelCause != report.CauseBudget {
		t.Fatalf("upstream served %d, %s, cancelCause %q, failures %q; want 4 served, the fifth refused", served.Load(), r.Status, r.Turns[0].CancelCause, r.Failures)
	}
	if got := strings.Join(r.Turns[0].Failures, "\n"); !strings.Contains(got, "budget.maxCost: the agent's model requests cost 0.0006 USD, the scenario's budget is 0.0005 USD") {
		t.Errorf("failures %q, want maxCost named with the priced cost", r.Turns[0].Failures)
	}
	if u := r.Turns[0].Usage; u == nil || u.Cost != 0.0006 || u.Currency != "USD" || u.TotalTokens != 4*130 {
		t.Errorf("turn usage %+v, want the 4 requests' tokens and the priced ones' cost, 0.0006 USD", u)
	}
	want := []string{`gateway: no price for model "claude-small" in the config's prices: the cost of its requests is unknown, ` +
		"so the turns' cost (and what budget.maxCost counted) is a lower bound; add it to prices"}
	if diff := gocmp.Diff(want, r.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// runPriced runs the scenario s.yaml of files, with the config
// acprun.yaml (its prices), and returns its result.
func runPriced(t *testing.T, files map[string]string) report.Result {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, files)
	cfg, err := scenario.LoadConfig(filepath.Join(dir, "acprun.yaml"), scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), Options{Self: agentBin(t), WorkspaceDir: t.TempDir()}, scs)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Scenarios[0]
}

// TestGatewayMaxCostPassedByLastRequest: what the model request the
// gateway admitted last cost counts too: the turn whose requests take the
// scenario past its maxCost fails naming it once it has answered, and no
// further prompt is sent.
func TestGatewayMaxCostPassedByLastRequest(t *testing.T) {
	t.Parallel()
	up, served := anthropicUpstream(t)
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
	r := runPriced(t, map[string]string{
		"acprun.yaml":     "prices:\n  claude-test: {input: 1, output: 10}\n", // 100 in, 20 out: 0.0003 a request
		"agent.mock.yaml": "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nbudget: {maxCost: 0.0005}\n"+
			"turns: [{prompt: one}, {prompt: two}, {prompt: three}]\n", up.URL),
	})
	if r.Status != report.StatusFailed || served.Load() != 2 || len(r.Turns) != 3 {
		t.Fatalf("%s, upstream served %d, %d turns, failures %q; want failed, 2 served", r.Status, served.Load(), len(r.Turns), r.Failures)
	}
	want := "s.yaml:4:19: budget.maxCost: the agent's model requests cost 0.0006 USD, over the scenario's budget of 0.0005 USD; acprun stopped the scenario there"
	if f := r.Turns[1].Failures; len(f) != 1 || !strings.HasSuffix(f[0], "/"+want) {
		t.Errorf("turn 2 failures %q, want only %q", f, want)
	}
	if u := r.Turns[1].Usage; u == nil || u.Cost != 0.0003 {
		t.Errorf("turn 2 usage %+v, want its own request's cost", u)
	}
	if r.Turns[1].CancelCause != "" || r.Turns[2].StopReason != report.OutcomeSkipped {
		t.Errorf("turn 2 cancelCause %q, turn 3 %s; want answered, then skipped", r.Turns[1].CancelCause, r.Turns[2].StopReason)
	}
}

// TestGatewayTurnCostExact: each turn's cost is the difference of what
// the attempt had spent before and after it, written without float noise
// (0.0009-0.0006 is 0.00030000000000000003 in float64).
func TestGatewayTurnCostExact(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
	r := runPriced(t, map[string]string{
		"acprun.yaml":     "prices:\n  claude-test: {input: 1, output: 10}\n", // 100 in, 20 out: 0.0003 a request
		"agent.mock.yaml": "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\n"+
			"turns: [{prompt: one}, {prompt: two}, {prompt: three}]\n", up.URL),
	})
	for i, tr := range r.Turns {
		if tr.Usage == nil || tr.Usage.Cost != 0.0003 {
			t.Errorf("turn %d usage %+v, want cost 0.0003 exactly", i+1, tr.Usage)
		}
	}
}

// TestGatewayUsageUnreported: a turn whose model answers reported no usage
// keeps the usage the agent reported on the prompt's answer, rather than an
// empty one from the gateway.
func TestGatewayUsageUnreported(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"m1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}`)
	}))
	defer up.Close()
	step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}", stream: false}}`
	r := runPriced(t, map[string]string{
		"acprun.yaml":     "prices:\n  claude-test: {input: 1, output: 10}\n",
		"agent.mock.yaml": "turns:\n  - steps: [" + step + "]\n    usage: {inputTokens: 5, outputTokens: 2}\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nturns: [{prompt: one}]\n", up.URL),
	})
	want := &report.Usage{TotalTokens: 7, InputTokens: 5, OutputTokens: 2}
	if diff := gocmp.Diff(want, r.Turns[0].Usage); diff != "" {
		t.Errorf("turn usage (-want +got):\n%s", diff)
	}
}

// recordedCassette records gatewayScenario on modelAgent, through an
// Anthropic upstream, into a new directory and returns the upstream, the
// directory, the cassette's path and what it holds.
func recordedCassette(t *testing.T) (up *httptest.Server, dir, cassette string, before []byte) {
	t.Helper()
	up, _ = anthropicUpstream(t)
	dir = t.TempDir()
	good := runOne(t, modelAgent, gatewayScenario("record", dir, up.URL, "second", "")).Scenarios[0]
	if good.Status != report.StatusPassed {
		t.Fatalf("record: %s %q %q", good.Status, good.Failures, good.Error)
	}
	cassette = good.Gateway.Cassette
	before, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	return up, dir, cassette, before
}

// TestGatewayCutRecordingKeepsCassette: a recording the run's end cut
// short (an interrupt during turn 2) does not replace the cassette: it is
// written beside it, and a warning says where.
func TestGatewayCutRecordingKeepsCassette(t *testing.T) {
	t.Parallel()
	up, dir, cassette, before := recordedCassette(t)

	// The second recording is interrupted by its second model request.
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	var n atomic.Int64
	cutting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			cancel(errors.New("interrupted"))
			io.Copy(io.Discard, r.Body) // then the server sees the connection close
			<-r.Context().Done()        // the agent drops it on the turn's cancel
			return
		}
		up.Config.Handler.ServeHTTP(w, r)
	}))
	defer cutting.Close()
	rep := runFiles(t, ctx, map[string]string{"agent.mock.yaml": modelAgent, "s.yaml": gatewayScenario("record", dir, cutting.URL, "second", "permissions: {default: deny}")}, Options{})
	r := rep.Scenarios[0]
	if r.Status != report.StatusInterrupted || r.Turns[1].CancelCause != report.CauseInterrupt {
		t.Fatalf("%s, turn 2 cancelCause %q; want interrupted during turn 2", r.Status, r.Turns[1].CancelCause)
	}
	if after, err := os.ReadFile(cassette); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the cassette was replaced (%v):\n%s", err, after)
	}
	partial := cassette + gateway.PartialSuffix
	if r.Gateway.Cassette != partial {
		t.Errorf("gateway cassette %q, want %q", r.Gateway.Cassette, partial)
	}
	// The first request's answer, and the second request, which the agent
	// dropped on the turn's cancel before its answer started: abandoned.
	type kept struct {
		Status    int  `json:"status"`
		Abandoned bool `json:"abandoned"`
	}
	var doc struct{ Exchanges []struct{ Response kept } }
	if data, err := os.ReadFile(partial); err != nil || json.Unmarshal(data, &doc) != nil || len(doc.Exchanges) != 2 ||
		doc.Exchanges[0].Response.Abandoned || doc.Exchanges[1].Response != (kept{0, true}) {
		t.Errorf("the partial recording (%v) holds %+v, want the first request's answer and the second abandoned", err, doc.Exchanges)
	}
	want := []string{"gateway: acprun was interrupted during turn 2, so the recording does not replace the cassette " + cassette + ": what it kept is in " + partial}
	if diff := gocmp.Diff(want, r.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestGatewayRefusedRecordingKeepsCassette: a recording whose attempt the
// provider refused (an overload: invalid, upstream) does not replace the
// cassette either, which replay would play back as the same refusal every
// run: it is written beside it, and a warning says where.
func TestGatewayRefusedRecordingKeepsCassette(t *testing.T) {
	t.Parallel()
	_, dir, cassette, before := recordedCassette(t)
	overloaded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer overloaded.Close()
	r := runOne(t, modelAgent, gatewayScenario("record", dir, overloaded.URL, "second", "")).Scenarios[0]
	if r.Status != report.StatusInvalid || r.Invalid == nil || r.Invalid.Reason != report.InvalidUpstream {
		t.Fatalf("%s %+v; want invalid, upstream", r.Status, r.Invalid)
	}
	if after, err := os.ReadFile(cassette); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the cassette was replaced (%v):\n%s", err, after)
	}
	partial := cassette + gateway.PartialSuffix
	if _, err := os.Stat(partial); err != nil || r.Gateway.Cassette != partial {
		t.Errorf("gateway cassette %q (%v), want %q written", r.Gateway.Cassette, err, partial)
	}
	want := "gateway: the provider refused the work (the attempt is invalid), so the recording does not replace the cassette " + cassette + ": what it kept is in " + partial
	if !slices.Contains(r.Warnings, want) {
		t.Errorf("warnings %q; want %q", r.Warnings, want)
	}
}

// TestGatewayCutRecordingLost: a recording the run's end cut short that
// cannot be written either (its directory removed) is told once, as lost:
// no warning points at a partial recording that was never written.
func TestGatewayCutRecordingLost(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	dir := filepath.Join(t.TempDir(), "cassettes")
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	var n atomic.Int64
	cutting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			if err := os.RemoveAll(dir); err != nil {
				t.Error(err)
			}
			cancel(errors.New("interrupted"))
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
			return
		}
		up.Config.Handler.ServeHTTP(w, r)
	}))
	defer cutting.Close()
	rep := runFiles(t, ctx, map[string]string{"agent.mock.yaml": modelAgent, "s.yaml": gatewayScenario("record", dir, cutting.URL, "second", "permissions: {default: deny}")}, Options{})
	r := rep.Scenarios[0]
	if r.Status != report.StatusInterrupted {
		t.Fatalf("%s; want interrupted", r.Status)
	}
	partial := filepath.Join(dir, "g.cassette.json") + gateway.PartialSuffix
	want := []string{"gateway: write cassette " + partial + ": no such file or directory; the recording was lost"}
	if diff := gocmp.Diff(want, r.Warnings); diff != "" || !slices.Equal(r.LostOutputs, want) || r.Gateway.Cassette != "" {
		t.Errorf("lost outputs %q, cassette %q, warnings (-want +got):\n%s", r.LostOutputs, r.Gateway.Cassette, diff)
	}
}

// TestCassetteDirUnopenable: a gateway.dir that exists but cannot be
// opened is an error at the scenario's gateway, not a panic. Root opens
// any directory, so the test needs another user.
func TestCassetteDirUnopenable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root opens a directory whatever its mode")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cassettes")
	if err := os.Mkdir(dir, 0o300); err != nil { // no read: open(2) fails
		t.Fatal(err)
	}
	sc := &scenario.Scenario{Gateway: &scenario.Gateway{Mode: "record", Dir: dir, Targets: []scenario.GatewayTarget{{}}}}
	dirs, err := openCassetteDirs([]*scenario.Scenario{sc})
	if err == nil || !strings.Contains(err.Error(), "gateway: cassettes: ") {
		t.Fatalf("openCassetteDirs: %v, %v; want the gateway's error", dirs, err)
	}
}

// TestCassetteLostIsNotTheAgents: a cassette that record cannot write
// when the attempt ends (its gateway.dir removed during the run, here by
// the scenario's setup) is an output lost: named in LostOutputs (the run
// exits 4) and in a warning, not a failure of the scenario, whose verdict
// stays what the agent earned; the results name no cassette.
func TestCassetteLostIsNotTheAgents(t *testing.T) {
	t.Parallel()
	up, _ := anthropicUpstream(t)
	dir := filepath.Join(t.TempDir(), "cassettes")
	rep := runOne(t, modelAgent, gatewayScenario("record", dir, up.URL, "second", fmt.Sprintf("setup: [rm -rf %s]", dir)))
	r := rep.Scenarios[0]
	if r.Status != report.StatusPassed || len(r.Failures) > 0 {
		t.Fatalf("%s, failures %q; want passed: the agent did its part", r.Status, r.Failures)
	}
	cassette := filepath.Join(dir, "g.cassette.json")
	want := "gateway: write cassette " + cassette + ": no such file or directory; the recording was lost"
	if !slices.Equal(r.LostOutputs, []string{want}) || !slices.Contains(r.Warnings, want) {
		t.Errorf("lost outputs %q, warnings %q; want both to hold %q", r.LostOutputs, r.Warnings, want)
	}
	if r.Gateway == nil || r.Gateway.Cassette != "" {
		t.Errorf("gateway %+v; want no cassette named: none was written", r.Gateway)
	}
}

// TestCheckCassetteDirs: a gateway.dir that record could not write its
// cassettes in is an error before anything runs, at the scenario's
// gateway: one that cannot be made (a file in the way), one that cannot
// be written. A missing one is made; replay and meter write none.
func TestCheckCassetteDirs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{"file": ""})
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.ReadOnlyDir(t, ro)
	pos := scenario.Pos{File: "s.yaml", Line: 3, Col: 10}
	gw := func(mode, d string) *scenario.Scenario {
		return &scenario.Scenario{Gateway: &scenario.Gateway{Pos: pos, Mode: mode, Dir: d, Targets: []scenario.GatewayTarget{{}}}}
	}
	for _, c := range []struct {
		name string
		sc   *scenario.Scenario
		want string // "" for no error
	}{
		{"made", gw("record", filepath.Join(dir, "new", "cassettes")), ""},
		{"a file in the way", gw("record", filepath.Join(dir, "file", "cassettes")), "s.yaml:3:10: gateway: cassettes: mkdir " + filepath.Join(dir, "file") + ": not a directory"},
		{"read-only", gw("record", ro), "s.yaml:3:10: gateway: cassettes: write " + ro + ": "},
		{"replay", gw("replay", ro), ""},
		{"meter", gw("meter", ro), ""},
	} {
		err := CheckCassetteDirs(t.Context(), []*scenario.Scenario{c.sc})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "cassettes")); err != nil {
		t.Errorf("the missing gateway.dir was not made: %v", err)
	}
}

// TestUnpricedWarnings: a model with no price is named; requests that
// named no model at all are told apart, not as the model "".
func TestUnpricedWarnings(t *testing.T) {
	t.Parallel()
	const lower = "so the turns' cost (and what budget.maxCost counted) is a lower bound"
	priced := &scenario.Scenario{Gateway: &scenario.Gateway{Prices: map[string]gateway.Price{"m": {Input: 1}}}}
	for _, c := range []struct {
		name     string
		sc       *scenario.Scenario
		unpriced []string
		want     []string
	}{
		{"all priced", priced, nil, nil},
		{"no prices asked for", &scenario.Scenario{Gateway: &scenario.Gateway{}}, []string{"x"}, nil},
		{"named", priced, []string{"x", "y"}, []string{`gateway: no price for models "x", "y" in the config's prices: the cost of their requests is unknown, ` + lower + "; add them to prices"}},
		{"no model", priced, []string{""}, []string{"gateway: some model requests named no model, neither in the request nor in its answer: their cost is unknown, " + lower}},
		{"both", priced, []string{"x", ""}, []string{
			"gateway: some model requests named no model, neither in the request nor in its answer: their cost is unknown, " + lower,
			`gateway: no price for model "x" in the config's prices: the cost of its requests is unknown, ` + lower + "; add it to prices"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sp := gateway.Spent{Unpriced: c.unpriced}
			if diff := gocmp.Diff(c.want, unpricedWarnings(c.sc, sp)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(sp.Unpriced) != len(c.unpriced) || (len(c.unpriced) > 0 && sp.Unpriced[0] != c.unpriced[0]) {
				t.Errorf("Unpriced changed to %q", sp.Unpriced)
			}
		})
	}
}

// TestCheckCassette: CheckCassette says of a scenario whose gateway
// replays a missing or refused cassette what its run says as the attempt
// opens it, at the gateway; one whose cassette replay plays, one that
// records, and the retries' cassettes (read only when a retry starts) are
// none of its.
func TestCheckCassette(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"agent.mock.yaml":                 "turns: [{steps: [{text: hi}]}]\n",
		"cassettes/kept.cassette.json":    `{"version": 1, "exchanges": []}`,
		"cassettes/retried.cassette.json": `{"version": 1, "exchanges": []}`,
		"cassettes/old.cassette.json":     `{"version": 2, "exchanges": []}`,
	})
	doc := func(name, mode, top string) string {
		return "---\nname: " + name + "\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\n" +
			"gateway: {mode: " + mode + ", env: ANTHROPIC_BASE_URL}\n" + top + "turns: [{prompt: hi}]\n"
	}
	file := filepath.Join(dir, "s.yaml")
	src := doc("missing", "replay", "") + doc("old", "replay", "") + doc("kept", "replay", "") + doc("recorded", "record", "") + doc("retried", "replay", "retries: 1\n")
	scs, _, err := scenario.LoadBytes(file, []byte(src), scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range scs {
		if e := CheckCassette(sc); e != nil {
			got = append(got, e.Error())
		}
	}
	want := []string{
		file + ":5:10: gateway: cassette " + filepath.Join(dir, "cassettes", "missing.cassette.json") + " does not exist: record it with --gateway record",
		file + ":11:10: gateway: cassette " + filepath.Join(dir, "cassettes", "old.cassette.json") + " is version 2; this acprun reads version 1: record it again with --gateway record",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("CheckCassette (-want +got):\n%s", diff)
	}
	rep, err := Run(t.Context(), Options{Self: agentBin(t), WorkspaceDir: t.TempDir()}, scs[:2])
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rep.Scenarios {
		if r.Error != want[i] {
			t.Errorf("run of %s: error %q, want CheckCassette's %q", r.Name, r.Error, want[i])
		}
	}
}

// TestCassetteOfItsScenarioAlone: what a cassette keeps, and how a
// replayed request is matched, depend on its own scenario alone, not on
// the other scenarios of the run: a's own secret (SUITE: nightly) is
// redacted in its cassette even when another scenario of the run is named
// after it (which spares it in the run's other outputs), so a suite
// recorded whole replays a alone, and a recorded alone replays whole.
func TestCassetteOfItsScenarioAlone(t *testing.T) {
	up, _ := anthropicUpstream(t)
	dir := t.TempDir()
	scenarioFile := func(name, env, prompt string) string {
		return fmt.Sprintf(`name: %s
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: %s}
gateway: {mode: MODE, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turns:
  - prompt: %q
    expect: {text: {contains: "echo: "}}
`, name, env, up.URL, prompt)
	}
	texts := map[string]string{
		"a.yaml": scenarioFile("a", "{SUITE: nightly}", "run the nightly checks"),
		"b.yaml": scenarioFile("nightly-smoke", "{}", "check"),
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.mock.yaml"), []byte(modelAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(mode string, files ...string) report.Report {
		t.Helper()
		for i, f := range files {
			files[i] = filepath.Join(dir, "run-"+f)
			if err := os.WriteFile(files[i], []byte(strings.Replace(texts[f], "MODE", mode, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		scs, _, err := scenario.Load(files, scenario.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(t.Context(), Options{Self: agentBin(t)}, scs)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	passed := func(what string, rep report.Report) {
		t.Helper()
		for _, r := range rep.Scenarios {
			if r.Status != report.StatusPassed {
				t.Errorf("%s: %s %s: failures %q, error %q", what, r.Name, r.Status, r.Failures, r.Error)
			}
		}
	}
	passed("record a and b", run("record", "a.yaml", "b.yaml"))
	data, err := os.ReadFile(filepath.Join(dir, "cassettes", "a.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "nightly") || !strings.Contains(string(data), "run the [REDACTED] checks") {
		t.Errorf("a's cassette does not hold its prompt with its own secret redacted:\n%s", data)
	}
	passed("replay a alone", run("replay", "a.yaml"))
	passed("record a alone", run("record", "a.yaml"))
	passed("replay a and b", run("replay", "a.yaml", "b.yaml"))
}

// TestGatewayBackgroundRequests: a model request no turn waits on (one
// the agent makes after its last turn has answered, as claude asks for a
// session title or a prompt suggestion) changes no verdict in a replay,
// whether the recording has it or not: made but not recorded, it is
// answered with an error and a warning; recorded but not made, a warning
// says so; recorded after the last turn but made in the middle of a
// turn's requests, or after an earlier turn (it reaches the gateway during
// the next one), it gets its own answer and shifts no other request's. The
// agent (the mock, whose after: model step waits for the session's next
// message, session/close waiting for it) makes it after acprun has read the
// turn's answer and before the scenario ends, every run.
func TestGatewayBackgroundRequests(t *testing.T) {
	t.Parallel()
	const (
		ask   = `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
		title = `{model: {api: anthropic, model: claude-test, prompt: "title: second", show: none}}`
	)
	var (
		plain      = closingAgent + "turns:\n  - steps: [" + ask + "]\n  - steps: [" + ask + "]\n"
		titleAfter = closingAgent + "turns:\n  - steps: [" + ask + "]\n  - steps: [" + ask + "]\n    after: [" + title + "]\n"
		titleFirst = closingAgent + "turns:\n  - steps: [" + ask + "]\n  - steps: [" + title + ", " + ask + "]\n"
		titleEarly = closingAgent + "turns:\n  - steps: [" + ask + "]\n    after: [" + title + "]\n  - steps: [" + ask + "]\n"
	)
	up, _ := anthropicUpstream(t)
	record := func(t *testing.T, script string) string {
		dir := t.TempDir()
		r := runOne(t, script, gatewayScenario("record", dir, up.URL, "second", "")).Scenarios[0]
		if r.Status != report.StatusPassed {
			t.Fatalf("record: %s %q %q", r.Status, r.Failures, r.Error)
		}
		return dir
	}
	replay := func(t *testing.T, dir, script string) report.Result {
		r := runOne(t, script, gatewayScenario("replay", dir, "http://127.0.0.1:1", "second", "")).Scenarios[0]
		if r.Status != report.StatusPassed {
			t.Errorf("replay: %s, failures %q, turns %+v", r.Status, r.Failures, r.Turns)
		}
		for _, tr := range r.Turns {
			if tr.CancelCause != "" || len(tr.Failures) > 0 {
				t.Errorf("replay: turn %d cancelCause %q, failures %q", tr.Index, tr.CancelCause, tr.Failures)
			}
		}
		r.Warnings = slices.DeleteFunc(r.Warnings, func(w string) bool { return !strings.HasPrefix(w, "gateway: ") })
		return r
	}
	t.Run("made, not recorded", func(t *testing.T) {
		t.Parallel()
		r := replay(t, record(t, plain), titleAfter)
		want := []string{"gateway: request 3 (POST /v1/messages): not in the cassette (it has 2 requests); " +
			"it came after turn 2 had answered, so it fails no turn: the replay answered it with an error"}
		if diff := gocmp.Diff(want, r.Warnings); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		if g := r.Gateway; g == nil || g.Requests != 3 || g.Unplayed != 0 || g.Unrecorded != 1 {
			t.Errorf("gateway %+v, want 3 requests, 1 not recorded", g)
		}
	})
	recorded := record(t, titleAfter)
	t.Run("recorded, not made", func(t *testing.T) {
		t.Parallel()
		r := replay(t, recorded, plain)
		if want := []string{"gateway: 1 recorded model request(s) were not asked for in this replay"}; !slices.Equal(r.Warnings, want) {
			t.Errorf("warnings %q, want %q", r.Warnings, want)
		}
		if g := r.Gateway; g == nil || g.Requests != 2 || g.Unplayed != 1 || g.Unrecorded != 0 {
			t.Errorf("gateway %+v, want 2 requests, 1 unplayed", g)
		}
	})
	for name, script := range map[string]string{"made in the middle of a turn": titleFirst, "made after an earlier turn": titleEarly} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := replay(t, recorded, script)
			if len(r.Warnings) > 0 {
				t.Errorf("warnings %q, want none", r.Warnings)
			}
			if g := r.Gateway; g == nil || g.Requests != 3 || g.Unplayed != 0 || g.Unrecorded != 0 {
				t.Errorf("gateway %+v, want the 3 recorded requests played", g)
			}
			for i, want := range []string{"echo: first", "echo: second"} {
				if got := r.Turns[i].Text; got != want {
					t.Errorf("turn %d text %q, want %q: the answers shifted", i+1, got, want)
				}
			}
		})
	}
}
