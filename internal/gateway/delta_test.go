package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/testkit"
)

// deltaShape is a provider API's stream of one text in deltas: the event
// that adds a piece of it, given as a JSON string, and an event that adds
// none, sent between them.
type deltaShape struct {
	shape
	start, other, end string
	delta             func(piece string) string
}

var deltaShapes = []deltaShape{
	{shape: shapes[0],
		start: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
		delta: func(p string) string {
			return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + p + "}}\n\n"
		},
		other: "event: ping\ndata: {\"type\": \"ping\"}\n\n",
		end:   "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
	{shape: shape{"anthropic-tool-input", "", "/v1/messages", anthropicRequest, ""},
		start: "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{}}}\n\n",
		delta: func(p string) string {
			return "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + p + "}}\r\n\r\n"
		},
		other: ": a comment\n\n",
		end:   "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
	{shape: shapes[1],
		delta: func(p string) string {
			return `data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1","choices":[{"index":0,"delta":{"content":` + p + `}}]}` + "\n\n"
		},
		other: `data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1","choices":[{"index":0,"delta":{"content":null}}]}` + "\n\n",
		end:   "data: [DONE]\n\n"},
	{shape: shape{"openai-chat-tool-call", "/v1", "/chat/completions", openAIChatRequest, ""},
		delta: func(p string) string {
			return `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + p + `}}]}}]}` + "\n\n"
		},
		other: `data: {"choices":[{"index":1,"delta":{"content":"other choice"}}]}` + "\n\n",
		end:   "data: [DONE]\n\n"},
	{shape: shapes[2],
		delta: func(p string) string {
			return "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":" + p + "}\n\n"
		},
		other: "event: response.reasoning_summary_text.delta\ndata: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_1\",\"output_index\":1,\"summary_index\":0,\"delta\":\"thinking\"}\n\n"},
	{shape: shapes[3],
		delta: func(p string) string {
			return `data: {"candidates":[{"content":{"parts":[{"text":` + p + `}],"role":"model"},"index":0}]}` + "\r\n\r\n"
		},
		other: `data: {"usageMetadata":{"promptTokenCount":12}}` + "\r\n\r\n"},
}

// TestSplitSecretsNeverKept: a model streams its text in deltas cut
// anywhere, so a secret it repeats (one acprun knows, or the request's
// own key), or a workspace path, may be split between events. The text
// of a part of the answer is redacted and named as one text: for every
// API's deltas and every size of them, with other events between, the
// cassette holds no secret, its events stay valid JSON, its deltas make
// the redacted text, and a replay (in another workspace) plays it.
func TestSplitSecretsNeverKept(t *testing.T) {
	const (
		secret    = "sk-ant-api03-S3cr/et_0123456789"
		headerKey = "sk-ant-api03-headerkey0123456789"
		wsA, wsB  = "/tmp/acprun-ws-1234/work", "/home/ci/acprun-ws-9876/work"
	)
	text := "key é " + secret + ", header " + headerKey + " in " + wsA + "/main.go."
	want := func(ws string) string { return "key é [REDACTED], header [REDACTED] in " + ws + "/main.go." }
	red := redact.New(secret)
	s := startServer(t)
	up := newUpstream(t)
	for _, sh := range deltaShapes {
		for n := 1; n <= len(headerKey)+1; n++ {
			t.Run(fmt.Sprintf("%s/%d", sh.name, n), func(t *testing.T) {
				var stream strings.Builder
				stream.WriteString(sh.start)
				for i, p := range testkit.CutEvery(text, n) {
					if i%3 == 1 {
						stream.WriteString(sh.other)
					}
					stream.WriteString(sh.delta(string(encode(p))))
				}
				stream.WriteString(sh.end)
				path, _, _ := strings.Cut(sh.base+sh.path, "?")
				up.mu.Lock()
				up.answers[path] = answerSpec{200, "text/event-stream", stream.String()}
				up.mu.Unlock()

				cas := filepath.Join(t.TempDir(), "c.json")
				rec := open(t, Config{Mode: Record, Cassette: cas, Redact: red, Paths: map[string][]string{"<workspace>": {wsA}}})
				route := s.NewRoute(up.URL + sh.base)
				route.Bind(rec)
				hdr := http.Header{"X-Api-Key": {headerKey}}
				if got := send(t, "POST", route.URL(), sh.path, sh.request, hdr); got.body != stream.String() {
					t.Fatalf("record: the agent got %q, want the upstream's stream", got.body)
				}
				if err := rec.Close(); err != nil {
					t.Fatal(err)
				}
				raw, c := readCassetteFile(t, cas)
				if len(c.Exchanges) != 1 {
					t.Fatalf("cassette: %d exchanges", len(c.Exchanges))
				}
				var kept strings.Builder
				for _, e := range c.Exchanges[0].Response.Events {
					if _, data := provider.Parse([]byte(e.Data)); data != nil && string(data) != "[DONE]" && !json.Valid(data) {
						t.Errorf("event %q: its data is not JSON", e.Data)
					}
					kept.WriteString(deltaText(sh.api(), e.Data))
				}
				for _, leak := range []string{secret, headerKey, wsA} {
					if bytes.Contains(raw, []byte(leak)) || strings.Contains(kept.String(), leak) {
						t.Errorf("the cassette holds %q: deltas %q", leak, kept.String())
					}
				}
				if kept.String() != want("<workspace>") {
					t.Errorf("the cassette's deltas make %q, want %q", kept.String(), want("<workspace>"))
				}

				play := open(t, Config{Mode: Replay, Cassette: cas, Redact: red, Paths: map[string][]string{"<workspace>": {wsB}}})
				route.Bind(play)
				got := send(t, "POST", route.URL(), sh.path, sh.request, http.Header{"X-Api-Key": {DummyKey}})
				var played strings.Builder
				for _, ev := range strings.SplitAfter(strings.ReplaceAll(got.body, "\r\n", "\n"), "\n\n") {
					played.WriteString(deltaText(sh.api(), ev))
				}
				if got.status != 200 || played.String() != want(wsB) {
					t.Errorf("replay: %d, deltas %q (divergence %q), want %q", got.status, played.String(), play.Divergence(), want(wsB))
				}
			})
		}
	}
}

// api is the API of the shape's requests.
func (sh deltaShape) api() provider.API {
	p, _, _ := strings.Cut(sh.path, "?")
	return provider.Detect(http.MethodPost, p)
}

// deltaText is the text ev's deltas of the part the test streams add.
func deltaText(api provider.API, ev string) string {
	var b strings.Builder
	for _, d := range provider.Deltas(api, []byte(ev)) {
		if !strings.Contains(d.Part, "rs_1") && !strings.HasPrefix(d.Part, "1 content") {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// TestSplitSecretCutOff: of an answer that broke off in the middle of a
// secret streamed in deltas, the cassette keeps no start of the secret.
func TestSplitSecretCutOff(t *testing.T) {
	const secret = "sk-ant-api03-S3cr/et_0123456789"
	a := &Attempt{cfg: Config{Redact: redact.New(secret)}, paths: newPathNames(nil, nil)}
	c := &call{api: provider.Anthropic, keys: redact.New()}
	var events []event
	for _, p := range testkit.CutEvery("key "+secret[:20], 5) {
		events = append(events, newEvent(0, []byte(deltaShapes[0].delta(string(encode(p))))))
	}
	var kept strings.Builder
	for _, e := range a.keptEvents(c, events, true, true) {
		kept.WriteString(deltaText(provider.Anthropic, e.Data))
	}
	if want := "key " + redact.Marker; kept.String() != want {
		t.Errorf("the cassette's deltas make %q, want %q", kept.String(), want)
	}
}
