package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// textUpstream is a fake Anthropic Messages API that streams text as the
// answer to every request.
func textUpstream(t *testing.T, text string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\n"+`data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"ok","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`+"\n\n"+
			"event: content_block_start\n"+`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`+"\n\n"+
			"event: content_block_delta\n"+fmt.Sprintf(`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, text)+"\n\n"+
			"event: content_block_stop\n"+`data: {"type":"content_block_stop","index":0}`+"\n\n"+
			"event: message_delta\n"+`data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`+"\n\n"+
			"event: message_stop\n"+`data: {"type":"message_stop"}`+"\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// selectFiles is a suite of two scenario files, a.yaml and b.yaml, whose
// mock agent asks the model through the gateway with the turn's prompt
// and expects its answer to hold want; env gives each file's agent.env
// and name its scenario name.
func selectFiles(upstream, want string, a, b [3]string) map[string]string {
	file := func(s [3]string) string {
		name, env, prompt := s[0], s[1], s[2]
		return fmt.Sprintf(`name: %s
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: %s}
gateway: {mode: replay, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turns:
  - prompt: %q
    expect: {text: {contains: %q}}
`, name, env, upstream, prompt, want)
	}
	return map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: ok, prompt: \"Q: {{prompt}}\"}}]\n",
		"a.yaml":          file(a),
		"b.yaml":          file(b),
	}
}

// TestGatewayReplaySelection: what a cassette keeps and how a request is
// matched depend on its own scenario alone, not on the other scenarios of
// the run: a suite recorded whole replays one file at a time and shard by
// shard, and one recorded a file at a time replays whole. Another
// scenario's agent.env value (NODE_ENV: test, a common value that is no
// secret; SUITE: nightly, part of another scenario's name) in a
// scenario's prompt changes neither.
func TestGatewayReplaySelection(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		a, b [3]string
	}{
		{"common value of another scenario", [3]string{"a", "{}", "run the tests"}, [3]string{"b", "{NODE_ENV: test}", "check"}},
		{"own secret in another scenario's name", [3]string{"a", "{SUITE: nightly}", "run the nightly checks"}, [3]string{"nightly-smoke", "{}", "check"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := textUpstream(t, "All tests pass")
			dir := t.TempDir()
			writeFiles(t, dir, selectFiles(up.URL, "tests pass", c.a, c.b))
			if res := acprun(t, dir, "run", ".", "--gateway", "record", "-q"); res.code != exitOK {
				t.Fatalf("record the whole suite: exit %d\n%s", res.code, res.stderr)
			}
			replays := [][]string{{"a.yaml"}, {"b.yaml"}, {".", "--shard", "1/2"}, {".", "--shard", "2/2"}, {"."}}
			for _, args := range replays {
				if res := acprun(t, dir, append(append([]string{"run"}, args...), "-q")...); res.code != exitOK {
					t.Errorf("recorded whole, replay %v: exit %d\n%s", args, res.code, res.stderr)
				}
			}
			os.RemoveAll(filepath.Join(dir, "cassettes"))
			for _, f := range []string{"a.yaml", "b.yaml"} {
				if res := acprun(t, dir, "run", f, "--gateway", "record", "-q"); res.code != exitOK {
					t.Fatalf("record %s alone: exit %d\n%s", f, res.code, res.stderr)
				}
			}
			up.Close()
			for _, args := range replays {
				if res := acprun(t, dir, append(append([]string{"run"}, args...), "-q")...); res.code != exitOK {
					t.Errorf("recorded by file, replay %v: exit %d\n%s", args, res.code, res.stderr)
				}
			}
		})
	}
}

// TestCommonEnvValueNotRedacted: an agent.env value that is the common
// value of a mode or log-level variable (NODE_ENV: test, LOG_LEVEL: debug)
// is no secret: the prompts and answers that hold it are kept whole in
// the results and the cassette, and replay gives the agent the answer as
// recorded, so a text expectation holds in both.
func TestCommonEnvValueNotRedacted(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := textUpstream(t, "All tests pass in debug mode")
	dir := t.TempDir()
	writeFiles(t, dir, selectFiles(up.URL, "tests pass in debug",
		[3]string{"a", "{NODE_ENV: test, LOG_LEVEL: DEBUG}", "go test ./..."}, [3]string{"b", "{}", "x"}))
	res, rec := runResults(t, dir, "a.yaml", "--gateway", "record")
	if res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	up.Close()
	res, rep := runResults(t, dir, "a.yaml")
	if res.code != exitOK {
		t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
	}
	for what, r := range map[string][]string{"record": {rec.Scenarios[0].Turns[0].Prompt, rec.Scenarios[0].Turns[0].Text}, "replay": {rep.Scenarios[0].Turns[0].Prompt, rep.Scenarios[0].Turns[0].Text}} {
		if r[0] != "go test ./..." || r[1] != "All tests pass in debug mode" {
			t.Errorf("%s: prompt %q, text %q; want them whole", what, r[0], r[1])
		}
	}
	cas, err := os.ReadFile(filepath.Join(dir, "cassettes", "a.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cas), "[REDACTED]") || !strings.Contains(string(cas), "go test ./...") {
		t.Errorf("the cassette redacted a common value:\n%s", cas)
	}
}
