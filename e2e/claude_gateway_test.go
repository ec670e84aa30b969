package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// The real Claude Code through acprun's model gateway (issue 28, "Tested
// for real"): the two-turn scenario of claude_test.go with a gateway on
// the named agent claude, whose registry entry points ANTHROPIC_BASE_URL
// at the gateway and takes the upstream from the agent's own value (the
// fake's URL in agent.env). Through it go Claude Code's three loop
// requests and its one request for a session title, made beside turn 1's
// (claudeEnv): claudeRequests in all.

// claudeRequests is the model requests of the two-turn scenario: three of
// Claude Code's loop and one for the session title.
const claudeRequests = 4

// claudeCassette is where a run of the two-turn scenario under dir keeps
// its cassette: cassettes/ beside s.yaml, named like its transcript.
func claudeCassette(dir string) string {
	return filepath.Join(dir, "cassettes", "claude@claude.cassette.json")
}

// claudeTurnSummary is what a replay must give as the recording did: a
// turn's stop reason, text, tool calls, permission decisions and usage.
type claudeTurnSummary struct {
	StopReason  string
	Text        string
	ToolCalls   []report.ToolCall
	Permissions []report.Permission
	Usage       *report.Usage
}

// claudeTurns summarises sc's turns, the paths in their tool calls'
// locations and their permissions made relative to its workspace (each
// attempt has its own copy).
func claudeTurns(t *testing.T, sc report.Result) []claudeTurnSummary {
	t.Helper()
	if sc.Workspace == nil || sc.Workspace.Path == "" {
		t.Fatalf("no workspace in the results: %+v", sc.Workspace)
	}
	relative := func(paths []string) []string {
		paths = slices.Clone(paths)
		for i, path := range paths {
			if rel, err := filepath.Rel(sc.Workspace.Path, path); err == nil && filepath.IsLocal(rel) {
				paths[i] = "<workspace>/" + filepath.ToSlash(rel)
			}
		}
		return paths
	}
	var out []claudeTurnSummary
	for _, turn := range sc.Turns {
		calls := slices.Clone(turn.ToolCalls)
		for i := range calls {
			calls[i].Locations = relative(calls[i].Locations)
		}
		perms := slices.Clone(turn.Permissions)
		for i := range perms {
			perms[i].Paths = relative(perms[i].Paths)
		}
		out = append(out, claudeTurnSummary{turn.StopReason, turn.Text, calls, perms, turn.Usage})
	}
	return out
}

// recordClaude records the two-turn scenario under dir through the
// gateway against model, with extra added to s.yaml and env to acprun's
// environment, checks the run and its cassette, and returns the run.
func recordClaude(t *testing.T, dir, bin string, model *testkit.AnthropicServer, extra string, env []string) claudeRun {
	t.Helper()
	writeClaudeScenario(t, dir, bin, claudeEnv(dir, model.URL), "gateway: {mode: record}\n"+extra)
	rec := runClaudeScenario(t, dir, model, env)
	rec.check(t, dir)
	cassette := claudeCassette(dir)
	if g := rec.sc.Gateway; g == nil || g.Mode != "record" || g.Requests != claudeRequests || g.Cassette != cassette || g.Unplayed != 0 {
		t.Fatalf("record: gateway %+v; want %d requests recorded in %s", g, claudeRequests, cassette)
	}
	want := slices.Repeat([]string{"POST /v1/messages?beta=true"}, 3)
	if got, titles := modelPosts(model); !slices.Equal(got, want) || titles != 1 {
		t.Errorf("record: the fake was asked %q and %d session titles; want %q and one", got, titles, want)
	}
	for _, req := range model.Requests() {
		if req.Method == "HEAD" {
			continue // a connectivity check, without the key
		}
		if got := req.Header.Get("X-Api-Key"); got != "dummy" {
			t.Errorf("record: %s %s reached the fake with key %q; want the agent's own (dummy)", req.Method, req.Path, got)
		}
	}
	var doc struct {
		Version   int `json:"version"`
		Exchanges []struct {
			Request struct {
				Method, Path, Query, API, Model string
			} `json:"request"`
			Response struct {
				Status int `json:"status"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	readJSON(t, cassette, &doc)
	data, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), dir) || rec.sc.Workspace != nil && strings.Contains(string(data), rec.sc.Workspace.Path) {
		t.Errorf("cassette holds the recording's directory %s or its workspace", dir)
	}
	if doc.Version != 1 || len(doc.Exchanges) != claudeRequests {
		t.Fatalf("cassette: version %d, %d exchanges; want 1 and %d", doc.Version, len(doc.Exchanges), claudeRequests)
	}
	for i, ex := range doc.Exchanges {
		if q := ex.Request; q.Method != "POST" || q.Path != "/v1/messages" || q.Query != "beta=true" || q.API != "anthropic-messages" || q.Model == "" || ex.Response.Status != 200 {
			t.Errorf("cassette exchange %d: %+v, status %d; want POST /v1/messages?beta=true (anthropic-messages, a model), 200", i+1, q, ex.Response.Status)
		}
	}
	return rec
}

// claudeReplayDir makes a fresh directory for a replay of the recording under
// dir: its own workspace and Claude Code home, the same scenario (with
// prompt2 as turn 2's prompt when not ""), and the recording's cassette.
// agent.env has no API key (so the replay works only with the gateway's
// dummy key) and the fake's URL, which no longer answers.
func claudeReplayDir(t *testing.T, dir, bin, url, extra, prompt2 string) string {
	t.Helper()
	replay := realTempDir(t)
	env := claudeEnv(replay, url)
	delete(env, "ANTHROPIC_API_KEY")
	writeClaudeScenario(t, replay, bin, env, extra)
	if prompt2 != "" {
		s := filepath.Join(replay, "s.yaml")
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, replay, map[string]string{"s.yaml": strings.Replace(string(data), "What does it say?", prompt2, 1)})
	}
	data, err := os.ReadFile(claudeCassette(dir))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, replay, map[string]string{filepath.Join("cassettes", filepath.Base(claudeCassette(dir))): string(data)})
	return replay
}

// claudeReplayEnv is acprun's environment in a replay: no API key at all (the
// gateway gives the agent its dummy).
var claudeReplayEnv = []string{"ANTHROPIC_API_KEY="}

// TestClaudeGatewayRecordReplay: the two-turn scenario recorded through
// the gateway (gateway: {mode: record}) against the fake Anthropic API,
// then, with the fake stopped, replayed (--gateway replay) in a fresh
// workspace and home with no key: the replay gives the recording's stop
// reasons, texts, tool calls, permission decisions and usage, and the fake
// hears nothing of it. A replay whose turn 2 prompt changed is a
// divergence: turn 2 fails naming the request and the field, turn 1 still
// passes.
func TestClaudeGatewayRecordReplay(t *testing.T) {
	t.Parallel()
	bin := claudeAgentBin(t)
	dir := realTempDir(t)
	model := testkit.NewAnthropicServer(t, claudeScript()...)
	rec := recordClaude(t, dir, bin, model, "", nil)
	model.Close()
	asked := len(model.Requests())

	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		replay := claudeReplayDir(t, dir, bin, model.URL, "", "")
		rep := runClaudeScenario(t, replay, nil, claudeReplayEnv, "--gateway", "replay")
		rep.check(t, replay)
		if g := rep.sc.Gateway; g == nil || g.Mode != "replay" || g.Requests != claudeRequests || g.Unplayed != 0 || g.Cassette != claudeCassette(replay) {
			t.Errorf("replay: gateway %+v; want the %d requests of %s played", g, claudeRequests, claudeCassette(replay))
		}
		if diff := gocmp.Diff(claudeTurns(t, rec.sc), claudeTurns(t, rep.sc)); diff != "" {
			t.Errorf("replay: turns (-recorded +replayed):\n%s", diff)
		}
	})
	t.Run("divergence", func(t *testing.T) {
		t.Parallel()
		const changed = "What does out.txt say?"
		replay := claudeReplayDir(t, dir, bin, model.URL, "", changed)
		run := runClaudeScenario(t, replay, nil, claudeReplayEnv, "--gateway", "replay")
		res, sc := run.res, run.sc
		if res.code != exitFailed || sc.Status != report.StatusFailed || len(sc.Turns) != 2 {
			t.Fatalf("exit %d, status %s, %d turns; want a failed run of two turns (exit %d)\n%s", res.code, sc.Status, len(sc.Turns), exitFailed, res.stderr)
		}
		t1, t2 := sc.Turns[0], sc.Turns[1]
		if t1.StopReason != "end_turn" || t1.Text != claudeTurn1Text || len(t1.Failures) != 0 || t1.CancelCause != "" {
			t.Errorf("turn 1: %s %q, cancelCause %q, failures %q; want the recording's end_turn, passed", t1.StopReason, t1.Text, t1.CancelCause, t1.Failures)
		}
		// session/cancel is written before the gateway answers the request
		// with its error, but Claude Code reads its stdin and the answer
		// on their own: under load it may fail the prompt on the error
		// before it heeds the cancel. Either way the turn is cut by the
		// divergence, and fails for it alone.
		if (t2.StopReason != "cancelled" && t2.StopReason != "error") || t2.CancelCause != report.CauseDivergence {
			t.Errorf("turn 2 %s, cancelCause %q; want cancelled (or the agent's error) for the %s\n%s", t2.StopReason, t2.CancelCause, report.CauseDivergence, res.stderr)
		}
		// The sixth message of the conversation (turn 1's prompt and Claude
		// Code's message of the environment, tool use, tool result, answer,
		// prompt) is turn 2's prompt, in the fourth request: the session
		// title's, asked as turn 1's prompt is queued and played at once,
		// comes among turn 1's two, in either order, long before turn 1
		// ends (two model requests, a permission and a command later).
		want := `gateway: request 4 (POST /v1/messages): messages[5].content[0].text: recorded "What does it say?", received "` + changed + `"`
		if !slices.Equal(t2.Failures, []string{want}) || !strings.Contains(res.stderr, want) {
			t.Errorf("turn 2 failures %q; want only %q, shown\n%s", t2.Failures, want, res.stderr)
		}
		if g := sc.Gateway; g == nil || g.Requests != claudeRequests || g.Unplayed != 1 {
			t.Errorf("gateway %+v; want %d requests asked, the recorded turn 2's unplayed", g, claudeRequests)
		}
	})
	t.Cleanup(func() {
		if n := len(model.Requests()); n != asked {
			t.Errorf("the fake got %d requests during the replays; want none", n-asked)
		}
	})
}

// claudeTokens is u's token counts, nil for nil.
func claudeTokens(u *report.Usage) *report.Usage {
	if u == nil {
		return nil
	}
	return &report.Usage{TotalTokens: u.TotalTokens, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		ThoughtTokens: u.ThoughtTokens, CachedReadTokens: u.CachedReadTokens, CachedWriteTokens: u.CachedWriteTokens}
}

// claudeTokensOf is claudeTokens of each of us.
func claudeTokensOf(us []*report.Usage) []*report.Usage {
	var out []*report.Usage
	for _, u := range us {
		out = append(out, claudeTokens(u))
	}
	return out
}

// claudeUsage is the token counts the fake reports for n model requests.
func claudeUsage(n int64) report.Usage {
	return report.Usage{
		TotalTokens:       n * (testkit.AnthropicInputTokens + testkit.AnthropicOutputTokens + testkit.AnthropicCacheReadTokens + testkit.AnthropicCacheWriteTokens),
		InputTokens:       n * testkit.AnthropicInputTokens,
		OutputTokens:      n * testkit.AnthropicOutputTokens,
		CachedReadTokens:  n * testkit.AnthropicCacheReadTokens,
		CachedWriteTokens: n * testkit.AnthropicCacheWriteTokens,
	}
}

// TestClaudeGatewayMeter: with gateway: meter, the two-turn scenario
// passes with each turn's usage read by the gateway from the fake's
// streams, the same as Claude Code reports over ACP, and priced by the
// config's price table per turn (where Claude Code's own cost is the
// session's so far); the session title's request is metered too, with no
// usage; nothing is kept.
func TestClaudeGatewayMeter(t *testing.T) {
	t.Parallel()
	bin := claudeAgentBin(t)
	dir := realTempDir(t)
	model := testkit.NewAnthropicServer(t, claudeScript()...)
	writeClaudeScenario(t, dir, bin, claudeEnv(dir, model.URL), "gateway: meter\n")
	config := readFiles(t, dir, "acprun.yaml")["acprun.yaml"]
	writeFiles(t, dir, map[string]string{"acprun.yaml": string(config) +
		"prices:\n  " + claudeModel + ": {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}\ncurrency: EUR\n"})
	r := runClaudeScenario(t, dir, model, nil)
	r.check(t, dir)
	if g := r.sc.Gateway; g == nil || g.Mode != "meter" || g.Requests != claudeRequests || g.Cassette != "" || !slices.Equal(g.Models, []string{claudeModel}) {
		t.Errorf("gateway %+v; want %d requests to %s metered, no cassette", g, claudeRequests, claudeModel)
	}
	if _, err := os.Stat(filepath.Join(dir, "cassettes")); !os.IsNotExist(err) {
		t.Errorf("meter made cassettes/ (%v)", err)
	}
	reported := readTranscript(t, filepath.Join(dir, r.sc.Transcript)).promptUsage(t)
	if len(reported) != 2 {
		t.Fatalf("%d answers to session/prompt in the transcript; want 2", len(reported))
	}
	const perRequest = (testkit.AnthropicInputTokens*3 + testkit.AnthropicOutputTokens*15 +
		testkit.AnthropicCacheReadTokens*0.3 + testkit.AnthropicCacheWriteTokens*3.75) / 1e6
	for i, n := range []int64{2, 1} {
		u, want := r.sc.Turns[i].Usage, claudeUsage(n)
		if got := claudeTokens(u); got == nil || *got != want {
			t.Errorf("turn %d usage %+v; want the fake's %+v", i+1, got, want)
		}
		if a := claudeTokens(reported[i]); a == nil || *a != want {
			t.Errorf("turn %d: Claude Code reported usage %+v over ACP; want the gateway's %+v", i+1, a, want)
		}
		if cost := float64(n) * perRequest; u == nil || math.Abs(u.Cost-cost) > 1e-12 || u.Currency != "EUR" {
			t.Errorf("turn %d usage %+v; want a cost of %g EUR", i+1, u, cost)
		}
	}
}

// TestClaudeGatewayBudget: with gateway: meter and budget.maxRequests 1,
// Claude Code's first model request goes through and its usage is turn
// 1's; its second, the tool result's follow-up in turn 1, is refused at
// the gateway and never reaches the fake; turn 1 is cancelled for the
// budget and fails naming it, turn 2 does not run. Turn 1's prompt is too
// short for the adapter to ask for a session title with it (under 10
// characters), and the turn ends with no text of the model's to title the
// session from, so no title request competes with the loop's for the one
// the budget allows.
func TestClaudeGatewayBudget(t *testing.T) {
	t.Parallel()
	bin := claudeAgentBin(t)
	dir := realTempDir(t)
	model := testkit.NewAnthropicServer(t, claudeScript()...)
	writeClaudeScenario(t, dir, bin, claudeEnv(dir, model.URL), "gateway: meter\nbudget: {maxRequests: 1}\n")
	data, err := os.ReadFile(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(string(data), "Write hello to out.txt.", "Write it.", 1)})
	r := runClaudeScenario(t, dir, model, nil)
	sc := r.sc
	if r.res.code != exitFailed || sc.Status != report.StatusFailed || len(sc.Turns) != 2 {
		t.Fatalf("exit %d, status %s, %d turns; want a failed run of two turns (exit %d)\n%s", r.res.code, sc.Status, len(sc.Turns), exitFailed, r.res.stderr)
	}
	if got, titles := modelPosts(model); !slices.Equal(got, []string{"POST /v1/messages?beta=true"}) || titles != 0 {
		t.Errorf("the fake was asked %q and %d session titles; want one POST /v1/messages?beta=true and none", got, titles)
	}
	t1, t2 := sc.Turns[0], sc.Turns[1]
	// As for a divergence (TestClaudeGatewayRecordReplay), Claude Code
	// may fail the prompt on the gateway's refusal before it heeds the
	// cancel written before it: either way the turn is cut by the budget.
	if (t1.StopReason != "cancelled" && t1.StopReason != "error") || t1.CancelCause != report.CauseBudget {
		t.Errorf("turn 1 %s, cancelCause %q; want cancelled (or the agent's error) for the budget\n%s", t1.StopReason, t1.CancelCause, r.res.stderr)
	}
	if got := strings.Join(t1.Failures, "\n"); !strings.Contains(got, "s.yaml:9:") || !strings.Contains(got, "budget.maxRequests") {
		t.Errorf("turn 1 failures %q; want budget.maxRequests named at s.yaml:9", t1.Failures)
	}
	if got, want := claudeTokens(t1.Usage), claudeUsage(1); got == nil || *got != want {
		t.Errorf("turn 1 usage %+v; want the first request's %+v", t1.Usage, want)
	}
	// The adapter answers a cancelled prompt with the session's usage so
	// far, the one request's that went through (or, cancelled on some of
	// its paths or failed, with none): never more than the gateway's.
	if reported := readTranscript(t, filepath.Join(dir, sc.Transcript)).promptUsage(t); len(reported) != 1 ||
		reported[0] != nil && *claudeTokens(reported[0]) != claudeUsage(1) {
		t.Errorf("Claude Code reported usage %v over ACP; want one answer, with the first request's %+v or none", claudeTokensOf(reported), claudeUsage(1))
	}
	if t2.StopReason != report.OutcomeSkipped {
		t.Errorf("turn 2 %s; want %s", t2.StopReason, report.OutcomeSkipped)
	}
	if g := sc.Gateway; g == nil || g.Mode != "meter" || g.Requests != 1 {
		t.Errorf("gateway %+v; want 1 request metered", g)
	}
}

// promptUsage is the usage the agent reported in its answers to
// session/prompt, one per prompt answered (nil where an answer had none,
// or was an error).
func (tr transcript) promptUsage(t *testing.T) []*report.Usage {
	t.Helper()
	var out []*report.Usage
	for _, req := range tr.sent("session/prompt") {
		for _, l := range tr.lines {
			if l.Dir != "a2c" || l.Method != "" || l.ID != req.ID {
				continue
			}
			var res struct {
				Usage *report.Usage `json:"usage"`
			}
			if len(l.Result) == 0 { // an error answer
				out = append(out, nil)
				continue
			}
			if err := json.Unmarshal(l.Result, &res); err != nil {
				t.Fatalf("answer to session/prompt %s: %v", req.ID, err)
			}
			out = append(out, res.Usage)
		}
	}
	return out
}

// TestClaudeGatewaySandbox: with sandbox: {network: off}, the gateway's
// port is the one place Claude Code can connect to, and the record and
// replay of the two-turn scenario work through it, under bubblewrap
// (a network namespace of its own, the gateway relayed into it: no port
// recorded) and under Landlock alone (the gateway's port allowed); a
// Claude Code pointed past the gateway (the gateway on another variable)
// cannot reach the fake at all.
func TestClaudeGatewaySandbox(t *testing.T) {
	t.Parallel()
	bin := claudeAgentBin(t)
	for _, bwrap := range []bool{true, false} {
		t.Run("bwrap="+strconv.FormatBool(bwrap), func(t *testing.T) {
			t.Parallel()
			const sandboxed = "sandbox: {network: off}\n"
			// sandboxEnv is acprun's environment for a run under dir;
			// Claude Code's state files must exist to be writable.
			sandboxEnv := func(dir string) []string {
				writeFiles(t, dir, map[string]string{"home/.claude/settings.json": "{}\n", "home/.claude.json": "{}\n"})
				return needSandbox(t, bwrap, filepath.Join(dir, "home"))
			}
			backend := map[bool]string{true: "bubblewrap+landlock", false: "landlock"}[bwrap]
			checkSandbox := func(what string, sc report.Result, model *testkit.AnthropicServer) {
				t.Helper()
				modelPort := strings.TrimPrefix(model.URL, "http://127.0.0.1:")
				ports := map[bool]int{true: 0, false: 1}[bwrap]
				if sb := sc.Sandbox; sb == nil || sb.Backend != backend || sb.Network != "off" || len(sb.Ports) != ports || ports == 1 && strconv.Itoa(sb.Ports[0]) == modelPort {
					t.Errorf("%s: sandbox %+v; want %s, network off, %d port (the gateway's)", what, sb, backend, ports)
				}
			}

			dir := realTempDir(t)
			model := testkit.NewAnthropicServer(t, claudeScript()...)
			env := sandboxEnv(dir)
			rec := recordClaude(t, dir, bin, model, sandboxed, env)
			checkSandbox("record", rec.sc, model)
			model.Close()
			asked := len(model.Requests())

			replay := claudeReplayDir(t, dir, bin, model.URL, sandboxed, "")
			rep := runClaudeScenario(t, replay, nil, append(sandboxEnv(replay), claudeReplayEnv...), "--gateway", "replay")
			rep.check(t, replay)
			checkSandbox("replay", rep.sc, model)
			if diff := gocmp.Diff(claudeTurns(t, rec.sc), claudeTurns(t, rep.sc)); diff != "" {
				t.Errorf("replay: turns (-recorded +replayed):\n%s", diff)
			}
			if n := len(model.Requests()); n != asked {
				t.Errorf("the fake got %d requests during the replay; want none", n-asked)
			}

			// Pointed past the gateway: the same sandbox with the same
			// gateway port open, and ANTHROPIC_BASE_URL the fake's own.
			direct := realTempDir(t)
			model = testkit.NewAnthropicServer(t, claudeScript()...)
			cenv := claudeEnv(direct, model.URL)
			cenv["CLAUDE_CODE_MAX_RETRIES"] = "0" // one refused connection ends the turn
			writeClaudeScenario(t, direct, bin, cenv, sandboxed+"gateway: {mode: meter, env: UNUSED_BASE_URL, upstream: "+strconv.Quote(model.URL)+"}\n")
			r := runClaudeScenario(t, direct, model, sandboxEnv(direct))
			checkSandbox("direct", r.sc, model)
			// Claude Code cannot connect: in its own network namespace the
			// fake's port refuses it, under Landlock alone the connect is
			// denied.
			cannot := map[bool]string{true: "API Error: Connection refused", false: "API Error: Unable to connect to API (EACCES)"}[bwrap]
			if t1 := r.sc.Turns[0]; r.res.code != exitFailed || t1.StopReason != report.OutcomeError || !strings.Contains(t1.Error, cannot) {
				t.Errorf("direct: exit %d, turn 1 %s %q; want exit %d, an error: %s", r.res.code, t1.StopReason, t1.Error, exitFailed, cannot)
			}
			if got := model.Requests(); len(got) != 0 || r.sc.Gateway == nil || r.sc.Gateway.Requests != 0 {
				t.Errorf("direct: the fake got %d requests, the gateway %+v; want none", len(got), r.sc.Gateway)
			}
		})
	}
}
