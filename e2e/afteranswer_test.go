package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// The tests of this file play, through the built binary, an agent that
// sends or does something right after a prompt's answer (the mock agent's
// after: steps), once at once and once after a pause of its own: the same
// output must get the same results and verdict either way, whichever of
// acprun's goroutines gets there first.

// pauses are the two runs of each test: the step put first in after:.
var pauses = []struct{ name, step string }{
	{"at once", ""},
	{"after a pause", "      - sleep: 20ms\n"},
}

// afterAnswerCase is an agent whose after: steps follow a pause (its
// script has a %s where the pause goes), the scenario it plays, and what
// both runs must give.
type afterAnswerCase struct {
	name     string
	script   string
	scenario string
	files    map[string]string // more files of the run's directory
	status   report.Status
	failures []string // the scenario's, positions relative to its directory
	check    func(t *testing.T, sc report.Result)
}

// runAfterAnswer runs each case with and without the pause, and checks
// that both give the case's status and failures.
func runAfterAnswer(t *testing.T, cases []afterAnswerCase) {
	for _, tc := range cases {
		for _, p := range pauses {
			t.Run(tc.name+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				files := map[string]string{"agent.mock.yaml": fmt.Sprintf(tc.script, p.step), "s.yaml": tc.scenario}
				for name, content := range tc.files {
					files[name] = content
				}
				writeFiles(t, dir, files)
				res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
				sc := out.Scenarios[0]
				if wentOnFirst(t, readTranscript(t, filepath.Join(dir, sc.Transcript))) {
					t.Skip("acprun went on before the agent's first message after its answer came: the agent's pause (its process put off on a loaded machine) outlasted acprun's 100 ms of quiet, which this row does not test")
				}
				var got []string
				for _, f := range sc.Failures {
					got = append(got, strings.ReplaceAll(f, dir+string(filepath.Separator), ""))
				}
				if diff := gocmp.Diff(tc.failures, got); diff != "" || sc.Status != tc.status {
					t.Errorf("exit %d, status %s, want %s; failures (-want +got):\n%s\nstderr:\n%s", res.code, sc.Status, tc.status, diff, res.stderr)
				}
				if tc.check != nil {
					tc.check(t, sc)
				}
			})
		}
	}
}

// wentOnFirst reports whether acprun sent something (the next prompt,
// session/close) after the answer to the first prompt and before the
// agent's next message: the agent's after: steps came after acprun had
// waited out its quiet, a case the rows of runAfterAnswer do not play.
func wentOnFirst(t *testing.T, tr transcript) bool {
	t.Helper()
	prompts := tr.sent("session/prompt")
	if len(prompts) == 0 {
		t.Fatal("no session/prompt in the transcript")
	}
	answered := false
	for _, l := range tr.lines {
		switch {
		case !answered:
			answered = l.Dir == "a2c" && l.ID == prompts[0].ID && l.Method == ""
		case l.Dir == "c2a" && (l.Method != "" || l.ID != ""):
			return true
		case l.Dir == "a2c" && (l.Method != "" || l.ID != ""):
			return false
		}
	}
	return false
}

// TestLateToolCallUpdateVerdict: a tool_call_update after the answer that
// makes a read an execute does not reach the turn's toolCalls checks,
// which see the call as it was at the answer; the results show the late
// values beside it, and the scenario's checks see them.
func TestLateToolCallUpdateVerdict(t *testing.T) {
	t.Parallel()
	runAfterAnswer(t, []afterAnswerCase{{
		name: "kind and title",
		script: `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: Look around, kind: read, status: pending}
      - text: "working"
    after:
%s      - tool_call_update: {toolCallId: t1, kind: execute, title: "rm -rf /", status: completed, rawInput: {command: "rm -rf /"}}
`,
		scenario: `name: late-kind
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow: [{kind: read}]
turns:
  - prompt: go
    expect:
      toolCalls: {notUsed: [execute]}
expect:
  toolCalls: {notUsed: [execute]}
`,
		status:   report.StatusFailed,
		failures: []string{`s.yaml:11:25: toolCalls.notUsed: 1 tool call matches "execute": execute "rm -rf /"`},
		check: func(t *testing.T, sc report.Result) {
			calls := sc.Turns[0].ToolCalls
			if len(calls) != 1 {
				t.Fatalf("turn 1's tool calls: %+v, want t1", calls)
			}
			c := calls[0]
			var late bytes.Buffer
			_ = json.Compact(&late, c.LateRawInput)
			got := []string{c.Kind, c.Title, c.Status, string(c.RawInput), c.LateKind, c.LateTitle, c.LateStatus, late.String()}
			want := []string{"read", "Look around", "pending", "", "execute", "rm -rf /", "completed", `{"command":"rm -rf /"}`}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("t1 (kind, title, status, rawInput, then late) (-want +got):\n%s", diff)
			}
		},
	}})
}

// TestLateUsageVerdict: a usage_update after the answer is the session's,
// not the turn's: the turn's usage.maxCost checks the cost reported before
// the answer, which its usage records, with the late one apart
// (lateUsage); the scenario's budget counts it: over it, the next prompt is
// not sent and the scenario fails naming the budget.
func TestLateUsageVerdict(t *testing.T) {
	t.Parallel()
	runAfterAnswer(t, []afterAnswerCase{{
		name: "turn maxCost",
		script: `turns:
  - steps:
      - usage_update: {used: 100, size: 1000, cost: {amount: 0.1, currency: USD}}
      - text: "cheap"
    after:
%s      - usage_update: {used: 100, size: 1000, cost: {amount: 5.0, currency: USD}}
`,
		scenario: `name: cost
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {usage: {maxCost: 1}}
`,
		status: report.StatusPassed,
		check: func(t *testing.T, sc report.Result) {
			tr := sc.Turns[0]
			if tr.Usage == nil || tr.Usage.Cost != 0.1 || tr.LateUsage == nil || tr.LateUsage.Cost != 5 {
				b, _ := json.Marshal(struct{ Usage, LateUsage *report.Usage }{tr.Usage, tr.LateUsage})
				t.Errorf("turn 1's usage %s; want a cost of 0.1 before the answer, 5 after it", b)
			}
		},
	}, {
		name: "scenario budget",
		script: `turns:
  - steps:
      - text: "spent"
    after:
%s      - usage_update: {used: 1, size: 10, cost: {amount: 5, currency: USD}}
  - steps: [{text: "two"}]
`,
		scenario: `name: b
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
budget: {maxCost: 1}
turns:
  - prompt: one
  - prompt: two
`,
		status: report.StatusFailed,
		failures: []string{
			"turn 2: s.yaml:7:5: not run: the session's cost passed the scenario's budget",
			"s.yaml:4:19: budget.maxCost: the agent reported a session cost of 5 USD after the answer of turn 1, over the scenario's budget of 1 USD; acprun sent no further prompt",
		},
		check: func(t *testing.T, sc report.Result) {
			if st := sc.Turns[1].StopReason; st != report.OutcomeSkipped {
				t.Errorf("turn 2: %s, want skipped", st)
			}
		},
	}})
}

// TestTurnFilesAfterQuiet: a turn's files are checked once the agent has
// gone quiet after its answer (before the next prompt), and the last
// turn's once the agent has stopped: a file the agent writes by itself
// right after answering is seen whole, at once or after a pause.
func TestTurnFilesAfterQuiet(t *testing.T) {
	t.Parallel()
	const script = `turns:
  - steps: [{text: "turn one"}]
    after:
%s      - writeFile: {path: late.txt, content: "written after the answer\n"}
  - steps: [{text: "turn two"}]
`
	head := `name: lw
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: proj}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {files: {absent: [late.txt], unchanged: ["**"]}}
`
	fails := []string{
		`turn 1: s.yaml:7:31: files.absent: "late.txt" exists (a file of 25 bytes)`,
		`turn 1: s.yaml:7:54: files.unchanged: 1 path matching "**" was changed: late.txt`,
	}
	proj := map[string]string{"proj/a.txt": "Hello\n"}
	runAfterAnswer(t, []afterAnswerCase{
		{name: "before the next prompt", script: script, scenario: head + "  - prompt: two\n", files: proj, status: report.StatusFailed, failures: fails},
		{name: "the last turn", script: script, scenario: head, files: proj, status: report.StatusFailed, failures: fails},
	})
}

// TestLateRequestAfterTheEnd: a permission request that the agent sends
// once its input has ended (it offers no session/close, so acprun closes
// its input after the last turn and waits killGrace for it to exit)
// cannot be answered: acprun writes no answer, and records none (the
// request is cancelled, as one the connection closed on, and counts in
// neither allowed nor denied, so expect.maxDenied passes); the call the
// agent then ran is one it ran without permission, a warning.
func TestLateRequestAfterTheEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'
while read -r line; do :; done
printf '%s\n' '{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t9","title":"rm -rf /","kind":"execute","rawInput":{"command":"rm -rf /"}},"options":[{"optionId":"a","name":"a","kind":"allow_once"},{"optionId":"r","name":"r","kind":"reject_once"}]}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t9","status":"completed"}}}'
`,
		"s.yaml": "name: latep\nagent: {command: [sh, agent.sh]}\npermissions: {default: deny}\nturns: [{prompt: go}]\nexpect: {maxDenied: 0}\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	type outcome struct {
		Code             int
		Status           report.Status
		Allowed, Denied  int
		Permissions      []report.Permission
		Warnings, Failed []string
	}
	sc := out.Scenarios[0]
	got := outcome{res.code, sc.Status, sc.Allowed, sc.Denied, sc.Turns[0].Permissions, sc.Warnings, sc.Failures}
	want := outcome{Code: 0, Status: report.StatusPassed,
		Permissions: []report.Permission{{ToolCallID: "t9", Title: "rm -rf /", Kind: "execute", Commands: []string{"rm -rf /"},
			Decision: "cancelled", Outcome: "cancelled", Reason: "the connection closed before the answer", Late: true}},
		Warnings: []string{`turn 1: tool call t9 ("rm -rf /") ran although its permission request was never answered; ` +
			`the policy would have denied it (the default): the policy had no effect on it`}}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("the scenario (-want +got):\n%s\nstderr:\n%s", diff, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "tr", "latep.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(data) {
		var m struct {
			Dir string `json:"dir"`
			Msg struct {
				ID json.RawMessage `json:"id"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("transcript line %s: %v", line, err)
		}
		if m.Dir == "c2a" && string(m.Msg.ID) == "9" {
			t.Errorf("the transcript has an answer to the request: %s", line)
		}
	}
}

// TestPermissionAskedByAnAgentThatDies: an agent that asks, then dies
// (it closed its input first here, so that acprun's answer always finds
// the pipe broken, as it does now and then when an agent crashes right
// after asking) gets the answer recorded and counted as the policy gave
// it: whether the pipe took the line before the agent went is a race, and
// the verdict must not depend on it (expect.denied: 1 held on some runs
// and failed on others).
func TestPermissionAskedByAnAgentThatDies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.sh": shHandshake + `read -r line
exec 0<&-
printf '%s\n' '{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t9","title":"rm -rf /","kind":"execute","rawInput":{"command":"rm -rf /"}},"options":[{"optionId":"a","name":"a","kind":"allow_once"},{"optionId":"r","name":"r","kind":"reject_once"}]}}'
kill -SEGV $$
`,
		"s.yaml": "name: dies\nagent: {command: [sh, agent.sh]}\npermissions: {default: deny}\nturns:\n  - prompt: go\n    expect: {stopReason: agent_exited, denied: 1}\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	want := []report.Permission{{ToolCallID: "t9", Title: "rm -rf /", Kind: "execute", Commands: []string{"rm -rf /"},
		Decision: "deny", OptionID: "r", Outcome: "selected", Reason: "no rule matched; default deny"}}
	if res.code != 0 || sc.Status != report.StatusPassed || sc.Denied != 1 {
		t.Errorf("exit %d, status %s %q, denied %d; want 0, passed, 1\nstderr:\n%s", res.code, sc.Status, sc.Failures, sc.Denied, res.stderr)
	}
	if diff := gocmp.Diff(want, sc.Turns[0].Permissions); diff != "" {
		t.Errorf("turn 1's permissions (-want +got):\n%s", diff)
	}
}
