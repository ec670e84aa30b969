package e2e_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestReplayKeepsProtocolWords: env values that are words of the protocol
// (OUTPUT_FORMAT: text, APP_MODE: agent) are no secrets: the transcript
// keeps its messages whole, every line valid JSON with its keys intact,
// and replaying it gives the run's verdict, while a real secret is still
// redacted.
func TestReplayKeepsProtocolWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"t.mock.yaml": "turns: [{steps: [{text: \"hi there\"}]}]\n",
		"t.yaml": `name: tx
agent:
  command: [acprun, mock-agent, t.mock.yaml]
  env: {OUTPUT_FORMAT: text, APP_MODE: agent, API_KEY: sk-live-WireSecret1234}
permissions: {default: deny}
turns: [{prompt: "hello sk-live-WireSecret1234", expect: {text: {contains: hi}}}]
`,
		"r.yaml": `name: tx-replay
agent: {replay: tr/tx.jsonl}
permissions: {default: deny}
turns: [{prompt: "hello [REDACTED]", expect: {text: {contains: hi}}}]
`,
	})
	if res := acprun(t, dir, "run", "t.yaml", "-o", "r.json", "--transcripts", "tr"); res.code != exitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	data := readFiles(t, dir, filepath.Join("tr", "tx.jsonl"))[filepath.Join("tr", "tx.jsonl")]
	if bytes.Contains(data, []byte("WireSecret")) {
		t.Errorf("the transcript holds the secret:\n%s", data)
	}
	for line := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
		var l map[string]any
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("transcript line %s: %v", line, err)
		}
	}
	for _, want := range []string{`"agentInfo":{"name":"acprun-mock-agent"`, `"embeddedContext":`, `"prompt":[{"type":"text","text":"hello [REDACTED]"}]`, `"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi there"}`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the transcript lacks %s:\n%s", want, data)
		}
	}
	if out := readResults(t, filepath.Join(dir, "r.json")); out.Scenarios[0].Agent.InfoName != "acprun-mock-agent" {
		t.Errorf("results: agentName %q, want acprun-mock-agent", out.Scenarios[0].Agent.InfoName)
	}
	if res := acprun(t, dir, "run", "r.yaml", "-o", "rr.json"); res.code != exitOK {
		t.Errorf("replay: exit %d, want 0 as the run\n%s", res.code, res.stderr)
	}
}

// rejectingProvider is a model provider that answers every request 401,
// naming the credentials it got, as providers name a bad key.
func rejectingProvider(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg := "invalid x-api-key: " + r.Header.Get("X-Api-Key") + "; authorization: " + r.Header.Get("Authorization")
		data, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "authentication_error", "message": msg}})
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestGatewayCredentialsRedacted: what the provider answers of the key
// gateway.key names, and of the Basic credentials of a proxy's user and
// password in gateway.upstream, is redacted in every output: stderr,
// results, JUnit, the transcript and the cassette.
func TestGatewayCredentialsRedacted(t *testing.T) {
	t.Parallel()
	const key, password = "zzLLMkeyValue8888", "proxyPassw0rd77"
	basic := base64.StdEncoding.EncodeToString([]byte("proxyuser:" + password))
	up := rejectingProvider(t)
	for _, tt := range []struct{ name, upstream, shown string }{
		{"gateway.key", up + "/base", "invalid x-api-key: [REDACTED]"},
		{"proxy password", strings.Replace(up, "://", "://proxyuser:"+password+"@", 1) + "/base", "authorization: Basic [REDACTED]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"g.mock.yaml": "turns: [{steps: [{model: {api: anthropic, model: m, prompt: hi, stream: false, key: LLMX}}, {text: done}]}]\n",
				"s.yaml": `name: g
agent: {command: [acprun, mock-agent, g.mock.yaml]}
gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: "` + tt.upstream + `", key: LLMX, dir: cass}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
			})
			res := acprunEnv(t, dir, []string{"LLMX=" + key}, "run", "s.yaml", "-o", "r.json", "--junit", "j.xml", "--transcripts", "tr")
			outputs := map[string][]byte{"stderr": []byte(res.stderr)}
			for _, name := range []string{"r.json", "j.xml", filepath.Join("tr", "g.jsonl")} {
				outputs[name] = readFiles(t, dir, name)[name]
			}
			cassettes, _ := filepath.Glob(filepath.Join(dir, "cass", "*"))
			if len(cassettes) != 1 {
				t.Fatalf("cassettes %q, want one\n%s", cassettes, res.stderr)
			}
			outputs["cassette"], _ = os.ReadFile(cassettes[0])
			if !bytes.Contains(outputs["r.json"], []byte(tt.shown)) {
				t.Errorf("r.json lacks %q:\n%s", tt.shown, outputs["r.json"])
			}
			for name, data := range outputs {
				for _, secret := range []string{key, password, basic} {
					if bytes.Contains(data, []byte(secret)) {
						t.Errorf("%s holds %s:\n%s", name, secret, data)
					}
				}
			}
		})
	}
}

// TestGatewaySeenKeyRedacted: a key the agent sends its provider that
// acprun was not told of (here from a variable of no secret-looking name;
// an agent's own login does the same) is redacted from every output once
// the gateway has seen it: the provider's error naming it, which the
// agent repeats, shows [REDACTED] on stderr, in the results, JUnit,
// events, the transcript, the HTML report and the cassette.
func TestGatewaySeenKeyRedacted(t *testing.T) {
	underRace(t)
	t.Parallel()
	const key = "zzUnknownKey4242abcd"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"g.mock.yaml": "turns: [{steps: [{model: {api: anthropic, model: m, prompt: hi, stream: false, key: LLMX}}, {text: done}]}]\n",
		"s.yaml": `name: g
agent: {command: [acprun, mock-agent, g.mock.yaml]}
gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: "` + rejectingProvider(t) + `", dir: cass}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprunEnv(t, dir, []string{"LLMX=" + key}, "run", "s.yaml", "-v", "-o", "r.json", "--junit", "j.xml",
		"--events", "ev.jsonl", "--html", "r.html", "--transcripts", "tr")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1 (the provider refuses the key)\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "j.xml", "ev.jsonl", "r.html", filepath.Join("tr", "g.jsonl"))
	outputs["stderr"] = []byte(res.stderr)
	cassettes, _ := filepath.Glob(filepath.Join(dir, "cass", "*"))
	if len(cassettes) != 1 {
		t.Fatalf("cassettes %q, want one\n%s", cassettes, res.stderr)
	}
	outputs["cassette"], _ = os.ReadFile(cassettes[0])
	for name, data := range outputs {
		if i := bytes.Index(data, []byte("UnknownKey")); i >= 0 {
			t.Errorf("%s leaks the key the gateway saw: …%s…", name, excerpt(data, i))
		}
	}
	if !bytes.Contains(outputs["r.json"], []byte("invalid x-api-key: [REDACTED]")) {
		t.Errorf("r.json lacks the provider's error with the key redacted:\n%s", outputs["r.json"])
	}
}
