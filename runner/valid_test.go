package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// runTree writes files to a new directory (see writeTree) and runs its
// s.yaml (see runDir); it returns the report and the directory.
func runTree(t *testing.T, files map[string]string, opts Options) (report.Report, string) {
	t.Helper()
	return runTreeEdit(t, files, opts, nil)
}

// runTreeEdit is runTree, with edit (when not nil) called on each loaded
// scenario before the run.
func runTreeEdit(t *testing.T, files map[string]string, opts Options, edit func(*scenario.Scenario)) (report.Report, string) {
	t.Helper()
	dir := writeTree(t, files)
	return runDirEdit(t, dir, opts, edit), dir
}

// writeTree writes files (paths with slashes, their directories made) to
// a new directory, and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runDir loads dir's s.yaml and runs it with opts on the mock agent of
// this build, and returns the report.
func runDir(t *testing.T, dir string, opts Options) report.Report {
	t.Helper()
	return runDirEdit(t, dir, opts, nil)
}

// runDirEdit is runDir, with edit (when not nil) called on each loaded
// scenario before the run.
func runDirEdit(t *testing.T, dir string, opts Options, edit func(*scenario.Scenario)) report.Report {
	t.Helper()
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		for i := range scs {
			edit(scs[i])
		}
	}
	opts.Self = agentBin(t)
	opts.WorkspaceDir = t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts, scs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// stops lists the stop reasons of r's turns.
func stops(r report.Result) []string {
	var out []string
	for _, t := range r.Turns {
		out = append(out, t.StopReason)
	}
	return out
}

// protectFixture is a workspace with tests, a verify script and code.
var protectFixture = map[string]string{
	"fixture/tests/a_test.go": "package a // fails\n",
	"fixture/verify.sh":       "exit 1\n",
	"fixture/src/main.go":     "package main // broken\n",
}

// protectScenario protects the tests and the verify script of
// protectFixture; verify fails unless verify.sh is made to pass.
const protectScenario = `name: fix
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
workspace: {from: fixture, protect: [tests/, verify.sh]}
verify: ["sh verify.sh"]
turns:
  - prompt: fix the code
`

// TestTamperedIsInvalid: an agent that changes, creates or deletes a
// protected file makes the attempt invalid (tampered), naming the files,
// and verify does not run; its other changes are its work.
func TestTamperedIsInvalid(t *testing.T) {
	t.Parallel()
	files := map[string]string{"s.yaml": protectScenario, "a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: tests/a_test.go, content: "package a // passes\n"}
      - writeFile: {path: tests/b_test.go, content: "package a\n"}
      - spawn: "rm verify.sh"
      - writeFile: {path: src/main.go, content: "package main // fixed\n"}
      - text: all green
`}
	for k, v := range protectFixture {
		files[k] = v
	}
	rep, dir := runTree(t, files, Options{})
	r := rep.Scenarios[0]
	want := &report.Invalid{Reason: report.InvalidTampered,
		Message: filepath.Join(dir, "s.yaml") + ":4:37: workspace.protect: the agent changed 3 protected files: created tests/b_test.go; modified tests/a_test.go; deleted verify.sh; verify was not run",
		Files:   []string{"tests/a_test.go", "tests/b_test.go", "verify.sh"}}
	if r.Status != report.StatusInvalid || !cmp.Equal(want, r.Invalid) {
		t.Errorf("status %s, invalid %+v (error %q, failures %q); want invalid: %+v", r.Status, r.Invalid, r.Error, r.Failures, want)
	}
	if len(r.Verify) != 0 || len(r.Failures) != 0 {
		t.Errorf("verify %+v, failures %q: want verify not run", r.Verify, r.Failures)
	}
	if r.Workspace == nil || !r.Workspace.Kept {
		t.Errorf("workspace %+v: want it kept, to look at", r.Workspace)
	}
}

// TestChangesListedWhenTheSessionDoesNotOpen: an agent that changed files
// before its session failed to open (a model it does not offer, an exit
// before answering session/new) has its changes listed and its protected
// files checked, as after its last turn. Changes that cannot be listed (it
// removed its workspace) are not known: the lists are nil, never empty.
func TestChangesListedWhenTheSessionDoesNotOpen(t *testing.T) {
	const writes = "updatesBeforeSessionNew:\n  - spawn: \"echo pwned > a.txt; touch created.txt\"\n"
	tests := []struct {
		name, mock, agent, protect string
		status                     report.Status
		created, modified          []string
		invalid                    []string // invalid.files
	}{
		{"model not offered", "models: {currentModelId: small, availableModels: [{modelId: small, name: Small}]}\n" + writes, ", model: big", "",
			report.StatusError, []string{"created.txt"}, []string{"a.txt"}, nil},
		{"model not offered, protected", "models: {currentModelId: small, availableModels: [{modelId: small, name: Small}]}\n" + writes, ", model: big", ", protect: [a.txt]",
			report.StatusInvalid, []string{"created.txt"}, []string{"a.txt"}, []string{"a.txt"}},
		{"exited before session/new", writes + "  - exit: 3\n", "", ", protect: [created.txt]",
			report.StatusInvalid, []string{"created.txt"}, []string{"a.txt"}, []string{"created.txt"}},
		{"workspace removed", "updatesBeforeSessionNew:\n  - spawn: 'rm -rf \"$PWD\"'\n  - exit: 3\n", "", "",
			report.StatusError, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, _ := runTree(t, map[string]string{
				"fixture/a.txt": "hi\n",
				"a.mock.yaml":   tt.mock + "turns: [{steps: [{text: done}]}]\n",
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]" + tt.agent + "}\npermissions: {default: deny}\n" +
					"workspace: {from: fixture" + tt.protect + "}\nturns:\n  - prompt: hi\n",
			}, Options{})
			r := rep.Scenarios[0]
			if r.Status != tt.status || r.Error == "" {
				t.Errorf("status %s (error %q, invalid %+v), want %s and the error", r.Status, r.Error, r.Invalid, tt.status)
			}
			w := r.Workspace
			if w == nil {
				t.Fatal("no workspace in the result")
			}
			if diff := cmp.Diff([][]string{tt.created, tt.modified, nil}, [][]string{w.Created, w.Modified, w.Deleted}, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("created, modified, deleted (-want +got):\n%s", diff)
			}
			if known := w.Error == ""; known != (w.Created != nil && w.Modified != nil && w.Deleted != nil) {
				t.Errorf("workspace error %q with created %#v, modified %#v, deleted %#v: want lists exactly when known", w.Error, w.Created, w.Modified, w.Deleted)
			}
			var files []string
			if r.Invalid != nil {
				files = r.Invalid.Files
			}
			if diff := cmp.Diff(tt.invalid, files); diff != "" {
				t.Errorf("invalid.files (-want +got):\n%s (invalid %+v)", diff, r.Invalid)
			}
		})
	}
}

// TestUntouchedProtectIsValid: an agent that changes only what is not
// protected is measured: verify runs and judges its work. A protected
// file setup made, which the agent leaves alone, is no tampering.
func TestUntouchedProtectIsValid(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"s.yaml": strings.Replace(protectScenario, "verify:", "setup: [\"echo 'exit 0' > verify.sh\"]\nverify:", 1),
		"a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: src/main.go, content: "package main // fixed\n"}
      - writeFile: {path: notes.txt, content: done}
      - text: fixed
`}
	for k, v := range protectFixture {
		files[k] = v
	}
	rep, _ := runTree(t, files, Options{})
	r := rep.Scenarios[0]
	if r.Status != report.StatusPassed || r.Invalid != nil || len(r.Verify) != 1 {
		t.Errorf("status %s, invalid %+v, verify %+v (error %q, failures %q); want passed, verify run", r.Status, r.Invalid, r.Verify, r.Error, r.Failures)
	}
	if diff := cmp.Diff([]string{"src/main.go"}, r.Workspace.Modified); diff != "" {
		t.Errorf("modified (-want +got):\n%s", diff)
	}
}

// TestProtectGlobMatchingNothing: a protect glob that matches no file of
// the workspace the agent starts in still forbids creating one: the
// agent that creates it makes the attempt invalid, and the warning says
// what the glob does rather than that it protects nothing.
func TestProtectGlobMatchingNothing(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"s.yaml": strings.Replace(protectScenario, "protect: [tests/, verify.sh]", "protect: [conftest.py, verify.sh]", 1),
		"a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: conftest.py, content: "import os\n"}
      - text: done
`}
	for k, v := range protectFixture {
		files[k] = v
	}
	rep, dir := runTree(t, files, Options{})
	r := rep.Scenarios[0]
	if r.Status != report.StatusInvalid || r.Invalid == nil || !cmp.Equal(r.Invalid.Files, []string{"conftest.py"}) {
		t.Errorf("status %s, invalid %+v; want invalid (tampered): created conftest.py", r.Status, r.Invalid)
	}
	want := []string{filepath.Join(dir, "s.yaml") + `:4:38: workspace.protect: "conftest.py" matches no file of the workspace yet: ` +
		"it only forbids creating one (check it for a typo: a glob is relative to the workspace's root)"}
	if d := cmp.Diff(want, r.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// TestWrongAgentIsInvalid: an agent whose agentInfo is not what
// expect.agent names makes the attempt invalid (agent) before any session
// is opened: no turn is played, and no failure is counted.
func TestWrongAgentIsInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expect string
		status       report.Status
		message      string
	}{
		{"right", `{name: mock-agent, version: {matches: '^1\.'}}`, report.StatusPassed, ""},
		{"wrong name", "{name: claude-code-acp}", report.StatusInvalid,
			`:5:17: expect.agent: the agent is "mock-agent" 1.2.0, want name "claude-code-acp"`},
		{"wrong version", `{name: mock-agent, version: {matches: '^2\.'}}`, report.StatusInvalid,
			`:5:38: expect.agent: the agent is "mock-agent" 1.2.0, want version /^2\./`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var sent []string
			opts := Options{tap: func(d acp.Direction, line []byte, _ time.Time) {
				if d == acp.Sent {
					var m struct{ Method string }
					_ = json.Unmarshal(line, &m)
					mu.Lock()
					sent = append(sent, m.Method)
					mu.Unlock()
				}
			}}
			rep, dir := runTree(t, map[string]string{
				"a.mock.yaml": "agentInfo: {name: mock-agent, version: 1.2.0}\nturns: [{steps: [{text: hi}]}]\n",
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n" +
					"expect:\n  agent: " + tt.expect + "\nturns:\n  - prompt: one\n  - prompt: two\n",
			}, opts)
			r := rep.Scenarios[0]
			if r.Status != tt.status || r.StartFailed || len(r.Failures) != 0 {
				t.Errorf("status %s (startFailed %v, failures %q, error %q), want %s", r.Status, r.StartFailed, r.Failures, r.Error, tt.status)
			}
			if tt.message == "" {
				return
			}
			if want := filepath.Join(dir, "s.yaml") + tt.message; r.Invalid == nil || r.Invalid.Reason != report.InvalidAgent || r.Invalid.Message != want {
				t.Errorf("invalid %+v, want agent: %s", r.Invalid, want)
			}
			if diff := cmp.Diff([]string{"skipped", "skipped"}, stops(r)); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, m := range sent {
				if m == acp.MethodSessionNew || m == acp.MethodSessionPrompt {
					t.Errorf("acprun sent %s to the wrong agent (sent %q)", m, sent)
				}
			}
		})
	}
}

// TestUpstream: which errors answering session/prompt say that the agent's
// provider refused the work, and what said so: the shapes claude-agent-acp
// (the CLI's "API Error: …" result as data), codex-acp (data {message,
// codex_error_info}) and gemini (a Google API error) send for a rate
// limit, a quota or an overload; a word inside another word or a 429 or 529
// that is not an HTTP status (a line number of a stack trace) is the
// agent's own failure.
func TestUpstream(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		e    acp.Error
		want string // "" when the error is the agent's own
	}{
		{acp.Error{Code: -32603, Message: "Rate limit exceeded"}, `its message says "Rate limit"`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"type":"error","error":{"type":"rate_limit_error"}}`)}, `its data says "rate_limit_error"`},
		{acp.Error{Code: -32603, Message: "API Error: 529 {\"type\":\"overloaded_error\"}"}, `its message says "API Error: 529"`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"status":429}`)}, `its data says "status": 429`},
		{acp.Error{Code: -32000, Message: "You exceeded your current quota"}, `its message says "quota"`},
		{acp.Error{Code: 429, Message: "Too Many Requests"}, "its code is 429"},
		{acp.Error{Code: -32603, Message: "Server overloaded, try later"}, `its message says "overloaded"`},
		// claude-agent-acp: the CLI's result, a JSON string.
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed the rate limit\"}}"`)}, `its data says "API Error: 429"`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`"API Error: Request rejected (429) · this may be a temporary capacity issue"`)}, `its data says "rejected (429)"`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`"Claude AI usage limit reached|1757203200"`)}, `its data says "usage limit"`},
		// codex-acp: {message, codex_error_info}.
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"message":"exceeded retry limit, last status: 429 Too Many Requests","codex_error_info":{"response_too_many_failed_attempts":{"http_status_code":429}}}`)}, `its data says "status: 429"`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"message":"Try again later.","codex_error_info":{"response_too_many_failed_attempts":{"http_status_code":429}}}`)}, `its data says "http_status_code": 429`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"message":"You've hit your usage limit.","codex_error_info":"usage_limit_exceeded"}`)}, `its data says "usage limit"`},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"message":"We're currently experiencing high demand.","codex_error_info":"serverOverloaded"}`)}, `its data says "serverOverloaded"`},
		// gemini: a Google API error.
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`)}, `its data says "code": 429`},
		{acp.Error{Code: -32603, Message: "[API Error: got status: 429 Too Many Requests.]"}, `its message says "status: 429"`},
		// The agent's own.
		{acp.Error{Code: -32603, Message: "Internal error: tool crashed"}, ""},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"line":4290}`)}, ""},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"line":429}`)}, ""},
		{acp.Error{Code: -32602, Message: "Invalid params"}, ""},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"stack":"TypeError: x is undefined\n    at runTool (/app/dist/index.js:529:17)"}`)}, ""},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`"Error: read 429 bytes, want 512"`)}, ""},
		{acp.Error{Code: -32603, Message: "Internal error: unterminated quotation mark in tool input"}, ""},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"error":"QUOTATION_UNTERMINATED","limits":"generate-limit"}`)}, ""},
		{acp.Error{Code: -32603, Message: "Internal error: the operator is overloadedly ambiguous"}, ""},
		{acp.Error{Code: -32603, Message: "TypeError: 429 is not a function"}, ""},
		{acp.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`["generate-limits", {"code": 4290}, {"status": "ok"}]`)}, ""},
	} {
		if got := upstream(&tt.e); got != tt.want {
			t.Errorf("upstream(%d %q %s) = %q, want %q", tt.e.Code, tt.e.Message, tt.e.Data, got, tt.want)
		}
	}
}

// TestUpstreamNoticeWords: an error notice is the provider's refusal only
// by the same words as an error answer.
func TestUpstreamNoticeWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    report.Notice
		want string
	}{
		{report.Notice{Severity: "error", Title: "Rate limit exceeded", Description: "429 from the provider"}, `it says "Rate limit"`},
		{report.Notice{Severity: "error", Title: "Request failed", Description: "status code 529"}, `it says "status code 529"`},
		{report.Notice{Severity: "error", Title: "Tool failed", Description: "unterminated quotation mark at input.ts:429"}, ""},
		{report.Notice{Severity: "warning", Title: "Rate limited", Description: "retrying"}, ""},
		{report.Notice{Severity: "error", Title: "Rate limited", Late: true}, ""},
	} {
		n, why := upstreamNotice([]report.Notice{tt.n})
		if why != tt.want || (n == nil) != (tt.want == "") {
			t.Errorf("upstreamNotice(%+v) = %v, %q; want %q", tt.n, n, why, tt.want)
		}
	}
}

// TestUpstreamIsInvalid: a prompt answered with an error that says the
// provider is overloaded makes the attempt invalid (upstream), and the
// turns after it are not played; another error is the agent's failure,
// and an error the turn expects is what it measures.
func TestUpstreamIsInvalid(t *testing.T) {
	t.Parallel()
	const src = "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n%s  - prompt: two\n"
	const overloaded = `{code: -32603, message: Internal error, data: {type: overloaded_error}}`
	for _, tt := range []struct {
		name, err, expect string
		status            report.Status
		stops             []string
	}{
		{"overloaded", overloaded, "", report.StatusInvalid, []string{"error", "skipped"}},
		{"crashed tool", `{code: -32603, message: Internal error, data: {tool: Bash}}`, "", report.StatusFailed, []string{"error", "end_turn"}},
		{"expected", overloaded, "    expect: {stopReason: error}\n", report.StatusPassed, []string{"error", "end_turn"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, _ := runTree(t, map[string]string{"s.yaml": fmt.Sprintf(src, tt.expect),
				"a.mock.yaml": "turns:\n  - error: " + tt.err + "\n  - steps: [{text: two}]\n"}, Options{})
			r := rep.Scenarios[0]
			if r.Status != tt.status || !cmp.Equal(tt.stops, stops(r)) {
				t.Errorf("status %s, turns %q (invalid %+v, failures %q); want %s, %q", r.Status, stops(r), r.Invalid, r.Failures, tt.status, tt.stops)
			}
			if tt.status != report.StatusInvalid {
				return
			}
			want := &report.Invalid{Reason: report.InvalidUpstream, Message: `turn 1: session/prompt: Internal error (code -32603); the provider refused the work: its data says "overloaded_error"`}
			if !cmp.Equal(want, r.Invalid) {
				t.Errorf("invalid %+v, want %+v", r.Invalid, want)
			}
			if len(r.Turns[1].Failures) != 0 {
				t.Errorf("the turn not played fails: %q; the attempt's invalid says why", r.Turns[1].Failures)
			}
		})
	}
}

// TestRetriesOnlyErrorsAndInvalid: retries run again an attempt that
// measured nothing (here rate-limited once, then served), never one that
// failed, which is the agent's verdict.
func TestRetriesOnlyErrorsAndInvalid(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	marker := filepath.Join(root, "limited")
	// setup picks the agent's script in the workspace: the first try is
	// rate-limited, the next one answers.
	scenarios := `name: limited
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
retries: 2
workspace: fixture
setup: ["if [ -e '` + marker + `' ]; then cp ok.yaml agent.mock.yaml; else touch '` + marker + `'; cp busy.yaml agent.mock.yaml; fi"]
turns:
  - prompt: go
---
name: failing
agent: {command: [acprun, mock-agent, fail.mock.yaml]}
permissions: {default: deny}
retries: 2
turns:
  - prompt: go
    expect: {text: {contains: pass}}
`
	rep, _ := runTree(t, map[string]string{"s.yaml": scenarios,
		"fixture/busy.yaml": "turns: [{error: {code: -32603, message: Rate limit reached for requests}}]\n",
		"fixture/ok.yaml":   "turns: [{steps: [{text: pass}]}]\n",
		"fail.mock.yaml":    "turns: [{steps: [{text: nope}]}]\n",
	}, Options{})
	var got []string
	for _, r := range rep.Scenarios {
		got = append(got, tryLine(r))
	}
	want := []string{"limited r0 invalid retried", "limited r1 passed flaky", "failing r0 failed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tries (-want +got):\n%s", diff)
	}
}

// stoppedRunScenarios are three scenarios run side by side (-j 3) with
// --fail-fast=cancel, ordered by FIFOs so that b-crashes errors, a-fails
// fails while b-crashes is in its teardown, and the teardown ends only
// once the run has stopped (c-waits, cancelled by the stop, releases it):
// b-crashes would be retried, but the run has stopped.
const stoppedRunScenarios = `name: a-fails
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {text: {contains: "yes"}}
---
name: b-crashes
agent: {command: [acprun, mock-agent, crash.mock.yaml]}
permissions: {default: deny}
retries: 2
teardown: ['cat c.fifo; echo > a.fifo; cat b.fifo']
turns:
  - prompt: hi
---
name: c-waits
agent: {command: [acprun, mock-agent, c.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
`

// stoppedRunFiles are the files of stoppedRunScenarios but for its FIFOs
// (a.fifo, b.fifo, c.fifo).
var stoppedRunFiles = map[string]string{
	"s.yaml":          stoppedRunScenarios,
	"a.mock.yaml":     "turns: [{steps: [{waitFor: a.fifo}, {text: \"no\"}]}]\n",
	"crash.mock.yaml": "turns: [{steps: [{exit: 3}]}]\n",
	"c.mock.yaml": "turns: [{onCancel: ignore, steps: [{writeFile: {path: c.fifo, content: in turn}}, {waitForCancel: true}, " +
		"{writeFile: {path: b.fifo, content: stopped}}]}]\n",
}

// TestNoRetryOnceStopped: an attempt that errored once the run had
// stopped (--fail-fast) is not retried, and says so rather than leaving
// its retries unspent in silence; the attempt the stop cancelled says why
// by the flag given.
func TestNoRetryOnceStopped(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, stoppedRunFiles)
	for _, name := range []string{"a.fifo", "b.fifo", "c.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep := runDir(t, dir, Options{Parallel: 3, MaxFailures: 1, CancelOnFailure: true, FailFast: true})
	var got []string
	for _, r := range rep.Scenarios {
		got = append(got, tryLine(r))
	}
	want := []string{"a-fails r0 failed", "b-crashes r0 error", "c-waits r0 interrupted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tries (-want +got):\n%s", diff)
	}
	const warning = "not retried: the run stopped at its first failed scenario (--fail-fast)"
	if len(rep.Scenarios) == 3 && !slices.Contains(rep.Scenarios[1].Warnings, warning) {
		t.Errorf("b-crashes warnings %q, want %q", rep.Scenarios[1].Warnings, warning)
	}
	// The scenario the stop cancelled names the flag given, as the warning does.
	const cancelled = "the run stopped at its first failed scenario (--fail-fast) during turn 1"
	if len(rep.Scenarios) == 3 && rep.Scenarios[2].Error != cancelled {
		t.Errorf("c-waits error %q, want %q", rep.Scenarios[2].Error, cancelled)
	}
}

// tryLine says one try: its name, retry, status and marks.
func tryLine(r report.Result) string {
	var b bytes.Buffer
	b.WriteString(r.Name + " r" + string(rune('0'+r.Retry)) + " " + string(r.Status))
	if r.Retried {
		b.WriteString(" retried")
	}
	if r.Flaky {
		b.WriteString(" flaky")
	}
	return b.String()
}

// TestCheckAgent: what expect.agent says of an agent that is not the one
// it names, at the part not met.
func TestCheckAgent(t *testing.T) {
	t.Parallel()
	pos := func(col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: 6, Col: col} }
	e := &scenario.AgentExpect{Pos: pos(10),
		Name:    &scenario.TextMatch{Pos: pos(17), Exact: "claude-code-acp"},
		Version: &scenario.TextMatch{Pos: pos(43), Re: regexp.MustCompile(`^0\.5\.`)}}
	for _, tt := range []struct {
		name, version, want string
	}{
		{"claude-code-acp", "0.5.1", ""},
		{"claude-code-acp", "0.6.0", `s.yaml:6:43: expect.agent: the agent is "claude-code-acp" 0.6.0, want version /^0\.5\./`},
		{"codex-acp", "0.5.0", `s.yaml:6:17: expect.agent: the agent is "codex-acp" 0.5.0, want name "claude-code-acp"`},
		{"codex-acp", "", `s.yaml:6:17: expect.agent: the agent is "codex-acp", want name "claude-code-acp" and version /^0\.5\./`},
		{"", "", `s.yaml:6:17: expect.agent: the agent gave no agentInfo, want name "claude-code-acp" and version /^0\.5\./`},
	} {
		err := checkAgent(e, report.AgentInfo{InfoName: tt.name, InfoVersion: tt.version})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("agent %q %q: %q, want %q", tt.name, tt.version, got, tt.want)
		}
	}
	if err := checkAgent(nil, report.AgentInfo{}); err != nil {
		t.Errorf("no expect.agent: %v", err)
	}
}

// TestProtectDirectoryName: a protect glob that names a directory covers
// everything under it, as in .gitignore, so it is neither warned about nor
// passed by an agent that rewrites a file under it.
func TestProtectDirectoryName(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"s.yaml": strings.Replace(protectScenario, "protect: [tests/, verify.sh]", "protect: [tests, verify.sh]", 1),
		"a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: tests/a_test.go, content: "package a // passes\n"}
      - text: done
`}
	for k, v := range protectFixture {
		files[k] = v
	}
	rep, _ := runTree(t, files, Options{})
	r := rep.Scenarios[0]
	if r.Status != report.StatusInvalid || r.Invalid == nil || !cmp.Equal(r.Invalid.Files, []string{"tests/a_test.go"}) || r.Warnings != nil {
		t.Errorf("status %s, invalid %+v, warnings %q; want invalid (tampered): modified tests/a_test.go, no warnings", r.Status, r.Invalid, r.Warnings)
	}
}

// TestUnchangedGlobMatchingNothing: an unchanged glob that matches no file
// of the workspace, before the run nor created by it, is warned about at
// its position; one that names a directory covers what is under it.
func TestUnchangedGlobMatchingNothing(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"s.yaml": strings.Replace(protectScenario, "protect: [tests/, verify.sh]", "protect: [verify.sh]", 1) +
			"expect: {files: {unchanged: [tests, tset/**, new/**]}}\n",
		"a.mock.yaml": `turns:
  - steps:
      - writeFile: {path: tests/a_test.go, content: "package a // passes\n"}
      - spawn: "mkdir new && echo x > new/x.txt"
      - text: done
`}
	for k, v := range protectFixture {
		files[k] = v
	}
	files["fixture/verify.sh"] = "exit 0\n"
	rep, dir := runTree(t, files, Options{})
	r := rep.Scenarios[0]
	wantFails := []string{filepath.Join(dir, "s.yaml") + `:8:30: files.unchanged: 1 path matching "tests" was changed: tests/a_test.go`,
		filepath.Join(dir, "s.yaml") + `:8:46: files.unchanged: 1 path matching "new/**" was changed: new/x.txt`}
	if d := cmp.Diff(wantFails, r.Failures); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
	want := []string{filepath.Join(dir, "s.yaml") + `:8:37: files.unchanged: "tset/**" matches no file of the workspace before the run, nor one created by it ` +
		"(check it for a typo: a glob is relative to the workspace's root)"}
	if d := cmp.Diff(want, r.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// TestRetriesKeepFailuresBeforeAnError: an attempt that errored after the
// agent failed an expectation of a turn it answered (or after a judge's
// FAIL) is not run again: that failure is its verdict, which a retry
// would hide. It stays an error, its failures recorded. Failures that are
// the error's consequences (the crashed turn's own, verify's on the work
// the crash cut short) do not count: that attempt is retried, and the
// retry's verdict counts. The first try plays the bad/ scripts, a retry
// the good/ ones.
func TestRetriesKeepFailuresBeforeAnError(t *testing.T) {
	t.Parallel()
	const (
		pass  = "turns: [{steps: [{text: PASS}]}]\n"
		fail  = "turns: [{steps: [{text: FAIL}]}]\n"
		crash = "turns: [{steps: [{text: judging}, {exit: 3}]}]\n"
		good  = "turns: [{steps: [{text: right answer}]}, {steps: [{text: fine}]}]\n"
		judge = "{agent: {command: [acprun, mock-agent, JUDGE.mock.yaml]}, rubric: right}"
	)
	tests := []struct {
		name                   string
		agent, turnJ, scenJ    string // the first try's scripts
		expect1, expect2, rest string
		want                   []string
	}{
		{name: "failed, then crashed",
			agent: "turns: [{steps: [{text: wrong answer}]}, {steps: [{text: dying}, {exit: 2}]}]\n", turnJ: pass, scenJ: pass,
			expect1: "{text: {contains: right}}", want: []string{"s r0 error"}},
		{name: "turn judge failed, then scenario judge crashed",
			agent: good, turnJ: fail, scenJ: crash,
			expect1: "{judge: " + strings.ReplaceAll(judge, "JUDGE", "tj") + "}", rest: "expect: {judge: " + strings.ReplaceAll(judge, "JUDGE", "sj") + "}\n",
			want: []string{"s r0 error"}},
		{name: "failed, then its judge gave no verdict",
			agent: "turns: [{steps: [{text: wrong answer}]}, {steps: [{text: fine}]}]\n", turnJ: crash, scenJ: pass,
			expect1: "{text: {contains: right}, judge: " + strings.ReplaceAll(judge, "JUDGE", "tj") + "}", want: []string{"s r0 error"}},
		{name: "crashed",
			agent: "turns: [{steps: [{text: right answer}]}, {steps: [{text: dying}, {exit: 2}]}]\n", turnJ: pass, scenJ: pass,
			expect1: "{text: {contains: right}}", want: []string{"s r0 error retried", "s r1 passed flaky"}},
		{name: "crashed, failing its own expectations and verify",
			agent: "turns: [{steps: [{text: right answer}]}, {steps: [{text: dying}, {exit: 2}]}]\n", turnJ: pass, scenJ: pass,
			expect2: "{text: {contains: fine}}", rest: "verify: [test -e done]\n",
			want: []string{"s r0 error retried", "s r1 passed flaky"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			marker := filepath.Join(root, "tried")
			turn := func(prompt, expect string) string {
				if expect == "" {
					return "  - prompt: " + prompt + "\n"
				}
				return "  - prompt: " + prompt + "\n    expect: " + expect + "\n"
			}
			rep, _ := runTree(t, map[string]string{
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nretries: 1\nworkspace: fixture\n" +
					"setup: [\"if [ -e '" + marker + "' ]; then cp good/* . && touch done; else touch '" + marker + "'; cp bad/* .; fi\"]\n" +
					"turns:\n" + turn("one", tt.expect1) + turn("two", tt.expect2) + tt.rest,
				"fixture/bad/agent.mock.yaml":  tt.agent,
				"fixture/bad/tj.mock.yaml":     tt.turnJ,
				"fixture/bad/sj.mock.yaml":     tt.scenJ,
				"fixture/good/agent.mock.yaml": good,
				"fixture/good/tj.mock.yaml":    pass,
				"fixture/good/sj.mock.yaml":    pass,
			}, Options{})
			var got []string
			for _, r := range rep.Scenarios {
				got = append(got, tryLine(r))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tries (-want +got):\n%s", diff)
			}
			if r := rep.Scenarios[0]; len(tt.want) == 1 && (r.Error == "" || len(r.Failures) == 0 ||
				!slices.Contains(r.Warnings, "not retried: turn 1 failed before the error, and a failure is the agent's verdict")) {
				t.Errorf("error %q, failures %q, warnings %q; want both recorded, and why it was not retried", r.Error, r.Failures, r.Warnings)
			}
		})
	}
}

// TestUpstreamNoticeWithoutDescription: the invalid's message quotes an
// error notice's title alone when it has no description, without an
// empty one after a colon.
func TestUpstreamNoticeWithoutDescription(t *testing.T) {
	t.Parallel()
	rep, _ := runTree(t, map[string]string{
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
		"a.mock.yaml": "turns:\n  - steps: [{notice: {severity: error, title: Rate limit exceeded}}, {text: gave up}]\n",
	}, Options{})
	want := &report.Invalid{Reason: report.InvalidUpstream, Message: `turn 1: the agent's error notice "Rate limit exceeded"; the provider refused the work: it says "Rate limit"`}
	if r := rep.Scenarios[0]; !cmp.Equal(want, r.Invalid) {
		t.Errorf("invalid %+v, want %+v", r.Invalid, want)
	}
}
