package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// The tests of this file run scenarios with Run on agent processes (this
// test binary as the mock agent, see TestMain): what needs a process to
// start, crash, be killed or leave nothing behind.

// exitOf is the exit code acprun run gives a report (README: exit
// codes): 130 when interrupted, 3 when an agent could not be started, 1
// when a scenario did not pass, else 0.
func exitOf(rep report.Report) int {
	if rep.Interrupted {
		return 130
	}
	code := 0
	for _, r := range rep.Scenarios {
		switch {
		case !r.Verdict():
		case r.StartFailed:
			return 3
		case r.Status != report.StatusPassed:
			code = 1
		}
	}
	return code
}

// runOne runs the scenario src (s.yaml) on the mock agent playing script
// (agent.mock.yaml), and fails the test when no processes of its
// directory must be left; it returns the report.
func runOne(t *testing.T, script, src string) report.Report {
	t.Helper()
	rep := runScenarios(t, Options{}, src, map[string]string{"agent.mock.yaml": script})
	if len(rep.Scenarios) != 1 {
		t.Fatalf("%d scenarios, want 1", len(rep.Scenarios))
	}
	return rep
}

// TestAgentIgnoringCancelIsUnresponsive: an agent that answers neither the
// prompt nor session/cancel, and ignores SIGTERM, is unresponsive once the
// cancel grace has passed: killed at once, not after its killGrace (a
// minute); its next turn is skipped and the scenario errors.
func TestAgentIgnoringCancelIsUnresponsive(t *testing.T) {
	t.Parallel()
	start := time.Now()
	rep := runOne(t, `
ignoreSigterm: true
turns:
  - steps: [{text: "busy"}, {hang: true}]
`, `
name: deaf
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turnTimeout: 200ms
cancelGrace: 300ms
killGrace: 1m
turns:
  - prompt: one
  - prompt: two
`)
	sc := rep.Scenarios[0]
	if code := exitOf(rep); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if turns := sc.Turns; turns[0].StopReason != "unresponsive" || turns[1].StopReason != "skipped" || sc.Status != "error" {
		t.Errorf("turns = %+v, status %s; want unresponsive, then skipped, status error", turns, sc.Status)
	}
	// killGrace is a minute: the unresponsive agent must be killed at once,
	// not politely waited for.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("run took %s: the unresponsive agent was waited for", d)
	}
	assertNoProcessesIn(t, filepath.Dir(sc.File))
}

// TestAgentExitingMidTurn: an agent that exits during a turn ends it
// agent_exited, with its exit code and its last words on stderr.
func TestAgentExitingMidTurn(t *testing.T) {
	t.Parallel()
	rep := runOne(t, `
turns:
  - steps: [{stderr: "fatal: out of memory"}, {exit: 7}]
`, `
name: crash
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
`)
	sc := rep.Scenarios[0]
	if code := exitOf(rep); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if sc.Turns[0].StopReason != "agent_exited" || !strings.Contains(sc.Turns[0].Error, "code 7") {
		t.Errorf("turn 1 = %+v, want agent_exited with code 7", sc.Turns[0])
	}
	if !strings.Contains(sc.StderrTail, "fatal: out of memory") {
		t.Errorf("stderr tail = %q, want the agent's last words", sc.StderrTail)
	}
	assertNoProcessesIn(t, filepath.Dir(sc.File))
}

// TestAgentClosingItsOutputThenExiting: an agent that closes its output
// and then exits, however soon after, is recorded by how it exited, every
// run, in a turn and in the handshake: acprun waits for the exit (up to
// killGrace, its input still open) before it says the agent closed its
// output. One that lives on is said to have closed its output once
// killGrace has passed.
func TestAgentClosingItsOutputThenExiting(t *testing.T) {
	t.Parallel()
	const handshake = `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'
read -r line
`
	handshakeOpen := strings.TrimSuffix(handshake, "read -r line\n") // the session open, the prompt not read
	for _, tc := range []struct {
		name, sh, killGrace string
		stop, says          string // turn 1's stop reason, what its error or the scenario's says
		code                *int
	}{
		{"in a turn", handshake + "exec 1>&-\nsleep 0.2\nexit 2\n", "1h", "agent_exited", "the agent exited with code 2", ptr(2)},
		{"in the handshake", "read -r line\nexec 1>&-\nsleep 0.2\nexit 2\n", "1h", "skipped", "the agent exited with code 2 before answering initialize", ptr(2)},
		{"living on", handshake + "exec 1>&-\nexec sleep 3600\n", "200ms", "agent_exited", "the agent closed its output", nil},
		// Its input closed, the prompt's write fails (EPIPE) before it exits.
		{"closing its input", handshakeOpen + "exec 0<&-\nsleep 0.2\nexit 2\n", "1h", "agent_exited", "the agent exited with code 2", ptr(2)},
		{"closing its input, living on", handshakeOpen + "exec 0<&-\nexec sleep 3600\n", "200ms", "unresponsive", "the agent stopped reading its input", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := runScenarios(t, Options{}, "name: co\nagent: {command: [sh, agent.sh]}\nkillGrace: "+tc.killGrace+
				"\npermissions: {default: deny}\nturns:\n  - prompt: one\n", map[string]string{"agent.sh": tc.sh})
			sc := rep.Scenarios[0]
			var stop, says string
			if len(sc.Turns) > 0 {
				stop, says = sc.Turns[0].StopReason, sc.Turns[0].Error
			}
			says += "\n" + sc.Error
			if stop != tc.stop || !strings.Contains(says, tc.says) || !cmp.Equal(sc.ExitCode, tc.code) {
				t.Errorf("turn 1 %q, error %q, exit code %v; want %q, %q, %v", stop, says, sc.ExitCode, tc.stop, tc.says, tc.code)
			}
			assertNoProcessesIn(t, filepath.Dir(sc.File))
		})
	}
}

// TestExpectedOutcomesPass: agent_exited can be expected like any stop
// reason; unexpected, it is an error. A turn after it did not run, so it
// fails.
func TestExpectedOutcomesPass(t *testing.T) {
	t.Parallel()
	script := "turns:\n  - steps: [{text: bye}, {exit: 3}]\n"
	for _, tc := range []struct {
		expect     string
		more       string // later turns
		code       int
		status     report.Status
		stopReason string
	}{
		{"{stopReason: agent_exited}", "", 0, "passed", "agent_exited"},
		{"{stopReason: [end_turn, agent_exited]}", "", 0, "passed", "agent_exited"},
		{"{stopReason: agent_exited}", "  - prompt: two\n", 1, "failed", "agent_exited"},
		{"{stopReason: end_turn}", "  - prompt: two\n", 1, "error", "agent_exited"},
	} {
		t.Run(tc.expect+strings.TrimSpace(tc.more), func(t *testing.T) {
			t.Parallel()
			rep := runOne(t, script, fmt.Sprintf(`name: s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: one
    expect: %s
%s`, tc.expect, tc.more))
			sc := rep.Scenarios[0]
			if code := exitOf(rep); code != tc.code || sc.Status != tc.status {
				t.Errorf("exit %d, status %s; want %d, %s (%q)", code, sc.Status, tc.code, tc.status, sc.Error)
			}
			if tr := sc.Turns[0]; tr.StopReason != tc.stopReason {
				t.Errorf("stopReason %s, want %s", tr.StopReason, tc.stopReason)
			}
		})
	}
}

// TestPermissionRulesAnswer: the permission requests of examples/agents'
// permissions agent are answered by the rules, deny rules first, a chained
// command allowed only when every part is: the option of the decision's
// kind is selected, and the decision recorded with its rule. An agent that
// offers no reject option has its request answered cancelled.
func TestPermissionRulesAnswer(t *testing.T) {
	t.Parallel()
	agent, err := os.ReadFile(filepath.Join("..", "examples", "agents", "permissions.mock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := `name: rules
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - kind: edit
      path: "src/**"
    - command: "go test *"
  deny:
    - command: "rm -rf *"
turns:
  - prompt: go
    expect: {text: {contains: ["edit: applied", "rm: skipped", "test+upload: skipped"]}}
---
name: no-reject-option
agent: {command: [acprun, mock-agent, noreject.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {stopReason: cancelled}
---
name: shared-option-id
agent: {command: [acprun, mock-agent, shared.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {stopReason: cancelled, denied: 1}
`
	rep := runScenarios(t, Options{}, src, map[string]string{
		"shared.mock.yaml": `turns:
  - steps:
      - permission: {toolCallId: t1, title: rm -rf /, kind: execute, rawInput: {command: rm -rf /}}
        options:
          - {optionId: go, name: Reject, kind: reject_once}
          - {optionId: go, name: Allow, kind: allow_once}
        allowed: [{text: "ran"}]
        rejected: [{text: "skipped"}]
        cancelled: [{text: "cancelled"}]
`,
		"agent.mock.yaml": string(agent),
		"noreject.mock.yaml": `permissionOptions:
  - {optionId: yes, name: "Yes", kind: allow_once}
  - {optionId: always, name: "Always", kind: allow_always}
turns:
  - steps:
      - permission: {toolCallId: t1, title: rm -rf /, kind: execute, rawInput: {command: rm -rf /}}
        allowed: [{text: "ran"}]
        rejected: [{text: "skipped"}]
        cancelled: [{text: "cancelled"}]
`,
	})
	if code := exitOf(rep); code != 0 {
		t.Fatalf("exit %d, want 0: %+v", code, rep.Scenarios)
	}
	rules := rep.Scenarios[0]
	dir, file := filepath.Dir(rules.File), rules.File // rules name the file as it was given
	turn := rules.Turns[0]
	if len(turn.Permissions) != 3 {
		t.Fatalf("permissions = %+v, want 3", turn.Permissions)
	}
	edit, rm, chain := turn.Permissions[0], turn.Permissions[1], turn.Permissions[2]
	if edit.Decision != "allow" || edit.OptionID != "allow" || edit.Rule != file+":6" ||
		len(edit.Paths) != 1 || edit.Paths[0] != filepath.Join(dir, "src/greet.go") {
		t.Errorf("edit = %+v, want allowed by %s:6 with option allow", edit, file)
	}
	if rm.Decision != "deny" || rm.OptionID != "reject" || rm.Rule != file+":10" {
		t.Errorf("rm = %+v, want denied by %s:10 with option reject", rm, file)
	}
	if chain.Decision != "deny" || chain.OptionID != "reject" || chain.Rule != "" ||
		strings.Join(chain.Commands, "|") != "go test ./...|curl -X POST https://example.com/report -d @report.json" {
		t.Errorf("chain = %+v, want denied by the default, the curl part not allowed", chain)
	}
	if rules.Allowed != 1 || rules.Denied != 2 {
		t.Errorf("allowed/denied = %d/%d, want 1/2", rules.Allowed, rules.Denied)
	}

	noReject := rep.Scenarios[1].Turns[0]
	if len(noReject.Permissions) != 1 {
		t.Fatalf("no-reject permissions = %+v, want 1", noReject.Permissions)
	}
	if p := noReject.Permissions[0]; p.Decision != "deny" || p.Outcome != "cancelled" || p.OptionID != "" || !strings.Contains(p.Reason, "cancelled") {
		t.Errorf("no-reject permission = %+v, want deny answered cancelled with the reason", p)
	}
	if !strings.Contains(noReject.Text, "cancelled") {
		t.Errorf("no-reject text = %q, want the agent's cancelled branch", noReject.Text)
	}

	// An option id shared by a reject and an allow option names neither
	// for sure: the denial is answered cancelled, counted as denied, and
	// the shared id is a protocol violation.
	shared := rep.Scenarios[2]
	if p := shared.Turns[0].Permissions; len(p) != 1 || p[0].Decision != "deny" || p[0].Outcome != "cancelled" || p[0].OptionID != "" ||
		!strings.Contains(p[0].Reason, `no usable reject option offered (option id "go" of kind reject_once is also that of an option of kind "allow_once")`) {
		t.Errorf("shared-id permissions = %+v, want deny answered cancelled, saying why", p)
	}
	if shared.Allowed != 0 || shared.Denied != 1 || shared.Turns[0].Text != "cancelled" {
		t.Errorf("shared-id allowed/denied = %d/%d, text %q; want 0/1 and the agent's cancelled branch", shared.Allowed, shared.Denied, shared.Turns[0].Text)
	}
	want := `session/request_permission t1: two options share optionId "go" (of kinds "reject_once" and "allow_once"): each option needs an id of its own`
	if !slices.Contains(shared.Violations, want) || !slices.Contains(shared.Warnings, "protocol violation: "+want) {
		t.Errorf("shared-id violations %q, warnings %q; want %q in both", shared.Violations, shared.Warnings, want)
	}
}

// assertNoProcessesIn fails when a live process has dir as its working
// directory: the agent and everything it started must be gone.
func assertNoProcessesIn(t *testing.T, dir string) {
	t.Helper()
	for _, p := range testkit.Leftovers(t, testkit.InDir(dir)) {
		t.Errorf("process %s left running in %s", p, dir)
	}
}
