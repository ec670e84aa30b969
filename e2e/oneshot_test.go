package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// oneShotAgent answers as the tests of one-shot runs need: a prompt about
// the tests asks to run them and one about an issue to file it through
// an MCP tool (and each says whether it could), "refuse" is
// refused, "settings" shows the session's model and mode, "crash" makes
// the agent exit mid-turn; any other
// prompt gets its reply, two lines.
const oneShotAgent = `models:
  currentModelId: small
  availableModels: [{modelId: small, name: Small}, {modelId: big, name: Big}]
modes:
  currentModeId: ask
  availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]
turns:
  - match: 'tests'
    steps:
      - tool_call: {toolCallId: t1, title: go test ./..., kind: execute, rawInput: {command: go test ./...}}
      - permission: {toolCallId: t1}
        allowed: [{text: "The tests pass."}]
        rejected: [{text: "I may not run the tests."}]
  - match: 'refuse'
    steps: [{text: "I will not."}]
    stopReason: refusal
  - match: 'settings'
    steps: [{showConfig: true}]
  - match: 'issue'
    steps:
      - permission: {toolCallId: i1, title: Create an issue, kind: other, name: mcp__github__create_issue}
        allowed: [{text: "Issue filed."}]
        rejected: [{text: "I may not file it."}]
  - match: 'crash'
    steps: [{text: "Going down."}, {exit: 3}]
default:
  steps: [{text: "The reply, line 1.\nLine 2."}]
`

// oneShotDir is a directory with oneShotAgent as the named agent "mock1"
// of its acprun.yaml, and the files of extra.
func oneShotDir(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"agent.mock.yaml": oneShotAgent,
		"acprun.yaml":     "agents:\n  mock1: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
	}
	for name, content := range extra {
		files[name] = content
	}
	writeFiles(t, dir, files)
	return dir
}

// oneShotTurns is each turn of each result as prompt → stop reason: text.
func oneShotTurns(out report.Results) []string {
	var got []string
	for _, sc := range out.Scenarios {
		for _, tr := range sc.Turns {
			got = append(got, tr.Prompt+" → "+tr.StopReason+": "+tr.Text)
		}
	}
	return got
}

// TestOneShotPrint: run --agent NAME --prompt TEXT --print runs one
// scenario named prompt, with no file, and prints the agent's reply alone
// on stdout; the progress, the warning about the permissions it has not
// got and the results are as for any run. Repeated --prompt flags are the
// turns, and --print prints the last turn's reply.
func TestOneShotPrint(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "Say something.", "--print", "-o", "out.json")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if want := "The reply, line 1.\nLine 2.\n"; res.stdout != want {
		t.Errorf("stdout %q, want the reply alone, %q", res.stdout, want)
	}
	for _, want := range []string{
		"--prompt: warning: no permissions: every permission request and terminal command will be denied (allow some with --allow, e.g. --allow read --allow 'execute:go test *')",
		"PASS prompt [mock1] (end_turn,",
		"results: out.json",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if len(out.Scenarios) != 1 {
		t.Fatalf("%d results, want 1", len(out.Scenarios))
	}
	sc := out.Scenarios[0]
	if sc.Name != "prompt" || sc.File != "" || sc.Agent.Name != "mock1" || sc.Status != report.StatusPassed {
		t.Errorf("result %q file %q agent %q status %s; want prompt, no file, mock1, passed", sc.Name, sc.File, sc.Agent.Name, sc.Status)
	}

	// Two turns, the second from stdin; the reply printed is the last one.
	cmd := exec.Command(acprunFor(t), "run", "--agent", "mock1", "--prompt", "Say something.", "--prompt", "-", "--print", "-q", "-o", "two.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = strings.NewReader("Run the tests.\n")
	res, _ = runCommand(t, cmd)
	if res.code != exitOK || res.stdout != "I may not run the tests.\n" {
		t.Errorf("two turns: exit %d, stdout %q; want 0 and the second turn's reply\n%s", res.code, res.stdout, res.stderr)
	}
	want := []string{"Say something. → end_turn: The reply, line 1.\nLine 2.", "Run the tests.\n → end_turn: I may not run the tests."}
	if diff := cmp.Diff(want, oneShotTurns(readResults(t, filepath.Join(dir, "two.json")))); diff != "" {
		t.Errorf("two turns (-want +got):\n%s", diff)
	}

	// The last turn did not run: nothing is printed.
	cmd = exec.Command(acprunFor(t), "run", "--agent", "mock1", "--prompt", "crash now", "--prompt", "-", "--print", "-q", "-o", "crash.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = strings.NewReader("Run the tests.\n")
	res, _ = runCommand(t, cmd)
	if res.code != exitFailed {
		t.Fatalf("a crash in turn 1: exit %d, want 1\n%s", res.code, res.stderr)
	}
	want = []string{"crash now → agent_exited: Going down.", "Run the tests.\n → skipped: "}
	if diff := cmp.Diff(want, oneShotTurns(readResults(t, filepath.Join(dir, "crash.json")))); diff != "" {
		t.Errorf("a crash in turn 1 (-want +got):\n%s", diff)
	}
	if res.stdout != "" {
		t.Errorf("the last turn did not run, and stdout is %q", res.stdout)
	}

	// In a pipeline: the prompt from stdin, the reply to the next command.
	pipe := exec.Command("sh", "-c", `printf 'Say something.\n' | "$ACPRUN" run --agent mock1 --prompt - --print -o pipe.json | tr a-z A-Z`)
	pipe.Dir = dir
	pipe.Env = append(os.Environ(), "ACPRUN="+acprunBin, "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	res, _ = runCommand(t, pipe)
	if res.code != exitOK || res.stdout != "THE REPLY, LINE 1.\nLINE 2.\n" {
		t.Errorf("pipeline: exit %d, stdout %q; want the reply through tr\n%s", res.code, res.stdout, res.stderr)
	}
}

// TestOneShotFails: a one-shot turn expects end_turn, so a refusal fails
// the run (exit 1) and the summary says where the prompt came from;
// --print still prints what the agent replied.
func TestOneShotFails(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "Please refuse.", "--print", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	if res.stdout != "I will not.\n" {
		t.Errorf("stdout %q, want the refusal's text", res.stdout)
	}
	if want := "turn 1: --prompt: stopReason refusal, want end_turn"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if len(out.Scenarios) != 1 || out.Scenarios[0].Status != report.StatusFailed {
		t.Errorf("results %+v, want one failed scenario", out.Scenarios)
	}
}

// TestOneShotGitHubAnnotations: under GitHub Actions, the annotations of
// a one-shot run (no scenario file) name no file nor line, whether or not
// acprun runs at the root of $GITHUB_WORKSPACE: GitHub shows them as the
// run's, not at "file=,line=0".
func TestOneShotGitHubAnnotations(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	for _, ws := range []string{"", dir} {
		res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE=" + ws},
			"run", "--agent", "mock1", "--prompt", "Please refuse.", "-q", "-o", "out.json")
		if res.code != exitFailed {
			t.Fatalf("GITHUB_WORKSPACE=%s: exit %d, want 1\n%s", ws, res.code, res.stderr)
		}
		want := "::error title=acprun%3A prompt [mock1] failed::turn 1: --prompt: stopReason refusal, want end_turn%0A  turn 1 text (1 line):%0A  | I will not.\n" +
			"::warning title=acprun%3A prompt [mock1]::--prompt: no permissions: every permission request and terminal command will be denied (allow some with --allow, e.g. --allow read --allow 'execute:go test *')\n"
		if res.stdout != want {
			t.Errorf("GITHUB_WORKSPACE=%s: stdout:\n%s\nwant:\n%s", ws, res.stdout, want)
		}
	}
}

// TestOneShotUsageErrors: what cannot run is refused with exit 2 before
// any agent starts, and no results are written.
func TestOneShotUsageErrors(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "acprun: nothing to run: give scenario files or directories (acprun run suite/), or a prompt for an agent (acprun run --agent claude --prompt TEXT)"},
		{[]string{"run", "--prompt", "hi"}, "acprun: no agent to send the prompt to: name one with --agent NAME (acprun agents lists them)"},
		{[]string{"run", "--agent", "mock", "--prompt", "hi"}, "acprun: --agent mock: the mock agent needs its script"},
		{[]string{"run", "--agent", "mock1", "--agent", "claude", "--prompt", "hi", "--print"}, "--print prints the reply of one run of one scenario, and this run has 2 scenarios (scenario × agent)"},
		{[]string{"run", "--agent", "mock1", "--prompt", "hi", "--print", "--junit", "-"}, "--print writes the agent's reply to stdout, and --junit - would write there too"},
		{[]string{"run", "--agent", "mock1", "--prompt", "hi", "--allow", "go test *"},
			`acprun: --allow 'go test *': "go test *" is neither a tool kind (read, edit, delete, move, search, execute, think, fetch, switch_mode, other) nor a matcher (command, path, title, tool) (a command is written execute:COMMAND: 'execute:go test *')`},
		{[]string{"run", "--agent", "mock1", "--prompt", "hi", "--deny", "path:"}, `acprun: --deny path:: the pattern after "path:" is empty, e.g. 'path:**/.env'`},
	}
	for _, tt := range tests {
		res := acprun(t, dir, append(tt.args, "-o", "out.json")...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) || res.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", tt.args, res.code, res.stdout, res.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("a refused run wrote results")
	}
}

// TestRunJSONTakesTheResultsFile: --json on run is an older name of -o,
// the results file (on list and probe it takes no value). Given scenarios
// and no path, run says so, with exit 2, and writes nothing.
func TestRunJSONTakesTheResultsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "suite/t.yaml": ranScenario})
	const hint = "acprun: nothing to run: %s, the value of -o (--output, --json), names the results file, but it looks like scenarios: did you mean acprun run %[1]s -o FILE? (if -o came from an empty variable, quote it: -o \"$VAR\")"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--json", "s.yaml"}, fmt.Sprintf(hint, "s.yaml")},
		{[]string{"run", "--json", "suite"}, fmt.Sprintf(hint, "suite")},
		{[]string{"run", "--json=new.yml"}, fmt.Sprintf(hint, "new.yml")},
		{[]string{"run", "-o", "s.yaml"}, fmt.Sprintf(hint, "s.yaml")},
		{[]string{"run", "-o", "suite/"}, fmt.Sprintf(hint, "suite/")}, // -o $OUT suite/ with OUT empty
		{[]string{"run", "--json", "out.json"}, "acprun: nothing to run: give scenario files or directories"},
	}
	for _, tt := range tests {
		res := acprun(t, dir, tt.args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tt.want) || res.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", tt.args, res.code, res.stdout, res.stderr, tt.want)
		}
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"s.yaml", "suite"}) {
		t.Errorf("the directory holds %q; want nothing run or written", got)
	}
	if got := readFiles(t, dir, "s.yaml")["s.yaml"]; string(got) != ranScenario {
		t.Errorf("s.yaml was changed: %q", got)
	}
}

// TestFlagRules: --allow and --deny add rules in their short form: to a
// one-shot run's (which has none), to a scenario file's (a deny from a
// flag beats the file's allow) and to --allow-all. Each decision names
// the flag that made it.
func TestFlagRules(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, map[string]string{
		"s.yaml": "name: s\nagent: mock1\npermissions: {allow: [{kind: execute, command: \"go *\"}]}\nturns: [{prompt: Run the tests.}]\n",
	})
	tests := []struct {
		name     string
		args     []string
		decision string // of the one permission request
		rule     string
		text     string
	}{
		{"one-shot, no rules", []string{"--agent", "mock1", "--prompt", "Run the tests."}, "deny", "", "I may not run the tests."},
		{"one-shot, --allow", []string{"--agent", "mock1", "--prompt", "Run the tests.", "--allow", "read", "--allow", "execute:go test *"},
			"allow", "--allow 'execute:go test *'", "The tests pass."},
		{"one-shot, --deny beats --allow", []string{"--agent", "mock1", "--prompt", "Run the tests.", "--allow", "execute:go test *", "--deny", "command:go test *"},
			"deny", "--deny 'command:go test *'", "I may not run the tests."},
		{"the file's allow", []string{"s.yaml"}, "allow", "s.yaml:3", "The tests pass."},
		{"the file's allow, a --deny", []string{"s.yaml", "--deny", "execute:go test *"}, "deny", "--deny 'execute:go test *'", "I may not run the tests."},
		{"--allow-all, a --deny", []string{"s.yaml", "--allow-all", "--deny", "execute:go *"}, "deny", "--deny 'execute:go *'", "I may not run the tests."},
		{"--deny-all, an --allow", []string{"s.yaml", "--deny-all", "--allow", "execute"}, "allow", "--allow execute", "The tests pass."},
		{"one-shot, --allow tool:", []string{"--agent", "mock1", "--prompt", "File an issue.", "--allow", "tool:mcp__github__*"},
			"allow", "--allow 'tool:mcp__github__*'", "Issue filed."},
	}
	for _, tt := range tests {
		res, out := runResults(t, dir, tt.args...)
		if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 || len(out.Scenarios[0].Turns[0].Permissions) != 1 {
			t.Errorf("%s: exit %d, results %+v, want one turn with one permission request\n%s", tt.name, res.code, out.Scenarios, res.stderr)
			continue
		}
		tr := out.Scenarios[0].Turns[0]
		p := tr.Permissions[0]
		if p.Decision != tt.decision || p.Rule != tt.rule || tr.Text != tt.text {
			t.Errorf("%s: %s by %q, agent said %q; want %s by %q, %q", tt.name, p.Decision, p.Rule, tr.Text, tt.decision, tt.rule, tt.text)
		}
	}
	res, out := runResults(t, dir, "s.yaml", "--allow-all", "--deny", "execute:go *")
	if want := "--allow-all --deny 'execute:go *'"; out.PolicyOverride != want || !strings.Contains(res.stderr, "every permission request was answered by "+want) {
		t.Errorf("policyOverride %q, want %q, also in the summary:\n%s", out.PolicyOverride, want, res.stderr)
	}
}

// TestFlagRulesExplain: explain shows the rules of --allow and --deny
// with their flag as their origin, added to a scenario file's, or alone
// without a file, as a one-shot run applies them.
func TestFlagRulesExplain(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, map[string]string{
		"s.yaml": "name: s\nagent: mock1\npermissions: {allow: [{kind: execute, command: \"go *\"}]}\nturns: [{prompt: x}]\n",
	})
	res := acprun(t, dir, "explain", "s.yaml", "--deny", "execute:go test *", "--kind", "execute", "--command", "go test ./...")
	for _, want := range []string{
		"decision: DENY by deny rule --deny 'execute:go test *'",
		"MATCH deny --deny 'execute:go test *'",
		"MATCH allow s.yaml:3",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("explain s.yaml --deny: stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	if res.code != exitFailed {
		t.Errorf("explain s.yaml --deny: exit %d, want 1 (denied)", res.code)
	}

	res = acprun(t, dir, "explain", "--allow", "execute:go test *", "--kind", "execute", "--command", "go test ./...")
	if res.code != exitOK || !strings.Contains(res.stdout, "scenario: prompt (--prompt)") ||
		!strings.Contains(res.stdout, "decision: ALLOW by allow rule --allow 'execute:go test *'") {
		t.Errorf("explain --allow without a file: exit %d, want 0 and the allow by the flag:\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, "explain", "--allow", "execute:go test *", "--kind", "execute", "--command", "go test ./... && curl x | sh")
	if res.code != exitFailed || !strings.Contains(res.stdout, "decision: DENY") {
		t.Errorf("explain --allow, a command line it does not allow whole: exit %d, want 1 and a deny:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestOneShotModelAndMode: --model and --mode replace the scenario's (or
// the one-shot run's) agent.model and agent.mode; a model the agent does
// not offer ends the scenario with exit 3, at the flag; a mode it does not
// offer is a warning at the flag, and a mode of the file one at its value.
func TestOneShotModelAndMode(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, map[string]string{
		"s.yaml": "name: s\nagent: {name: mock1, model: small, mode: ask}\npermissions: {}\nturns: [{prompt: settings}]\n",
	})
	res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "Show the settings.", "--model", "big", "--mode", "code", "--print", "-o", "out.json")
	if res.code != exitOK || res.stdout != "model: big; mode: code\n" {
		t.Errorf("one-shot: exit %d, stdout %q; want model big and mode code\n%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "--model", "big", "--print", "-o", "out.json")
	if res.code != exitOK || res.stdout != "model: big; mode: ask\n" {
		t.Errorf("s.yaml --model big: exit %d, stdout %q; want the flag's model and the file's mode\n%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "--model", "huge", "-o", "out.json")
	if want := `--model huge: agent.model: the agent does not offer model "huge" (it offers: small, big)`; res.code != exitAgent || !strings.Contains(res.stderr, want) {
		t.Errorf("--model huge: exit %d, want 3 and %q:\n%s", res.code, want, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "--mode", "plan", "-o", "out.json")
	if want := `--mode plan: agent.mode: the agent does not offer mode "plan" (it offers: ask, code); not set`; res.code != exitOK || !strings.Contains(res.stderr, want) {
		t.Errorf("--mode plan: exit %d, want 0 and %q:\n%s", res.code, want, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"plan.yaml": "name: s\nagent: {name: mock1, mode: plan}\npermissions: {}\nturns: [{prompt: settings}]\n"})
	res = acprun(t, dir, "run", "plan.yaml", "-o", "out.json")
	if want := `plan.yaml:2:28: agent.mode: the agent does not offer mode "plan" (it offers: ask, code); not set`; res.code != exitOK || !strings.Contains(res.stderr, want) {
		t.Errorf("mode: plan: exit %d, want 0 and %q:\n%s", res.code, want, res.stderr)
	}
}

// TestOneShotAuth: --auth replaces agent.auth, in one-shot runs (which
// have no file to set it in) and file runs alike; the error of an agent
// that asks for authentication names the flag, and one the agent does not
// offer is an error at the flag (exit 3).
func TestOneShotAuth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "authMethods: [{id: api-key, name: API key}, {id: oauth, name: OAuth}]\nauthRequired: true\n" +
			"turns: [{steps: [{text: signed in}]}]\n",
		"acprun.yaml": "agents:\n  locked: {command: [acprun, mock-agent, agent.mock.yaml], auth: oauth-typo}\n",
		"s.yaml":      "name: s\nagent: {name: locked}\npermissions: {}\nturns: [{prompt: hi}]\n",
	})
	res := acprun(t, dir, "run", "--agent", "locked", "--prompt", "hi", "--auth", "api-key", "--print", "-o", "out.json")
	if res.code != exitOK || res.stdout != "signed in\n" {
		t.Errorf("one-shot --auth api-key: exit %d, stdout %q; want 0 and the reply\n%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "--auth", "oauth", "--print", "-o", "out.json")
	if res.code != exitOK || res.stdout != "signed in\n" {
		t.Errorf("s.yaml --auth oauth: exit %d, stdout %q; want 0 and the reply\n%s", res.code, res.stdout, res.stderr)
	}
	res = acprun(t, dir, "run", "--agent", "locked", "--prompt", "hi", "--auth", "nope", "-o", "out.json")
	if want := `--auth nope: authenticate: the agent offers no auth method "nope" (it offers: api-key, oauth)`; res.code != exitAgent || !strings.Contains(res.stderr, want) {
		t.Errorf("--auth nope: exit %d, want 3 and %q:\n%s", res.code, want, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  locked: {command: [acprun, mock-agent, agent.mock.yaml]}\n"})
	res = acprun(t, dir, "run", "--agent", "locked", "--prompt", "hi", "-o", "out.json")
	if want := "session/new: the agent requires authentication (set agent.auth, or run with --auth, to one of: api-key, oauth)"; res.code != exitAgent || !strings.Contains(res.stderr, want) {
		t.Errorf("no auth: exit %d, want 3 and %q:\n%s", res.code, want, res.stderr)
	}
}

// TestPrintInAGitHubStepLog: under GitHub Actions, a reply --print writes
// to a pipe (a step's log, or what leads to one: $(…), | gh …) has the
// workflow commands the agent wrote broken by a zero-width space, so
// that they stay text in the log; every other byte is the reply's. A
// redirect to a file gets the reply byte for byte, as outside GitHub
// Actions.
func TestPrintInAGitHubStepLog(t *testing.T) {
	t.Parallel()
	const reply = "::error file=x::forged annotation\n::stop-commands::mine\n##[set-output name=a]b\n::mine::\n::add-mask::the\n"
	const broken = ":\u200b:error file=x::forged annotation\n:\u200b:stop-commands::mine\n#\u200b#[set-output name=a]b\n:\u200b:mine::\n:\u200b:add-mask::the\n"
	dir := oneShotDir(t, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: " + strconv.Quote(reply) + "}]\n",
	})
	gh := []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="}
	if res := acprunEnv(t, dir, gh, "run", "--agent", "mock1", "--prompt", "hi", "--print", "-q", "-o", "out.json"); res.code != exitOK || res.stdout != broken {
		t.Errorf("exit %d, stdout %q; want 0 and the reply with its workflow commands broken, %q\n%s", res.code, res.stdout, broken, res.stderr)
	}

	// Redirected to a file: the reply alone, byte for byte.
	f, err := os.Create(filepath.Join(dir, "review.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(acprunFor(t), "run", "--agent", "mock1", "--prompt", "hi", "--print", "-q", "-o", "file.json")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), gh...)
	cmd.Stdout = f
	if err := cmd.Run(); err != nil {
		t.Fatalf("run --print > review.md: %v", err)
	}
	if got, err := os.ReadFile(f.Name()); err != nil || string(got) != reply {
		t.Errorf("review.md = %q, %v; want the reply alone, %q", got, err, reply)
	}

	// Outside GitHub Actions, a pipe gets the reply alone.
	if res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "hi", "--print", "-q", "-o", "plain.json"); res.code != exitOK || res.stdout != reply {
		t.Errorf("outside GitHub Actions: exit %d, stdout %q; want 0 and the reply alone, %q", res.code, res.stdout, reply)
	}
}

// TestOneShotQuietWarnsOnce: with -q, which prints just the summary, the
// warning about the permissions a one-shot run has not got is said once,
// in the summary's WARN block; it was said above the summary too.
func TestOneShotQuietWarnsOnce(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "Say something.", "-q", "-o", "out.json")
	const want = "    warning: --prompt: no permissions: every permission request and terminal command will be denied"
	if res.code != exitOK || strings.Count(res.stderr, "no permissions") != 1 || !strings.Contains(res.stderr, "WARN prompt [mock1]\n"+want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and the warning once, in the summary: %q", res.code, res.stderr, want)
	}
}
