package e2e_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// claude-agent-acp is Claude Code's ACP adapter, the agent of the built-in
// name claude, run for real against a fake Anthropic Messages API (issue
// 28). npm installs it, pinned, under claude-agent-acp-VERSION in the
// third-party cache (.ci/run does); its bin is a node script, and Claude
// Code itself is the Agent SDK's platform binary.
const (
	claudeAgentPackage = "@agentclientprotocol/claude-agent-acp"
	claudeAgentVersion = "0.101.0"
)

// claudeAgentBin is the pinned claude-agent-acp's bin. The test is skipped
// when node is missing, or when the package is not installed (see
// npmAgentBin).
func claudeAgentBin(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not installed: %s@%s cannot run", claudeAgentPackage, claudeAgentVersion)
	}
	return npmAgentBin(t, "claude-agent-acp", claudeAgentPackage, claudeAgentVersion, "claude-agent-acp")
}

// The two-turn scenario of the Claude tests: in the first turn the model
// asks for one Bash call, which acprun's rule allows and which writes
// out.txt in the workspace, then answers claudeTurn1Text once the call's
// result comes back; in the second it answers claudeTurn2Text.
const (
	claudeCommand   = "echo hello > out.txt"
	claudeToolUseID = "toolu_01"
	claudeTurn1Text = "I wrote hello to out.txt."
	claudeTurn2Text = "It says hello."
	// claudeAllowRule is where s.yaml's allow rule is.
	claudeAllowRule = "s.yaml:6"
	// claudeAllowOption is the adapter's option of kind allow_once.
	claudeAllowOption = "allow-once"
)

// claudeScript is the fake model's replies for the two-turn scenario, in
// the order Claude Code's loop asks for them.
func claudeScript() []testkit.ModelReply {
	return []testkit.ModelReply{
		{ToolCalls: []testkit.ModelToolCall{{ID: claudeToolUseID, Name: "Bash", Arguments: map[string]string{"command": claudeCommand}}}},
		{Text: claudeTurn1Text},
		{Text: claudeTurn2Text},
	}
}

// claudeModel is the model the pinned Claude Code asks for by default, for
// its loop's requests and the session title's alike. (Naming one in
// agent.env, ANTHROPIC_MODEL, would make it a secret that acprun redacts.)
const claudeModel = "claude-opus-5-5"

// claudeEnv is Claude Code's environment for a test whose directory is
// dir: its home (~/.claude, ~/.claude.json) under dir/home, a dummy key,
// the model's base URL, and no traffic but the model's (one fetch remains
// that no variable turns off: at start Claude Code gets its plugins'
// security list from raw.githubusercontent.com, and carries on when that
// fails). The adapter starts Claude Code allowing its bypass-permissions
// mode, which root may use only with IS_SANDBOX set: without it, Claude
// Code run as root exits and session/new fails.
//
// Besides its loop's requests, Claude Code asks the model for a prompt
// suggestion after each turn (a request with the loop's tools, which the
// fake would answer from the script), unless
// CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION=false, which the built-in claude
// sets (not set here: these tests check it), and for a session title,
// which no variable turns off: the adapter asks for it when it queues the
// first prompt (one of 10 characters or more), beside turn 1's requests
// and in any order with them. The fake answers it with a title and no
// usage (AsksTitle), so it takes no reply from the script and changes no
// turn's token counts; a title it could not read would be asked for again
// at the next prompt.
func claudeEnv(dir, baseURL string) map[string]string {
	home := filepath.Join(dir, "home")
	return map[string]string{
		"HOME":               home,
		"CLAUDE_CONFIG_DIR":  filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL": baseURL,
		"ANTHROPIC_API_KEY":  "dummy",
		"IS_SANDBOX":         "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
}

// writeClaudeScenario writes the two-turn scenario under dir: the
// workspace ws/, acprun.yaml giving the built-in agent claude the command
// bin and the environment env (its permissions.enforce, on by default,
// makes Claude Code ask before its Bash call), and s.yaml, with extra
// (top-level keys, each line ending in a newline: a gateway block) added.
func writeClaudeScenario(t *testing.T, dir, bin string, env map[string]string, extra string) {
	t.Helper()
	var envYAML []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		envYAML = append(envYAML, fmt.Sprintf("%s: %q", k, env[k]))
	}
	writeFiles(t, dir, map[string]string{
		"ws/README.md": "the workspace\n",
		"acprun.yaml":  fmt.Sprintf("agents:\n  claude:\n    command: [%q]\n    env: {%s}\n", bin, strings.Join(envYAML, ", ")),
		"s.yaml": fmt.Sprintf(`name: claude
agent: claude
workspace: ws
permissions:
  allow:
    - {kind: execute, command: %q}
turnTimeout: 2m
%sturns:
  - prompt: Write hello to out.txt.
    expect: {files: {contains: {out.txt: "hello"}}}
  - prompt: What does it say?
`, claudeCommand, extra),
	})
}

// claudeRun is what one run of the two-turn scenario did.
type claudeRun struct {
	res result
	sc  report.Result
}

// runClaudeScenario runs s.yaml under dir with env added to acprun's
// environment and args added to its command line, its transcript in
// dir/tr, and returns its one scenario's results; when the test fails it
// logs what the fake model was asked (model nil: none).
func runClaudeScenario(t *testing.T, dir string, model *testkit.AnthropicServer, env []string, args ...string) claudeRun {
	t.Helper()
	var r claudeRun
	t.Cleanup(func() {
		if t.Failed() && model != nil {
			t.Logf("the fake model's requests:\n%s", model.Log())
		}
	})
	r.res = acprunEnv(t, dir, env, append([]string{"run", "s.yaml", "--transcripts", "tr", "-o", "out.json"}, args...)...)
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err != nil {
		t.Fatalf("exit %d and no results (%v)\nstderr:\n%s", r.res.code, err, r.res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if len(out.Scenarios) != 1 {
		t.Fatalf("results = %+v; want one scenario\nstderr:\n%s", out.Scenarios, r.res.stderr)
	}
	r.sc = out.Scenarios[0]
	return r
}

// check asserts what the two-turn scenario must give whatever stands
// between Claude Code and its model: a passing run of two end_turn turns
// with the script's texts, the one Bash call run after acprun's rule
// allowed it, out.txt written in the workspace, and the usage Claude Code
// read from the model's answers (two in the first turn, one in the second;
// the session title's has none).
func (r claudeRun) check(t *testing.T, dir string) {
	t.Helper()
	sc := r.sc
	if r.res.code != exitOK || sc.Status != report.StatusPassed || len(sc.Turns) != 2 {
		t.Fatalf("exit %d, status %s, %d turns; want a passing run of two turns\nstderr:\n%s", r.res.code, sc.Status, len(sc.Turns), r.res.stderr)
	}
	if sc.Agent.InfoName != claudeAgentPackage || sc.Agent.InfoVersion != claudeAgentVersion {
		t.Errorf("agent %s %s; want %s %s", sc.Agent.InfoName, sc.Agent.InfoVersion, claudeAgentPackage, claudeAgentVersion)
	}
	t1, t2 := sc.Turns[0], sc.Turns[1]
	if t1.StopReason != "end_turn" || t1.Text != claudeTurn1Text || t2.StopReason != "end_turn" || t2.Text != claudeTurn2Text {
		t.Errorf("turns (%s, %q), (%s, %q); want (end_turn, %q), (end_turn, %q)",
			t1.StopReason, t1.Text, t2.StopReason, t2.Text, claudeTurn1Text, claudeTurn2Text)
	}
	if len(t1.ToolCalls) != 1 {
		t.Fatalf("turn 1 tool calls %+v; want the one Bash call", t1.ToolCalls)
	}
	c := t1.ToolCalls[0]
	var input struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(c.RawInput, &input); err != nil || c.ID != claudeToolUseID || c.Kind != "execute" || c.Status != "completed" || input.Command != claudeCommand {
		t.Errorf("tool call %+v; want %s, execute, completed, running %q", c, claudeToolUseID, claudeCommand)
	}
	if len(t1.Permissions) != 1 {
		t.Fatalf("turn 1 permissions %+v; want Claude Code's one request", t1.Permissions)
	}
	p := t1.Permissions[0]
	if p.ToolCallID != claudeToolUseID || p.Decision != "allow" || p.Rule != claudeAllowRule || p.OptionID != claudeAllowOption || p.Outcome != "selected" ||
		!slices.Equal(p.Commands, []string{claudeCommand}) {
		t.Errorf("permission %+v; want %s allowed by %s (optionId %s) for %q", p, claudeToolUseID, claudeAllowRule, claudeAllowOption, claudeCommand)
	}
	if len(t2.ToolCalls) != 0 || len(t2.Permissions) != 0 || sc.Allowed != 1 || sc.Denied != 0 {
		t.Errorf("turn 2 tool calls %+v, permissions %+v, allowed %d, denied %d; want none, none, 1 and 0", t2.ToolCalls, t2.Permissions, sc.Allowed, sc.Denied)
	}
	if got := readTranscript(t, filepath.Join(dir, sc.Transcript)).permissionAnswers(t); !slices.Equal(got, []string{claudeAllowOption}) {
		t.Errorf("permission answers sent = %q; want optionId %s", got, claudeAllowOption)
	}
	if sc.Workspace == nil || !slices.Equal(sc.Workspace.Created, []string{"out.txt"}) || len(sc.Workspace.Modified)+len(sc.Workspace.Deleted) != 0 {
		t.Errorf("workspace %+v; want out.txt created and nothing else changed", sc.Workspace)
	}
	// Claude Code reports each answer's usage over ACP: the fake's fixed
	// counts, once per model request of the turn.
	for i, n := range []int64{2, 1} {
		u, want := sc.Turns[i].Usage, report.Usage{InputTokens: n * testkit.AnthropicInputTokens, OutputTokens: n * testkit.AnthropicOutputTokens,
			CachedReadTokens: n * testkit.AnthropicCacheReadTokens, CachedWriteTokens: n * testkit.AnthropicCacheWriteTokens}
		if u == nil || u.InputTokens != want.InputTokens || u.OutputTokens != want.OutputTokens ||
			u.CachedReadTokens != want.CachedReadTokens || u.CachedWriteTokens != want.CachedWriteTokens {
			t.Errorf("turn %d usage %+v; want input, output, cache read and write %d, %d, %d, %d", i+1, u,
				want.InputTokens, want.OutputTokens, want.CachedReadTokens, want.CachedWriteTokens)
		}
	}
}

// modelPosts is the requests model got other than the HEAD Claude Code
// sends its base URL at start and the session title's, as "METHOD PATH",
// and the number of requests for a session title (testkit's AsksTitle).
func modelPosts(model *testkit.AnthropicServer) (asked []string, titles int) {
	for _, req := range model.Requests() {
		switch {
		case req.AsksTitle():
			titles++
		case req.Method != "HEAD" || req.Path != "/":
			asked = append(asked, req.Method+" "+req.Path)
		}
	}
	return asked, titles
}

// TestClaudeTwoTurns: the real Claude Code, through claude-agent-acp,
// against the fake Anthropic API named by ANTHROPIC_BASE_URL: a first turn
// with a Bash call that acprun's rule allows and that writes out.txt, and a
// second turn of text. The fake served the script's three replies in
// order, once each, to Claude Code's loop, answered the one request for a
// session title (answered once, it is not asked again) with its title,
// and answered nothing else but the HEAD Claude Code sends its base URL at
// start. The adapter matches the expect.agent of the docs.
func TestClaudeTwoTurns(t *testing.T) {
	t.Parallel()
	bin := claudeAgentBin(t)
	dir := realTempDir(t)
	model := testkit.NewAnthropicServer(t, claudeScript()...)
	// The agent expectation of the form docs/results.md shows, which the adapter's
	// agentInfo must match (else the scenario is invalid).
	writeClaudeScenario(t, dir, bin, claudeEnv(dir, model.URL), "expect:\n  agent: {name: \"@agentclientprotocol/claude-agent-acp\", version: {matches: '^0\\.101\\.'}}\n")
	r := runClaudeScenario(t, dir, model, nil)
	r.check(t, dir)
	asked, titles := modelPosts(model)
	want := slices.Repeat([]string{"POST /v1/messages?beta=true"}, 3)
	log := model.Log()
	if !slices.Equal(asked, want) || titles != 1 || strings.Count(log, " → reply ") != 3 || strings.Count(log, " → title: ") != 1 ||
		!strings.Contains(log, "→ reply 1 of 3") || !strings.Contains(log, "→ reply 2 of 3") || !strings.Contains(log, "→ reply 3 of 3") {
		t.Errorf("the fake model was asked %q and %d session titles; want %q, answered with replies 1, 2 and 3 of the script, and one title\n%s",
			asked, titles, want, log)
	}
}
