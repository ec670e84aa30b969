package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/report"
)

// TestUnchangedWhenNothingChanged: an agent that changes nothing in its
// workspace meets files.unchanged, at the turn and at the scenario: no
// changes is a known answer, not an unknown one.
func TestUnchangedWhenNothingChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: nothing to do}]\n",
		"s.yaml": `name: idle
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: look only
    expect: {files: {unchanged: ["**"]}}
expect: {files: {unchanged: [a.txt]}}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != 0 || sc.Status != "passed" {
		t.Errorf("exit %d, status %s, failures %q; want 0, passed\n%s", res.code, sc.Status, sc.Failures, res.stderr)
	}
	if ws := sc.Workspace; ws == nil || ws.Created == nil || len(ws.Created)+len(ws.Modified)+len(ws.Deleted) != 0 {
		t.Errorf("workspace %+v, want empty lists of changes", ws)
	}
}

// TestAgentDiesBeforeAnswering: an agent that exits before answering a
// call of the handshake is reported by how it ended and the call it left
// unanswered, not by the broken pipe or the closed stream acprun met, and
// its line says no turn ran rather than "skipped".
func TestAgentDiesBeforeAnswering(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, sh, want string }{
		{"initialize", "echo bye >&2; exit 7", "the agent exited with code 7 before answering initialize"},
		{"session/new", "read -r line; printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,\"agentCapabilities\":{}}}'; exit 5",
			"the agent exited with code 5 before answering session/new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": fmt.Sprintf(`name: dies
agent: {command: [sh, -c, %q]}
permissions: {default: deny}
turns: [{prompt: one}, {prompt: two}]
`, tc.sh)})
			res, out := runResults(t, dir, "s.yaml")
			sc := out.Scenarios[0]
			if res.code != exitAgent || sc.Status != report.StatusError || !sc.StartFailed {
				t.Errorf("exit %d, status %s, startFailed %v; want %d, error, true", res.code, sc.Status, sc.StartFailed, exitAgent)
			}
			if sc.Error != tc.want {
				t.Errorf("error %q, want %q", sc.Error, tc.want)
			}
			if want := "ERROR dies (no turn ran, "; !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "(skipped") {
				t.Errorf("stderr does not say %q, or says skipped:\n%s", want, res.stderr)
			}
		})
	}
}

// TestDeniedCountsTerminalCommands: a terminal/create whose command the
// policy denied counts in denied, at the turn, at the scenario and in the
// summary, as explain describes it (a deny like a permission request's);
// one it allowed counts in allowed.
func TestDeniedCountsTerminalCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "rm -rf build"}
      - terminal: {command: "true", waitForExit: true}
`,
		"s.yaml": `name: terminal
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow: [{command: "true"}]
turns:
  - prompt: clean up
    expect: {denied: 0}
expect: {maxDenied: 0}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != exitFailed || sc.Status != report.StatusFailed {
		t.Fatalf("exit %d, status %s; want %d, failed (a command was denied)\n%s", res.code, sc.Status, exitFailed, res.stderr)
	}
	want := []string{
		"turn 1: s.yaml:8:22: 0 permission requests and 1 terminal command denied, want 0", // at the value of denied
		"s.yaml:9:21: 0 permission requests and 1 terminal command denied, want at most 0",
	}
	if strings.Join(sc.Failures, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(sc.Failures, "\n"), strings.Join(want, "\n"))
	}
	if sc.Denied != 1 || sc.Allowed != 1 || out.Summary.Denied != 1 || out.Summary.Allowed != 1 {
		t.Errorf("scenario %d allowed, %d denied; summary %d, %d; want 1 and 1", sc.Allowed, sc.Denied, out.Summary.Allowed, out.Summary.Denied)
	}
	if !strings.Contains(res.stderr, "1 allowed, 1 denied") {
		t.Errorf("the line does not count the commands:\n%s", res.stderr)
	}
	ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", "rm -rf build")
	if !strings.Contains(ex.stdout, "decision: DENY") {
		t.Errorf("explain does not deny the command the run counted as denied:\n%s%s", ex.stdout, ex.stderr)
	}
}

// bareStatusRule matches a CSS selector that styles a bare status class
// (".error {"), which the card and the badge of a scenario of that status
// carry too: only .scenario.STATUS and .status.STATUS may style them.
var bareStatusRule = regexp.MustCompile(`(^|[\s>+~,(])\.(passed|failed|error|interrupted)([\s>+~,:{\[)]|$)`)

// TestReportErroredCardLikeFailed: in the HTML report an errored (or
// interrupted) scenario's card is drawn like a failed one (its own colour
// on the border and the badge only): no rule for messages also matches the
// card or its badge, and in a browser the card's text, title and badge
// have the failed card's colour and spacing.
func TestReportErroredCardLikeFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"a.yaml": `name: fails
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi, expect: {text: {contains: nope}}}]
`,
		"b.yaml": `name: errors
agent: {command: [sh, -c, "exit 7"]}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res, out := runResults(t, dir, "a.yaml", "b.yaml", "-j", "1")
	if out.Summary.Failed != 1 || out.Summary.Errored != 1 {
		t.Fatalf("summary %+v, want 1 failed and 1 errored\n%s", out.Summary, res.stderr)
	}
	// A shard whose one scenario the run's --timeout cut short.
	writeFiles(t, dir, map[string]string{"cut.json": `{"schemaVersion": 2, "scenarios": [{"name": "cut", "file": "c.yaml", "line": 1,
		"agent": {"command": ["x"]}, "status": "interrupted", "error": "the run's --timeout passed during turn 1", "durationMs": 5,
		"allowed": 0, "denied": 0, "turns": [{"index": 1, "prompt": "hi", "stopReason": "cancelled", "cancelCause": "runTimeout", "durationMs": 5, "text": ""}]}]}`})
	if res := acprun(t, dir, "report", "out.json", "cut.json", "-o", "run.html"); res.code != 0 || !strings.Contains(res.stderr, "1 error, 1 interrupted)") {
		t.Fatalf("report: exit %d, want 0 and the counts\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	_, css, _ := strings.Cut(string(data), "<style>")
	css, _, _ = strings.Cut(css, "</style>")
	for _, line := range strings.Split(css, "\n") {
		if m := bareStatusRule.FindString(line); m != "" {
			t.Errorf("a rule styles the bare class %q, which a card and its badge carry: %s", strings.TrimSpace(m), line)
		}
	}

	browser, driver := findChromium()
	if browser == "" || driver == "" {
		t.Log("chromium or chromedriver not found: the cards are not compared in a browser")
		return
	}
	page, err := filepath.Abs(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	wd := startWebDriver(t, ctx, driver, browser)
	wd.open(page)
	type look struct {
		Color, WhiteSpace, Title, TitleWhiteSpace, Badge string
		TitleHeight                                      float64
	}
	var looks map[string]look
	wd.script(`
		var out = {};
		document.querySelectorAll("section.scenario").forEach(function (s) {
			var cs = getComputedStyle(s), h = s.querySelector("h2"), hs = getComputedStyle(h);
			out[s.dataset.status] = {
				Color: cs.color, WhiteSpace: cs.whiteSpace, Title: hs.color, TitleWhiteSpace: hs.whiteSpace,
				Badge: getComputedStyle(s.querySelector(".status")).color,
				TitleHeight: Math.round(h.getBoundingClientRect().height)
			};
		});
		return out;`, &looks)
	failed := looks["failed"]
	for _, status := range []string{"error", "interrupted"} {
		if failed == (look{}) || looks[status] != failed {
			t.Errorf("the %s card looks %+v, the failed one %+v: want them alike", status, looks[status], failed)
		}
	}
}

// TestLoadWarningsInResults: the warnings loading gives about a scenario
// (no permissions, a turn timeout past the scenario's) are in its
// results, in summary.warnings and the totals, and annotated on GitHub at
// their positions, besides being printed before the run; a scenario of
// the same file they are not about carries none, and --allow-all leaves
// out "no permissions".
func TestLoadWarningsInResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const file = `name: warned
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
timeout: 1m
turns:
  - prompt: hi
    timeout: 5m
---
name: clean
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n", "s.yaml": file})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="}, "run", "s.yaml", "-o", "out.json")
	out := readResults(t, filepath.Join(dir, "out.json"))
	if res.code != 0 || len(out.Scenarios) != 2 {
		t.Fatalf("exit %d, %d results; want 0 and 2\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	timeoutAt := lineCol("s.yaml", file, strings.Index(file, "5m"))
	want := []string{
		"s.yaml:1:1: no permissions: every permission request and terminal command will be denied (add permissions to allow some)",
		timeoutAt + ": turn timeout 5m0s is longer than the scenario timeout 1m0s",
	}
	if got := out.Scenarios[0].Warnings; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warned's warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := out.Scenarios[1].Warnings; len(got) != 0 {
		t.Errorf("clean's warnings %q, want none", got)
	}
	if out.Summary.Warnings != 2 || !strings.Contains(res.stderr, "2 passed, 0 failed, 2 warnings") {
		t.Errorf("summary.warnings %d, want 2, also in the totals:\n%s", out.Summary.Warnings, res.stderr)
	}
	for _, w := range []string{
		"::warning file=s.yaml,line=1,col=1,title=acprun%3A warned::no permissions: ",
		"::warning " + ghPos(t, timeoutAt) + ",title=acprun%3A warned::turn timeout 5m0s is longer than the scenario timeout 1m0s",
	} {
		if !strings.Contains(res.stdout, w) {
			t.Errorf("no annotation %q in:\n%s", w, res.stdout)
		}
	}

	_, out = runResults(t, dir, "s.yaml", "--allow-all")
	if got := out.Scenarios[0].Warnings; len(got) != 1 || !strings.Contains(got[0], "turn timeout") {
		t.Errorf("--allow-all: warned's warnings %q, want the turn timeout's only", got)
	}
}

// TestTurnsAfterAnExpectedCancelFail: after a turn cancelled as expected,
// the later turns did not run and have not met their expectations: the
// scenario fails (exit 1), naming each skipped turn at its position and
// why, and --rerun-failed picks it up; with continueAfterCancel: true they
// are played and it passes. The mock's turns match their prompts, and
// the timeout leaves a starved machine time to write the first prompt: a
// prompt its deadline kept from being written would skip the turn, and
// the test must then fail at once, not wait on turn 2.
func TestTurnsAfterAnExpectedCancelFail(t *testing.T) {
	t.Parallel()
	const scenario = `name: cancels
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
%sturns:
  - prompt: one
    timeout: 1s
    expect: {stopReason: cancelled}
  - prompt: two
    expect: {text: {contains: two}}
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - {match: one, steps: [{waitForCancel: true}]}\n  - {match: two, steps: [{text: two}]}\n",
		"s.yaml":          fmt.Sprintf(scenario, ""),
		"continues.yaml":  strings.Replace(fmt.Sprintf(scenario, "continueAfterCancel: true\n"), "name: cancels", "name: continues", 1),
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	want := `turn 2: s.yaml:8:5: not run: turn 1 was cancelled after turnTimeout (continueAfterCancel: true plays the turns after a cancel)`
	if res.code != exitFailed || sc.Status != report.StatusFailed || strings.Join(sc.Failures, "\n") != want {
		t.Errorf("exit %d, status %s, failures %q; want %d, failed, [%s]\n%s", res.code, sc.Status, sc.Failures, exitFailed, want, res.stderr)
	}
	if got := sc.Turns[1]; got.StopReason != report.OutcomeSkipped || len(got.Failures) != 1 {
		t.Errorf("turn 2: %s, failures %q; want skipped with its failure", got.StopReason, got.Failures)
	}
	if !strings.Contains(res.stderr, "not run: turn 1 was cancelled after turnTimeout") {
		t.Errorf("the summary does not say why turn 2 did not run:\n%s", res.stderr)
	}
	rerun := acprun(t, dir, "run", "s.yaml", "continues.yaml", "--rerun-failed", "out.json", "--dry-run")
	if rerun.code != 0 || !strings.Contains(rerun.stdout, "cancels") || strings.Contains(rerun.stdout, "continues") {
		t.Errorf("--rerun-failed: exit %d, plan:\n%s\n%s", rerun.code, rerun.stdout, rerun.stderr)
	}

	res, out = runResults(t, dir, "continues.yaml")
	if sc := out.Scenarios[0]; res.code != 0 || sc.Status != report.StatusPassed || sc.Turns[1].StopReason != "end_turn" {
		t.Errorf("continueAfterCancel: exit %d, status %s, turns %+v; want 0, passed, turn 2 played\n%s", res.code, sc.Status, sc.Turns, res.stderr)
	}
}

// cutAgent works on its first turn until cancelled; its second turn
// answers at once.
const cutAgent = "turns:\n  - steps: [{text: working}, {waitForCancel: true}]\n  - steps: [{text: two}]\n"

// cutScenario accepts a cancelled first turn: only a cancel of its own
// (a timeout of its) may meet that.
const cutScenario = `name: cut
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {stopReason: cancelled}
  - prompt: two
`

// TestInterruptedScenarioIsNotPassed: a scenario an interrupt cut short is
// interrupted, though its cancelled turn accepts cancelled: never passed.
// The summary, JUnit, the GitHub annotations, the events and the HTML
// report count it apart, and --rerun-failed picks it up.
func TestInterruptedScenarioIsNotPassed(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": cutAgent, "s.yaml": cutScenario})
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	t.Setenv("GITHUB_WORKSPACE", "")
	run := runFollowingTranscript(t, t.Context(), dir, "cut", "--junit", "junit.xml", "--events", "ev.jsonl")
	run.waitFor("the first turn is working", `"dir":"a2c"`, `"text":"working"`)
	run.interrupt()
	out := run.waitInterrupted() // exit 130
	sc := out.Scenarios[0]
	if sc.Status != report.StatusInterrupted || sc.Error != "acprun was interrupted during turn 1" {
		t.Errorf("status %s, error %q; want interrupted during turn 1", sc.Status, sc.Error)
	}
	want := []string{"turn 1: s.yaml:6:13: the turn did not finish: acprun cancelled it after interrupt, which no expectation accepts (the agent answered cancelled)"}
	if strings.Join(sc.Failures, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures %q, want %q (turn 2 was not run because of the interrupt: not a failure of its own)", sc.Failures, want)
	}
	if s := out.Summary; s.Passed != 0 || s.Failed != 0 || s.Errored != 0 || s.Interrupted != 1 {
		t.Errorf("summary %+v, want 1 interrupted", s)
	}
	stderr := run.stderr.String()
	if !strings.Contains(stderr, "INTERRUPTED cut (cancelled after interrupt, skipped, ") || !strings.Contains(stderr, "0 passed, 0 failed, 1 interrupted in ") {
		t.Errorf("the summary does not count it apart:\n%s", stderr)
	}
	annotations := run.stdout.String()
	if w := "::warning file=s.yaml,line=1,title=acprun%3A cut interrupted::acprun was interrupted during turn 1"; !strings.Contains(annotations, w) || strings.Contains(annotations, "::error") {
		t.Errorf("annotations, want %q and no error:\n%s", w, annotations)
	}
	// The transcript was a FIFO, which the report would wait on.
	if err := os.Remove(filepath.Join(dir, "tr", "cut.jsonl")); err != nil {
		t.Fatal(err)
	}
	if res := acprun(t, dir, "report", "out.json", "-o", "r.html"); res.code != 0 {
		t.Fatalf("report: exit %d\n%s", res.code, res.stderr)
	}
	files := readFiles(t, dir, "junit.xml", "r.html", "ev.jsonl")
	for name, wants := range map[string][]string{
		"junit.xml": {`failures="0" errors="0" skipped="1"`, `<skipped message="interrupted: acprun was interrupted during turn 1">`},
		"r.html":    {`data-status="interrupted"`, `id="count-interrupted" data-count="1"`},
		"ev.jsonl":  {`"event":"scenario_finished","scenario":"cut"`, `"status":"interrupted"`},
	} {
		for _, w := range wants {
			if !strings.Contains(string(files[name]), w) {
				t.Errorf("%s lacks %s:\n%s", name, w, files[name])
			}
		}
	}
	rerun := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "--dry-run")
	if rerun.code != 0 || !strings.Contains(rerun.stdout, "cut") {
		t.Errorf("--rerun-failed: exit %d, want the interrupted scenario planned:\n%s%s", rerun.code, rerun.stdout, rerun.stderr)
	}
}

// TestRunTimeoutIsNotPassed: a scenario the run's --timeout cut short is
// interrupted, though its cancelled turn accepts cancelled, and the run
// exits 1, not 0 (nor 130: nobody interrupted it).
func TestRunTimeoutIsNotPassed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": cutAgent, "s.yaml": cutScenario})
	// Long enough for the agent to reach turn 1 on a loaded machine: the
	// run's --timeout counts from the start, agent start-up included.
	res, out := runResults(t, dir, "s.yaml", "--timeout", "5s")
	sc := out.Scenarios[0]
	if res.code != exitFailed || sc.Status != report.StatusInterrupted || sc.Error != "the run's --timeout passed during turn 1" || out.Interrupted {
		t.Errorf("exit %d, status %s, error %q, interrupted %v; want %d, interrupted by the run's --timeout\n%s", res.code, sc.Status, sc.Error, out.Interrupted, exitFailed, res.stderr)
	}
	if tr := sc.Turns[0]; tr.StopReason != "cancelled" || tr.CancelCause != report.CauseRunTimeout {
		t.Errorf("turn 1: %s after %s, want cancelled after runTimeout", tr.StopReason, tr.CancelCause)
	}
}

// TestMergeReadsVersion1: acprun merge still reads results of
// schemaVersion 1, as the current version means them: a scenario a
// version-1 run called passed though the run's --timeout cut it short is
// interrupted (exit 1), and --rerun-failed picks it up.
func TestMergeReadsVersion1(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": cutAgent, "s.yaml": cutScenario,
		"v1.json": `{"schemaVersion": 1, "startedAt": "2026-03-14T09:26:53.589Z", "durationMs": 1000, "byStopReason": {},
  "summary": {"scenarios": 1, "passed": 1, "failed": 0, "errored": 0, "turns": {}, "allowed": 0, "denied": 0, "warnings": 0, "durationMs": 1000},
  "scenarios": [{"name": "cut", "file": "s.yaml", "line": 1, "agent": {"command": ["acprun"]}, "status": "passed", "durationMs": 1000,
    "allowed": 0, "denied": 0, "turns": [{"index": 1, "prompt": "one", "stopReason": "cancelled", "cancelCause": "runTimeout", "durationMs": 1000, "text": ""},
      {"index": 2, "prompt": "two", "stopReason": "skipped", "durationMs": 0, "text": ""}]}]}`})
	res := acprun(t, dir, "merge", "v1.json", "-o", "m.json")
	out := readResults(t, filepath.Join(dir, "m.json"))
	if res.code != exitFailed || out.SchemaVersion != report.SchemaVersion || out.Scenarios[0].Status != report.StatusInterrupted || out.Summary.Interrupted != 1 {
		t.Errorf("merge: exit %d, schemaVersion %d, status %s, summary %+v; want %d, %d, interrupted\n%s",
			res.code, out.SchemaVersion, out.Scenarios[0].Status, out.Summary, exitFailed, report.SchemaVersion, res.stderr)
	}
	rerun := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "v1.json", "--dry-run")
	if rerun.code != 0 || !strings.Contains(rerun.stdout, "cut") {
		t.Errorf("--rerun-failed of version 1 results: exit %d:\n%s%s", rerun.code, rerun.stdout, rerun.stderr)
	}
}

// TestCancelCauseExpectation: expect.cancelCause names the cause a turn
// must have been cancelled for: its own turn timeout meets turnTimeout,
// not idleTimeout (failed at the cause's position), and a cancel for the
// run's --timeout meets neither (interrupted). validate refuses a cause
// from outside the scenario, an unknown one and one without stopReason,
// each at its position, and the JSON Schema knows the key.
func TestCancelCauseExpectation(t *testing.T) {
	t.Parallel()
	const scenario = `name: %s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
    timeout: %s
    expect: {stopReason: cancelled, cancelCause: %s}
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{waitForCancel: true}]\n",
		"own.yaml":        fmt.Sprintf(scenario, "own", "100ms", "turnTimeout"),
		"other.yaml":      fmt.Sprintf(scenario, "other", "100ms", "idleTimeout"),
		"run.yaml":        fmt.Sprintf(scenario, "run", "10m", "turnTimeout"),
		"bad.yaml":        fmt.Sprintf(scenario, "bad", "1m", "[interrupt, turnTimout]") + "  - prompt: two\n    expect: {cancelCause: turnTimeout}\n",
	})
	res, out := runResults(t, dir, "own.yaml", "other.yaml", "-j", "1")
	if res.code != exitFailed || len(out.Scenarios) != 2 {
		t.Fatalf("exit %d, %d results; want %d and 2\n%s", res.code, len(out.Scenarios), exitFailed, res.stderr)
	}
	if own := out.Scenarios[1]; own.Name != "own" || own.Status != report.StatusPassed {
		t.Errorf("own: %s %s %q, want passed", own.Name, own.Status, own.Failures)
	}
	want := "turn 1: other.yaml:7:50: cancelCause: acprun cancelled the turn after turnTimeout, want idleTimeout"
	if other := out.Scenarios[0]; other.Status != report.StatusFailed || strings.Join(other.Failures, "\n") != want {
		t.Errorf("other: %s %q, want failed: %s", other.Status, other.Failures, want)
	}

	res, out = runResults(t, dir, "run.yaml", "--timeout", "1s")
	if sc := out.Scenarios[0]; res.code != exitFailed || sc.Status != report.StatusInterrupted {
		t.Errorf("run: exit %d, status %s; want %d, interrupted (a cancel for the run's --timeout meets no expectation)\n%s", res.code, sc.Status, exitFailed, res.stderr)
	}

	res = acprun(t, dir, "validate", "bad.yaml")
	for _, w := range []string{
		"bad.yaml:7:51: cancelCause interrupt is not the scenario's: a cancel for an interrupt, the run's --timeout or --fail-fast meets no expectation",
		`bad.yaml:7:62: unknown cancel cause "turnTimout" (did you mean "turnTimeout"?)`,
		"bad.yaml:9:14: cancelCause needs stopReason",
	} {
		if res.code != exitUsage || !strings.Contains(res.stderr, w) {
			t.Errorf("validate: exit %d, want %d and %q:\n%s", res.code, exitUsage, w, res.stderr)
		}
	}
	if schema := acprun(t, dir, "schema"); !strings.Contains(schema.stdout, `"cancelCause"`) {
		t.Error("acprun schema does not describe cancelCause")
	}
}

// TestScenarioTokensOfACancelledTurn: a scenario-level
// usage.maxTotalTokens over a turn that ran and was cancelled without
// reporting its tokens does not pass on the other turns' alone: the total
// is unknown, and the failure says so (as the same bound on the turn
// does). A cancelled turn that reports its tokens is counted; a turn
// never played spent nothing. (On the mock's match: and the timeout, see
// TestTurnsAfterAnExpectedCancelFail.)
func TestScenarioTokensOfACancelledTurn(t *testing.T) {
	t.Parallel()
	const scenario = `name: scen-level
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: allow}
continueAfterCancel: true
expect: {usage: {maxTotalTokens: 150}}
turns:
  - {prompt: one, timeout: 1s, expect: {stopReason: cancelled}}
  - prompt: two
`
	for _, tt := range []struct {
		name, usage string // turn 1's usage, in the mock's script
		code        int
		want        string
	}{
		{"unreported", "", exitFailed,
			`s.yaml:5:34: usage.maxTotalTokens: the agent reported no token usage for turn 1 (cancelled), so the total is unknown (the other turns: 100 tokens)`},
		{"reported", "    usage: {inputTokens: 30, outputTokens: 10}\n", exitOK, ""},
		{"reported over", "    usage: {inputTokens: 60, outputTokens: 10}\n", exitFailed,
			`s.yaml:5:34: usage.maxTotalTokens: 170 tokens in all turns, want at most 150`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, out, _ := runOne(t, "turns:\n  - match: one\n    steps: [{text: working}, {waitForCancel: true}]\n"+tt.usage+
				"  - match: two\n    steps: [{text: second}]\n    usage: {inputTokens: 90, outputTokens: 10}\n", scenario)
			sc := out.Scenarios[0]
			if got := strings.Join(sc.Failures, "\n"); res.code != tt.code || got != tt.want {
				t.Errorf("exit %d, failures %q; want %d, %q\n%s", res.code, got, tt.code, tt.want, res.stderr)
			}
			if len(sc.Turns) != 2 || sc.Turns[0].StopReason != "cancelled" || sc.Turns[1].StopReason != "end_turn" {
				t.Errorf("turns %+v, want cancelled, end_turn", sc.Turns)
			}
		})
	}
}
