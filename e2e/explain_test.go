package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
)

// explained is the decision acprun explain printed.
type explained struct {
	verdict, rule, reason string
	line                  int // the request's line in the transcript ("asked:"); 0 without one
}

var (
	decisionLine = regexp.MustCompile(`(?m)^decision: (ALLOW|DENY)(?: by (?:the default|\w+ rule (\S+)))?$`)
	whyLine      = regexp.MustCompile(`(?m)^why:      (.*)$`)
	askedLine    = regexp.MustCompile(`(?m)^asked:    .*:(\d+), `)
)

// explainDecision reads the decision out of explain's output.
func explainDecision(t *testing.T, res result) explained {
	t.Helper()
	m := decisionLine.FindStringSubmatch(res.stdout)
	if m == nil {
		t.Fatalf("explain printed no decision (exit %d):\n%s%s", res.code, res.stdout, res.stderr)
	}
	e := explained{verdict: strings.ToLower(m[1]), rule: m[2]}
	if w := whyLine.FindStringSubmatch(res.stdout); w != nil {
		e.reason = w[1]
	}
	if a := askedLine.FindStringSubmatch(res.stdout); a != nil {
		e.line, _ = strconv.Atoi(a[1])
	}
	if want := map[string]int{"allow": 0, "deny": 1}[e.verdict]; res.code != want {
		t.Errorf("explain: %s with exit %d, want %d", e.verdict, res.code, want)
	}
	return e
}

// messageOnLine returns the message on line n of a transcript.
func messageOnLine(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("%s has no line %d", path, n)
	}
	var l struct {
		Msg json.RawMessage `json:"msg"`
	}
	if err := json.Unmarshal([]byte(lines[n-1]), &l); err != nil || l.Msg == nil {
		t.Fatalf("%s:%d: not a message (%v): %s", path, n, err, lines[n-1])
	}
	return string(l.Msg)
}

// permissionsOf lists a result's permission requests in the order they
// came: before the first turn, then turn by turn.
func permissionsOf(r report.Result) []report.Permission {
	ps := append([]report.Permission(nil), r.SetupPermissions...)
	for _, turn := range r.Turns {
		ps = append(ps, turn.Permissions...)
	}
	return ps
}

// checkExplainAgrees runs explain --transcript --tool-call for every
// permission request of the results and checks that it gives the decision,
// rule and reason run recorded. It returns the requests for which explain
// --request, given the request alone, decides otherwise.
func checkExplainAgrees(t *testing.T, dir string, results []report.Result) (checked int, alone []string) {
	t.Helper()
	for _, r := range results {
		if r.Transcript == "" {
			t.Errorf("%s: no transcript", r.Name)
			continue
		}
		nth := map[string]int{}
		for _, p := range permissionsOf(r) {
			nth[p.ToolCallID]++
			if p.Decision == "cancelled" {
				continue // the turn's cancel answered, not the policy
			}
			what := fmt.Sprintf("%s: tool call %s (request %d)", r.Name, p.ToolCallID, nth[p.ToolCallID])
			res := acprun(t, dir, "explain", r.File, "--scenario", r.Name, "--transcript", r.Transcript,
				"--tool-call", p.ToolCallID, "--index", strconv.Itoa(nth[p.ToolCallID]))
			got := explainDecision(t, res)
			if got.verdict != p.Decision || got.rule != p.Rule || got.reason != p.Reason {
				t.Errorf("%s: explain --transcript says %s by %q (%s); run decided %s by %q (%s)\n%s",
					what, got.verdict, got.rule, got.reason, p.Decision, p.Rule, p.Reason, res.stdout)
			}
			checked++

			// The old way: the request alone, as found in the transcript.
			req := filepath.Join(t.TempDir(), "req.json")
			if err := os.WriteFile(req, []byte(messageOnLine(t, r.Transcript, got.line)), 0o644); err != nil {
				t.Fatal(err)
			}
			old := explainDecision(t, acprun(t, dir, "explain", r.File, "--scenario", r.Name, "--request", req))
			if old.verdict != p.Decision || old.rule != p.Rule {
				alone = append(alone, what)
			}
		}
	}
	return checked, alone
}

// TestExplainAgreesWithRunOnTheExamples: for every permission request of
// the examples, explain --transcript --tool-call gives the decision, rule
// and reason run recorded. The request alone (explain --request) gives the
// opposite decision for the edit of examples/permissions.yaml, whose paths
// only its earlier tool_call announced.
func TestExplainAgreesWithRunOnTheExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := acprun(t, root, "run", "examples/", "--transcripts", filepath.Join(dir, "tr"), "-o", filepath.Join(dir, "results.json"))
	if res.code != 0 {
		t.Fatalf("examples: exit %d, want 0\n%s", res.code, res.stderr)
	}
	rep := readResults(t, filepath.Join(dir, "results.json"))
	checked, alone := checkExplainAgrees(t, root, rep.Scenarios)
	if checked < 7 {
		t.Errorf("%d permission requests checked; the examples have at least 7", checked)
	}
	if !strings.Contains(strings.Join(alone, "\n"), "permissions: tool call toolu_01_edit (request 1)") {
		t.Errorf("explain --request disagrees with run on %q; want it to on the edit of permissions.yaml (the case the test is for)", alone)
	}
}

// askTwiceAgent asks permission twice for one tool call, the second time
// after a tool_call_update moved it out of src/, then for a command that
// holds the scenario's secret.
const askTwiceAgent = `
turns:
  - steps:
      - tool_call: {toolCallId: w1, title: Write, kind: edit, locations: [{path: src/a.go}]}
      - permission: {toolCallId: w1}
      - tool_call_update: {toolCallId: w1, locations: [{path: /etc/hosts}]}
      - permission: {toolCallId: w1}
      - tool_call: {toolCallId: d1, title: deploy, kind: execute, rawInput: {command: "deploy --token ghp_E2Escenario1234567890abcdef"}}
      - permission: {toolCallId: d1}
      - text: done
`

const askTwiceScenario = `name: twice
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {GH_TOKEN: "${E2E_SECRET}"}
permissions:
  default: deny
  allow:
    - {kind: edit, path: "src/**"}
    - {kind: execute, command: "deploy --token ghp_*"}
turns:
  - prompt: go
`

// TestExplainTranscript: a tool call that asked twice is explained once
// per request (the first unless --index says), each as run decided it, the
// second with the paths of the tool_call_update before it; an id that did
// not ask, a request past the last, a transcript that is not one and flags
// that do not go together are usage errors that say what to do; a request
// with redacted values says that run saw the secret.
func TestExplainTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": askTwiceAgent, "s.yaml": askTwiceScenario})
	env := []string{"E2E_SECRET=" + scenarioSecret}
	res := acprunEnv(t, dir, env, "run", "s.yaml", "--transcripts", "tr", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	r := readResults(t, filepath.Join(dir, "out.json")).Scenarios[0]
	ps := permissionsOf(r)
	if len(ps) != 3 || ps[0].Decision != "allow" || ps[1].Decision != "deny" || ps[2].Decision != "allow" {
		t.Fatalf("run recorded %+v; want w1 allowed, w1 denied, d1 allowed", ps)
	}
	tr := filepath.Join("tr", "twice.jsonl")
	explain := func(args ...string) result { // on tr, unless args name the transcript
		t.Helper()
		if !slices.Contains(args, "--transcript") {
			args = append([]string{"--transcript", tr}, args...)
		}
		res := acprunEnv(t, dir, env, append([]string{"explain", "s.yaml"}, args...)...)
		if strings.Contains(res.stdout+res.stderr, scenarioSecret) {
			t.Errorf("explain %q shows the secret:\n%s%s", args, res.stdout, res.stderr)
		}
		return res
	}

	// The transcript given in the scenario's place: one error that says
	// what it is and where it goes, and nothing else.
	res = acprunEnv(t, dir, env, "explain", tr)
	if want := tr + ": a transcript of a run (run --transcripts), not scenarios: a scenario plays it back with agent: {replay: FILE}, " +
		"and acprun explain SCENARIO --transcript FILE --tool-call ID explains a permission request it holds\n"; res.code != 2 || res.stderr != want {
		t.Errorf("explain TRANSCRIPT: exit %d, stderr:\n%s\nwant 2 and:\n%s", res.code, res.stderr, want)
	}

	// The first request, by default, and a note that there are two.
	res = explain("--tool-call", "w1")
	first := explainDecision(t, res)
	if first.verdict != "allow" || first.rule != ps[0].Rule || first.reason != ps[0].Reason ||
		!strings.Contains(res.stdout, "permission request 1 of 2 for tool call w1") {
		t.Errorf("first request: %+v\n%s", first, res.stdout)
	}
	if !regexp.MustCompile(`tool call "w1" asked permission 2 times \(tr/twice\.jsonl:\d+, tr/twice\.jsonl:\d+\); explaining the first \(choose another with --index N\)`).MatchString(res.stderr) {
		t.Errorf("stderr does not say which request was explained:\n%s", res.stderr)
	}

	// The second: its path is the tool_call_update's.
	res = explain("--tool-call", "w1", "--index", "2")
	second := explainDecision(t, res)
	if second.verdict != "deny" || second.rule != ps[1].Rule || second.reason != ps[1].Reason {
		t.Errorf("second request: %+v, run recorded %+v\n%s", second, ps[1], res.stdout)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^asked:    tr/twice\.jsonl:\d+, turn 1: permission request 2 of 2 for tool call w1$`),
		regexp.MustCompile(`(?m)^from:     title, kind: tool_call, line \d+\n          locations: tool_call_update, line \d+$`),
		regexp.MustCompile(`(?m)^paths:    "/etc/hosts"\n            from locations of the tool_call_update \(line \d+\)$`),
	} {
		if !want.MatchString(res.stdout) {
			t.Errorf("second request: stdout does not match %s:\n%s", want, res.stdout)
		}
	}

	// Redacted: explain sees [REDACTED] where run saw the secret, and says so.
	res = explain("--tool-call", "d1")
	if d := explainDecision(t, res); d.verdict != "deny" || !strings.Contains(res.stdout, "note:     rawInput holds redacted values ([REDACTED]): run saw the secrets themselves, so its decision may differ") {
		t.Errorf("redacted request: %+v\n%s", d, res.stdout)
	}
	// It differs from run's answer for that alone: nothing changed, and
	// the request touches no path, so no link can have made it differ.
	if want := "\ndiffers:  run answered ALLOW and the rules decide DENY now: run saw the redacted values themselves (see the note), or the rules or the config have changed since the run\n"; !strings.Contains(res.stdout, want) {
		t.Errorf("redacted request: no %q in stdout:\n%s", want, res.stdout)
	}

	transcript, err := os.ReadFile(filepath.Join(dir, tr))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(transcript), "\n")
	lines[2] = strings.Replace(lines[2], `"dir":"c2a"`, `"dir":"up"`, 1)
	bad := strings.Join(lines, "")
	writeFiles(t, dir, map[string]string{"bad.jsonl": bad})
	badAt := lineCol("bad.jsonl", bad, strings.Index(bad, `"up"`))

	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown id", []string{"--tool-call", "nope"}, []string{`tool call "nope" asked no permission; the tool calls that did: "w1", "d1"`}},
		{"no id", nil, []string{`give --tool-call ID, one of the tool calls that asked permission: "w1", "d1"`}},
		{"past the last", []string{"--tool-call", "d1", "--index", "2"}, []string{`tool call "d1" asked permission once (tr/twice.jsonl:`, "--index 2 is beyond it"}},
		{"not a transcript", []string{"--tool-call", "w1", "--transcript", "bad.jsonl"}, []string{badAt + `: "dir" is "up"`, "    3 | "}},
		{"missing", []string{"--tool-call", "w1", "--transcript", "missing.jsonl"}, []string{"missing.jsonl: no such file or directory (a transcript is written per scenario by acprun run --transcripts DIR)"}},
		{"with a made-up request", []string{"--tool-call", "w1", "--kind", "edit"}, []string{"give either --transcript or --request or --kind/--tool/--title/--command/--path, not several"}},
		{"index alone", []string{"--index", "1"}, []string{"--index needs --transcript and --tool-call"}},
		{"transcript twice", []string{"--tool-call", "w1", "--transcript", tr, "--transcript", "other.jsonl"}, []string{"acprun: --transcript given 2 times: it takes a file, and only the last would count; give it once"}},
		{"tool call twice", []string{"--tool-call", "w1", "--tool-call", "d1"}, []string{"acprun: --tool-call given 2 times: it takes one tool call's id, and only the last would count; give it once"}},
		{"index 0", []string{"--tool-call", "w1", "--index", "0"}, []string{`acprun: --index: "0": want which of the tool call's permission requests to explain, 1 or more (leave --index out for the first)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := explain(tt.args...)
			if res.code != 2 || res.stdout != "" {
				t.Errorf("exit %d, want 2 and no explanation\nstdout:\n%s", res.code, res.stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, res.stderr)
				}
			}
		})
	}
	// --tool-call without --transcript.
	if res := acprun(t, dir, "explain", "s.yaml", "--tool-call", "w1"); res.code != 2 || !strings.Contains(res.stderr, "--tool-call needs --transcript") {
		t.Errorf("--tool-call alone: exit %d\n%s", res.code, res.stderr)
	}
}

// TestExplainMadeUpRequestFlags: a made-up request's --kind must be a tool
// kind (exit 2, with the did-you-mean of --allow), and --path is taken
// whole, a comma and all, and must not be empty.
func TestExplainMadeUpRequestFlags(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"e.yaml": `name: e
agent: {command: [acprun, mock-agent, x.mock.yaml]}
permissions: {default: deny, allow: [{kind: execute, command: "go test *"}, {kind: read, path: "a,b.go"}]}
turns: [{prompt: hi}]
`})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"misspelt kind", []string{"--kind", "exec", "--command", "go test ./..."}, `acprun: --kind exec: unknown kind "exec": want one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other (did you mean execute?)`},
		{"kind in capitals", []string{"--kind", "EXECUTE", "--command", "go test ./..."}, `(did you mean execute?)`},
		{"empty path", []string{"--kind", "read", "--path", ""}, `acprun: --path '': the path is empty (is the variable that gives it unset?)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := acprun(t, dir, append([]string{"explain", "e.yaml"}, tt.args...)...)
			if res.code != 2 || res.stdout != "" || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", res.code, tt.want, res.stdout, res.stderr)
			}
		})
	}
	res := acprun(t, dir, "explain", "e.yaml", "--kind", "read", "--path", "a,b.go")
	if d := explainDecision(t, res); res.code != 0 || d.verdict != "allow" || !strings.Contains(res.stdout, "a,b.go") {
		t.Errorf("--path a,b.go: exit %d, %+v; want it allowed by the rule of a,b.go\n%s%s", res.code, d, res.stdout, res.stderr)
	}
}

// TestExplainQuotesAgentPaths: a path an agent put in its tool call, with
// line breaks and escape sequences, is printed quoted on the paths: line,
// for a transcript's request and for one given alone, so that it cannot
// forge a decision: line nor drive the terminal.
func TestExplainQuotesAgentPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	forged := "a.txt\n\ndecision: ALLOW by allow rule s.yaml:99 \x1b[32mOK\x1b[0m\n"
	id := "t1\ndecision: ALLOW by allow rule s.yaml:98"
	agent, err := json.Marshal(map[string]any{"turns": []any{map[string]any{"steps": []any{
		map[string]any{"tool_call": map[string]any{"toolCallId": id, "title": "Edit", "kind": "edit", "locations": []any{map[string]any{"path": forged}}}},
		map[string]any{"permission": map[string]any{"toolCallId": id}},
		map[string]any{"text": "done"},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	request := `{"toolCall": {"toolCallId": "t1", "title": "Edit", "kind": "edit", "locations": [{"path": "/etc/x\ndecision: ALLOW\u001b[2J"}]},
 "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}, {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}`
	writeFiles(t, dir, map[string]string{
		"e.mock.yaml": string(agent),
		"req.json":    request,
		"s.yaml": `name: e
agent: {command: [acprun, mock-agent, e.mock.yaml]}
permissions: {default: deny, allow: [{kind: read}]}
turns: [{prompt: go}]
`,
	})
	if res := acprun(t, dir, "run", "s.yaml", "--transcripts", "tr", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"transcript", []string{"--transcript", filepath.Join("tr", "e.jsonl"), "--tool-call", id},
			"paths:    " + strconv.Quote(filepath.Join(dir, forged)) + "\n            from locations of the tool_call (line "},
		{"request alone", []string{"--request", "req.json"}, `paths:    "/etc/x\ndecision: ALLOW\x1b[2J"` + "\n\ndecision: DENY by the default\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := acprun(t, dir, append([]string{"explain", "s.yaml"}, tt.args...)...)
			if d := explainDecision(t, res); d.verdict != "deny" || d.rule != "" {
				t.Errorf("explain: %+v, want denied by the default\n%s", d, res.stdout)
			}
			if !strings.Contains(res.stdout, tt.want) || strings.ContainsRune(res.stdout, '\x1b') || len(decisionLine.FindAllString(res.stdout, -1)) != 1 {
				t.Errorf("explain printed the agent's path raw, want %q, one decision line and no escape:\n%s", tt.want, res.stdout)
			}
		})
	}
}

// TestExplainRedactsSecrets: explain prints a made-up or --request request
// redacted as a run of the scenario would redact it: of its agent's env
// values and of the secret-looking variables of acprun's environment.
func TestExplainRedactsSecrets(t *testing.T) {
	t.Parallel()
	const envSecret, environSecret = "sk-live-ABCDEF123456", "tokenvalue-abcdef99"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":   "name: a\nagent: {command: [my-agent], env: {SECRET: \"" + envSecret + "\"}}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
		"req.json": `{"sessionId":"s","toolCall":{"toolCallId":"t","title":"use ` + envSecret + `","kind":"execute","rawInput":{"command":"echo ` + environSecret + `"}},"options":[{"optionId":"a","name":"a","kind":"allow_once"}]}`,
	})
	env := []string{"MY_API_TOKEN=" + environSecret}
	for _, args := range [][]string{
		{"--command", "curl -H 'Authorization: Bearer " + environSecret + "' " + envSecret, "--path", "/tmp/" + envSecret},
		{"--request", "req.json"},
	} {
		res := acprunEnv(t, dir, env, append([]string{"explain", "s.yaml"}, args...)...)
		if res.code != exitOK || strings.Contains(res.stdout, "ABCDEF") || strings.Contains(res.stdout, "abcdef99") || !strings.Contains(res.stdout, "[REDACTED]") {
			t.Errorf("explain %q: exit %d, want 0 and the secrets redacted\nstdout:\n%s\nstderr:\n%s", args, res.code, res.stdout, res.stderr)
		}
	}
}

// TestExplainRequestErrorsPositioned: a --request file that is not a
// permission request is refused with exit 2 at file:line:col with its line
// and a caret, saying what to give (another method's message at its method,
// not as "no toolCall"); a UTF-8 byte order mark that starts it
// is taken as YAML files take one; a malformed optional field, which a run
// takes with its default and a protocol violation, is explained that way,
// with the run's violation as a positioned warning. It was Go's message
// with no place, and the field was silently dropped. A tool call without
// its toolCallId, which a run takes as a tool call of its own, is
// explained so too; it was refused as "no toolCall" unless it had a title
// or a rawInput.
func TestExplainRequestErrorsPositioned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"perm.yaml":   "name: p\nagent: {name: mock, args: [x.mock.yaml]}\npermissions: {default: deny, allow: [{kind: read}]}\nturns: [{prompt: hi}]\n",
		"bom.json":    "\ufeff" + `{"toolCall": {"toolCallId": "t", "kind": "read"}}`,
		"syn.json":    "{\"toolCall\": {\"toolCallId\": \"t\",\n  \"kind\": }}",
		"id.json":     `{"jsonrpc": "2.0", "id": 1, "method": "session/request_permission", "params": {"toolCall": {"toolCallId": 7}}}`,
		"kind.json":   "{\"toolCall\": {\"toolCallId\": \"t\",\n  \"kind\": 5}}",
		"loc.json":    "{\"toolCall\": {\"toolCallId\": \"t\", \"kind\": \"read\",\n  \"locations\": [{\"path\": 5}]}}",
		"opt.json":    `{"toolCall": {"toolCallId": "t"}, "options": [{"optionId": "a", "name": "A", "kind": "allow_once"}, {"optionId": 5}]}`,
		"read.json":   `{"jsonrpc": "2.0", "id": 1, "method": "fs/read_text_file", "params": {"sessionId": "s", "path": "/x"}}`,
		"update.json": `{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s"}}`,
		"resp.json":   `{"jsonrpc": "2.0", "id": 1, "result": {"outcome": {"outcome": "cancelled"}}}`,
		"noid.json":   `{"toolCall": {"kind": "read"}}`,
	})
	for _, tt := range []struct {
		file   string
		code   int
		stderr []string // lines it must have
		stdout string   // what it must hold
	}{
		{"bom.json", 0, nil, "decision: ALLOW"},
		{"syn.json", 2, []string{
			"syn.json:2:11: not JSON: invalid character '}' looking for beginning of value; give the params of a session/request_permission as JSON, or its whole JSON-RPC message",
			`    2 |   "kind": }}`,
			`      |           ^`}, ""},
		{"id.json", 2, []string{"id.json:1:107: toolCall.toolCallId: want a string, got number 7: not a valid session/request_permission, which a run answers with an invalid-params error, no rule deciding it, and which fails the scenario (a protocol violation); give the params of a session/request_permission as JSON, or its whole JSON-RPC message"}, ""},
		{"kind.json", 1, []string{"kind.json:2:11: warning: protocol violation: session/request_permission t: toolCall.kind: want a string, got number 5; the field took its default"},
			"request:  kind=-"},
		{"loc.json", 0, []string{"loc.json:2:26: warning: protocol violation: session/request_permission t: toolCall.locations[0].path: want a string, got number 5 (item skipped)"},
			"decision: ALLOW"},
		{"read.json", 2, []string{`read.json:1:39: a "fs/read_text_file" request, not a session/request_permission; give the params of a session/request_permission as JSON, or its whole JSON-RPC message`}, ""},
		{"update.json", 2, []string{`update.json:1:30: a "session/update" notification, not a session/request_permission; give the params of a session/request_permission as JSON, or its whole JSON-RPC message`}, ""},
		{"noid.json", 0, []string{`noid.json:1:14: warning: protocol violation: session/request_permission "": toolCall has no toolCallId, which is required; taken as a tool call of its own`},
			"decision: ALLOW"},
		{"resp.json", 2, []string{"resp.json:1:1: a JSON-RPC response, not a session/request_permission; give the params of a session/request_permission as JSON, or its whole JSON-RPC message"}, ""},
		{"opt.json", 2, []string{"opt.json:1:114: options[1].optionId: want a string, got a number: not a valid session/request_permission, which a run answers with an invalid-params error, no rule deciding it, and which fails the scenario (a protocol violation); give the params of a session/request_permission as JSON, or its whole JSON-RPC message"}, ""},
	} {
		res := acprun(t, dir, "explain", "perm.yaml", "--request", tt.file)
		lines := strings.Split(res.stderr, "\n")
		if res.code != tt.code || !strings.Contains(res.stdout, tt.stdout) {
			t.Errorf("explain --request %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d and %q", tt.file, res.code, res.stdout, res.stderr, tt.code, tt.stdout)
		}
		for _, want := range tt.stderr {
			if !slices.Contains(lines, want) {
				t.Errorf("explain --request %s: no line %q in stderr:\n%s", tt.file, want, res.stderr)
			}
		}
		if strings.Contains(res.stderr, "\ufeff") || strings.Contains(res.stderr, "acprun: ") {
			t.Errorf("explain --request %s: stderr:\n%s\nwant no byte order mark and no unpositioned error", tt.file, res.stderr)
		}
	}
}

// TestExplainTranscriptCwdGone: run denies an edit of etc/hosts through
// the workspace copy's link etc -> /etc; the copy is removed after the
// pass, so explain cannot follow the link: it says so, gives run's
// recorded answer as the decision (exit 1), and the rules' on the paths
// as written beside it. In a cwd that still exists the rules' decision
// stands, and one that differs from run's answer (rules added since) is
// flagged.
func TestExplainTranscriptCwdGone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"project/a.txt": "a\n",
		"m.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: e1, title: "Edit etc/hosts", kind: edit, rawInput: {file_path: etc/hosts}}
      - permission: {toolCallId: e1}
        allowed: [{text: allowed}]
        rejected: [{text: rejected}]
`,
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, m.mock.yaml]}
workspace: {from: project}
permissions: {default: deny, allow: [{kind: edit, path: "**"}]}
turns: [{prompt: go}]
`,
		"here.yaml": `name: here
agent: {command: [acprun, mock-agent, m.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: go}]
`,
	})
	if err := os.Symlink("/etc", filepath.Join(dir, "project", "etc")); err != nil {
		t.Fatal(err)
	}
	res := acprun(t, dir, "run", "s.yaml", "here.yaml", "--transcripts", "tr", "-o", "out.json")
	if res.code != exitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	for _, r := range readResults(t, filepath.Join(dir, "out.json")).Scenarios {
		if ps := permissionsOf(r); len(ps) != 1 || ps[0].Decision != "deny" {
			t.Fatalf("%s: run recorded %+v; want e1 denied", r.Name, ps)
		}
	}

	res = acprun(t, dir, "explain", "s.yaml", "--transcript", "tr/s.jsonl", "--tool-call", "e1")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^note:     the session's cwd ".*" no longer exists \(a workspace copy is removed after a passing attempt\): the links run followed in it cannot be followed now, so the rules see the paths as written and may decide otherwise than run did$`),
		regexp.MustCompile(`(?m)^decision: DENY, as run answered \(the rules decide ALLOW by allow rule s\.yaml:4 on the paths as written: see the note\)$`),
		regexp.MustCompile(`(?m)^run:      answered DENY, option "reject" \(reject_once\), tr/s\.jsonl:\d+$`),
	} {
		if !want.MatchString(res.stdout) {
			t.Errorf("cwd gone: stdout does not match %s:\n%s", want, res.stdout)
		}
	}
	if res.code != exitFailed || strings.Contains(res.stdout, "\nanswer:") {
		t.Errorf("cwd gone: exit %d, want 1 (denied, as run answered) and no answer of the rules'\n%s", res.code, res.stdout)
	}

	// The cwd is still there: the rules decide, and say when run did otherwise.
	res = acprun(t, dir, "explain", "here.yaml", "--transcript", "tr/here.jsonl", "--tool-call", "e1")
	if d := explainDecision(t, res); d.verdict != "deny" || !regexp.MustCompile(`(?m)^run:      answered DENY, option "reject" \(reject_once\), tr/here\.jsonl:\d+$`).MatchString(res.stdout) ||
		strings.Contains(res.stdout, "note:") || strings.Contains(res.stdout, "differs:") {
		t.Errorf("cwd kept: %+v\n%s", d, res.stdout)
	}
	// No rule has a path matcher: the links the path leads through cannot
	// have made the rules decide otherwise, and differs: names only the
	// rules and the config.
	res = acprun(t, dir, "explain", "here.yaml", "--allow", "edit", "--transcript", "tr/here.jsonl", "--tool-call", "e1")
	if res.code != exitOK || !strings.Contains(res.stdout, "\ndecision: ALLOW by allow rule --allow edit\n") || !strings.Contains(res.stdout,
		"\ndiffers:  run answered DENY and the rules decide ALLOW now: the rules or the config have changed since the run\n") {
		t.Errorf("rules added since the run: exit %d, want 0 (the rules allow)\n%s", res.code, res.stdout)
	}
	// A path rule decides: where the path's links lead may have changed too.
	res = acprun(t, dir, "explain", "here.yaml", "--allow", "edit:**", "--transcript", "tr/here.jsonl", "--tool-call", "e1")
	if res.code != exitOK || !strings.Contains(res.stdout, "\ndecision: ALLOW by allow rule --allow 'edit:**'\n") || !strings.Contains(res.stdout,
		"\ndiffers:  run answered DENY and the rules decide ALLOW now: the rules, the config, or the files and links the paths lead through have changed since the run\n") {
		t.Errorf("path rule added since the run: exit %d, want 0 (the rules allow)\n%s", res.code, res.stdout)
	}
}

// TestExplainAgentExit: explain --transcript of a run whose agent exited
// (killed by a signal in turn 2, or with a code right after its answer in
// turn 1) says so, with the code or the signal, where the exit came
// relative to the explained request, and the transcript's line. It said
// nothing: the transcript's last line, {"exit": ...}, was skipped.
func TestExplainAgentExit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: killed
agent: {command: [acprun, mock-agent, killed.mock.yaml]}
permissions: {default: deny, allow: [{kind: execute}]}
turns: [{prompt: one}, {prompt: two}]
---
name: exits
agent: {command: [acprun, mock-agent, exits.mock.yaml]}
permissions: {default: deny, allow: [{kind: execute}]}
turns: [{prompt: one}, {prompt: two}]
`,
		"killed.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: c1, title: make, kind: execute, rawInput: {command: make}}
      - permission: {toolCallId: c1}
      - text: built
  - steps:
      - tool_call: {toolCallId: c2, title: crash, kind: execute, rawInput: {command: crash}}
      - permission: {toolCallId: c2}
        allowed:
          - spawn: kill -KILL $PPID
`,
		"exits.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: c1, title: make, kind: execute, rawInput: {command: make}}
      - permission: {toolCallId: c1}
        allowed:
          - exit: 5
`,
	})
	if res := acprun(t, dir, "run", "s.yaml", "--transcripts", "tr", "-o", "out.json"); res.code != exitFailed {
		t.Fatalf("run: exit %d, want %d (the agents exit)\n%s", res.code, exitFailed, res.stderr)
	}
	for _, tt := range []struct {
		scenario, call string
		want           *regexp.Regexp
	}{
		{"killed", "c1", regexp.MustCompile(`(?m)^run:      answered ALLOW, option "allow" \(allow_once\), tr/killed\.jsonl:\d+\nexit:     the recorded agent was killed by SIGKILL later, in turn 2, tr/killed\.jsonl:(\d+)\n`)},
		{"killed", "c2", regexp.MustCompile(`(?m)^run:      answered ALLOW, option "allow" \(allow_once\), tr/killed\.jsonl:\d+\nexit:     the recorded agent was killed by SIGKILL right after run's answer, tr/killed\.jsonl:(\d+)\n`)},
		{"exits", "c1", regexp.MustCompile(`(?m)^run:      answered ALLOW, option "allow" \(allow_once\), tr/exits\.jsonl:\d+\nexit:     the recorded agent exited with code 5 right after run's answer, tr/exits\.jsonl:(\d+)\n`)},
	} {
		tr := filepath.Join("tr", tt.scenario+".jsonl")
		res := acprun(t, dir, "explain", "s.yaml", "--scenario", tt.scenario, "--transcript", tr, "--tool-call", tt.call)
		if d := explainDecision(t, res); d.verdict != "allow" {
			t.Errorf("%s %s: %+v, want allowed", tt.scenario, tt.call, d)
		}
		m := tt.want.FindStringSubmatch(res.stdout)
		if m == nil {
			t.Errorf("%s %s: explain does not say that the agent exited, and where; want %s in:\n%s%s", tt.scenario, tt.call, tt.want, res.stdout, res.stderr)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, tr))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if m[1] != strconv.Itoa(len(lines)) || !strings.Contains(lines[len(lines)-1], `"exit":`) {
			t.Errorf("%s %s: the exit is said to be at line %s; the transcript's exit is its last line, %d: %s", tt.scenario, tt.call, m[1], len(lines), lines[len(lines)-1])
		}
	}
}

// TestExplainPathNoteRedactedWhole: the note of a path found through a
// link quotes the path as the agent gave it, cut at 200 bytes; a secret
// that explain redacts (a secret-looking variable of its environment),
// which the transcript holds in clear (the run did not know it) and the
// cut goes through, shows no start: the cut is redacted knowing the whole
// path. It showed "tokenvalu…".
func TestExplainPathNoteRedactedWhole(t *testing.T) {
	t.Parallel()
	const secret = "tokenvalue-abcdef99xyz"
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "lnk")); err != nil {
		t.Fatal(err)
	}
	given := "lnk/" + strings.Repeat("p", 200-len(dir+"/lnk/")-len("token")) + secret + "/x"
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: r1, title: Read, kind: read, locations: [{path: "` + given + `"}]}
      - permission: {toolCallId: r1}
`,
		"s.yaml": `name: t
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny, allow: [{kind: read, path: "real/**"}]}
turns: [{prompt: hi}]
`,
	})
	if res := acprun(t, dir, "run", "s.yaml", "--transcripts", "tr", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	res := acprunEnv(t, dir, []string{"MY_API_TOKEN=" + secret}, "explain", "s.yaml", "--transcript", filepath.Join("tr", "t.jsonl"), "--tool-call", "r1")
	explainDecision(t, res)
	want := strconv.Quote(filepath.Join(dir, given)[:200-len("token")]+"[REDACTED]…") + " with its links resolved)"
	if !strings.Contains(res.stdout, want) || strings.Contains(res.stdout+res.stderr, "token") {
		t.Errorf("explain shows the start of the secret in the path's note; want %s in:\n%s%s", want, res.stdout, res.stderr)
	}
}

// TestExplainTranscriptCwdGoneLinkFree: in a workspace copy removed after
// the pass, run's answer stands only where the rules' decision could hinge
// on the links that cannot be followed now. A deny rule added since the run
// that denies the request on what it says (its kind and command, or a path
// as written), or rules that decide a request that touches no path or that
// no path rule applies to, decide: differs: and their exit code. It gave
// run's answer (ALLOW, exit 0) for a request with no path at all, denied by
// kind and command.
func TestExplainTranscriptCwdGoneLinkFree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"project/a.txt": "a\n",
		"m.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: c1, title: "rm -rf build", kind: execute, rawInput: {command: "rm -rf build"}}
      - permission: {toolCallId: c1}
        allowed: [{text: allowed}]
        rejected: [{text: rejected}]
      - tool_call: {toolCallId: c2, title: "Edit .env", kind: edit, rawInput: {file_path: .env}}
      - permission: {toolCallId: c2}
        allowed: [{text: allowed}]
        rejected: [{text: rejected}]
      - tool_call: {toolCallId: c3, title: "rm -rf build > log.txt", kind: execute, rawInput: {command: "rm -rf build > log.txt"}}
      - permission: {toolCallId: c3}
        allowed: [{text: allowed}]
        rejected: [{text: rejected}]
`,
		"allow.yaml": `name: allow
agent: {command: [acprun, mock-agent, m.mock.yaml]}
workspace: {from: project}
permissions: {default: allow}
turns: [{prompt: go}]
`,
		"deny.yaml": `name: deny
agent: {command: [acprun, mock-agent, m.mock.yaml]}
workspace: {from: project}
permissions: {default: deny}
turns: [{prompt: go}]
`,
	})
	if res := acprun(t, dir, "run", "allow.yaml", "deny.yaml", "--transcripts", "tr", "-o", "out.json"); res.code != exitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	// Every verdict here is link-free: differs: does not name the links.
	const differs = "\ndiffers:  run answered %s and the rules decide %s now: the rules or the config have changed since the run\n"
	const gone = `(?m)^note:     the session's cwd ".*" no longer exists \(a workspace copy is removed after a passing attempt\): the links run followed in it cannot be followed now, `
	for _, tt := range []struct {
		scenario, call string
		flags          []string
		code           int
		want           []string       // lines (or parts) of stdout
		note           *regexp.Regexp // the note on the cwd
	}{
		{"allow", "c1", []string{"--deny", "execute:rm *"}, exitFailed,
			[]string{"\ndecision: DENY by deny rule --deny 'execute:rm *'\n", fmt.Sprintf(differs, "ALLOW", "DENY")},
			regexp.MustCompile(gone + `but the rules' decision does not depend on them: the request touches no path$`)},
		{"allow", "c3", []string{"--deny", "execute:rm *"}, exitFailed,
			[]string{"\ndecision: DENY by deny rule --deny 'execute:rm *'\n", fmt.Sprintf(differs, "ALLOW", "DENY")},
			regexp.MustCompile(gone + `but the rules' decision does not depend on them: deny rule --deny 'execute:rm \*' matched kind "execute", command "rm -rf build > log\.txt" without following a link, and a deny rule beats every allow$`)},
		{"allow", "c2", []string{"--deny", "path:**/.env"}, exitFailed,
			[]string{"\ndecision: DENY by deny rule --deny 'path:**/.env'\n", fmt.Sprintf(differs, "ALLOW", "DENY")},
			regexp.MustCompile(gone + `but the rules' decision does not depend on them: deny rule --deny 'path:\*\*/\.env' matched path ".*/\.env" without following a link, and a deny rule beats every allow$`)},
		{"deny", "c1", []string{"--allow", "execute:rm *", "--deny", "path:**/.env"}, exitOK,
			[]string{"\ndecision: ALLOW by allow rule --allow 'execute:rm *'\n", fmt.Sprintf(differs, "DENY", "ALLOW")},
			regexp.MustCompile(gone + `but the rules' decision does not depend on them: the request touches no path$`)},
		{"deny", "c3", []string{"--allow", "execute:rm *", "--allow", "edit:src/**"}, exitOK,
			[]string{"\ndecision: ALLOW by allow rule --allow 'execute:rm *'\n", fmt.Sprintf(differs, "DENY", "ALLOW")},
			regexp.MustCompile(gone + `but the rules' decision does not depend on them: every rule with a path matcher fails on another of its matchers$`)},
		// A deny path rule that a link could have made match: run's answer stands.
		{"deny", "c3", []string{"--allow", "execute:rm *", "--deny", "path:/etc/**"}, exitFailed,
			[]string{"\ndecision: DENY, as run answered (the rules decide ALLOW by allow rule --allow 'execute:rm *' on the paths as written: see the note)\n"},
			regexp.MustCompile(gone + `so the rules see the paths as written and may decide otherwise than run did$`)},
	} {
		res := acprun(t, dir, append([]string{"explain", tt.scenario + ".yaml", "--transcript", "tr/" + tt.scenario + ".jsonl", "--tool-call", tt.call}, tt.flags...)...)
		name := fmt.Sprintf("%s %s %q", tt.scenario, tt.call, tt.flags)
		if res.code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", name, res.code, tt.code, res.stdout, res.stderr)
		}
		for _, want := range tt.want {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("%s: no %q in stdout:\n%s", name, want, res.stdout)
			}
		}
		if !tt.note.MatchString(res.stdout) {
			t.Errorf("%s: stdout does not match %s:\n%s", name, tt.note, res.stdout)
		}
	}
}

// TestExplainEmptyCommandRefused: a made-up request's --command given
// empty (--command "$CMD" with CMD unset) is refused before the scenario
// is read, rather than a request without a command explained.
func TestExplainEmptyCommandRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\npermissions: {allow: [{command: 'go test *'}]}\nturns: [{prompt: hi}]\n"})
	res := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", "")
	want := `acprun: --command "": the command is empty (is the variable that gives it unset?): give the request's shell command, or leave the flag out` + "\n"
	if res.code != exitUsage || res.stderr != want || res.stdout != "" {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant %d and %q", res.code, res.stdout, res.stderr, exitUsage, want)
	}
}

// TestExplainManyScenariosListed: explain of a file of a vars matrix
// without --scenario, or with a name it lacks, lists the first ten names
// and says how many more there are and how to list them; it printed every
// name on one line, a thousand for a matrix of that size.
func TestExplainManyScenariosListed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\nvars: {n: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	const names = "s[n=0], s[n=1], s[n=2], s[n=3], s[n=4], s[n=5], s[n=6], s[n=7], s[n=8], s[n=9] and 5 more: acprun list s.yaml lists them"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "acprun: the file holds 15 scenarios; choose one with --scenario (" + names + ")\n"},
		{[]string{"--scenario", "s"}, `acprun: no scenario "s" (the file has: ` + names + ")\n"},
	} {
		res := acprun(t, dir, append([]string{"explain", "s.yaml", "--kind", "read"}, tt.args...)...)
		if res.code != exitUsage || res.stderr != tt.want {
			t.Errorf("explain %q: exit %d, stderr:\n%s\nwant %d and %q", tt.args, res.code, res.stderr, exitUsage, tt.want)
		}
	}
}
