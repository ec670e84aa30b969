package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
)

// This file is the end-to-end tests of measurements that measured
// nothing: an agent that changed protected files, the wrong agent, a
// provider that refused the work. Each is invalid, counted apart, and
// exits 7.

// protectFiles is a workspace with tests and a verify script the agent
// must leave alone (workspace.protect), and a scenario whose agent's
// script is agent (steps of its one turn).
func protectFiles(agent string) map[string]string {
	return map[string]string{
		"fixture/tests/a_test.go": "package a // fails\n",
		"fixture/verify.sh":       "exit 1\n",
		"fixture/src/main.go":     "package main // broken\n",
		"agent.mock.yaml":         "turns:\n  - steps:\n" + agent,
		"s.yaml": `name: fix
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
workspace:
  from: fixture
  protect: [tests/**, verify.sh]
verify: ["sh verify.sh"]
turns:
  - prompt: make the tests pass
`,
	}
}

// TestProtectTampered: an agent that rewrites the tests and the verify
// script it was told to leave alone has measured nothing: the scenario is
// invalid (tampered), naming the files, its verify does not run, and every
// output counts it apart from failures; acprun exits 7.
func TestProtectTampered(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, protectFiles(`      - writeFile: {path: tests/a_test.go, content: "package a // passes\n"}
      - writeFile: {path: verify.sh, content: "exit 0\n"}
      - text: all tests pass now
`))
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="},
		"run", "s.yaml", "-o", "out.json", "--junit", "junit.xml", "--html", "report.html", "--events", "ev.jsonl")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d (invalid)\n%s", res.code, exitInvalid, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	r := out.Scenarios[0]
	want := &report.Invalid{Reason: report.InvalidTampered,
		Message: "s.yaml:6:12: workspace.protect: the agent changed 2 protected files: modified tests/a_test.go, verify.sh; verify was not run",
		Files:   []string{"tests/a_test.go", "verify.sh"}}
	if r.Status != report.StatusInvalid || !cmp.Equal(want, r.Invalid) || len(r.Verify) != 0 {
		t.Errorf("status %s, invalid %+v, verify %+v; want invalid %+v and no verify", r.Status, r.Invalid, r.Verify, want)
	}
	if s := out.Summary; s.Invalid != 1 || s.Failed != 0 || s.Errored != 0 || s.Passed != 0 {
		t.Errorf("summary %+v: want 1 invalid, nothing else", s)
	}
	for _, want := range []string{
		"INVALID fix (end_turn, ",
		"    invalid (tampered): s.yaml:6:12: workspace.protect: the agent changed 2 protected files: modified tests/a_test.go, verify.sh; verify was not run\n",
		"\n0 passed, 0 failed, 1 invalid in ",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if want := "::error file=s.yaml,line=6,col=12,title=acprun%3A fix invalid::invalid (tampered): workspace.protect: the agent changed 2 protected files"; !strings.Contains(res.stdout, want) {
		t.Errorf("annotations lack %q:\n%s", want, res.stdout)
	}
	files := readFiles(t, dir, "junit.xml", "report.html", "ev.jsonl")
	if want := `<error message="invalid (tampered): s.yaml:6:12: workspace.protect: the agent changed 2 protected files: modified tests/a_test.go, verify.sh; verify was not run" type="invalid">`; !strings.Contains(string(files["junit.xml"]), want) {
		t.Errorf("JUnit lacks %s:\n%s", want, files["junit.xml"])
	}
	if want := `id="count-invalid" data-count="1">1</span> invalid`; !strings.Contains(string(files["report.html"]), want) {
		t.Errorf("the HTML report lacks %s", want)
	}
	last := finishedEvents(t, files["ev.jsonl"])
	if len(last) != 1 || last[0].Status != report.StatusInvalid || last[0].Invalid == nil || last[0].Invalid.Reason != report.InvalidTampered {
		t.Errorf("scenario_finished events %+v: want one, invalid (tampered)", last)
	}
}

// TestProtectUntouched: an agent that changes only its own work is
// measured: verify judges it, and a pass exits 0.
func TestProtectUntouched(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	files := protectFiles(`      - writeFile: {path: src/main.go, content: "package main // fixed\n"}
      - text: fixed
`)
	files["fixture/verify.sh"] = "grep -q fixed src/main.go\n"
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	r := out.Scenarios[0]
	if r.Status != report.StatusPassed || r.Invalid != nil || len(r.Verify) != 1 {
		t.Errorf("status %s, invalid %+v, verify %+v: want passed, verified", r.Status, r.Invalid, r.Verify)
	}
}

// TestProtectGlobMatchingNothing: a protect glob that matches no file of
// the workspace (a typo, or a file the agent must not create) only forbids
// creating one, and the results say so at its position; the globs that
// match are not warned about.
func TestProtectGlobMatchingNothing(t *testing.T) {
	t.Parallel()
	want := []string{`s.yaml:6:13: workspace.protect: "tset/**" matches no file of the workspace yet: it only forbids creating one (check it for a typo: a glob is relative to the workspace's root)`}
	for _, tt := range []struct {
		name, agent string
		code        int
		invalid     []string
	}{
		{"left alone", "      - text: fine\n", exitOK, nil},
		{"created", "      - spawn: \"mkdir tset && echo x > tset/new.txt\"\n      - text: fine\n", exitInvalid, []string{"tset/new.txt"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			files := protectFiles(tt.agent)
			files["fixture/verify.sh"] = "exit 0\n"
			files["s.yaml"] = strings.Replace(files["s.yaml"], "protect: [tests/**, verify.sh]", "protect: [tset/**, verify.sh]", 1)
			writeFiles(t, dir, files)
			res, out := runResults(t, dir, "s.yaml")
			r := out.Scenarios[0]
			if res.code != tt.code || !cmp.Equal(want, r.Warnings) {
				t.Errorf("exit %d, warnings %q; want %d and\n%q", res.code, r.Warnings, tt.code, want)
			}
			if got := r.Invalid; tt.invalid == nil && got != nil || tt.invalid != nil && (got == nil || !cmp.Equal(tt.invalid, got.Files)) {
				t.Errorf("invalid %+v; want the files %q", got, tt.invalid)
			}
		})
	}
}

// TestProtectNeedsGoodGlobs: protect's globs are checked before anything
// runs, each at its position.
func TestProtectNeedsGoodGlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := protectFiles("      - text: hi\n")
	files["s.yaml"] = strings.Replace(files["s.yaml"], "protect: [tests/**, verify.sh]", "protect: [/etc/passwd, ../verify.sh]", 1)
	writeFiles(t, dir, files)
	res := acprun(t, dir, "run", "s.yaml")
	if res.code != exitUsage {
		t.Errorf("exit %d, want %d\n%s", res.code, exitUsage, res.stderr)
	}
	for _, want := range []string{
		"s.yaml:6:13: pattern \"/etc/passwd\" is absolute: paths here are relative to the workspace (or the session cwd)\n",
		"s.yaml:6:26: pattern \"../verify.sh\" uses ..: write it relative to the workspace (or the session cwd), without ..\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// agentScenario is a scenario on a mock agent that says it is mock-agent
// 1.2.0, with expect (the value of expect.agent).
func agentScenario(expect string) map[string]string {
	return map[string]string{
		"agent.mock.yaml": "agentInfo: {name: mock-agent, version: 1.2.0}\nturns: [{steps: [{text: hi}]}]\n",
		"s.yaml": "name: which\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"expect:\n  agent: " + expect + "\nturns:\n  - prompt: hi\n",
	}
}

// TestExpectAgentWrong: an agent that is not the one expect.agent names
// plays no turn; the scenario is invalid (agent), naming what came and
// what was wanted, and acprun exits 7.
func TestExpectAgentWrong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, agentScenario(`{name: mock-agent, version: {matches: '^2\.'}}`))
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d\n%s", res.code, exitInvalid, res.stderr)
	}
	r := out.Scenarios[0]
	want := `s.yaml:5:38: expect.agent: the agent is "mock-agent" 1.2.0, want version /^2\./`
	if r.Status != report.StatusInvalid || r.Invalid == nil || r.Invalid.Reason != report.InvalidAgent || r.Invalid.Message != want {
		t.Errorf("status %s, invalid %+v; want invalid (agent): %s", r.Status, r.Invalid, want)
	}
	if r.Turns[0].StopReason != report.OutcomeSkipped || r.StartFailed || len(r.Failures) != 0 {
		t.Errorf("turn %s, startFailed %v, failures %q: want no turn played, nothing failed", r.Turns[0].StopReason, r.StartFailed, r.Failures)
	}
	if !strings.Contains(res.stderr, "INVALID which (no turn ran, ") || !strings.Contains(res.stderr, "    invalid (agent): "+want+"\n") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
}

// TestExpectAgentRight: the agent expect.agent names is measured.
func TestExpectAgentRight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, agentScenario(`{name: mock-agent, version: {matches: '^1\.'}}`))
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK || out.Scenarios[0].Status != report.StatusPassed {
		t.Errorf("exit %d, status %s; want 0, passed\n%s", res.code, out.Scenarios[0].Status, res.stderr)
	}
}

// upstreamFiles are scenarios whose agent answers the prompt "busy" with
// an error that says the provider is overloaded, "broken" with an error of
// its own, and anything else with the text ok.
func upstreamFiles(prompts ...string) map[string]string {
	var docs []string
	for _, p := range prompts {
		docs = append(docs, "name: "+p+"\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n"+
			"turns:\n  - prompt: "+p+"\n  - prompt: again\n")
	}
	return map[string]string{
		"agent.mock.yaml": `turns:
  - match: busy
    error: {code: -32603, message: Internal error, data: {type: error, error: {type: overloaded_error, message: Overloaded}}}
  - match: broken
    error: {code: -32603, message: "Internal error: the tool crashed"}
default:
  steps: [{text: ok}]
`,
		"s.yaml": strings.Join(docs, "---\n"),
	}
}

// TestUpstreamInvalid: a prompt answered with an overloaded error is the
// provider's doing, not the agent's: the scenario is invalid (upstream),
// its later turns are not played, and acprun exits 7, even beside a
// failure; --rerun-failed picks it up, merge counts it and exits 7.
func TestUpstreamInvalid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, upstreamFiles("busy", "broken", "fine"))
	res, out := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d: an invalid scenario beside a failed one\n%s", res.code, exitInvalid, res.stderr)
	}
	if diff := cmp.Diff([]string{"busy:invalid", "broken:failed", "fine:passed"}, verdicts(out)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	busy := out.Scenarios[0]
	want := &report.Invalid{Reason: report.InvalidUpstream, Message: `turn 1: session/prompt: Internal error (code -32603); the provider refused the work: its data says "overloaded_error"`}
	if !cmp.Equal(want, busy.Invalid) || busy.Turns[1].StopReason != report.OutcomeSkipped || len(busy.Turns[1].Failures) != 0 {
		t.Errorf("busy: invalid %+v, turn 2 %s %q; want %+v and turn 2 not played", busy.Invalid, busy.Turns[1].StopReason, busy.Turns[1].Failures, want)
	}
	if !strings.Contains(res.stderr, "\n1 passed, 1 failed, 1 invalid in ") {
		t.Errorf("summary line:\n%s", res.stderr)
	}
	if err := os.Rename(filepath.Join(dir, "out.json"), filepath.Join(dir, "first.json")); err != nil {
		t.Fatal(err)
	}
	res, out = runResults(t, dir, "s.yaml", "--rerun-failed", "first.json", "-j", "1")
	if diff := cmp.Diff([]string{"busy:invalid", "broken:failed"}, verdicts(out)); diff != "" {
		t.Errorf("--rerun-failed (-want +got):\n%s", diff)
	}
	res = acprun(t, dir, "merge", "first.json", "-o", "merged.json")
	merged := readResults(t, filepath.Join(dir, "merged.json"))
	if res.code != exitInvalid || merged.Summary.Invalid != 1 || merged.SchemaVersion != report.SchemaVersion {
		t.Errorf("merge: exit %d, summary %+v, schemaVersion %d; want %d, 1 invalid", res.code, merged.Summary, merged.SchemaVersion, exitInvalid)
	}
	res = acprun(t, dir, "report", "first.json", "-o", "report.html")
	if html := string(readFiles(t, dir, "report.html")["report.html"]); res.code != exitOK || !strings.Contains(html, `<span class="status invalid">invalid</span>`) {
		t.Errorf("report: exit %d; want an invalid badge\n%s", res.code, res.stderr)
	}
}

// TestUpstreamOnlyWhenItSaysSo: an error of the agent's own is its
// failure (exit 1), not an invalid measurement.
func TestUpstreamOnlyWhenItSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, upstreamFiles("broken", "fine"))
	res, out := runResults(t, dir, "s.yaml", "-j", "1")
	if res.code != exitFailed || out.Summary.Invalid != 0 {
		t.Errorf("exit %d, %d invalid; want %d, none\n%s", res.code, out.Summary.Invalid, exitFailed, res.stderr)
	}
	if got := out.Scenarios[0].Turns[1].StopReason; got != "end_turn" {
		t.Errorf("broken's turn 2: %s, want played", got)
	}
}

// TestAgentCrashIsNotUpstream: an agent that answers the prompt with an
// error of its own is measured failing, though its error holds a 429 or
// 529 that is no HTTP status (a line number of its stack trace) or a word
// with "quota" in it: with --repeat, each such attempt counts against the
// pass rate (0/2, below the minimum, exit 1), not as invalid.
func TestAgentCrashIsNotUpstream(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, err string }{
		{"line number", `{code: -32603, message: "Internal error", data: {stack: "TypeError: x is undefined\n    at runTool (/app/dist/index.js:529:17)"}}`},
		{"quotation", `{code: -32603, message: "Internal error: unterminated quotation mark in tool input"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, out, _ := runOne(t, "turns:\n  - steps: [{text: trying}]\n    error: "+tt.err+"\n",
				"name: agent-bug\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: allow}\n"+
					"turns:\n  - prompt: hi\n    expect: {text: {contains: good}}\n",
				"--repeat", "2", "-j", "1", "--min-pass-rate", "0.8")
			if res.code != exitFailed || out.Summary.Invalid != 0 {
				t.Errorf("exit %d, %d invalid; want %d, none: the agent's own error is its failure\n%s", res.code, out.Summary.Invalid, exitFailed, res.stderr)
			}
			if !strings.Contains(res.stderr, "agent-bug  0/2 (0%) pass@2=0.00 pass^2=0.00, min 80%: below\n") {
				t.Errorf("the pass-rate table:\n%s", res.stderr)
			}
		})
	}
}

// TestUpstreamSaysWhy: the message of an attempt made invalid by the
// provider says what in the agent's error or notice said so.
func TestUpstreamSaysWhy(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - error: {code: -32603, message: Internal error, data: "API Error: Request rejected (429) · this may be a temporary capacity issue"}
`, "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n")
	want := `turn 1: session/prompt: Internal error (code -32603); the provider refused the work: its data says "rejected (429)"`
	if sc := out.Scenarios[0]; res.code != exitInvalid || sc.Invalid == nil || sc.Invalid.Message != want {
		t.Errorf("exit %d, invalid %+v; want %d and %q\n%s", res.code, sc.Invalid, exitInvalid, want, res.stderr)
	}
	if !strings.Contains(res.stderr, "    invalid (upstream): "+want+"\n") {
		t.Errorf("stderr lacks the reason:\n%s", res.stderr)
	}
}

// TestRetriesInvalidNotFailed: retries run again an attempt that measured
// nothing (rate-limited once, then answered: flaky, exit 0) and never one
// that failed; pass rates of --repeat leave the invalid try out.
func TestRetriesInvalidNotFailed(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	files, setup := busyOnce(dir, "turns: [{error: {code: 429, message: Too Many Requests}}]\n", "turns: [{steps: [{text: pass}]}]\n")
	writeFiles(t, dir, files)
	writeFiles(t, dir, map[string]string{
		"fail.mock.yaml": "turns: [{steps: [{text: nope}]}]\n",
		"s.yaml": `name: limited
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
retries: 1
workspace: fixture
setup: [` + setup + `]
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
`,
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--run", "limited")
	if res.code != exitOK {
		t.Errorf("exit %d, want 0: the retry passed\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"limited#0:r0:invalid retried", "limited#0:r1:passed flaky"}, tries(out)); diff != "" {
		t.Errorf("tries (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.stderr, "RERUN limited (error, ") || !strings.Contains(res.stderr, "1 passed, 0 failed, 1 flaky, 1 rerun") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	res, out = runResults(t, dir, "s.yaml", "-j", "1", "--run", "failing")
	if diff := cmp.Diff([]string{"failing#0:r0:failed"}, tries(out)); diff != "" || res.code != exitFailed {
		t.Errorf("exit %d; a failed attempt is the agent's verdict, not retried (-want +got):\n%s", res.code, diff)
	}
}

// TestPassRateLeavesInvalidOut: with --repeat, an attempt that measured
// nothing is no sample of the pass rate: 1 of 1, not 1 of 2.
func TestPassRateLeavesInvalidOut(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	files, setup := busyOnce(dir, "turns: [{error: {code: -32000, message: You exceeded your current quota}}]\n", "turns: [{steps: [{text: pass}]}]\n")
	writeFiles(t, dir, files)
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: sampled
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
workspace: fixture
setup: [` + setup + `]
turns:
  - prompt: go
`,
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--repeat", "2")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d: attempt 1 measured nothing\n%s", res.code, exitInvalid, res.stderr)
	}
	rates := out.Summary.PassRates
	if len(rates) != 1 || rates[0].Attempts != 1 || rates[0].Passed != 1 || rates[0].Invalid != 1 {
		t.Errorf("pass rates %+v: want 1 of 1 attempts passed, 1 invalid", rates)
	}
	if !strings.Contains(res.stderr, "sampled   1/1 (100%), 1 invalid\n") {
		t.Errorf("the pass-rate table:\n%s", res.stderr)
	}
}

// busyOnce is a workspace fixture (fixture/) holding two mock agent
// scripts, busy and ok, and a setup command that copies busy to
// agent.mock.yaml in the attempt's workspace the first time it runs in dir
// (it leaves the file marker there), ok after that: an agent whose
// provider is busy once.
func busyOnce(dir, busy, ok string) (files map[string]string, setup string) {
	marker := filepath.Join(dir, "marker")
	return map[string]string{"fixture/busy.yaml": busy, "fixture/ok.yaml": ok},
		`"if [ -e '` + marker + `' ]; then cp ok.yaml agent.mock.yaml; else touch '` + marker + `'; cp busy.yaml agent.mock.yaml; fi"`
}

// finishedEvents are the scenario_finished events of an events file.
func finishedEvents(t *testing.T, data []byte) []progress.Event {
	t.Helper()
	var out []progress.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev progress.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event %s: %v", line, err)
		}
		if ev.Event == progress.EventScenarioFinished {
			out = append(out, ev)
		}
	}
	return out
}

// TestUpstreamNotice: an error notice that says the provider refused the
// work (a rate limit) makes the attempt invalid, whatever the turn's stop
// reason; a warning that the agent is retrying leaves it valid.
func TestUpstreamNotice(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps:
      - notice: {severity: warning, title: Rate limited, description: retrying in 2s}
      - text: first
  - steps:
      - notice: {severity: error, title: Rate limit exceeded, description: "429 from the provider"}
      - text: gave up
`
	res, out, _ := runOne(t, script, "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n  - prompt: two\n")
	sc := out.Scenarios[0]
	want := &report.Invalid{Reason: report.InvalidUpstream, Message: `turn 2: the agent's error notice "Rate limit exceeded": 429 from the provider; the provider refused the work: it says "Rate limit"`}
	if res.code != exitInvalid || !cmp.Equal(want, sc.Invalid) {
		t.Errorf("exit %d, invalid %+v; want %d and %+v\n%s", res.code, sc.Invalid, exitInvalid, want, res.stderr)
	}
	if sc.Turns[0].Failures != nil || len(sc.Turns[0].Notices) != 1 {
		t.Errorf("turn 1: failures %q, notices %+v; want its warning recorded and nothing failed", sc.Turns[0].Failures, sc.Turns[0].Notices)
	}
}

// TestUpstreamNoticeWithoutDescription: an error notice with a title
// alone is quoted so in the invalid's message, in the results and the
// summary, without an empty description after a colon.
func TestUpstreamNoticeWithoutDescription(t *testing.T) {
	t.Parallel()
	script := "turns:\n  - steps: [{notice: {severity: error, title: Rate limit exceeded}}, {text: gave up}]\n"
	res, out, _ := runOne(t, script, "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n")
	msg := `turn 1: the agent's error notice "Rate limit exceeded"; the provider refused the work: it says "Rate limit"`
	want := &report.Invalid{Reason: report.InvalidUpstream, Message: msg}
	if sc := out.Scenarios[0]; res.code != exitInvalid || !cmp.Equal(want, sc.Invalid) {
		t.Errorf("exit %d, invalid %+v; want %d and %+v\n%s", res.code, sc.Invalid, exitInvalid, want, res.stderr)
	}
	if !strings.Contains(res.stderr, "invalid (upstream): "+msg+"\n") {
		t.Errorf("the summary does not say %q:\n%s", msg, res.stderr)
	}
}

// TestReportCountsInvalid: acprun report's line on stderr counts invalid
// scenarios too, as the run's summary (and merge's) counts them, in the
// same words and order.
func TestReportCountsInvalid(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	files := protectFiles(`      - writeFile: {path: verify.sh, content: "exit 0\n"}
`)
	files["say.mock.yaml"] = "default: {steps: [{text: hello}]}\n"
	files["f.yaml"] = "name: f\nagent: {command: [acprun, mock-agent, say.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: x, expect: {text: {contains: bye}}}]\n"
	files["e.yaml"] = "name: e\nagent: {command: [/nonexistent/agent]}\npermissions: {default: deny}\nturns: [{prompt: x}]\n"
	writeFiles(t, dir, files)
	for sc, code := range map[string]int{"f": exitFailed, "e": exitAgent, "s": exitInvalid} {
		if res := acprun(t, dir, "run", sc+".yaml", "-o", sc+".json"); res.code != code {
			t.Fatalf("run %s.yaml: exit %d, want %d\n%s", sc, res.code, code, res.stderr)
		}
	}
	const counts = "0 passed, 1 failed, 1 error, 1 invalid"
	res := acprun(t, dir, "report", "f.json", "e.json", "s.json", "-o", "r.html")
	if want := "report: r.html (3 scenarios: " + counts + ")\n"; res.code != 0 || res.stderr != want {
		t.Errorf("report: exit %d, stderr:\n%s\nwant 0 and %q", res.code, res.stderr, want)
	}
	merged := acprun(t, dir, "merge", "f.json", "e.json", "s.json", "-o", "m.json")
	if want := "\n" + counts + " in "; !strings.Contains(merged.stderr, want) {
		t.Errorf("merge's summary lacks %q:\n%s", want, merged.stderr)
	}
}
