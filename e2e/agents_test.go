package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/runner"
)

// squashLines returns the lines of s with runs of blanks made one space
// and the ends trimmed, so that table layouts compare by content.
func squashLines(s string) []string {
	var out []string
	for line := range strings.SplitSeq(strings.TrimRight(s, "\n"), "\n") {
		out = append(out, strings.Join(strings.Fields(line), " "))
	}
	return out
}

// hasLinePrefix reports whether one of lines starts with prefix.
func hasLinePrefix(lines []string, prefix string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
}

// TestAgentsListsBuiltins: acprun agents lists the built-in agents, with
// the variables each expects its credentials in said set or not set in
// acprun's environment, never with their values.
func TestAgentsListsBuiltins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const secret = "sk-ant-e2e-agents-secret"
	r := acprunEnv(t, dir, []string{"ANTHROPIC_API_KEY=" + secret, "OPENAI_API_KEY=", "GEMINI_API_KEY="}, "agents")
	if r.code != 0 {
		t.Fatalf("acprun agents: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("acprun agents shows the key's value:\n%s", r.stdout)
	}
	lines := squashLines(r.stdout)
	if got, want := lines[0], "NAME COMMAND AUTH AUTH ENV SOURCE DESCRIPTION"; got != want {
		t.Errorf("header = %q, want %q", got, want)
	}
	want := []string{
		"claude npx -y @agentclientprotocol/claude-agent-acp - ANTHROPIC_API_KEY (set) built-in ",
		"codex npx -y @zed-industries/codex-acp openai-api-key OPENAI_API_KEY (not set) built-in ",
		"gemini npx -y @google/gemini-cli --acp - GEMINI_API_KEY (not set) built-in ",
		"goose goose acp - - built-in ",
		"mock acprun mock-agent - - built-in ",
		"opencode opencode acp - - built-in ",
		"qwen npx -y @qwen-code/qwen-code --acp --auth-type=openai - OPENAI_API_KEY (not set) built-in ",
	}
	if len(lines) != len(want)+1 {
		t.Errorf("got %d agents, want %d:\n%s", len(lines)-1, len(want), r.stdout)
	}
	for i, w := range want {
		if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i+1], w)
		}
	}
}

// TestAgentsConfigOverride: the config's agents are listed beside the
// built-in ones, replacing those of the same name (which keep the auth env
// of the built-in agent, set by the config's env too).
func TestAgentsConfigOverride(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": `agents:
  claude: {command: [my-claude, --acp], description: Our Claude, env: {ANTHROPIC_API_KEY: from-config}}
  mine: {command: [./bin/agent, "two words"], auth: key}
`,
		"other.yaml": "agents:\n  other: {command: other-agent}\n",
	})
	noKeys := []string{"ANTHROPIC_API_KEY=", "OPENAI_API_KEY="}
	r := acprunEnv(t, dir, noKeys, "agents")
	if r.code != 0 {
		t.Fatalf("acprun agents: exit %d\n%s", r.code, r.stderr)
	}
	lines := squashLines(r.stdout)
	for _, want := range []string{
		"claude my-claude --acp - ANTHROPIC_API_KEY (set) acprun.yaml (replaces built-in) Our Claude",
		"mine " + filepath.Join(dir, "bin/agent") + " 'two words' key - acprun.yaml",
		"codex npx -y @zed-industries/codex-acp openai-api-key OPENAI_API_KEY (not set) built-in ",
	} {
		if !hasLinePrefix(lines, want) {
			t.Errorf("no line starting with %q in:\n%s", want, r.stdout)
		}
	}

	r = acprunEnv(t, dir, noKeys, "agents", "--config", "other.yaml")
	if r.code != 0 {
		t.Fatalf("acprun agents --config: exit %d\n%s", r.code, r.stderr)
	}
	lines = squashLines(r.stdout)
	if !hasLinePrefix(lines, "other other-agent - - other.yaml") || hasLinePrefix(lines, "mine ") ||
		!hasLinePrefix(lines, "claude npx -y @agentclientprotocol/claude-agent-acp - ANTHROPIC_API_KEY (not set) built-in") {
		t.Errorf("--config other.yaml: want other and the built-in claude, not acprun.yaml's agents:\n%s", r.stdout)
	}
}

// TestAgentsSecretsNeverLeave: acprun agents redacts a config agent's env
// values and acprun's secret-looking variables in every agent's command
// and description, as run --dry-run and probe redact the same command
// line; it printed them as they were.
func TestAgentsSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const envSecret, environSecret = "supersecretvalue42", "sk-live-abcdef123456"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"basic.mock.yaml": "turns:\n  - steps:\n      - text: hello\n",
		"acprun.yaml": `agents:
  sec:
    command: [env, "MY_TOKEN=` + envSecret + `", acprun, mock-agent, basic.mock.yaml]
    env: {MY_API_KEY: ` + envSecret + `}
    description: "uses ` + envSecret + `"
  k:
    command: [my-agent, --api-key, ` + environSecret + `]
`,
	})
	env := []string{"OPENAI_API_KEY=" + environSecret}
	agents := acprunEnv(t, dir, env, "agents")
	dry := acprunEnv(t, dir, env, "run", "--agent", "sec", "--prompt", "hi", "--dry-run")
	probe := acprunEnv(t, dir, env, "probe", "sec")
	// The probe's agent does not start (env finds no acprun in PATH): what
	// it prints of the command is what matters.
	for name, r := range map[string]result{"agents": agents, "run --dry-run": dry, "probe": probe} {
		if r.code != 0 && name != "probe" {
			t.Errorf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
		for _, secret := range []string{envSecret, environSecret} {
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("%s shows %q:\n%s%s", name, secret, r.stdout, r.stderr)
			}
		}
	}
	lines := squashLines(agents.stdout)
	for _, want := range []string{
		"k my-agent --api-key '[REDACTED]' - - acprun.yaml",
		"sec env 'MY_TOKEN=[REDACTED]' acprun mock-agent basic.mock.yaml - - acprun.yaml uses [REDACTED]",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("acprun agents: no line %q in:\n%s", want, agents.stdout)
		}
	}
	if want := "command: env 'MY_TOKEN=[REDACTED]' acprun mock-agent basic.mock.yaml"; !slices.Contains(squashLines(probe.stdout), want) {
		t.Errorf("probe: no %q in:\n%s", want, probe.stdout)
	}
}

func TestAgentsConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents: {mine: {comand: [a]}}\n"})
	r := acprun(t, dir, "agents")
	if want := `acprun.yaml:1:17: unknown key "comand" (did you mean "command"?)`; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("bad config: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	r = acprun(t, dir, "agents", "--config", "nope.yaml")
	if want := "acprun: --config nope.yaml: no such file or directory"; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("missing config: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	// An empty program name is refused by agents as probe and run refuse
	// it, and as validate refuses the config; agents listed it as ''.
	writeFiles(t, dir, map[string]string{
		"empty.yaml": "agents:\n  mine:\n    command: [\"\", acp]\n",
		"s.yaml":     "name: s\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
	})
	for _, args := range [][]string{{"agents"}, {"probe", "mine"}, {"validate", "s.yaml"}} {
		r = acprun(t, dir, append(args, "--config", "empty.yaml")...)
		if want := "empty.yaml:3:14: agent command has an empty program name\n"; r.code != 2 || !strings.HasPrefix(r.stderr, want) {
			t.Errorf("acprun %v with an empty program name: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr, want)
		}
	}
}

func TestAgentsNamedMockInRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/hello.mock.yaml": "turns:\n  - steps: [{text: hello from the named mock}]\n",
		"named.yaml": `name: named-mock
agent: {name: mock, args: [agents/hello.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {text: {contains: named mock}}
`,
	})
	r, out := runResults(t, dir, "named.yaml")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if len(out.Scenarios) != 1 || out.Scenarios[0].Status != "passed" {
		t.Errorf("scenarios = %+v, want named-mock passed", out.Scenarios)
	}
}

func TestAgentsUnknownNameInScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: claud\nturns: [{prompt: hi}]\n"})
	r := acprun(t, dir, "validate", "s.yaml")
	if want := `s.yaml:2:8: unknown agent "claud" (did you mean "claude"?)`; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("validate: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
}

// probeScript is a mock agent with something of everything probe shows.
const probeScript = `
agentInfo: {name: probe-mock, title: Probe mock, version: "0.3.1"}
agentCapabilities:
  loadSession: true
  promptCapabilities: {image: true}
  mcpCapabilities: {http: true}
  sessionCapabilities: {list: true, close: true}
authMethods:
  - {id: api-key, name: API key, description: Uses MOCK_KEY}
  - {id: login, name: Log in, type: terminal, args: [--login]}
sessionId: probe-session
modes:
  currentModeId: ask
  availableModes:
    - {id: ask, name: Ask, description: Asks before acting}
    - {id: code, name: Code}
updatesBeforeSessionNew:
  - update:
      sessionUpdate: available_commands_update
      availableCommands:
        - {name: review, description: Review the change, input: {hint: files}}
        - {name: init, description: Write AGENTS.md}
  - thought: warming up
`

func TestProbeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"script.mock.yaml": probeScript})
	r := acprun(t, dir, "probe", "--", acprunBin, "mock-agent", "script.mock.yaml")
	if r.code != 0 {
		t.Fatalf("probe: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := squashLines(r.stdout)
	want := []string{
		"command: " + acprunBin + " mock-agent script.mock.yaml",
		"cwd: " + dir,
		"protocol version: 1",
		"agent info: probe-mock 0.3.1 (Probe mock)",
		"capabilities:",
		"loadSession yes",
		"prompt text, resource_link, image",
		"mcp stdio, http",
		"session list, close",
		"auth none",
		"auth methods:",
		"api-key API key [agent] — Uses MOCK_KEY",
		"login Log in [terminal]",
		"session: probe-session",
		"modes: current ask",
		"ask Ask — Asks before acting",
		"code Code",
		"config options: none",
		"commands:",
		"/review <files> Review the change",
		"/init Write AGENTS.md",
		"other updates: agent_thought_chunk ×1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe output (-want +got):\n%s", diff)
	}
}

func TestProbeJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"script.mock.yaml": probeScript})
	r := acprun(t, dir, "probe", "--json", "--", acprunBin, "mock-agent", "script.mock.yaml")
	if r.code != 0 {
		t.Fatalf("probe --json: exit %d\n%s", r.code, r.stderr)
	}
	var got runner.ProbeReport
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("probe --json output is not a report: %v\n%s", err, r.stdout)
	}
	want := runner.ProbeReport{
		Command:         []string{acprunBin, "mock-agent", "script.mock.yaml"},
		Cwd:             dir,
		ProtocolVersion: 1,
		AgentInfo:       &acp.Implementation{Name: "probe-mock", Title: "Probe mock", Version: "0.3.1"},
		AuthMethods: []acp.AuthMethod{
			{ID: "api-key", Name: "API key", Description: "Uses MOCK_KEY"},
			{ID: "login", Name: "Log in", Type: "terminal", Args: []string{"--login"}},
		},
		SessionID: "probe-session",
		Modes: &acp.SessionModeState{CurrentModeID: "ask", AvailableModes: []acp.SessionMode{
			{ID: "ask", Name: "Ask", Description: "Asks before acting"}, {ID: "code", Name: "Code"}}},
		ConfigOptions: []acp.SessionConfigOption{},
		Commands: []acp.AvailableCommand{
			{Name: "review", Description: "Review the change", Input: &acp.AvailableCommandInput{Hint: "files"}},
			{Name: "init", Description: "Write AGENTS.md"},
		},
		Updates: map[string]int{"agent_thought_chunk": 1},
	}
	caps := got.Capabilities
	got.Capabilities = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe --json (-want +got):\n%s", diff)
	}
	if caps == nil || !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.McpCapabilities.HTTP ||
		caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Delete != nil {
		t.Errorf("agentCapabilities = %+v, want loadSession, image, http and list", caps)
	}
}

func TestProbeNamedConfigAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"script.mock.yaml": "authRequired: true\n" + probeScript,
		"c.yaml": `agents:
  mine:
    command: [acprun, mock-agent, script.mock.yaml]
    auth: api-key
`,
	})
	r := acprun(t, dir, "probe", "mine", "--config", "c.yaml")
	if r.code != 0 {
		t.Fatalf("probe mine: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lines := squashLines(r.stdout)
	for _, want := range []string{
		"named agent: mine",
		"agent info: probe-mock 0.3.1 (Probe mock)",
		"api-key API key [agent] — Uses MOCK_KEY",
		"authenticated: api-key",
		"session: probe-session",
		"modes: current ask",
		"/review <files> Review the change",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in:\n%s", want, r.stdout)
		}
	}
	// The command of a named agent starting with acprun runs acprun's own
	// build (here the plain one the suite gives its agents).
	if want := "command: " + os.Getenv(runner.EnvTestSelf) + " mock-agent script.mock.yaml"; !slices.Contains(lines, want) {
		t.Errorf("no line %q in:\n%s", want, r.stdout)
	}
}

func TestProbeFailures(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"auth.mock.yaml": "authRequired: true\n" + probeScript,
		"v2.mock.yaml":   "protocolVersion: 2\nagentInfo: {name: future, version: '9'}\n",
		"hang.mock.yaml": "updatesBeforeSessionNew: [{hang: true}]\n",
		"bad.mock.yaml":  "turns: [{stps: []}]\n", // the mock agent refuses it
		"c.yaml": `agents:
  nocwd: {command: [acprun, mock-agent, v2.mock.yaml], cwd: nodir}
  nobin: {command: [nosuchcmd-xyz, acp]}
`,
	})
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // must contain
		stdout string // a line it must have, if set
	}{
		{"unknown name", []string{"probe", "claud"}, 2, `unknown agent "claud" (did you mean "claude"?)`, ""},
		{"mock without a script", []string{"probe", "mock"}, 2, "the mock agent needs its script", ""},
		{"two words without --", []string{"probe", "goose", "acp"}, 2, "give one agent name, or -- and a command", ""},
		// "$AGENT" with AGENT unset: an unknown agent "", a program ''
		// not found in PATH (exit 3), they were.
		{"empty name", []string{"probe", ""}, 2, `acprun: <agent> "": the argument is empty (is the variable that gives it unset?): give an agent name, or -- and a command` + "\n", ""},
		{"empty program", []string{"probe", "--", "", "acp"}, 2, "acprun: the agent's program after -- is empty (is the variable that gives it unset?): give its command after --\n", ""},
		{"program not found", []string{"probe", "--", "/nonexistent/agent"}, 3, "acprun: agent command /nonexistent/agent: no such file\n", ""},
		{"program not in PATH", []string{"probe", "--", "nosuchcmd-xyz", "acp"}, 3, "acprun: agent command nosuchcmd-xyz: not found in PATH: install it, or give its path\n", ""},
		// A named agent's cwd and program are checked as run checks them:
		// probe blamed the program for a missing cwd, in exec's words.
		{"named agent's cwd missing", []string{"probe", "nocwd", "--config", "c.yaml"}, 2,
			"c.yaml:2:61: agent cwd " + filepath.Join(dir, "nodir") + " does not exist: create that directory, or change cwd (a relative cwd is relative to " + dir + ")\n", ""},
		{"named agent's program not in PATH", []string{"probe", "nobin", "--config", "c.yaml"}, 3,
			"acprun: c.yaml:3:21: agent nobin: command nosuchcmd-xyz: not found in PATH: install it, or give its path\n", ""},
		// A script the mock agent would refuse is said before it starts,
		// as run and validate say it.
		{"mock script does not parse", []string{"probe", "--", "acprun", "mock-agent", "bad.mock.yaml"}, 2,
			"acprun: mock script bad.mock.yaml does not parse: " + filepath.Join(dir, "bad.mock.yaml") + `:1:10: unknown key "stps" in turn`, ""},
		{"agent exits at once", []string{"probe", "--", "sh", "-c", "echo bye >&2; exit 2"}, 3,
			"the agent exited with code 2 before answering initialize", ""},
		// It closes its output and lives on: not said to be killed by the
		// SIGTERM acprun then sends it.
		{"agent closes its output", []string{"probe", "--", "sh", "-c", "exec 1>&-; exec sleep 100"}, 3,
			"acprun: the agent closed its output before answering initialize\n", ""},
		// It exits without reading: whether acprun's write of initialize
		// fails first (EPIPE) or the end of its output comes first, the
		// probe says the same (TestProbeSaysAnExitOneWay runs it again).
		{"agent exits without reading", []string{"probe", "--", "sh", "-c", "exit 3"}, 3,
			"acprun: the agent exited with code 3 before answering initialize\n", ""},
		{"mock script missing", []string{"probe", "--", "acprun", "mock-agent", "missing.mock.yaml"}, 2,
			"acprun: mock script missing.mock.yaml does not exist (looked for it in the agent's cwd " + dir + "): write the script there, or give its path\n", ""},
		{"protocol version", []string{"probe", "--", acprunBin, "mock-agent", "v2.mock.yaml"}, 3,
			"the agent speaks ACP protocol version 2", "agent info: future 9"},
		{"authentication required", []string{"probe", "--", acprunBin, "mock-agent", "auth.mock.yaml"}, 3,
			"the agent requires authentication (try --auth with one of: api-key); or log in once, by hand, with its terminal login (login: the agent's command with --login, in a terminal)", "api-key API key [agent] — Uses MOCK_KEY"},
		{"timeout", []string{"probe", "--timeout", "1s", "--", acprunBin, "mock-agent", "hang.mock.yaml"}, 3,
			"probe timed out after 1s", "auth methods: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := acprun(t, dir, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("acprun %v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.stderr, tt.code, tt.stderr)
			}
			if tt.stdout != "" && !slices.Contains(squashLines(r.stdout), tt.stdout) {
				t.Errorf("acprun %v: no line %q in:\n%s", tt.args, tt.stdout, r.stdout)
			}
		})
	}
	// With --auth the same agent opens its session.
	r := acprun(t, dir, "probe", "--auth", "api-key", "--", acprunBin, "mock-agent", "auth.mock.yaml")
	if r.code != 0 || !slices.Contains(squashLines(r.stdout), "authenticated: api-key") {
		t.Errorf("probe --auth api-key: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestProbeSaysItsFailureWhenOutputFails: a probe whose agent failed and
// whose -o could not be written says both, the agent's stderr first, and
// exits 4; it said only that -o was not written.
func TestProbeSaysItsFailureWhenOutputFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := charDevice(t, dir, "full", 7)
	r := acprun(t, dir, "probe", "-o", full, "--", "sh", "-c", "echo oops >&2; exit 1")
	want := "agent stderr (last lines):\n| oops\n" +
		"acprun: the agent exited with code 1 before answering initialize\n" +
		"acprun: -o " + full + ": write " + full + ": no space left on device; the probe's JSON was not written\n"
	if r.code != exitOutput || r.stderr != want {
		t.Errorf("probe -o %s of a failing agent: exit %d, stderr %q; want %d and %q", full, r.code, r.stderr, exitOutput, want)
	}
	assertCharDevice(t, full)
}

// TestProbeSaysItsFailureWhenStdoutFails: a probe whose agent failed and
// whose stdout could not be written (> /dev/full) says both, the agent's
// stderr first, and exits 4, as for -o; it said only the write's error.
func TestProbeSaysItsFailureWhenStdoutFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := charDevice(t, dir, "full", 7)
	for _, asJSON := range []bool{false, true} {
		args := []string{"probe", "--", "sh", "-c", "echo oops >&2; exit 1"}
		want := "agent stderr (last lines):\n| oops\n"
		if asJSON {
			args = append([]string{"probe", "--json"}, args[1:]...)
			want = ""
		}
		want += "acprun: the agent exited with code 1 before answering initialize\n" +
			"acprun: write /dev/stdout: no space left on device\n"
		stdout, err := os.OpenFile(full, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(acprunFor(t), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = stdout, &stderr
		err = cmd.Run()
		stdout.Close()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != exitOutput || stderr.String() != want {
			t.Errorf("acprun %s > %s: exit %d, stderr %q; want %d and %q", strings.Join(args, " "), full, code, stderr.String(), exitOutput, want)
		}
	}
	assertCharDevice(t, full)
}

// TestProbeErrorEscaped: the error a probe ends with on stderr quotes
// what the agent sent with control characters, line breaks and "##["
// escaped, as the rest of the probe's output has them: the agent's escape
// sequence reached the terminal, and its line break began a line of its own
// (::error::, a GitHub workflow command).
func TestProbeErrorEscaped(t *testing.T) {
	t.Parallel()
	answer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom ##[error]x \u001b[31mred\n::error::y"}}`
	r := acprun(t, t.TempDir(), "probe", "--", "/bin/sh", "-c", `read -r _; printf '%s\n' "$0"; exec cat >/dev/null`, answer)
	want := `acprun: initialize: jsonrpc error -32000: boom #\x23[error]x \x1b[31mred\x0a::error::y` + "\n"
	if r.code != 3 || r.stderr != want {
		t.Errorf("probe of an agent whose error holds controls: exit %d, stderr %q; want 3 and %q", r.code, r.stderr, want)
	}
}

// TestProbeSaysAnExitOneWay: an agent that exits at once, without reading
// its input, is said to have exited every time, never by the broken pipe
// acprun's write of initialize may meet first.
func TestProbeSaysAnExitOneWay(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	for range 10 {
		r := acprun(t, dir, "probe", "--", "sh", "-c", "exit 3")
		if want := "acprun: the agent exited with code 3 before answering initialize\n"; r.code != 3 || !strings.HasSuffix(r.stderr, want) {
			t.Fatalf("probe of an agent that exits at once: exit %d, stderr %q; want 3 and %q", r.code, r.stderr, want)
		}
	}
}

// TestProbeStopsByItsTimeout: --timeout bounds the whole probe, the stop
// of the agent too: one that ignores the end of its input and SIGTERM is
// killed when the time is up, not after two graces of 2s each, and is
// gone when the probe ends. Whether its handshake ends within the second
// is up to the machine; either way the probe ends long before the graces
// would.
func TestProbeStopsByItsTimeout(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"stubborn.mock.yaml": "ignoreEOF: true\nignoreSigterm: true\n"})
	start := time.Now()
	r := acprun(t, dir, "probe", "--timeout", "1s", "--", acprunBin, "mock-agent", "stubborn.mock.yaml")
	if took := time.Since(start); took >= 4*time.Second {
		t.Errorf("probe --timeout 1s took %s (exit %d, stderr %q); want it over soon after 1s", took.Round(time.Millisecond), r.code, r.stderr)
	}
	assertNoProcessesIn(t, dir)
}

// TestProbeFloodListensAtMostThreeSeconds: a probe listens for session
// updates 3s at most, as its help says, an agent that floods it without
// end too (faster than acprun handles them); it listened for as long as
// acprun was behind, 30s, and the agent is gone when it ends.
func TestProbeFloodListensAtMostThreeSeconds(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`
	script := `read -r _; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}'
read -r _; echo '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'
exec yes '` + update + `'`
	start := time.Now()
	r := acprun(t, dir, "probe", "--timeout", "1m", "--", "/bin/sh", "-c", script)
	if r.code != 0 || !strings.Contains(r.stdout, "agent_message_chunk ×") {
		t.Fatalf("probe of a flood: exit %d, want 0 and the flood counted:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// The old wait lasted 30s at least (acprun is behind a flood of yes
	// every time it looks); the bound is that, not a speed: the backlog
	// handled after the 3s takes long on a loaded machine.
	if took := time.Since(start); took >= 30*time.Second {
		t.Errorf("probe of a flood took %s; want 3s of listening, then the agent stopped", took.Round(time.Millisecond))
	}
	assertNoProcessesIn(t, dir)
}

// TestProbeNonACPAgent: a program that prints text, not ACP, fails the
// probe with an error that quotes what it printed, and the probe's
// warnings (text and --json) hold each line as a protocol violation; an
// agent that prints a banner before it speaks ACP probes, warned of it.
func TestProbeNonACPAgent(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		// It reads initialize before it exits: its exit, not the write of
		// initialize, ends the probe.
		"nonacp.sh":        "#!/bin/sh\necho \"Usage: this is not an ACP agent\"\necho \"hello world\"\nread -r _\nexit 1\n",
		"banner.sh":        "#!/bin/sh\necho \"Welcome to agent 1.0\"\nexec " + strconv.Quote(os.Getenv(runner.EnvTestSelf)) + " mock-agent script.mock.yaml\n",
		"script.mock.yaml": probeScript,
	})
	for _, name := range []string{"nonacp.sh", "banner.sh"} {
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	usage := `protocol violation: invalid JSON-RPC message: not a JSON object: "Usage: this is not an ACP agent" (31 bytes)`
	hello := `protocol violation: invalid JSON-RPC message: not a JSON object: "hello world" (11 bytes)`
	only := `; the agent printed no JSON-RPC message, only: "Usage: this is not an ACP agent" and 1 more line` + "\n"

	r := acprun(t, dir, "probe", "--", "./nonacp.sh")
	if r.code != 3 || !strings.HasSuffix(r.stderr, only) {
		t.Errorf("probe: exit %d, stderr %q; want 3, ending %q", r.code, r.stderr, only)
	}
	if want := []string{"command: ./nonacp.sh", "cwd: " + dir, "warning: " + usage, "warning: " + hello}; !slices.Equal(squashLines(r.stdout), want) {
		t.Errorf("probe: stdout\n%s\nwant the lines %q", r.stdout, want)
	}

	r = acprun(t, dir, "probe", "--json", "--", "./nonacp.sh")
	var rep runner.ProbeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 3 {
		t.Fatalf("probe --json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if !slices.Equal(rep.Warnings, []string{usage, hello}) || !strings.HasSuffix(rep.Error+"\n", only) {
		t.Errorf("probe --json: warnings %q, error %q; want %q and one ending %q", rep.Warnings, rep.Error, []string{usage, hello}, only)
	}

	r = acprun(t, dir, "probe", "--", "./banner.sh")
	warning := `warning: protocol violation: invalid JSON-RPC message: not a JSON object: "Welcome to agent 1.0" (20 bytes)`
	if lines := squashLines(r.stdout); r.code != 0 || !slices.Contains(lines, "session: probe-session") || !slices.Contains(lines, warning) {
		t.Errorf("probe of an agent with a banner: exit %d\n%s\n%s\nwant 0 and the line %q", r.code, r.stdout, r.stderr, warning)
	}
}

// TestProbeInterrupted: Ctrl-C during a probe stops it, says so on stderr
// and exits 130; stdout has what the probe found until then.
func TestProbeInterrupted(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		// It says it is running through the FIFO, then waits for its
		// stdin to close. The shell stays to hold its stdout open: with
		// exec, cat's redirection would close it, and acprun would rightly
		// end on EOF before the interrupt arrives.
		"nonacp.sh": "#!/bin/sh\necho \"Usage: this is not an ACP agent\"\necho started > started.fifo\ncat >/dev/null\n",
	})
	if err := os.Chmod(filepath.Join(dir, "nonacp.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	mkfifos(t, dir, "started.fifo")
	ctx, cancel := context.WithTimeout(t.Context(), fifoDeadline)
	defer cancel()
	run := startWatched(t, ctx, dir, "probe", "--", "./nonacp.sh")
	started := make(chan error, 1)
	go func() {
		_, err := os.ReadFile(filepath.Join(dir, "started.fifo")) // until the agent has written it
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the agent never started")
	}
	res := run.interruptOnce()
	if res.code != exitInterrupted || !strings.HasSuffix(res.stderr, "acprun: interrupted\n") {
		t.Errorf("exit %d, stderr %q; want %d and acprun: interrupted", res.code, res.stderr, exitInterrupted)
	}
	if lines := squashLines(res.stdout); !slices.Contains(lines, "command: ./nonacp.sh") {
		t.Errorf("stdout lacks the probe's command:\n%s", res.stdout)
	}
}

// TestAgentsWarnsOfWhatARunRefuses: acprun agents lists a config agent
// whose program a variable unset here gives, with a warning at the
// config's word (exit 0), as probe says it (exit 2); the table showed the
// program as an empty word and said nothing.
func TestAgentsWarnsOfWhatARunRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n  v:\n    command: [\"${ACPRUN_E2E_UNSET_PROG}\", acp]\n"})
	want := "acprun.yaml:3:16: warning: environment variable ACPRUN_E2E_UNSET_PROG is not set (write ${ACPRUN_E2E_UNSET_PROG:-default} to give a default)\n"
	r := acprun(t, dir, "agents")
	if r.code != 0 || r.stderr != want || !hasLinePrefix(squashLines(r.stdout), "v '' acp") {
		t.Errorf("agents: exit %d, stderr %q; want 0, %q and v listed:\n%s", r.code, r.stderr, want, r.stdout)
	}
	if r := acprun(t, dir, "probe", "v"); r.code != 2 || !strings.Contains(r.stderr, strings.TrimSuffix(strings.Replace(want, "warning: ", "", 1), "\n")) {
		t.Errorf("probe v: exit %d, stderr %q; want 2 and the same problem", r.code, r.stderr)
	}
}

// TestAgentsWarnsOfEachProblem: a config agent with a variable unset here
// and a cwd that does not exist gets a warning for each from acprun
// agents, and probe says both; the variable's hid the cwd's. A cwd that
// the unset variable gives has the variable's problem alone.
func TestAgentsWarnsOfEachProblem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"acprun.yaml": "agents:\n" +
		"  v:\n    command: [\"${ACPRUN_E2E_UNSET_PROG}\", acp]\n    cwd: nodir\n" +
		"  w:\n    command: [a]\n    cwd: \"${ACPRUN_E2E_UNSET_PROG}/x\"\n"})
	unset := func(line, col int) string {
		return fmt.Sprintf("acprun.yaml:%d:%d: warning: environment variable ACPRUN_E2E_UNSET_PROG is not set (write ${ACPRUN_E2E_UNSET_PROG:-default} to give a default)\n", line, col)
	}
	cwd := "acprun.yaml:4:10: warning: agent cwd " + filepath.Join(dir, "nodir") + " does not exist: create that directory, or change cwd (a relative cwd is relative to " + dir + ")\n"
	want := unset(3, 16) + cwd + unset(7, 11)
	r := acprun(t, dir, "agents")
	if r.code != 0 || r.stderr != want {
		t.Errorf("agents: exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
	r = acprun(t, dir, "probe", "v")
	for _, w := range []string{unset(3, 16), cwd} {
		if w = strings.Replace(w, "warning: ", "", 1); r.code != 2 || !strings.Contains(r.stderr, w) {
			t.Errorf("probe v: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, w)
		}
	}
}
