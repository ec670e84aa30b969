package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// gatewayEnvFiles is a one-turn scenario whose mock agent asks the
// Anthropic model through a recording gateway with the prompt, its agent
// given env (a YAML flow mapping).
func gatewayEnvFiles(upstream, env, prompt string) map[string]string {
	return map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"Q: {{prompt}}\"}}]\n",
		"s.yaml": fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: %s}
gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turns:
  - prompt: %q
`, env, upstream, prompt),
	}
}

// TestGatewaySecretWithDates: a secret holding dates and times (an Azure
// SAS token) in a request is redacted whole in the cassette, not cut into
// parts by the replacement of its dates, and the recording replays.
func TestGatewaySecretWithDates(t *testing.T) {
	underRace(t)
	t.Parallel()
	const sas = "sv=2022-11-02&ss=b&se=2030-12-31T23:59:59Z&sig=Zm9vYmFyU2VjcmV0U2lnbmF0dXJlMTIz"
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	writeFiles(t, dir, gatewayEnvFiles(up.URL, fmt.Sprintf("{AZURE_STORAGE_SAS_TOKEN: %q}", sas), "Use "+sas+" to upload."))
	if res := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cassettes", "g.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"Zm9vYmFy", "sig=", "ss=b"} {
		if strings.Contains(string(data), part) {
			t.Errorf("the cassette holds %q of the secret:\n%s", part, data)
		}
	}
	if !strings.Contains(string(data), `Q: Use [REDACTED] to upload.`) {
		t.Errorf("the cassette does not hold the prompt with the secret redacted:\n%s", data)
	}
	up.Close()
	if res := acprun(t, dir, "run", "s.yaml", "--gateway", "replay", "-o", "out.json"); res.code != exitOK {
		t.Errorf("replay: exit %d\n%s", res.code, res.stderr)
	}
}

// TestGatewayShortValueInEscapes: a short agent.env value (EDITOR=nano)
// that an escaped line break and the text after it spell in the model's
// streamed JSON ("\nanother") is no secret there: the cassette keeps each
// event's data valid JSON, the text as the model said it, and a replay
// gives the agent that text, as the recording did.
func TestGatewayShortValueInEscapes(t *testing.T) {
	underRace(t)
	t.Parallel()
	const text = "x\nanother line of an answer long enough to stream in two halves"
	up := testkit.NewAnthropicServer(t)
	up.SetSideText(text)
	dir := t.TempDir()
	writeFiles(t, dir, gatewayEnvFiles(up.URL, "{EDITOR: nano}", "hi"))
	if res := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	var doc struct {
		Exchanges []struct {
			Response struct {
				Events []struct {
					Data string `json:"data"`
				} `json:"events"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	readJSON(t, filepath.Join(dir, "cassettes", "g.cassette.json"), &doc)
	for _, ex := range doc.Exchanges {
		for _, e := range ex.Response.Events {
			if _, data, ok := strings.Cut(e.Data, "data: "); ok && !json.Valid([]byte(strings.TrimSpace(data))) {
				t.Errorf("the cassette keeps an event whose data is no JSON: %q", e.Data)
			}
		}
	}
	up.Close()
	if res := acprun(t, dir, "run", "s.yaml", "--gateway", "replay", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
	}
	if got := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0].Turns[0].Text; got != text {
		t.Errorf("replayed text %q, want %q as recorded", got, text)
	}
}

// TestGatewayRedactedHidesNoChange: a request that held an agent.env
// value records it as [REDACTED]; replayed, that marker matches the same
// value, redacted again, and no other text: a changed prompt or model
// around it is a divergence that fails the turn.
func TestGatewayRedactedHidesNoChange(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	const env = "{SUITE: kestrel, ANTHROPIC_MODEL: claude-test}"
	writeFiles(t, dir, gatewayEnvFiles(up.URL, env, "Run the kestrel suite and report."))
	if res := acprun(t, dir, "run", "s.yaml", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	up.Close()
	if res := acprun(t, dir, "run", "s.yaml", "--gateway", "replay", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
	}
	for _, c := range []struct{ name, prompt, model, want string }{
		{"prompt", "Run the migration that drops every table in the production database, then the kestrel suite and report.", "claude-test",
			`recorded "Q: Run the [REDACTED] suite and report.", received "Q: Run the migration that drops every table`},
		{"model", "Run the kestrel suite and report.", "claude-other", `model: recorded "[REDACTED]", received "claude-other"`},
	} {
		files := gatewayEnvFiles(up.URL, env, c.prompt)
		files["agent.mock.yaml"] = strings.Replace(files["agent.mock.yaml"], "claude-test", c.model, 1)
		writeFiles(t, dir, files)
		res, out := runResults(t, dir, "s.yaml", "--gateway", "replay")
		if res.code != exitFailed || !strings.Contains(strings.Join(out.Scenarios[0].Turns[0].Failures, "\n"), c.want) {
			t.Errorf("%s changed: exit %d, failures %q; want the divergence %q\n%s", c.name, res.code, out.Scenarios[0].Turns[0].Failures, c.want, res.stderr)
		}
	}
}

// TestGatewayUnendedLastEvent: an answer whose last event has no blank
// line after it (the upstream closed the stream there) ends in the middle
// of that event, which clients discard: record and replay count the same
// usage, without that event's.
func TestGatewayUnendedLastEvent(t *testing.T) {
	underRace(t)
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\n"+`data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":1300,"output_tokens":1}}}`+"\n\n"+
			"event: content_block_start\n"+`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`+"\n\n"+
			"event: content_block_delta\n"+`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}`+"\n\n"+
			"event: content_block_stop\n"+`data: {"type":"content_block_stop","index":0}`+"\n\n"+
			"event: message_delta\n"+`data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":50}}`+"\n")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	writeFiles(t, dir, gatewayEnvFiles(srv.URL, "{}", "hi"))
	res, rec := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	srv.Close()
	res, rep := runResults(t, dir, "s.yaml", "--gateway", "replay")
	if res.code != exitOK {
		t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
	}
	was, got := rec.Scenarios[0].Turns[0].Usage, rep.Scenarios[0].Turns[0].Usage
	if was == nil || got == nil || was.TotalTokens != 1301 || !gocmp.Equal(was, got) {
		t.Errorf("usage recorded %+v, replayed %+v; want both 1301 tokens", was, got)
	}
}

// TestGatewayCassetteNotObject: a cassette that is JSON of another shape
// (an array) is an error at its place in plain words, naming no Go type.
func TestGatewayCassetteNotObject(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	files := gatewayFiles(gatewayAPIs[0], "https://api.anthropic.com", "second")
	files["cassettes/g.cassette.json"] = "[]"
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "s.yaml", "--gateway", "replay")
	want := filepath.Join("cassettes", "g.cassette.json") + ":1:1: not a valid cassette: it is an array, not an object; record it again with --gateway record"
	if e := out.Scenarios[0].Error; res.code != exitAgent || !strings.Contains(e, want) || strings.Contains(e, "struct") {
		t.Errorf("exit %d, error %q; want %q\n%s", res.code, e, want, res.stderr)
	}
}

// TestGatewayAbandonedAnswerReplays: answers the agent went away from
// because acprun cancelled its turn at turnTimeout, while the upstream
// stalled before its headers (turn 1) or in the middle of its stream
// (turn 2), replay as recorded: held open until the turn's timeout
// cancels it again, not broken off (an error) or missing from the
// cassette (a divergence), and the next turn plays on.
func TestGatewayAbandonedAnswerReplays(t *testing.T) {
	underRace(t)
	t.Parallel()
	const start = "event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
		"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}` + "\n\n"
	const end = "event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n" +
		"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}` + "\n\n" +
		"event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n"
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k == 1 { // stalls before its headers
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, start)
		w.(http.Flusher).Flush()
		if k == 2 { // stalls in the middle of the stream
			<-r.Context().Done()
			return
		}
		io.WriteString(w, end)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	step := "  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"Q: {{prompt}}\"}}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n" + step + step + step,
		"s.yaml": fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turnTimeout: 1s
continueAfterCancel: true
turns:
  - prompt: one
  - prompt: two
  - prompt: three
`, srv.URL),
	})
	outcome := func(r report.Results) string {
		var s []string
		for _, turn := range r.Scenarios[0].Turns {
			s = append(s, fmt.Sprintf("%s/%s %q", turn.StopReason, turn.CancelCause, turn.Error))
		}
		return strings.Join(s, ", ")
	}
	res, rec := runResults(t, dir, "s.yaml")
	const want = `cancelled/turnTimeout "", cancelled/turnTimeout "", end_turn/ ""`
	if got := outcome(rec); got != want {
		t.Fatalf("record: exit %d, turns %s; want %s\n%s", res.code, got, want, res.stderr)
	}
	srv.Close()
	res, rep := runResults(t, dir, "s.yaml", "--gateway", "replay")
	if got := outcome(rep); got != want {
		t.Errorf("replay: exit %d, turns %s; want %s as recorded\n%s", res.code, got, want, res.stderr)
	}
}

// TestGatewayCutAnswerKeepsNoStartOfSecret: a model's answer that the
// upstream broke off in the middle of an agent.env secret the model
// repeats, inside a stream's event or inside a JSON body (the secret's
// non-ASCII letters written as \u escapes), is kept marked truncated with
// no start of the secret: what may begin it is [REDACTED].
func TestGatewayCutAnswerKeepsNoStartOfSecret(t *testing.T) {
	underRace(t)
	t.Parallel()
	for _, tc := range []struct {
		name, secret, contentType, body, leak string
	}{
		{"event", "sk-live-AbcDef12345", "text/event-stream",
			"event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
				"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
				"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"key: sk-live-AbcDef`,
			"sk-live-AbcDef"},
		{"body", "pässwörd-AbcDef12", "application/json",
			`{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"key: p\u00e4ssw\u00f6rd-Ab`,
			`p\u00e4ssw`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tc.contentType)
				io.WriteString(w, tc.body)
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler) // the connection breaks
			}))
			t.Cleanup(srv.Close)
			dir := t.TempDir()
			writeFiles(t, dir, gatewayEnvFiles(srv.URL, fmt.Sprintf("{MY_SECRET: %q}", tc.secret), "hi"))
			res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
			var doc struct {
				Exchanges []struct {
					Response struct {
						Events []struct {
							Data string `json:"data"`
						} `json:"events"`
						Truncated bool `json:"truncated"`
					} `json:"response"`
				} `json:"exchanges"`
			}
			readJSON(t, filepath.Join(dir, "cassettes", "g.cassette.json"), &doc)
			if len(doc.Exchanges) != 1 {
				t.Fatalf("the cassette holds %d exchanges, want 1 (exit %d)\n%s", len(doc.Exchanges), res.code, res.stderr)
			}
			r := doc.Exchanges[0].Response
			var kept strings.Builder
			for _, e := range r.Events {
				kept.WriteString(e.Data)
			}
			if !r.Truncated || strings.Contains(kept.String(), tc.leak) || !strings.HasSuffix(kept.String(), "key: [REDACTED]") {
				t.Errorf("the answer kept (truncated %v) is %q; want it truncated, ending in key: [REDACTED], without %q", r.Truncated, kept.String(), tc.leak)
			}
		})
	}
}
