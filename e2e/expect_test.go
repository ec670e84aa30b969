package e2e_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// End-to-end tests of the eval expectations (toolCalls, files,
// permissions, usage), the judge, the determinism of the file checks
// against late client requests, and pass@k/pass^k, through the binary.

// lateWriterArg, as the only argument of the test binary, makes it the
// late-writer agent instead of running tests (see testAgents): an ACP agent
// that the mock agent cannot play, one whose client request comes after
// the prompt's answer.
const lateWriterArg = "acprun-e2e-late-writer-agent"

// lateWriter plays a minimal ACP agent on in and out: each session/prompt
// is answered end_turn after one text chunk, and right behind the answer,
// on the same stream, it sends fs/write_text_file for lateN.txt in the
// session's cwd, N counting the prompts from 1. It ends at the end of its
// input, so the request is always written before it exits.
func lateWriter(in io.Reader, out io.Writer) int {
	send, sc := agentLines(in, out)
	cwd, session, next := "", "late-writer-1", 1
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cwd string `json:"cwd"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method == "" || m.ID == nil {
			continue // a response to our request, a notification, or noise
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}})
		case "session/new":
			cwd = m.Params.Cwd
			send(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": session}})
		case "session/prompt":
			send(map[string]any{"method": "session/update", "params": map[string]any{"sessionId": session,
				"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "answered"}}}})
			send(map[string]any{"id": m.ID, "result": map[string]any{"stopReason": "end_turn"}})
			send(map[string]any{"id": next, "method": "fs/write_text_file", "params": map[string]any{
				"sessionId": session, "path": filepath.Join(cwd, fmt.Sprintf("late%d.txt", next)), "content": "written late\n"}})
			next++
		default:
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found: " + m.Method}})
		}
	}
	return 0
}

// byName indexes scenario results by name (one attempt each).
func byName(t *testing.T, out report.Results) map[string]report.Result {
	t.Helper()
	m := map[string]report.Result{}
	for _, s := range out.Scenarios {
		if _, dup := m[s.Name]; dup {
			t.Fatalf("two results named %s", s.Name)
		}
		m[s.Name] = s
	}
	return m
}

// posOf returns file:line:col of the value marked by « in at, a piece of
// content that must occur exactly once in it (without the mark).
func posOf(t *testing.T, file, content, at string) string {
	t.Helper()
	mark := strings.Index(at, "«")
	if mark < 0 {
		t.Fatalf("%s: %q has no « mark", file, at)
	}
	needle := strings.Replace(at, "«", "", 1)
	i := strings.Index(content, needle)
	if i < 0 || strings.LastIndex(content, needle) != i {
		t.Fatalf("%s: %q must occur exactly once in\n%s", file, needle, content)
	}
	return lineCol(file, content, i+mark)
}

// wantFailure is one failure a scenario must report: at the value marked
// in at (see posOf), in turn Turn (0: a scenario-level expectation), with
// the message msg after the position. In msg, {ANY} stands for any text.
type wantFailure struct {
	turn int
	at   string
	msg  string
}

// expectCase is a scenario of the expectation table: its file's text and
// the failures it must report (none: it passes).
type expectCase struct {
	name  string
	yaml  string
	fails []wantFailure
}

// anyMatch reports whether s is want, in which {ANY} stands for any text.
func anyMatch(want, s string) bool {
	parts := strings.Split(want, "{ANY}")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(s)
}

// checkFailures compares the failures of a scenario result with want,
// as a set (each want matches exactly one failure).
func checkFailures(t *testing.T, file, content string, got []string, want []wantFailure) {
	t.Helper()
	left := slices.Clone(got)
	for _, w := range want {
		prefix := ""
		if w.turn > 0 {
			prefix = fmt.Sprintf("turn %d: ", w.turn)
		}
		prefix += posOf(t, file, content, w.at) + ": "
		i := slices.IndexFunc(left, func(f string) bool { return anyMatch(prefix+w.msg, f) })
		if i < 0 {
			t.Errorf("%s: no failure %s%s\ngot:\n  %s", file, prefix, w.msg, strings.Join(got, "\n  "))
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	for _, f := range left {
		t.Errorf("%s: unexpected failure %s", file, f)
	}
}

// expectAgent is the agent of most of the table: in its one turn it makes
// a read, an edit (asking permission; allowed, it writes out.txt) and an
// execute tool call, all completed, reports a session cost of 0.25 USD and
// 1200 tokens; after its answer it makes a late delete tool call.
const expectAgent = `turns:
  - steps:
      - tool_call: {toolCallId: r1, title: Read notes.txt, kind: read, status: completed}
      - tool_call: {toolCallId: e1, title: Edit out.txt, kind: edit}
      - permission: {toolCallId: e1}
        allowed:
          - write: {path: out.txt, content: "hello world\nsecond line\n"}
          - tool_call_update: {toolCallId: e1, status: completed}
        rejected:
          - tool_call_update: {toolCallId: e1, status: failed}
      - tool_call: {toolCallId: x1, title: go test ./..., kind: execute, status: completed}
      - usage_update: {used: 100, size: 1000, cost: {amount: 0.25, currency: USD}}
      - text: done
    usage: {inputTokens: 1000, outputTokens: 200}
    after:
      - tool_call: {toolCallId: late1, title: Late delete, kind: delete, status: completed}
`

// expectHead starts a scenario on the expectAgent with a workspace.
func expectHead(name string) string {
	return "name: " + name + `
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny, allow: [{kind: edit}]}
`
}

// The calls of expectAgent's turn, as failure messages list them.
const turnCalls = `the turn's tool calls: read "Read notes.txt", edit "Edit out.txt", execute "go test ./..."`

var expectCases = []expectCase{
	{name: "toolcalls-turn-pass", yaml: expectHead("toolcalls-turn-pass") + `turns:
  - prompt: go
    expect:
      toolCalls:
        used: [read, "Edit *"]
        notUsed: [delete]
        count: {execute: 1, read: "<=1", "Edit *": ">=1"}
        status: completed
        sequence: [read, edit, execute]
`},
	{name: "toolcalls-turn-fail", yaml: expectHead("toolcalls-turn-fail") + `turns:
  - prompt: go
    expect:
      toolCalls:
        used: [delete]
        notUsed: [edit]
        count: {read: 2, execute: "<=0", "Edit *": ">=2"}
        status: failed
        sequence: [read, delete]
`, fails: []wantFailure{
		{1, "used: [«delete]", `toolCalls.used: no tool call matches "delete" (` + turnCalls + `)`},
		{1, "notUsed: [«edit]", `toolCalls.notUsed: 1 tool call matches "edit": edit "Edit out.txt"`},
		{1, "read: «2", `toolCalls.count: 1 tool call matches "read", want 2 (` + turnCalls + `)`},
		{1, `execute: «"<=0"`, `toolCalls.count: 1 tool call matches "execute", want at most 0 (execute "go test ./...")`},
		{1, `"Edit *": «">=2"`, `toolCalls.count: 1 tool call matches "Edit *", want at least 2 (` + turnCalls + `)`},
		{1, "status: «failed", `toolCalls.status: 3 tool calls of 3 did not end failed: read "Read notes.txt" (completed), edit "Edit out.txt" (completed), execute "go test ./..." (completed)`},
		{1, "sequence: [read, «delete]", `toolCalls.sequence: matched read; no later tool call matches "delete" (` + turnCalls + `)`},
	}},
	// The scenario's tool calls include the late one.
	{name: "toolcalls-scenario-pass", yaml: expectHead("toolcalls-scenario-pass") + `turns: [{prompt: go}]
expect:
  toolCalls:
    used: [delete]
    count: {delete: 1, "*": 4}
    status: completed
    sequence: [read, edit, execute, delete]
`},
	{name: "toolcalls-scenario-fail", yaml: expectHead("toolcalls-scenario-fail") + `turns: [{prompt: go}]
expect:
  toolCalls:
    notUsed: [delete]
    count: {"*": "<=3"}
    sequence: [execute, read]
`, fails: []wantFailure{
		{0, "notUsed: [«delete]", `toolCalls.notUsed: 1 tool call matches "delete": delete "Late delete"`},
		{0, `"*": «"<=3"`, `toolCalls.count: 4 tool calls match "*", want at most 3 (read "Read notes.txt", edit "Edit out.txt", execute "go test ./...", delete "Late delete")`},
		{0, "sequence: [execute, «read]", `toolCalls.sequence: matched execute; no later tool call matches "read" (the scenario's tool calls: read "Read notes.txt", edit "Edit out.txt", execute "go test ./...", delete "Late delete")`},
	}},
	{name: "files-turn-pass", yaml: expectHead("files-turn-pass") + `turns:
  - prompt: go
    expect:
      files:
        exists: [out.txt, keep/a.txt]
        absent: [nope.txt]
        contains: {out.txt: [hello, second]}
        matches: {out.txt: '^hello \w+'}
        unchanged: ["keep/", notes.txt]
        golden: {out.txt: golden/out.txt}
`},
	{name: "files-turn-fail", yaml: expectHead("files-turn-fail") + `turns:
  - prompt: go
    expect:
      files:
        exists: [missing.txt]
        absent: [out.txt]
        contains: {out.txt: goodbye}
        matches: {out.txt: "^bye"}
        unchanged: ["out*"]
        golden: {out.txt: golden/bad.txt}
`, fails: []wantFailure{
		{1, "exists: [«missing.txt]", `files.exists: "missing.txt" does not exist`},
		{1, "absent: [«out.txt]", `files.absent: "out.txt" exists (a file of 24 bytes)`},
		{1, "contains: {out.txt: «goodbye}", `files.contains: "out.txt" does not contain "goodbye" (24 bytes, first line "hello world")`},
		{1, `matches: {out.txt: «"^bye"}`, `files.matches: "out.txt" does not match /^bye/ (24 bytes, first line "hello world")`},
		{1, `unchanged: [«"out*"]`, `files.unchanged: 1 path matching "out*" was changed: out.txt`},
		{1, "golden: {out.txt: «golden/bad.txt}", `files.golden: "out.txt" differs from {ANY}golden/bad.txt: 24 bytes, golden 23 bytes; first difference at byte 13, line 2: "second line", golden "third line"`},
	}},
	{name: "files-scenario-pass", yaml: expectHead("files-scenario-pass") + `turns: [{prompt: go}]
expect:
  files: {exists: [out.txt], contains: {notes.txt: notes}, unchanged: [keep/, notes.txt]}
`},
	{name: "files-scenario-fail", yaml: expectHead("files-scenario-fail") + `turns: [{prompt: go}]
expect:
  files: {absent: [out.txt], contains: {notes.txt: changed}, unchanged: ["*.txt"]}
`, fails: []wantFailure{
		{0, "absent: [«out.txt]", `files.absent: "out.txt" exists (a file of 24 bytes)`},
		{0, "{notes.txt: «changed}", `files.contains: "notes.txt" does not contain "changed" (6 bytes, first line "notes")`},
		{0, `unchanged: [«"*.txt"]`, `files.unchanged: 1 path matching "*.txt" was changed: out.txt`},
	}},
	{name: "permissions-pass", yaml: expectHead("permissions-pass") + `turns:
  - prompt: go
    expect:
      permissions: {requested: [edit], notRequested: [execute]}
expect:
  permissions: {requested: ["Edit *"], notRequested: [delete]}
`},
	{name: "permissions-fail", yaml: expectHead("permissions-fail") + `turns:
  - prompt: go
    expect:
      permissions: {requested: [execute], notRequested: [edit]}
expect:
  permissions: {notRequested: ["Edit *"]}
`, fails: []wantFailure{
		{1, "requested: [«execute]", `permissions.requested: no permission request matches "execute" (the turn's permission requests: edit "Edit out.txt")`},
		{1, "notRequested: [«edit]", `permissions.notRequested: 1 permission request matches "edit": edit "Edit out.txt" (allow)`},
		{0, `notRequested: [«"Edit *"]`, `permissions.notRequested: 1 permission request matches "Edit *": edit "Edit out.txt" (allow)`},
	}},
	// Bounds are inclusive.
	{name: "usage-pass", yaml: expectHead("usage-pass") + `turns:
  - prompt: go
    expect:
      usage: {maxTotalTokens: 1200, maxCost: 0.25}
expect:
  usage: {maxTotalTokens: 1200, maxCost: 0.25}
`},
	{name: "usage-fail", yaml: expectHead("usage-fail") + `turns:
  - prompt: go
    expect:
      usage: {maxTotalTokens: 1199, maxCost: 0.1}
expect:
  usage: {maxTotalTokens: 1000, maxCost: 0.2}
`, fails: []wantFailure{
		{1, "maxTotalTokens: «1199", `usage.maxTotalTokens: 1200 tokens, want at most 1199`},
		{1, "maxCost: «0.1}", `usage.maxCost: the turn cost 0.25 USD, want at most 0.1 USD`},
		{0, "maxTotalTokens: «1000", `usage.maxTotalTokens: 1200 tokens in all turns, want at most 1000`},
		{0, "maxCost: «0.2}", `usage.maxCost: the session cost 0.25 USD, want at most 0.2 USD`},
	}},
	// An agent that reports no usage fails every usage bound.
	{name: "usage-unreported", yaml: `name: usage-unreported
agent: {command: [acprun, mock-agent, silent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      usage: {maxTotalTokens: 100000, maxCost: 100}
expect:
  usage: {maxTotalTokens: 200000, maxCost: 200}
`, fails: []wantFailure{
		{1, "maxTotalTokens: «100000", `usage.maxTotalTokens: the agent reported no token usage; a gateway (gateway: meter) counts the tokens of its model requests`},
		{1, "maxCost: «100}", `usage.maxCost: the agent reported no cost; a gateway (gateway: meter, with the config file's prices) counts what its model requests cost`},
		{0, "maxTotalTokens: «200000", `usage.maxTotalTokens: the agent reported no token usage; a gateway (gateway: meter) counts the tokens of its model requests`},
		{0, "maxCost: «200}", `usage.maxCost: the agent reported no cost; a gateway (gateway: meter, with the config file's prices) counts what its model requests cost`},
	}},
	// The session's cost is cumulative: turn 3's own cost is 0.5 - 0.3,
	// though turn 2 reported no cost in between.
	{name: "usage-cost-per-turn-pass", yaml: `name: usage-cost-per-turn-pass
agent: {command: [acprun, mock-agent, cost.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
  - prompt: three
    expect:
      usage: {maxCost: 0.2}
`},
	{name: "usage-cost-per-turn-fail", yaml: `name: usage-cost-per-turn-fail
agent: {command: [acprun, mock-agent, cost.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
  - prompt: three
    expect:
      usage: {maxCost: 0.15}
`, fails: []wantFailure{
		{3, "maxCost: «0.15", `usage.maxCost: the turn cost 0.2 USD, want at most 0.15 USD (the session's cost went from 0.3 USD to 0.5 USD)`},
	}},
}

// TestExpectEveryKind runs the table of expectation scenarios in one
// acprun invocation and checks each scenario's status and failures: every
// failure starts with the position of the failing value and names what the
// agent did.
func TestExpectEveryKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"agent.mock.yaml":    expectAgent,
		"silent.mock.yaml":   "turns:\n  - steps: [{text: nothing to report}]\n",
		"cost.mock.yaml":     "turns:\n  - steps: [{usage_update: {used: 1, size: 10, cost: {amount: 0.3, currency: USD}}}, {text: one}]\n  - steps: [{text: two}]\n    usage: {inputTokens: 10, outputTokens: 5}\n  - steps: [{usage_update: {used: 1, size: 10, cost: {amount: 0.5, currency: USD}}}, {text: three}]\n",
		"fixture/notes.txt":  "notes\n",
		"fixture/keep/a.txt": "kept\n",
		"golden/out.txt":     "hello world\nsecond line\n",
		"golden/bad.txt":     "hello world\nthird line\n",
	}
	for _, c := range expectCases {
		files[c.name+".yaml"] = c.yaml
	}
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, ".", "-j", "4")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (some scenarios fail)\n%s", res.code, res.stderr)
	}
	got := byName(t, out)
	if len(got) != len(expectCases) {
		t.Errorf("%d results, want %d", len(got), len(expectCases))
	}
	for _, c := range expectCases {
		r, ok := got[c.name]
		if !ok {
			t.Errorf("%s: no result", c.name)
			continue
		}
		want := report.StatusPassed
		if len(c.fails) > 0 {
			want = report.StatusFailed
		}
		if r.Status != want {
			t.Errorf("%s: status %s, want %s (error %q, failures %q)", c.name, r.Status, want, r.Error, r.Failures)
		}
		checkFailures(t, c.name+".yaml", c.yaml, r.Failures, c.fails)
		// Turn-level failures are in the turn's record too, unprefixed.
		var inTurn []string
		for _, tr := range r.Turns {
			inTurn = append(inTurn, tr.Failures...)
		}
		n := 0
		for _, w := range c.fails {
			if w.turn > 0 {
				n++
			}
		}
		if len(inTurn) != n {
			t.Errorf("%s: %d failures in the turns' records, want %d: %q", c.name, len(inTurn), n, inTurn)
		}
	}
}

// judgeScript answers by what its prompt (the rubric, the reply and the
// changes) holds.
const judgeScript = `turns:
  - match: 'custom-rubric'
    steps: [{text: "VERDICT: ok"}]
  - match: 'mixed-rubric'
    steps: [{text: "FAIL\n- PASS: the fix is minimal\n- FAIL: the API changed"}]
  - match: 'markup-rubric'
    steps: [{text: "\n**PASS**. The fix is minimal."}]
  - match: 'underscore-rubric'
    steps: [{text: "__PASS__\nThe fix is minimal."}]
  - match: 'italic-rubric'
    steps: [{text: "_PASS_ The fix is minimal."}]
  - match: 'underscore-fail-rubric'
    steps: [{text: "__FAIL__\n__PASS__ would need the API kept."}]
  - match: 'preamble-rubric'
    steps: [{text: "Let me look at the changes.\nPASS"}]
  - match: 'slow-rubric'
    steps: [{waitForCancel: true}]
  - match: 'crash-rubric'
    steps: [{exit: 1}]
  - match: 'refusal-rubric'
    stopReason: refusal
    steps: [{text: "I cannot judge this."}]
  - match: 'late-verdict-rubric'
    onCancel: end_turn
    steps: [{text: "PASS"}, {waitForCancel: true}]
  - match: 'leak-rubric'
    steps: [{text: "PASS\n"}, {read: {path: leak.txt}}]
  - match: 'write-rubric'
    steps:
      - text: "PASS anyway\n"
      - write: {path: notes.txt, content: "overwritten by the judge\n"}
  - match: 'modified: notes\.txt'
    steps: [{text: "PASS\nnotes.txt was edited."}]
default:
  steps: [{text: "FAIL\nnothing was changed."}]
`

// judgeCase is a scenario of the judge table.
type judgeCase struct {
	name, agent, expect string // expect: the expect block, at turn (turnLevel) or scenario level
	env                 string // the agent's env, a flow mapping
	turnLevel           bool
	fail                *wantFailure // nil: it passes
	err                 string       // set: the judge gave no verdict, and the attempt is an error ending so
}

func (c judgeCase) yaml() string {
	env := ""
	if c.env != "" {
		env = ", env: " + c.env
	}
	s := "name: " + c.name + "\nagent: {command: [acprun, mock-agent, " + c.agent + ".mock.yaml]" + env + "}\nworkspace: {from: fixture}\npermissions: {default: deny}\n"
	if c.turnLevel {
		return s + "turns:\n  - prompt: edit notes.txt\n    expect:\n" + indent(c.expect, "      ") + "expect:\n  files: {contains: {notes.txt: \"notes\\n\"}}\n"
	}
	return s + "turns: [{prompt: edit notes.txt}]\nexpect:\n" + indent(c.expect, "  ")
}

func indent(s, by string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}

const judgeAgent = "agent: {command: [acprun, mock-agent, judge.mock.yaml]}"

var judgeCases = []judgeCase{
	// The agent edits notes.txt: the judge's prompt says so, and it passes.
	{name: "judge-pass", agent: "editor", expect: "judge:\n  " + judgeAgent + "\n  rubric: notes.txt was edited.\n"},
	{name: "judge-fail", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: notes.txt was edited.}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /\A[\W_]*PASS(?:[\W_]|\z)/: "FAIL nothing was changed."`}},
	{name: "judge-turn-fail", agent: "idle", turnLevel: true, expect: "judge: {" + judgeAgent + ", rubric: notes.txt was edited.}\n",
		fail: &wantFailure{1, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /\A[\W_]*PASS(?:[\W_]|\z)/: "FAIL nothing was changed."`}},
	{name: "judge-custom-pass", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: custom-rubric, pass: '^VERDICT: ok$'}\n"},
	{name: "judge-custom-fail", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: anything, pass: '^APPROVED'}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /^APPROVED/: "FAIL nothing was changed."`}},
	// The default pass pattern wants PASS as the reply's first word.
	{name: "judge-default-pass-fail", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: custom-rubric}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /\A[\W_]*PASS(?:[\W_]|\z)/: "VERDICT: ok"`}},
	// The verdict is the reply's first word, as the judge's prompt asks:
	// per-criterion "- PASS: …" lines after a FAIL do not pass it, and
	// neither does a PASS after other words.
	{name: "judge-mixed-fail", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: mixed-rubric}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /\A[\W_]*PASS(?:[\W_]|\z)/: "FAIL - PASS: the fix is minimal - FAIL: the API changed"`}},
	{name: "judge-markup-pass", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: markup-rubric}\n"},
	// Underscores are markup too: __PASS__ and _PASS_ pass as **PASS**
	// does, and __FAIL__ still fails.
	{name: "judge-underscore-bold-pass", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: underscore-rubric}\n"},
	{name: "judge-underscore-italic-pass", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: italic-rubric}\n"},
	{name: "judge-underscore-fail", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: underscore-fail-rubric}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /\A[\W_]*PASS(?:[\W_]|\z)/: "__FAIL__ __PASS__ would need the API kept."`}},
	{name: "judge-preamble-fail", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: preamble-rubric}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml: the reply does not match /\A[\W_]*PASS(?:[\W_]|\z)/: "Let me look at the changes. PASS"`}},
	// A pass pattern of one's own keeps its meaning: (?m)^ is any line.
	{name: "judge-custom-any-line", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: mixed-rubric, pass: '(?m)^- PASS'}\n"},
	// A judge that gives no verdict, as it did not start, crashed or timed
	// out, makes the attempt an error, not a failure of the work.
	{name: "judge-no-start", agent: "idle", expect: "judge: {agent: {command: [/nonexistent/judge-agent]}, rubric: anything}\n",
		err: `judge /nonexistent/judge-agent gave no verdict: {ANY}.yaml:{ANY}: agent command /nonexistent/judge-agent: no such file{ANY}`},
	{name: "judge-crash", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: crash-rubric}\n",
		err: `judge acprun mock-agent judge.mock.yaml gave no verdict: {ANY}exit{ANY}`},
	// The judge never answers: its timeout cancels it.
	{name: "judge-timeout", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: slow-rubric, timeout: 1s}\n",
		err: `judge acprun mock-agent judge.mock.yaml gave no verdict: it did not answer within its timeout (1s), so acprun cancelled it; it ended with stopReason cancelled`},
	// A PASS the judge gives only once cancelled is no verdict either.
	{name: "judge-timeout-late-pass", agent: "idle", turnLevel: true, expect: "judge: {" + judgeAgent + ", rubric: late-verdict-rubric, timeout: 1s}\n",
		err: `judge acprun mock-agent judge.mock.yaml gave no verdict: it did not answer within its timeout (1s), so acprun cancelled it; it ended with stopReason end_turn`},
	// A judge that answers with a refusal gave no verdict, and fails it.
	{name: "judge-refusal", agent: "idle", expect: "judge: {" + judgeAgent + ", rubric: refusal-rubric}\n",
		fail: &wantFailure{0, "judge: «{", `judge acprun mock-agent judge.mock.yaml gave no verdict: it ended with stopReason refusal`}},
	// The judge tries to write; its session is read-only. A turn-level
	// judge, so the scenario's files check sees the workspace after it.
	{name: "judge-read-only", agent: "idle", turnLevel: true, expect: "judge: {" + judgeAgent + ", rubric: write-rubric}\n"},
	// The agent leaves its secret in the workspace and the judge reads it:
	// the judge's transcript is redacted of the scenario's secrets too.
	{name: "judge-redacts", agent: "leaker", env: "{LEAKED_VALUE: " + leakedSecret + "}", expect: "judge: {" + judgeAgent + ", rubric: leak-rubric}\n"},
}

// leakedSecret is the agent's env value that the leaker agent writes to
// leak.txt.
const leakedSecret = "e2e-leaked-4f9c1d"

// TestJudgeVerdicts runs the judge table in one invocation, with
// transcripts and kept workspaces.
func TestJudgeVerdicts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"judge.mock.yaml":   judgeScript,
		"editor.mock.yaml":  "turns:\n  - steps: [{write: {path: notes.txt, content: \"edited\\n\"}}, {text: edited it}]\n",
		"idle.mock.yaml":    "turns:\n  - steps: [{text: did nothing}]\n",
		"leaker.mock.yaml":  "turns:\n  - steps: [{write: {path: leak.txt, content: \"token=" + leakedSecret + "\\n\"}}, {text: saved the token}]\n",
		"fixture/notes.txt": "notes\n",
	}
	for _, c := range judgeCases {
		files[c.name+".yaml"] = c.yaml()
	}
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, ".", "-j", "4", "--transcripts", "tr", "--keep-workspaces")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	got := byName(t, out)
	for _, c := range judgeCases {
		r, ok := got[c.name]
		if !ok {
			t.Errorf("%s: no result", c.name)
			continue
		}
		var fails []wantFailure
		want := report.StatusPassed
		switch {
		case c.fail != nil:
			want, fails = report.StatusFailed, []wantFailure{*c.fail}
		case c.err != "":
			want = report.StatusError
			pos := posOf(t, c.name+".yaml", c.yaml(), "judge: «{")
			if !anyMatch(pos+": "+c.err, r.Error) {
				t.Errorf("%s: error %q, want %s: %s", c.name, r.Error, pos, c.err)
			}
		}
		if r.Status != want {
			t.Errorf("%s: status %s, want %s (error %q, failures %q)", c.name, r.Status, want, r.Error, r.Failures)
		}
		checkFailures(t, c.name+".yaml", c.yaml(), r.Failures, fails)
		j := r.Judge
		if c.turnLevel {
			if r.Judge != nil {
				t.Errorf("%s: a scenario-level verdict %+v for a turn-level judge", c.name, r.Judge)
			}
			j = r.Turns[0].Judge
		}
		if j == nil {
			t.Errorf("%s: no judge verdict recorded", c.name)
			continue
		}
		if passed := c.fail == nil && c.err == ""; j.Passed != passed {
			t.Errorf("%s: judge.passed %v, want %v (%+v)", c.name, j.Passed, passed, j)
		}
		// Every judge's session has a transcript of its own.
		suffix := ".judge.jsonl"
		if c.turnLevel {
			suffix = ".judge-turn1.jsonl"
		}
		if j.Transcript != filepath.Join("tr", c.name+suffix) {
			t.Errorf("%s: judge transcript %q, want tr/%s%s", c.name, j.Transcript, c.name, suffix)
		}
	}

	pass := got["judge-pass"].Judge
	if pass != nil && (pass.Text != "PASS\nnotes.txt was edited." || pass.StopReason != "end_turn" || pass.Agent != "acprun mock-agent judge.mock.yaml") {
		t.Errorf("judge-pass: verdict %+v, want the judge's PASS text, end_turn and its command", pass)
	}
	// The judge's transcript holds its prompt: the rubric, the reply and
	// the changes, and its answer.
	tr, err := os.ReadFile(filepath.Join(dir, "tr", "judge-pass.judge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`Rubric:\nnotes.txt was edited.`, `The agent's reply:\nwrite: okedited it`, `modified: notes.txt`, `PASS\nnotes.txt was edited.`} {
		if !strings.Contains(string(tr), want) {
			t.Errorf("judge transcript lacks %q:\n%s", want, tr)
		}
	}
	if main, err := os.ReadFile(filepath.Join(dir, "tr", "judge-pass.jsonl")); err != nil || strings.Contains(string(main), "Rubric:") {
		t.Errorf("the scenario's own transcript (err %v) holds the judge's session", err)
	}
	if j := got["judge-fail"].Judge; j != nil && (j.Text != "FAIL\nnothing was changed." || j.StopReason != "end_turn") {
		t.Errorf("judge-fail: verdict %+v, want its FAIL text and end_turn", j)
	}
	if j := got["judge-no-start"].Judge; j != nil && !strings.Contains(j.Error, "no such file") {
		t.Errorf("judge-no-start: verdict %+v, want the start error", j)
	}
	if j := got["judge-timeout"].Judge; j != nil && j.StopReason != "cancelled" {
		t.Errorf("judge-timeout: verdict %+v, want stopReason cancelled", j)
	}

	// No secret in any output, the judge's transcript included.
	leak := got["judge-redacts"]
	if j := leak.Judge; j != nil && j.Text != "PASS\nread: token=[REDACTED]\n" {
		t.Errorf("judge-redacts: judge text %q, want the file it read redacted", j.Text)
	}
	for _, name := range []string{"out.json", "tr/judge-redacts.jsonl", "tr/judge-redacts.judge.jsonl"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || strings.Contains(string(data), leakedSecret) || !strings.Contains(string(data), "[REDACTED]") {
			t.Errorf("%s (err %v) holds the secret, or no redaction:\n%s", name, err, data)
		}
	}

	// The read-only judge's write was refused, and the workspace kept
	// its file (the scenario's files check passed too).
	ro := got["judge-read-only"]
	if j := ro.Turns[0].Judge; j != nil && (!strings.HasPrefix(j.Text, "PASS anyway\nerror: fs/write_text_file: ") || !strings.Contains(j.Text, "the client is read-only")) {
		t.Errorf("judge-read-only: judge text %q, want its PASS, then its write refused as read-only", j.Text)
	}
	if ro.Workspace == nil {
		t.Fatalf("judge-read-only: no workspace in the result")
	}
	if data, err := os.ReadFile(filepath.Join(ro.Workspace.Path, "notes.txt")); err != nil || string(data) != "notes\n" {
		t.Errorf("judge-read-only: workspace notes.txt = %q (err %v), want it unchanged", data, err)
	}
	if len(ro.Workspace.Modified) != 0 || len(ro.Workspace.Created) != 0 {
		t.Errorf("judge-read-only: workspace changes %+v, want none", ro.Workspace)
	}
}

// TestExpectFilesSeeLateWrites: the agent writes lateN.txt through the
// client right after answering its prompt N. A turn's files check, made
// once the agent has gone quiet (before the next prompt; after the last
// turn, once the agent has stopped), always sees the file of its turn and
// never the next turn's, in every one of 20 parallel attempts; so does the
// scenario's: a request the agent sent before it exited is served before
// its connection closes.
func TestExpectFilesSeeLateWrites(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	scenario := fmt.Sprintf(`name: late-write
agent: {command: [%q, %s]}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: write late
    expect:
      text: {contains: answered}
      files: {absent: [late2.txt], exists: [seed.txt, late1.txt]}
  - prompt: write late again
    expect:
      files: {exists: [late2.txt]}
expect:
  files: {exists: [late1.txt, late2.txt], contains: {late1.txt: "written late", late2.txt: "written late"}}
`, self, lateWriterArg)
	writeFiles(t, dir, map[string]string{"s.yaml": scenario, "fixture/seed.txt": "seed\n"})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "20", "-j", "4")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 20 {
		t.Fatalf("%d results, want 20", len(out.Scenarios))
	}
	for _, r := range out.Scenarios {
		if r.Status != "passed" {
			t.Errorf("attempt %d: %s, failures %q, error %q; want every attempt to pass", r.Attempt, r.Status, r.Failures, r.Error)
		}
		if len(r.Turns) != 2 {
			t.Errorf("attempt %d: %d turns", r.Attempt, len(r.Turns))
			continue
		}
		for i, tr := range r.Turns {
			name := fmt.Sprintf("late%d.txt", i+1)
			reqs := tr.ClientRequests
			if len(reqs) != 1 || reqs[0].Method != "fs/write_text_file" || !reqs[0].Late || reqs[0].Refused != "" || filepath.Base(reqs[0].Path) != name {
				t.Errorf("attempt %d: turn %d's client requests %+v, want the late write of %s, served", r.Attempt, i+1, reqs, name)
			}
		}
		if r.Workspace == nil || !slices.Equal(r.Workspace.Created, []string{"late1.txt", "late2.txt"}) {
			t.Errorf("attempt %d: workspace %+v, want late1.txt and late2.txt created", r.Attempt, r.Workspace)
		}
	}
}

// TestPassKSummaries: with --repeat 4, a scenario that always passes, one
// that always fails and one that passes in exactly 2 of its 4 attempts
// (each attempt takes a distinct ticket, 1 to 4, in verify; odd tickets
// pass), then one scenario against two named agents, a passing and a
// failing one. The JSON summary gives pass@k and pass^k for every k, the
// text summary pass@4 and pass^4 side by side, JUnit both as properties.
func TestPassKSummaries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tickets := filepath.Join(dir, "tickets")
	writeFiles(t, dir, map[string]string{
		"tickets/.keep":          "",
		"pass.mock.yaml":         "turns:\n  - steps: [{text: fine}]\n",
		"fail.mock.yaml":         "turns:\n  - steps: [{text: nope}]\n    stopReason: refusal\n",
		"suite/always-pass.yaml": "name: always-pass\nagent: {command: [acprun, mock-agent, ../pass.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"suite/always-fail.yaml": "name: always-fail\nagent: {command: [acprun, mock-agent, ../fail.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"suite/half.yaml": fmt.Sprintf(`name: half
agent: {command: [acprun, mock-agent, ../pass.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
verify:
  - 'for i in 1 2 3 4; do mkdir %q/$i 2>/dev/null && exit $((1 - i %% 2)); done; exit 2'
`, tickets),
		"matrix/acprun.yaml": "agents:\n  a: {command: [acprun, mock-agent, ../pass.mock.yaml]}\n  b: {command: [acprun, mock-agent, ../fail.mock.yaml]}\n",
		"matrix/s.yaml":      "name: by-agent\nagent: a\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})

	res := acprun(t, dir, "run", "suite", "--repeat", "4", "-j", "4", "-o", "out.json", "--junit", "junit.xml")
	if res.code != 1 {
		t.Errorf("suite: exit %d, want 1\n%s", res.code, res.stderr)
	}
	matrix := acprun(t, filepath.Join(dir, "matrix"), "run", "s.yaml", "--agent", "a", "--agent", "b", "--repeat", "4", "-j", "4", "-o", "out.json", "--junit", "junit.xml")
	if matrix.code != 1 {
		t.Errorf("matrix: exit %d, want 1\n%s", matrix.code, matrix.stderr)
	}

	const sixth = 0.1667 // C(2,2)/C(4,2), rounded as the JSON has it
	type rate struct {
		attempts, passed int
		at, hat          []float64 // k = 1..4
	}
	all := rate{4, 4, []float64{1, 1, 1, 1}, []float64{1, 1, 1, 1}}
	none := rate{4, 0, []float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}}
	half := rate{4, 2, []float64{0.5, 0.8333, 1, 1}, []float64{0.5, sixth, 0, 0}}
	check := func(what, runDir string, stderr string, want map[string]rate, cells []string) {
		t.Helper()
		out := readResults(t, filepath.Join(runDir, "out.json"))
		got := map[string]report.PassRate{}
		for _, p := range out.Summary.PassRates {
			got[p.Scenario+"@"+p.Agent] = p
		}
		if len(got) != len(want) {
			t.Errorf("%s: pass rates for %d scenario×agent, want %d: %+v", what, len(got), len(want), out.Summary.PassRates)
		}
		for key, w := range want {
			p, ok := got[key]
			if !ok {
				t.Errorf("%s: no pass rate for %s", what, key)
				continue
			}
			if p.Attempts != w.attempts || p.Passed != w.passed || p.Rate != w.at[0] {
				t.Errorf("%s: %s: %d/%d passed, rate %v; want %d/%d, rate %v", what, key, p.Passed, p.Attempts, p.Rate, w.passed, w.attempts, w.at[0])
			}
			if diff := cmp.Diff(report.ByK(w.at), p.PassAtK); diff != "" {
				t.Errorf("%s: %s: passAtK (-want +got):\n%s", what, key, diff)
			}
			if diff := cmp.Diff(report.ByK(w.hat), p.PassHatK); diff != "" {
				t.Errorf("%s: %s: passHatK (-want +got):\n%s", what, key, diff)
			}
		}
		for _, c := range cells {
			if !regexp.MustCompile(c).MatchString(stderr) {
				t.Errorf("%s: the text summary has no line /%s/:\n%s", what, c, stderr)
			}
		}
		props := map[string]map[string]string{}
		for key, w := range want {
			props[key] = rateProps(w.attempts, w.passed, w.at, w.hat)
		}
		checkJUnitRates(t, what, filepath.Join(runDir, "junit.xml"), props)
	}
	check("suite", dir, res.stderr, map[string]rate{"always-pass@": all, "always-fail@": none, "half@": half}, []string{
		`(?m)^scenario +pass rate$`,
		`(?m)^always-pass +4/4 \(100%\) pass@4=1\.00 pass\^4=1\.00$`,
		`(?m)^always-fail +0/4 \(0%\) pass@4=0\.00 pass\^4=0\.00$`,
		`(?m)^half +2/4 \(50%\) pass@4=1\.00 pass\^4=0\.00$`,
	})
	check("matrix", filepath.Join(dir, "matrix"), matrix.stderr, map[string]rate{"by-agent@a": all, "by-agent@b": none}, []string{
		`(?m)^scenario +a +b$`,
		`(?m)^by-agent +4/4 \(100%\) pass@4=1\.00 pass\^4=1\.00  0/4 \(0%\) pass@4=0\.00 pass\^4=0\.00$`,
	})
}

// rateProps are the JUnit properties of a repeated scenario with attempts
// attempts, passed of which passed, and pass@k, pass^k for k = 1….
func rateProps(attempts, passed int, at, hat []float64) map[string]string {
	p := map[string]string{"attempts": fmt.Sprint(attempts), "passed": fmt.Sprint(passed), "passRate": fmt.Sprint(at[0])}
	for i := range at {
		p[fmt.Sprintf("pass@%d", i+1)] = fmt.Sprint(at[i])
		p[fmt.Sprintf("pass^%d", i+1)] = fmt.Sprint(hat[i])
	}
	return p
}

// junitCaseName is a testcase's name: scenario, [agent], #attempt (not
// for the first).
var junitCaseName = regexp.MustCompile(`^(\S+)(?: \[(\S+)\])?(?: #[2-9])?$`)

// checkJUnitRates checks that every testcase of the JUnit file carries
// the pass-rate properties of its scenario and agent (want is keyed by
// scenario@agent); testcases are named "scenario [agent] #attempt".
func checkJUnitRates(t *testing.T, what, path string, want map[string]map[string]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: junit: %v\n%s", what, err, data)
	}
	seen := map[string]int{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			m := junitCaseName.FindStringSubmatch(c.Name)
			if m == nil {
				t.Errorf("%s: junit testcase %q: want \"scenario [agent] #attempt\"", what, c.Name)
				continue
			}
			key := m[1] + "@" + m[2]
			w, ok := want[key]
			if !ok {
				t.Errorf("%s: junit testcase %q is none of %v", what, c.Name, slices.Sorted(maps.Keys(want)))
				continue
			}
			seen[key]++
			got := map[string]string{}
			for _, p := range c.Props {
				got[p.Name] = p.Value
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("%s: junit testcase %q properties (-want +got):\n%s", what, c.Name, diff)
			}
		}
	}
	for key := range want {
		if seen[key] != 4 {
			t.Errorf("%s: %d junit testcases for %s, want 4", what, seen[key], key)
		}
	}
}

// TestTextKeepsMessagesApart: a turn's text keeps the agent's messages
// (messageId) apart with a blank line, so that no expectation sees a word
// made of two messages: "…tests pass" and "Now…" do not read "passNow".
func TestTextKeepsMessagesApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - {text: the tests pass, chunks: 2, messageId: m1}\n      - {text: Now I am done., messageId: m2}\n",
		"s.yaml": "name: msgs\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: hi, expect: {text: {matches: '\\bpass\\b', notContains: passNow}}}]\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 || out.Scenarios[0].Turns[0].Text != "the tests pass\n\nNow I am done." {
		t.Errorf("exit %d, text %q; want a pass, the messages a blank line apart\n%s", res.code, out.Scenarios[0].Turns[0].Text, res.stderr)
	}
}

// TestJudgeWithoutVerdictIsRetried: a judge that cannot start gives no
// verdict: each try is an error, which retries runs again, and says so;
// nothing of the work failed.
func TestJudgeWithoutVerdictIsRetried(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nretries: 2\n" +
			"turns: [{prompt: hi}]\nexpect: {judge: {agent: {command: [/nonexistent/judge]}, rubric: x}}\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"s#0:r0:error retried", "s#0:r1:error retried", "s#0:r2:error"}, tries(out)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	for _, sc := range out.Scenarios {
		if !strings.HasPrefix(sc.Error, "s.yaml:6:17: judge /nonexistent/judge gave no verdict: ") || len(sc.Failures) != 0 {
			t.Errorf("try %d: error %q, failures %q; want the judge's error alone", sc.Retry, sc.Error, sc.Failures)
		}
	}
}

// TestFailureBeforeAnErrorIsNotRetried: an attempt that failed an
// expectation (or a judge's FAIL) on a turn the agent answered and then
// errored (a later turn crashed, the scenario's judge crashed) is not run
// again: the failure is the agent's verdict, and the retry that would
// pass would hide it. It stays an error, failures and all, and says why it
// was not retried; an attempt that only crashed is still retried.
func TestFailureBeforeAnErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The first try of each scenario plays its bad script, a retry the
	// good one; the judges read which the agent played.
	pick := func(name string) string {
		return fmt.Sprintf(`[sh, -c, 'if [ -e %[1]s.tried ]; then touch %[1]s.retried; exec "$0" mock-agent good.mock.yaml; else touch %[1]s.tried; exec "$0" mock-agent %[1]s.mock.yaml; fi', %[2]s]`, name, strconv.Quote(acprunBin))
	}
	judge := func(name, bad string) string {
		return fmt.Sprintf(`{agent: {command: [sh, -c, 'if [ -e %s.retried ]; then exec "$0" mock-agent pass.mock.yaml; else exec "$0" mock-agent %s.mock.yaml; fi', %s]}, rubric: right}`, name, bad, strconv.Quote(acprunBin))
	}
	writeFiles(t, dir, map[string]string{
		"good.mock.yaml":    "turns: [{steps: [{text: right answer}]}, {steps: [{text: fine}]}]\n",
		"failed.mock.yaml":  "turns: [{steps: [{text: wrong answer}]}, {steps: [{text: dying}, {exit: 2}]}]\n",
		"judged.mock.yaml":  "turns: [{steps: [{text: right answer}]}, {steps: [{text: fine}]}]\n",
		"crashed.mock.yaml": "turns: [{steps: [{text: right answer}]}, {steps: [{text: dying}, {exit: 2}]}]\n",
		"pass.mock.yaml":    "turns: [{steps: [{text: PASS}]}]\n",
		"fail.mock.yaml":    "turns: [{steps: [{text: FAIL}]}]\n",
		"crash.mock.yaml":   "turns: [{steps: [{text: judging}, {exit: 3}]}]\n",
		"s.yaml": "name: failed\nagent: {command: " + pick("failed") + "}\npermissions: {default: deny}\nretries: 1\n" +
			"turns:\n  - {prompt: one, expect: {text: {contains: right}}}\n  - prompt: two\n---\n" +
			"name: judged\nagent: {command: " + pick("judged") + "}\npermissions: {default: deny}\nretries: 1\n" +
			"turns:\n  - {prompt: one, expect: {judge: " + judge("judged", "fail") + "}}\n  - prompt: two\n" +
			"expect: {judge: " + judge("judged", "crash") + "}\n---\n" +
			"name: crashed\nagent: {command: " + pick("crashed") + "}\npermissions: {default: deny}\nretries: 1\n" +
			"turns:\n  - {prompt: one, expect: {text: {contains: right}}}\n  - prompt: two\n",
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	want := []string{"failed#0:r0:error", "judged#0:r0:error", "crashed#0:r0:error retried", "crashed#0:r1:passed flaky"}
	if diff := cmp.Diff(want, tries(out)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	for _, sc := range out.Scenarios[:2] {
		if len(sc.Failures) == 0 || !strings.HasPrefix(sc.Failures[0], "turn 1: s.yaml:") || sc.Error == "" ||
			!slices.Contains(sc.Warnings, "not retried: turn 1 failed before the error, and a failure is the agent's verdict") {
			t.Errorf("%s: error %q, failures %q, warnings %q; want the error, turn 1's failure, and why it was not retried", sc.Name, sc.Error, sc.Failures, sc.Warnings)
		}
	}
	if s := out.Summary; s.Scenarios != 3 || s.Passed != 1 || s.Errored != 2 || s.Flaky != 1 || s.Retried != 1 {
		t.Errorf("summary: %+v; want 3 scenarios, 1 passed (flaky), 2 errors, 1 retried", s)
	}
	if !strings.Contains(res.stderr, "1 passed, 0 failed, 2 errors, 1 flaky, 1 rerun, 2 warnings") {
		t.Errorf("summary line: want 1 passed, 0 failed, 2 errors, 1 flaky, 1 rerun, 2 warnings\n%s", res.stderr)
	}
}

// TestJudgeAuthHint: --auth authenticates the scenarios' agents, not a
// judge's: a judge that requires authentication says to set the judge's
// agent.auth, which alone is how it authenticates.
func TestJudgeAuthHint(t *testing.T) {
	t.Parallel()
	const auth = "authMethods: [{id: key, name: Key}]\nauthRequired: true\n"
	scenario := func(judgeAuth string) string {
		return "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n" +
			"expect: {judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]" + judgeAuth + "}, rubric: good}}\n"
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": auth + "default: {steps: [{text: done}]}\n",
		"judge.mock.yaml": auth + "default: {steps: [{text: PASS}]}\n",
		"s.yaml":          scenario(""),
		"t.yaml":          scenario(", auth: key"),
	})
	res, out := runResults(t, dir, "s.yaml", "--auth", "key")
	want := "s.yaml:5:25: agent: session/new: the agent requires authentication (set the judge's agent.auth to one of: key): jsonrpc error -32000: Authentication required"
	if sc := out.Scenarios[0]; res.code != exitFailed || sc.Status != report.StatusError || !strings.HasSuffix(sc.Error, want) {
		t.Errorf("exit %d, status %s, error %q; want %d, an error ending %q", res.code, sc.Status, sc.Error, exitFailed, want)
	}
	if res, out := runResults(t, dir, "t.yaml", "--auth", "key"); res.code != exitOK || out.Scenarios[0].Judge == nil || !out.Scenarios[0].Judge.Passed {
		t.Errorf("with the judge's agent.auth: exit %d, judge %+v; want 0, its PASS\n%s", res.code, out.Scenarios[0].Judge, res.stderr)
	}
}

// TestTurnJudgeErrorEndsTheAttempt: a turn's judge that cannot start
// makes the attempt an error and ends it: the later turns are not run
// (skipped, with no failure of their own), and teardown still runs.
func TestTurnJudgeErrorEndsTheAttempt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: one}]}, {steps: [{text: two}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nteardown: [echo cleaned]\n" +
			"turns:\n  - {prompt: one, expect: {judge: {agent: {command: [/nonexistent/judge]}, rubric: x}}}\n  - prompt: two\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != 1 || sc.Status != report.StatusError || !strings.HasPrefix(sc.Error, "s.yaml:6:35: judge /nonexistent/judge gave no verdict: ") {
		t.Errorf("exit %d, status %s, error %q; want 1, an error, the judge's\n%s", res.code, sc.Status, sc.Error, res.stderr)
	}
	if len(sc.Turns) != 2 || sc.Turns[1].StopReason != report.OutcomeSkipped || len(sc.Turns[1].Failures) != 0 {
		t.Errorf("turns %+v; want turn 2 skipped, with no failure", sc.Turns)
	}
	if len(sc.Teardown) != 1 || sc.Teardown[0].Stdout != "cleaned\n" {
		t.Errorf("teardown %+v, want it run", sc.Teardown)
	}
}

// TestErroredAttemptAsksNoJudge: an attempt that is already an error (a
// turn's judge gave no verdict, the agent crashed) does not ask the
// scenario's judge, and says so in its failures; its verify still runs.
// An attempt that only failed still has its judge asked.
func TestErroredAttemptAsksNoJudge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rest = "permissions: {default: deny}\nverify: [echo verified]\n" +
		"expect: {judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: x}}\n"
	writeFiles(t, dir, map[string]string{
		"two.mock.yaml":   "turns: [{steps: [{text: one}]}, {steps: [{text: two}]}]\n",
		"crash.mock.yaml": "turns: [{steps: [{text: one}, {exit: 3}]}]\n",
		"judge.mock.yaml": "turns: [{steps: [{text: PASS}]}]\n",
		"s.yaml": "name: judge-error\nagent: {command: [acprun, mock-agent, two.mock.yaml]}\n" + rest +
			"turns:\n  - {prompt: one, expect: {judge: {agent: {command: [/nonexistent/judge]}, rubric: x}}}\n  - prompt: two\n" +
			"---\nname: crashed\nagent: {command: [acprun, mock-agent, crash.mock.yaml]}\n" + rest + "turns: [{prompt: one}]\n" +
			"---\nname: failed\nagent: {command: [acprun, mock-agent, two.mock.yaml]}\n" + rest +
			"turns: [{prompt: one, expect: {text: {contains: three}}}]\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 1 || len(out.Scenarios) != 3 {
		t.Fatalf("exit %d, %d scenarios; want 1, 3\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	for _, sc := range out.Scenarios {
		status, asked, notAsked := report.StatusError, false, fmt.Sprintf("s.yaml:%d:17: judge not asked: the attempt is an error", sc.Line+4)
		if sc.Name == "failed" {
			status, asked, notAsked = report.StatusFailed, true, ""
		}
		if sc.Status != status || (sc.Judge != nil) != asked {
			t.Errorf("%s: status %s (error %q), judge %+v; want %s, the judge asked %v", sc.Name, sc.Status, sc.Error, sc.Judge, status, asked)
		}
		if notAsked != "" && !slices.Contains(sc.Failures, notAsked) {
			t.Errorf("%s: failures %q, want %q", sc.Name, sc.Failures, notAsked)
		}
		if len(sc.Verify) != 1 || sc.Verify[0].Stdout != "verified\n" {
			t.Errorf("%s: verify %+v, want it run", sc.Name, sc.Verify)
		}
	}
}

// TestToolCallsOutOfReach: the tester's case. Tool call expectations that
// need more calls of a pattern than they allow (used against a count of
// 0, a count of 2 against notUsed, a sequence against a smaller count)
// can never pass: validate and run refuse them at the value written last,
// before any agent starts (exit 2).
func TestToolCallsOutOfReach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns:\n" +
			"  - prompt: one\n    expect: {toolCalls: {count: {edit: 0}, used: [edit]}}\n" +
			"  - prompt: two\n    expect: {toolCalls: {sequence: [edit, read, edit], count: {edit: \"<=1\"}}}\n",
	})
	want := []string{
		`s.yaml:6:51: "edit": used needs a tool call matching it, and count allows none: no run can meet both`,
		`s.yaml:8:70: "edit": sequence needs at least 2 tool calls matching it, and count allows at most 1: no run can meet both`,
	}
	for _, cmd := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, cmd...)
		if res.code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", cmd, res.code, exitUsage, res.stderr)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", cmd, w, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: it ran")
	}
}
