package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// toolNameAgent announces an MCP tool call by name and asks permission for
// it without repeating the name, then asks for a shell call that only the
// permission request names.
const toolNameAgent = `
turns:
  - steps:
      - tool_call: {toolCallId: gh1, title: Create issue, kind: other, name: mcp__github__create_issue}
      - permission: {toolCallId: gh1}
        allowed: [{text: "gh: created. "}]
        rejected: [{text: "gh: refused. "}]
      - permission: {toolCallId: b1, title: "ls -la", kind: execute, name: Bash, rawInput: {command: "ls -la"}}
        allowed:
          - tool_call_update: {toolCallId: b1, status: completed}
          - text: "bash: ran."
        rejected: [{text: "bash: refused."}]
`

// toolNameScenario allows the tool Bash and denies every GitHub MCP tool,
// by name; expect is filled in by each test.
const toolNameScenario = `name: tools
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - tool: Bash
  deny:
    - tool: "mcp__github__*"
turns:
  - prompt: go
    expect:
`

// TestToolNames: rules match the tool's name (the permission request's,
// else the name its tool call was announced with), the results record the
// names of tool calls and permission requests, toolCalls and permissions
// expectations match names, explain --tool shows a made-up request by name
// and explain --transcript says which message gave the name; every message
// acprun sends validates against the ACP schema.
func TestToolNames(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, toolNameAgent, toolNameScenario+`      text: {contains: ["gh: refused.", "bash: ran."]}
      toolCalls: {used: [Bash, "mcp__github__*"], count: {"MCP__*": 1}, sequence: [mcp__github__create_issue, bash]}
      permissions: {requested: [mcp__github__create_issue], notRequested: [Write]}
`, "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	turn := sc.Turns[0]
	if len(turn.ToolCalls) != 2 || turn.ToolCalls[0].Name != "mcp__github__create_issue" || turn.ToolCalls[1].Name != "Bash" {
		t.Errorf("tool calls = %+v, want gh1 named mcp__github__create_issue and b1 named Bash", turn.ToolCalls)
	}
	if len(turn.Permissions) != 2 {
		t.Fatalf("permissions = %+v, want 2", turn.Permissions)
	}
	gh, bash := turn.Permissions[0], turn.Permissions[1]
	if gh.Name != "mcp__github__create_issue" || gh.Decision != "deny" || gh.Rule != "s.yaml:8" ||
		!strings.Contains(gh.Reason, `matched tool "mcp__github__create_issue"`) {
		t.Errorf("gh1's permission = %+v, want denied by s.yaml:8 on the announced name", gh)
	}
	if bash.Name != "Bash" || bash.Decision != "allow" || bash.Rule != "s.yaml:6" {
		t.Errorf("b1's permission = %+v, want allowed by s.yaml:6", bash)
	}
	validateTranscript(t, filepath.Join(dir, sc.Transcript))

	// A made-up request by name, and the recorded one with where its name came from.
	res = acprun(t, dir, "explain", "s.yaml", "--tool", "mcp__github__create_issue")
	if e := explainDecision(t, res); e.verdict != "deny" || e.rule != "s.yaml:8" {
		t.Errorf("explain --tool: %+v, want deny by s.yaml:8", e)
	}
	for _, want := range []string{`request:  kind=- tool="mcp__github__create_issue" title=""`, `tool "mcp__github__create_issue" matches "mcp__github__*"`,
		`tool "mcp__github__create_issue" matches none of ["Bash"]`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("explain --tool lacks %q:\n%s", want, res.stdout)
		}
	}
	res = acprun(t, dir, "explain", "s.yaml", "--transcript", sc.Transcript, "--tool-call", "gh1")
	if e := explainDecision(t, res); e.verdict != "deny" || e.rule != "s.yaml:8" {
		t.Errorf("explain --transcript: %+v, want deny by s.yaml:8", e)
	}
	if !strings.Contains(res.stdout, "title, kind, name: tool_call, line ") {
		t.Errorf("explain --transcript does not say the name came from the tool_call:\n%s", res.stdout)
	}
}

// TestToolNameExpectationsFail: a toolCalls or permissions expectation on a
// tool's name fails the turn when the agent used (or did not use) it,
// naming the calls; an empty tool pattern is an error at its place.
func TestToolNameExpectationsFail(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, toolNameAgent, toolNameScenario+`      toolCalls: {notUsed: [bash], used: [WebFetch]}
      permissions: {notRequested: ["mcp__*"]}
`)
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	fails := strings.Join(out.Scenarios[0].Turns[0].Failures, "\n")
	for _, want := range []string{
		`s.yaml:12:29: toolCalls.notUsed: 1 tool call matches "bash": execute "ls -la" (tool Bash)`,
		`s.yaml:12:43: toolCalls.used: no tool call matches "WebFetch"`,
		`s.yaml:13:36: permissions.notRequested: 1 permission request matches "mcp__*": other "Create issue" (tool mcp__github__create_issue) (deny)`,
	} {
		if !strings.Contains(fails, want) {
			t.Errorf("failures lack %q:\n%s", want, fails)
		}
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(toolNameScenario, "tool: Bash", `tool: ""`, 1) + "      denied: 1\n"})
	res = acprun(t, dir, "validate", "s.yaml")
	if res.code != exitUsage || !strings.Contains(res.stderr, "s.yaml:6:13: empty pattern") {
		t.Errorf("validate: exit %d, want %d with the empty pattern at s.yaml:6:13\n%s", res.code, exitUsage, res.stderr)
	}
}
