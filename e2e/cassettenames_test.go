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

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
)

// modelScenario is a scenario on the mock agent of agent.mock.yaml (one
// model step with the turn's prompt, through the gateway to upstream),
// whose one turn says prompt.
func modelScenario(name, upstream, prompt string) string {
	return fmt.Sprintf(`name: %q
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turns:
  - prompt: %q
`, name, upstream, prompt)
}

// modelAgentScript is the mock agent of modelScenario; whole asks for a
// whole JSON answer rather than a stream.
func modelAgentScript(whole bool) string {
	return fmt.Sprintf("default: {steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\", stream: %v}}]}\n", !whole)
}

// TestGatewayCassetteNamesOwn: scenarios whose names a file name writes
// alike ("fix vet", "fix:vet") each record their own cassette, named by
// the scenario alone, so a run of one of them replays its own; two tries
// that would still share a cassette stop the run before anything runs,
// naming both.
func TestGatewayCassetteNamesOwn(t *testing.T) {
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": modelAgentScript(false),
		"a.yaml":          modelScenario("fix vet", up.URL, "capital of France?"),
		"b.yaml":          modelScenario("fix:vet", up.URL, "capital of Italy?"),
	})
	if res, _ := runResults(t, dir, "a.yaml", "b.yaml", "--gateway", "record"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "cassettes"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "fix_vet~92fc28fa.cassette.json fix_vet~e61d4ec1.cassette.json" {
		t.Errorf("cassettes %s, want one of its own for each scenario", got)
	}
	up.Close()
	for _, files := range [][]string{{"b.yaml"}, {"a.yaml"}, {"b.yaml", "a.yaml"}} {
		if res, _ := runResults(t, dir, append(files, "--gateway", "replay")...); res.code != exitOK {
			t.Errorf("replay %v: exit %d\n%s", files, res.code, res.stderr)
		}
	}

	writeFiles(t, dir, map[string]string{"c.yaml": modelScenario("x", up.URL, "hi") + "retries: 1\n---\n" + modelScenario("x-retry1", up.URL, "hi")})
	res := acprun(t, dir, "run", "c.yaml", "--gateway", "record")
	want := fmt.Sprintf(`c.yaml:9:1: gateway: scenario "x-retry1" and scenario "x", retry 1 (at c.yaml:1:1) would share the cassette %s: `+
		"give one of them another name (or agent), or its own gateway.dir", filepath.Join(dir, "cassettes", "x-retry1.cassette.json"))
	if res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("two scenarios, one cassette: exit %d, stderr:\n%s\nwant %d and %s", res.code, res.stderr, exitUsage, want)
	}
}

// TestGatewayCwdThroughSymlink: a suite reached through a symbolic link
// records its session cwd as <workspace> whether the agent says it as
// given or as its getcwd() does, symlinks resolved; the recording then
// replays in another directory, itself reached through a link.
func TestGatewayCwdThroughSymlink(t *testing.T) {
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	// suite writes the suite in a directory reached through a link, its
	// prompt naming the directory as it really is; it returns the link.
	suite := func(mode string) (link string) {
		base := realTempDir(t)
		real, link := filepath.Join(base, "real"), filepath.Join(base, "link")
		writeFiles(t, real, map[string]string{
			"agent.mock.yaml": modelAgentScript(false),
			"s.yaml":          strings.Replace(modelScenario("g", up.URL, "cwd is "+real), "meter", mode, 1),
		})
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		return link
	}
	rec := suite("record")
	if res, _ := runResults(t, rec, filepath.Join(rec, "s.yaml")); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	cassette, err := os.ReadFile(filepath.Join(rec, "cassettes", "g.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cassette), `"content": "cwd is <workspace>"`) {
		t.Fatalf("the cassette does not name the directory <workspace>:\n%s", cassette)
	}
	play := suite("replay")
	writeFiles(t, play, map[string]string{"cassettes/g.cassette.json": string(cassette)})
	if res, _ := runResults(t, play, filepath.Join(play, "s.yaml")); res.code != exitOK {
		t.Errorf("replay elsewhere: exit %d\n%s", res.code, res.stderr)
	}
}

// TestGatewayEscapedPathsNamed: a model that writes the session's paths
// JSON-escaped in its answer (non-ASCII as \uXXXX, "/" as "\/", as Python
// and PHP servers do) has them kept as <workspace> in the cassette, so
// that a replay in another directory hands the agent its own path.
func TestGatewayEscapedPathsNamed(t *testing.T) {
	t.Parallel()
	// The model answers "you said: PROMPT", escaped as PHP's json_encode
	// escapes it.
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var text strings.Builder
		for _, c := range "you said: " + req.Messages[0].Content {
			switch {
			case c == '/':
				text.WriteString(`\/`)
			case c > 127:
				fmt.Fprintf(&text, `\u%04x`, c)
			default:
				text.WriteRune(c)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"%s"}],`+
			`"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, text.String())
	}))
	t.Cleanup(up.Close)
	// suite writes the suite in a directory of the given name, its prompt
	// naming the directory, and returns the directory.
	suite := func(name, mode string) string {
		dir := filepath.Join(realTempDir(t), name)
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": modelAgentScript(true),
			"s.yaml":          strings.Replace(modelScenario("g", up.URL, "my cwd is "+dir), "meter", mode, 1),
		})
		return dir
	}
	rec := suite("t9 é dir", "record")
	if res, _ := runResults(t, rec, "s.yaml"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	cassette, err := os.ReadFile(filepath.Join(rec, "cassettes", "g.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cassette), `you said: my cwd is <workspace>`) {
		t.Fatalf("the cassette does not name the directory <workspace> in the answer:\n%s", cassette)
	}
	play := suite("t9 ü copy", "replay")
	writeFiles(t, play, map[string]string{"cassettes/g.cassette.json": string(cassette)})
	res, out := runResults(t, play, "s.yaml")
	if res.code != exitOK {
		t.Fatalf("replay elsewhere: exit %d\n%s", res.code, res.stderr)
	}
	if got, want := out.Scenarios[0].Turns[0].Text, "you said: my cwd is "+play; got != want {
		t.Errorf("replayed answer %q, want %q", got, want)
	}
}
