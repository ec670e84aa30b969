package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	json "github.com/go-json-experiment/json/v1"
	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// TestGatewayProxyPasswordHidden: the password of an upstream proxy, in
// acprun's environment or in gateway.upstream, is in no output when the
// proxy is down (results, transcript, HTML report, stderr): the gateway's
// error shows it as xxxxx, as --dry-run does.
func TestGatewayProxyPasswordHidden(t *testing.T) {
	t.Parallel()
	const password = "Pr0xyPassw0rdXYZ"
	down := testkit.RefusedURL(t)
	proxy := strings.Replace(down, "http://", "http://proxyuser:"+password+"@", 1) + "/v1"
	shown := strings.Replace(down, "http://", "http://proxyuser:xxxxx@", 1) + "/v1"
	for _, tt := range []struct {
		name, gateway string
		env           []string
	}{
		{"from acprun's environment", "{mode: meter, env: ANTHROPIC_BASE_URL}", []string{"ANTHROPIC_BASE_URL=" + proxy}},
		{"from gateway.upstream", "{mode: record, env: ANTHROPIC_BASE_URL, upstream: \"" + proxy + "\"}", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\"}}]\n",
				"s.yaml": "name: up\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\ngateway: " + tt.gateway +
					"\npermissions: {default: deny}\nturns:\n  - prompt: capital of France?\n",
			})
			res := acprunEnv(t, dir, tt.env, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr", "--html", "run.html")
			if res.code != exitFailed || !strings.Contains(res.stderr, "acprun gateway: upstream "+shown+": ") {
				t.Fatalf("exit %d, want 1 with the gateway's error naming %s\n%s", res.code, shown, res.stderr)
			}
			if strings.Contains(res.stdout+res.stderr, password) {
				t.Errorf("the output shows the password:\n%s%s", res.stdout, res.stderr)
			}
			var files int
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || strings.HasSuffix(path, ".yaml") {
					return err
				}
				files++
				if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), password) {
					t.Errorf("%s holds the password", path)
				}
				return nil
			})
			if files < 3 {
				t.Errorf("%d files written, want the results, the transcript and the report", files)
			}
		})
	}
}

// TestGatewayMaxCostUnpriced: a request to a model with no price does not
// turn budget.maxCost off: the priced requests count against it, and the
// scenario is stopped there; the turn's cost is theirs, and a warning
// names the model with no price.
func TestGatewayMaxCostUnpriced(t *testing.T) {
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	step := func(model string) string {
		return "{model: {api: anthropic, model: " + model + ", prompt: \"{{prompt}}\"}}"
	}
	writeFiles(t, dir, map[string]string{
		// 10 input and 5 output tokens a request: 0.000105 a request.
		"acprun.yaml":     "prices:\n  claude-test: {input: 3, output: 15}\n",
		"agent.mock.yaml": "turns:\n  - steps: [" + strings.Join([]string{step("claude-small"), step("claude-test"), step("claude-test"), step("claude-test")}, ", ") + "]\n",
		"s.yaml": "name: cost\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\ngateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: \"" + up.URL + "\"}\n" +
			"budget: {maxCost: 0.0001}\npermissions: {default: deny}\nturns:\n  - prompt: go\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	r := out.Scenarios[0]
	if res.code != exitFailed || r.Turns[0].CancelCause != report.CauseBudget {
		t.Fatalf("exit %d, cancelCause %q; want 1, cancelled for the budget\n%s", res.code, r.Turns[0].CancelCause, res.stderr)
	}
	if n := len(up.Requests()); n != 2 {
		t.Errorf("the upstream got %d requests, want 2 (the unpriced one, then one priced past the budget)", n)
	}
	if got := strings.Join(r.Turns[0].Failures, "\n"); !strings.Contains(got, "s.yaml:4:19: budget.maxCost: the agent's model requests cost 0.000105 USD, the scenario's budget is 0.0001 USD") {
		t.Errorf("failures %q, want the budget named", r.Turns[0].Failures)
	}
	if u := r.Turns[0].Usage; u == nil || u.Cost != 0.000105 || u.Currency != "USD" {
		t.Errorf("turn usage %+v, want the priced request's cost, 0.000105 USD", u)
	}
	want := `gateway: no price for model "claude-small" in the config's prices`
	if got := strings.Join(r.Warnings, "\n"); strings.Count(got, want) != 1 || !strings.Contains(res.stderr, want) {
		t.Errorf("warnings %q, want one naming claude-small, shown\n%s", r.Warnings, res.stderr)
	}
}

// TestGatewayMaxCostPassedByLastRequest: what the last model request the
// gateway admitted cost counts too. A turn whose requests pass its
// maxCost fails naming it once it has answered, and so does the turn
// whose requests pass the scenario's; the turns after it are skipped, the
// next prompt never sent.
func TestGatewayMaxCostPassedByLastRequest(t *testing.T) {
	t.Parallel()
	step := `{model: {api: anthropic, model: claude-sonnet-4-5, prompt: "{{prompt}}"}}`
	for _, tc := range []struct {
		name, agent, budget, turns string
		failing                    int // the turn that fails, from 1
		want                       string
	}{{
		name:    "turn",
		agent:   "turns:\n  - steps: [" + step + ", " + step + "]\n  - steps: [" + step + "]\n",
		turns:   "turns:\n  - prompt: go\n    budget: {maxCost: 0.0002}\n  - prompt: again\n",
		failing: 1,
		want:    "s.yaml:6:23: budget.maxCost: the agent's model requests cost 0.000234 USD, over the turn's budget of 0.0002 USD; acprun stopped the scenario there",
	}, {
		name:    "scenario",
		agent:   "turns:\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n  - steps: [" + step + "]\n",
		budget:  "budget: {maxCost: 0.0002}\n",
		turns:   "turns: [{prompt: one}, {prompt: two}, {prompt: three}]\n",
		failing: 2,
		want:    "s.yaml:4:19: budget.maxCost: the agent's model requests cost 0.000234 USD, over the scenario's budget of 0.0002 USD; acprun stopped the scenario there",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// 10 input, 5 output, 2 cache-read and 3 cache-write tokens a request: 0.00011685.
			res, r, up := runMetered(t, "claude-sonnet-4-5: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}", tc.agent,
				tc.budget+tc.turns+"permissions: {default: deny}\n")
			if res.code != exitFailed || len(r.Turns) < tc.failing+1 {
				t.Fatalf("exit %d, %d turns; want 1, the budget failed\n%s", res.code, len(r.Turns), res.stderr)
			}
			if n := len(up.Requests()); n != 2 {
				t.Errorf("the upstream got %d requests, want 2 (no prompt after the budget was passed)", n)
			}
			failing, next := r.Turns[tc.failing-1], r.Turns[tc.failing]
			if diff := gocmp.Diff([]string{tc.want}, failing.Failures); diff != "" {
				t.Errorf("turn %d failures (-want +got):\n%s", tc.failing, diff)
			}
			if failing.CancelCause != "" || next.StopReason != report.OutcomeSkipped {
				t.Errorf("turn %d cancelCause %q, turn %d %s; want answered, then skipped", tc.failing, failing.CancelCause, next.Index, next.StopReason)
			}
		})
	}
}

// recordedCassette records gatewayFiles' scenario (Anthropic's API) in a
// new directory and returns the directory, the files, the cassette's path
// and what it holds.
func recordedCassette(t *testing.T) (dir string, files map[string]string, cassette string, before []byte) {
	t.Helper()
	up := testkit.NewAnthropicServer(t)
	dir = t.TempDir()
	files = gatewayFiles(gatewayAPIs[0], up.URL, "second")
	writeFiles(t, dir, files)
	if res := acprun(t, dir, "run", "s.yaml", "--gateway", "record"); res.code != exitOK {
		t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
	}
	cassette = filepath.Join(dir, "cassettes", "g.cassette.json")
	before, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	return dir, files, cassette, before
}

// TestGatewayInterruptedRecordingKeepsCassette: Ctrl-C during a
// re-recording leaves the cassette as it was, which still replays; what
// the interrupted attempt recorded is beside it, and a warning says so.
func TestGatewayInterruptedRecordingKeepsCassette(t *testing.T) {
	t.Parallel()
	dir, files, cassette, before := recordedCassette(t)

	// Recorded again, interrupted in turn 2, after turn 1's model request.
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"{{prompt}}\"}}]\n" +
		"  - steps: [{text: working}, {waitForCancel: true}]\n"})
	run := runFollowingTranscript(t, t.Context(), dir, "g", "--gateway", "record")
	run.waitFor("the second turn started", `"text":"working"`)
	run.interrupt()
	out := run.waitInterrupted()
	if after, err := os.ReadFile(cassette); err != nil || string(after) != string(before) {
		t.Errorf("the cassette was replaced (%v):\n%s", err, after)
	}
	partial := cassette + ".partial"
	var doc struct{ Exchanges []json.RawMessage }
	readJSON(t, partial, &doc)
	if len(doc.Exchanges) != 1 {
		t.Errorf("%s holds %d exchanges, want turn 1's", partial, len(doc.Exchanges))
	}
	r := out.Scenarios[0]
	want := "gateway: acprun was interrupted during turn 2, so the recording does not replace the cassette " + cassette + ": what it kept is in " + partial
	if r.Gateway == nil || r.Gateway.Cassette != partial || !strings.Contains(strings.Join(r.Warnings, "\n"), want) {
		t.Errorf("gateway %+v, warnings %q; want the partial recording named", r.Gateway, r.Warnings)
	}

	writeFiles(t, dir, files)
	if res := acprun(t, dir, "run", "s.yaml", "--gateway", "replay"); res.code != exitOK {
		t.Errorf("replay of the kept cassette: exit %d\n%s", res.code, res.stderr)
	}
}

// TestGatewayRefusedRecordingKeepsCassette: a re-recording the provider
// refuses (529, overloaded: the attempt is invalid) leaves the cassette as
// it was, which still replays; what it recorded is beside it.
func TestGatewayRefusedRecordingKeepsCassette(t *testing.T) {
	t.Parallel()
	dir, files, cassette, before := recordedCassette(t)
	overloaded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer overloaded.Close()
	writeFiles(t, dir, gatewayFiles(gatewayAPIs[0], overloaded.URL, "second"))
	res := acprun(t, dir, "run", "s.yaml", "--gateway", "record", "-o", "refused.json")
	if res.code != exitInvalid {
		t.Fatalf("record against an overloaded provider: exit %d, want %d (invalid)\n%s", res.code, exitInvalid, res.stderr)
	}
	if after, err := os.ReadFile(cassette); err != nil || string(after) != string(before) {
		t.Errorf("the cassette was replaced (%v):\n%s", err, after)
	}
	partial := cassette + ".partial"
	if _, err := os.Stat(partial); err != nil {
		t.Errorf("no partial recording: %v", err)
	}
	want := "gateway: the provider refused the work (the attempt is invalid), so the recording does not replace the cassette " + cassette + ": what it kept is in " + partial
	if r := readResults(t, filepath.Join(dir, "refused.json")).Scenarios[0]; !slices.Contains(r.Warnings, want) {
		t.Errorf("warnings %q; want %q", r.Warnings, want)
	}
	writeFiles(t, dir, files)
	if res := acprun(t, dir, "run", "s.yaml", "--gateway", "replay"); res.code != exitOK {
		t.Errorf("replay of the kept cassette: exit %d\n%s", res.code, res.stderr)
	}
}

// TestGatewayKeyAndUpstreamErrors: gateway.key naming the base-URL
// variable is an error at key (in replay its dummy key would overwrite
// the base URL), and a bad gateway.upstream is one error, at its value,
// not also a false "set gateway.upstream".
func TestGatewayKeyAndUpstreamErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":     "",
		"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"k.yaml": "name: k\nagent:\n  command: [acprun, mock-agent, agent.mock.yaml]\n" +
			"gateway: {mode: replay, env: ANTHROPIC_BASE_URL, key: ANTHROPIC_BASE_URL}\npermissions: {default: deny}\nturns:\n  - prompt: a\n",
		"u.yaml": "name: u\nagent:\n  command: [my-agent]\n" +
			"gateway: {mode: record, env: X, upstream: \"http://h/v1?key=abc\"}\npermissions: {default: deny}\nturns:\n  - prompt: a\n",
	})
	res := acprun(t, dir, "validate", "k.yaml", "u.yaml")
	if res.code != exitUsage || strings.Contains(res.stderr, "set gateway.upstream") || strings.Count(res.stderr, "u.yaml:") != 1 {
		t.Errorf("exit %d, want 2 with one error in u.yaml, not saying to set gateway.upstream:\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"k.yaml:4:55: gateway.key names ANTHROPIC_BASE_URL, the variable the agent reads its model base URL from: " +
			"name its API-key variable (such as MY_API_KEY), or leave key out\n",
		"u.yaml:4:43: gateway upstream is not an http(s) base URL: give the provider's base URL, such as https://api.openai.com/v1\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// TestGatewayRequestNamingNoModel: a model request that names no model,
// nor does its answer, is told as such, not as a model "" with no price.
func TestGatewayRequestNamingNoModel(t *testing.T) {
	t.Parallel()
	up := testkit.NewAnthropicServer(t)
	dir := t.TempDir()
	// The agent asks the model itself, over bash's /dev/tcp, with no
	// "model" in the request.
	agent := strings.Join([]string{
		"read -r line; printf '%s\\n' " + shAnswer(1, `{"protocolVersion":1,"agentCapabilities":{}}`),
		"read -r line; printf '%s\\n' " + shAnswer(2, `{"sessionId":"s1"}`),
		"read -r line",
		`u=${ANTHROPIC_BASE_URL#http://}; hp=${u%%/*}; route=/${u#*/}`,
		`body='{"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}'`,
		`exec 3<>"/dev/tcp/${hp%:*}/${hp#*:}"`,
		`printf 'POST %s/v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "$route" "$hp" ${#body} "$body" >&3`,
		"cat <&3 >/dev/null",
		"printf '%s\\n' " + shChunk("asked") + " " + shAnswer(3, `{"stopReason":"end_turn"}`),
		"read -r line",
	}, "\n") + "\n"
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "prices:\n  claude-test: {input: 3, output: 15}\n",
		"agent.sh":    agent,
		"s.yaml": "name: nomodel\nagent: {command: [bash, agent.sh]}\ngateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: \"" + up.URL + "\"}\n" +
			"killGrace: 1s\npermissions: {default: deny}\nturns:\n  - prompt: go\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	r := out.Scenarios[0]
	if res.code != exitOK || len(up.Requests()) != 1 {
		t.Fatalf("exit %d, %d upstream requests; want 0 and 1\n%s", res.code, len(up.Requests()), res.stderr)
	}
	want := []string{"gateway: some model requests named no model, neither in the request nor in its answer: their cost is unknown, " +
		"so the turns' cost (and what budget.maxCost counted) is a lower bound"}
	if diff := gocmp.Diff(want, r.Warnings); diff != "" || !strings.Contains(res.stderr, want[0]) {
		t.Errorf("warnings (-want +got):\n%s\nstderr:\n%s", diff, res.stderr)
	}
}

// TestGatewayInterruptedStreamKeptTruncated: Ctrl-C while the model's
// answer streams through the gateway keeps it in the partial recording
// truncated, with what had been relayed, whether the gateway saw the agent
// let go of it first (acprun cancelled the turn, the agent aborted its
// request) or its own end (the attempt closed): never abandoned, which
// replay would hold open. (An interrupt that lands before the answer's
// headers reach the gateway keeps the request abandoned, with status 0.)
func TestGatewayInterruptedStreamKeptTruncated(t *testing.T) {
	underRace(t)
	t.Parallel()
	const start = "event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
		"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"half"}}` + "\n\n"
	streaming := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, start)
		w.(http.Flusher).Flush()
		once.Do(func() { close(streaming) })
		<-r.Context().Done() // the rest never comes
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{model: {api: anthropic, model: claude-test, prompt: \"Q: {{prompt}}\"}}]\n",
		"s.yaml": fmt.Sprintf(`name: g
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
gateway: {mode: record, env: ANTHROPIC_BASE_URL, upstream: %q}
permissions: {default: deny}
turns:
  - prompt: one
`, srv.URL),
	})
	run := runFollowingTranscript(t, t.Context(), dir, "g")
	run.waitFor("the prompt was sent", `"session/prompt"`)
	<-streaming
	run.interrupt()
	out := run.waitInterrupted()
	partial := filepath.Join(dir, "cassettes", "g.cassette.json.partial")
	var doc struct {
		Exchanges []struct {
			Response struct {
				Status int `json:"status"`
				Events []struct {
					Data string `json:"data"`
				} `json:"events"`
				Truncated bool `json:"truncated"`
				Abandoned bool `json:"abandoned"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	readJSON(t, partial, &doc)
	if len(doc.Exchanges) != 1 {
		t.Fatalf("%s holds %d exchanges, want the one interrupted (status %s)\n%s", partial, len(doc.Exchanges), out.Scenarios[0].Status, run.stderr.String())
	}
	r := doc.Exchanges[0].Response
	var kept strings.Builder
	for _, e := range r.Events {
		kept.WriteString(e.Data)
	}
	relayed := r.Status == http.StatusOK && r.Truncated && !r.Abandoned && strings.HasPrefix(start, kept.String())
	notStarted := r.Status == 0 && r.Abandoned && !r.Truncated && len(r.Events) == 0
	if !relayed && !notStarted {
		t.Errorf("the answer is kept with status %d, truncated %v, abandoned %v, events %q; want it truncated with what was relayed",
			r.Status, r.Truncated, r.Abandoned, kept.String())
	}
}

// TestGatewayUnreachableRecordingKeepsCassette: the explorer's case. A
// re-recording while the provider cannot be reached (the gateway answers
// the agent 502) leaves the good cassette as it was, with a warning; what
// it recorded, the 502s included, is beside it, and a replay of that
// answers the agent the same, turn for turn.
func TestGatewayUnreachableRecordingKeepsCassette(t *testing.T) {
	t.Parallel()
	dir, files, cassette, before := recordedCassette(t)
	writeFiles(t, dir, gatewayFiles(gatewayAPIs[0], testkit.RefusedURL(t), "second"))
	res := acprun(t, dir, "run", "s.yaml", "--gateway", "record", "-o", "down.json")
	if res.code == exitOK {
		t.Fatalf("record with the provider unreachable: exit 0\n%s", res.stderr)
	}
	if after, err := os.ReadFile(cassette); err != nil || string(after) != string(before) {
		t.Errorf("the cassette was replaced (%v):\n%s", err, after)
	}
	partial := cassette + ".partial"
	var doc struct {
		Exchanges []struct {
			Response struct{ Status int } `json:"response"`
		} `json:"exchanges"`
	}
	if data, err := os.ReadFile(partial); err != nil || json.Unmarshal(data, &doc) != nil || len(doc.Exchanges) != 2 ||
		doc.Exchanges[0].Response.Status != http.StatusBadGateway || doc.Exchanges[1].Response.Status != http.StatusBadGateway {
		t.Errorf("the partial recording (%v) holds %+v; want both requests, answered 502", err, doc.Exchanges)
	}
	down := readResults(t, filepath.Join(dir, "down.json")).Scenarios[0]
	const want = "gateway: the provider could not be reached (upstream "
	if !strings.Contains(strings.Join(down.Warnings, "\n"), want) || !strings.Contains(strings.Join(down.Warnings, "\n"), "what it kept is in "+partial) {
		t.Errorf("warnings %q; want %q… naming %s", down.Warnings, want, partial)
	}
	// The partial recording, replayed, answers as the provider's outage did.
	data, err := os.ReadFile(partial)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"cassettes/g.cassette.json": string(data)})
	writeFiles(t, dir, files)
	_, replay := runResults(t, dir, "s.yaml", "--gateway", "replay")
	var got, wantStops []string
	for i, tr := range replay.Scenarios[0].Turns {
		got = append(got, tr.StopReason+": "+tr.Error)
		wantStops = append(wantStops, down.Turns[i].StopReason+": "+down.Turns[i].Error)
	}
	if !slices.Equal(got, wantStops) {
		t.Errorf("replay of the partial recording: turns %q; want the recording's %q", got, wantStops)
	}
}

// TestGatewayBudgetWithoutUsage: the explorer's case. A token budget over
// a provider whose answers carry no usage cannot hold: the run says so in
// a warning, naming how many requests it could not count; with usage in
// the answers there is no warning.
func TestGatewayBudgetWithoutUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, usage string
		warned      bool
	}{{"no usage", `{}`, true}, {"usage", `{"input_tokens":3,"output_tokens":1}`, false}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				for _, ev := range []string{
					`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":` + tt.usage + `}}`,
					`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
					`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`,
					`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
					`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{}}`,
					`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
				} {
					_, _ = io.WriteString(w, ev+"\n\n")
				}
			}))
			defer up.Close()
			dir := t.TempDir()
			step := `{model: {api: anthropic, model: claude-test, prompt: "{{prompt}}"}}`
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "turns:\n  - steps: [" + step + ", " + step + "]\n    usage: {inputTokens: 5, outputTokens: 2}\n",
				"s.yaml": "name: g\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
					"gateway: {mode: meter, env: ANTHROPIC_BASE_URL, upstream: " + strconv.Quote(up.URL) + "}\nbudget: {maxTotalTokens: 1}\nturns: [{prompt: hi}]\n",
			})
			_, out := runResults(t, dir, "s.yaml")
			sc := out.Scenarios[0]
			const want = "gateway: the provider answered 2 of 2 model requests without token usage, so budget.maxTotalTokens and budget.maxCost could not count them"
			if got := slices.Contains(sc.Warnings, want); got != tt.warned {
				t.Errorf("warnings %q; want %q: %v", sc.Warnings, want, tt.warned)
			}
			// The turn's usage: the model answers' when they report it, else
			// what the agent reported, never an empty one.
			wantUsage := &report.Usage{TotalTokens: 4, InputTokens: 3, OutputTokens: 1} // the first request: the budget refuses the second
			if tt.warned {
				wantUsage = &report.Usage{TotalTokens: 7, InputTokens: 5, OutputTokens: 2}
			}
			if diff := gocmp.Diff(wantUsage, sc.Turns[0].Usage); diff != "" {
				t.Errorf("turn usage (-want +got):\n%s", diff)
			}
		})
	}
}
