package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
)

// controlMock answers "pass" with the text pass, exits at "error" and
// answers anything else with the text fail.
const controlMock = `turns:
  - match: pass
    steps: [{text: pass}]
  - match: error
    steps: [{exit: 3}]
default:
  steps: [{text: fail}]
`

// controlScenarios are scenarios on controlMock, one per outcome: a
// scenario whose outcome is "pass" passes, "fail" fails its expectation and
// "error" errors (its agent exits mid-turn).
func controlScenarios(outcomes ...string) string {
	var docs []string
	for i, o := range outcomes {
		docs = append(docs, fmt.Sprintf(`name: s%d-%s
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: %s
    expect: {text: {contains: pass}}
`, i+1, o, o))
	}
	return strings.Join(docs, "---\n")
}

// verdicts lists the results as name:status, with their error when they
// were not run.
func verdicts(out report.Results) []string {
	var got []string
	for _, sc := range out.Scenarios {
		v := sc.Name + ":" + string(sc.Status)
		if strings.HasPrefix(sc.Error, "not run: ") {
			v += " (" + sc.Error + ")"
		}
		got = append(got, v)
	}
	return got
}

func TestFailFastStopsStartingScenarios(t *testing.T) {
	underRace(t)
	t.Parallel()
	const ff = "not run: the run stopped at its first failed scenario (--fail-fast)"
	const mf = "not run: the run stopped after 2 failed scenarios (--max-failures 2)"
	// With --repeat each attempt counts, and is said to.
	const ffa = "not run: the run stopped at its first failed attempt (--fail-fast)"
	const mfa = "not run: the run stopped after 2 failed attempts (--max-failures 2)"
	for _, tc := range []struct {
		name     string
		outcomes []string
		args     []string
		want     []string
		said     string // in the summary, when set
	}{
		{"fail-fast", []string{"pass", "fail", "pass", "pass"}, []string{"--fail-fast"}, []string{
			"s1-pass:passed", "s2-fail:failed", "s3-pass:interrupted (" + ff + ")", "s4-pass:interrupted (" + ff + ")"}, ""},
		{"an error counts", []string{"error", "pass"}, []string{"--fail-fast=finish"}, []string{
			"s1-error:error", "s2-pass:interrupted (" + ff + ")"}, ""},
		{"max-failures", []string{"fail", "pass", "error", "fail", "pass"}, []string{"--max-failures", "2"}, []string{
			"s1-fail:failed", "s2-pass:passed", "s3-error:error", "s4-fail:interrupted (" + mf + ")", "s5-pass:interrupted (" + mf + ")"}, ""},
		{"max-failures 1 is not --fail-fast", []string{"fail", "pass"}, []string{"--max-failures", "1"}, []string{
			"s1-fail:failed", "s2-pass:interrupted (not run: the run stopped at its first failed scenario (--max-failures 1))"}, ""},
		{"max-failures not reached", []string{"fail", "pass", "fail"}, []string{"--max-failures", "3"}, []string{
			"s1-fail:failed", "s2-pass:passed", "s3-fail:failed"}, ""},
		{"repeat: each attempt counts", []string{"fail", "pass"}, []string{"--fail-fast", "--repeat", "2"}, []string{
			"s1-fail:failed", "s1-fail:interrupted (" + ffa + ")", "s2-pass:interrupted (" + ffa + ")", "s2-pass:interrupted (" + ffa + ")"},
			"\n3 attempts of 2 scenarios did not run: the run stopped at its first failed attempt (--fail-fast)\n"},
		{"repeat: attempts of one scenario", []string{"fail", "pass"}, []string{"--max-failures", "2", "--repeat", "2"}, []string{
			"s1-fail:failed", "s1-fail:failed", "s2-pass:interrupted (" + mfa + ")", "s2-pass:interrupted (" + mfa + ")"},
			"\n2 attempts of 1 scenario did not run: the run stopped after 2 failed attempts (--max-failures 2)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios(tc.outcomes...)})
			res, out := runResults(t, dir, append([]string{"s.yaml", "-j", "1"}, tc.args...)...)
			if res.code != 1 {
				t.Errorf("exit %d, want 1 (not 130: the run was not interrupted)\n%s", res.code, res.stderr)
			}
			if diff := cmp.Diff(tc.want, verdicts(out)); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if out.Interrupted {
				t.Error("results say interrupted")
			}
			if !strings.Contains(res.stderr, tc.said) {
				t.Errorf("the summary does not say %q:\n%s", tc.said, res.stderr)
			}
		})
	}
}

// TestMaxFailuresHelpSaysAttempts: run --help says of --max-failures that
// with --repeat each attempt counts, as the run counts them.
func TestMaxFailuresHelpSaysAttempts(t *testing.T) {
	t.Parallel()
	res := acprunEnv(t, t.TempDir(), []string{"COLUMNS=1000"}, "run", "--help") // one line a flag
	for _, want := range []string{
		"With --repeat each failed attempt counts, so the N may be of one scenario",
		"With --repeat the first failed attempt stops the run.",
	} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("exit %d; run --help does not say %q:\n%s", res.code, want, res.stdout)
		}
	}
}

// TestFailFastWithMaxFailuresRefused: --fail-fast alone (stop at the
// first failure) with --max-failures 3 is a usage error naming both, before
// any scenario runs, rather than a run where --max-failures silently wins;
// --fail-fast=cancel with it is the documented way to cancel at the Nth.
func TestFailFastWithMaxFailuresRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("fail", "fail", "pass", "fail", "pass")})
	res := acprun(t, dir, "run", "s.yaml", "-j", "1", "--fail-fast", "--max-failures", "3", "-o", "out.json")
	const want = "acprun: --fail-fast stops the run at its first failure, and --max-failures 3 after 3: leave one of them out (--fail-fast=cancel --max-failures 3 cancels the running scenarios then)\n"
	if res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", res.code, res.stderr, exitUsage, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("a refused run wrote results")
	}
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--fail-fast=cancel", "--max-failures", "3")
	wantVerdicts := []string{"s1-fail:failed", "s2-fail:failed", "s3-pass:passed", "s4-fail:failed",
		"s5-pass:interrupted (not run: the run stopped after 3 failed scenarios (--max-failures 3))"}
	if diff := cmp.Diff(wantVerdicts, verdicts(out)); res.code != 1 || diff != "" {
		t.Errorf("--fail-fast=cancel --max-failures 3: exit %d, results (-want +got):\n%s", res.code, diff)
	}
}

// failFastFiles writes two scenarios for -j 2: slow runs a terminal that
// writes the FIFO started, then waits on the FIFO done, in its one turn;
// failing reads started in its setup (so it runs while slow's turn does),
// then fails its expectation, and with finishSlow writes done in its
// teardown, so that slow's turn can end by itself.
func failFastFiles(t *testing.T, dir string, finishSlow bool) {
	t.Helper()
	started, done := filepath.Join(dir, "started"), filepath.Join(dir, "done")
	for _, p := range []string{started, done} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	slowMock := fmt.Sprintf(`turns:
  - steps:
      - terminal: {command: sh, args: [-c, "echo go > '%s'; cat '%s'"], waitForExit: true}
      - text: slow done
`, started, done)
	teardown := ""
	if finishSlow {
		teardown = fmt.Sprintf("teardown: [\"echo done > '%s'\"]\n", done)
	}
	writeFiles(t, dir, map[string]string{
		"slow.mock.yaml":  slowMock,
		"agent.mock.yaml": controlMock,
		"s.yaml": fmt.Sprintf(`name: slow
agent: {command: [acprun, mock-agent, slow.mock.yaml]}
client: {terminal: true}
permissions: {default: allow}
turns:
  - prompt: slow
---
name: failing
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
setup: ["cat '%s'"]
%sturns:
  - prompt: fail
    expect: {text: {contains: pass}}
---
name: later
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: pass
`, started, teardown),
	})
}

func TestFailFastCancelCancelsRunningScenarios(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	failFastFiles(t, dir, false)
	res, out := runResults(t, dir, "s.yaml", "-j", "2", "--fail-fast=cancel", "--timeout", "2m")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	// slow was cut short by another scenario's failure: interrupted, not
	// a failure of its own, and so not counted as one.
	want := []string{"slow:interrupted", "failing:failed",
		"later:interrupted (not run: the run stopped at its first failed scenario (--fail-fast))"}
	if diff := cmp.Diff(want, verdicts(out)); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	if got := out.Scenarios[0].Error; got != "the run stopped at its first failed scenario (--fail-fast) during turn 1" {
		t.Errorf("slow's error %q, want what cut it short", got)
	}
	if s := out.Summary; s.Failed != 1 || s.Interrupted != 2 || s.NotRun != 1 || s.Errored != 0 {
		t.Errorf("summary %+v, want 1 failed, 2 interrupted (1 not run)", s)
	}
	turn := out.Scenarios[0].Turns[0]
	if turn.StopReason != "cancelled" || turn.CancelCause != "failFast" {
		t.Errorf("slow's turn: stopReason %q, cancelCause %q; want cancelled after failFast", turn.StopReason, turn.CancelCause)
	}
	if got := out.ByStopReason["cancelled"]; len(got) != 1 || got[0].Scenario != "slow" {
		t.Errorf("byStopReason.cancelled = %v, want slow's turn", got)
	}
}

func TestFailFastLetsRunningScenariosFinish(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	failFastFiles(t, dir, true)
	res, out := runResults(t, dir, "s.yaml", "-j", "2", "--fail-fast", "--timeout", "2m")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 3 {
		t.Fatalf("results: %v, want 3", verdicts(out))
	}
	slow := out.Scenarios[0]
	if slow.Status != "passed" || slow.Turns[0].StopReason != "end_turn" || slow.Turns[0].CancelCause != "" {
		t.Errorf("slow: %s, turn %s after %q; want it to finish by itself", slow.Status, slow.Turns[0].StopReason, slow.Turns[0].CancelCause)
	}
	if got := out.Scenarios[1].Status; got != "failed" {
		t.Errorf("failing: %s", got)
	}
}

// flakyScenario is a scenario on controlMock whose setup fails the first
// time it runs in dir (it leaves the file marker), so that its first try
// errors, and passes after that.
func flakyScenario(dir, extra string) string {
	marker := filepath.Join(dir, "marker")
	return fmt.Sprintf(`name: flaky
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
retries: 2
%ssetup: ["test -e '%s' || { touch '%s'; exit 1; }"]
turns:
  - prompt: pass
`, extra, marker, marker)
}

// tries lists the results as name:status with their retry and marks.
func tries(out report.Results) []string {
	var got []string
	for _, sc := range out.Scenarios {
		v := fmt.Sprintf("%s#%d:r%d:%s", sc.Name, sc.Attempt, sc.Retry, sc.Status)
		if sc.Retried {
			v += " retried"
		}
		if sc.Flaky {
			v += " flaky"
		}
		got = append(got, v)
	}
	return got
}

func TestRetriesPassOnARetry(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": flakyScenario(dir, "")})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr", "--junit", "junit.xml", "--events", "ev.jsonl", "--html", "report.html")
	if res.code != 0 {
		t.Errorf("exit %d, want 0: the scenario passed on its retry\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"flaky#0:r0:error retried", "flaky#0:r1:passed flaky"}, tries(out)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	s := out.Summary
	if s.Scenarios != 1 || s.Passed != 1 || s.Failed != 0 || s.Flaky != 1 || s.Retried != 1 {
		t.Errorf("summary: %d scenarios, %d passed, %d failed, %d flaky, %d retried; want 1, 1, 0, 1, 1", s.Scenarios, s.Passed, s.Failed, s.Flaky, s.Retried)
	}
	if !strings.Contains(res.stderr, "1 passed, 0 failed, 1 flaky, 1 rerun") {
		t.Errorf("summary line: want 1 passed, 0 failed, 1 flaky, 1 rerun\n%s", res.stderr)
	}
	if !strings.Contains(res.stderr, "RERUN flaky") {
		t.Errorf("the errored try is not shown as a rerun:\n%s", res.stderr)
	}
	var paths []string
	for _, sc := range out.Scenarios {
		paths = append(paths, filepath.Base(sc.Transcript))
	}
	if diff := cmp.Diff([]string{"flaky.jsonl", "flaky-retry1.jsonl"}, paths); diff != "" {
		t.Errorf("transcripts (-want +got):\n%s", diff)
	}
	var finished []string
	for _, line := range strings.Split(strings.TrimSpace(string(readFiles(t, dir, "ev.jsonl")["ev.jsonl"])), "\n") {
		var ev progress.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event %s: %v", line, err)
		}
		if ev.Event == progress.EventScenarioFinished {
			finished = append(finished, fmt.Sprintf("retry %d %s retried=%v flaky=%v", ev.Retry, ev.Status, ev.Retried, ev.Flaky))
		}
	}
	if diff := cmp.Diff([]string{"retry 0 error retried=true flaky=false", "retry 1 passed retried=false flaky=true"}, finished); diff != "" {
		t.Errorf("scenario_finished events (-want +got):\n%s", diff)
	}
	html := string(readFiles(t, dir, "report.html")["report.html"])
	for _, want := range []string{`<span class="attempt">rerun: the next try's verdict counts</span>`, `<span class="attempt">retry 1</span> <span class="attempt">flaky</span>`} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML report lacks %s", want)
		}
	}
	junit := string(readFiles(t, dir, "junit.xml")["junit.xml"])
	if !strings.Contains(junit, `tests="1" failures="0" errors="0"`) {
		t.Errorf("JUnit: want one passing test case:\n%s", junit)
	}
}

func TestRetriesAllFail(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": `name: broken
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
retries: 2
turns:
  - prompt: error
---
name: after
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: pass
`})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--fail-fast")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	want := []string{"broken#0:r0:error retried", "broken#0:r1:error retried", "broken#0:r2:error", "after#0:r0:interrupted"}
	if diff := cmp.Diff(want, tries(out)); diff != "" {
		t.Errorf("results: the retries come first, then --fail-fast stops the run (-want +got):\n%s", diff)
	}
	if s := out.Summary; s.Scenarios != 2 || s.Errored != 1 || s.Interrupted != 1 || s.NotRun != 1 || s.Retried != 2 || s.Flaky != 0 {
		t.Errorf("summary: %+v", s)
	}
}

func TestRetriesGetFreshWorkspaces(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := realTempDir(t)
	// The agent writes dirty into the workspace, then its provider is
	// busy the first time; setup fails when dirty is there already, so a
	// retry in a used workspace would error.
	files, setup := busyOnce(dir,
		"turns:\n  - steps: [{write: {path: dirty, content: x}}, {error: {code: -32603, message: rate limit reached}}]\n",
		"turns:\n  - steps: [{write: {path: dirty, content: x}}, {text: pass}]\n")
	writeFiles(t, dir, files)
	writeFiles(t, dir, map[string]string{"s.yaml": `name: flaky
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
retries: 2
workspace: ./fixture
client: {fs: true}
setup: ["test ! -e dirty", ` + setup + `]
turns:
  - prompt: pass
`})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"flaky#0:r0:invalid retried", "flaky#0:r1:passed flaky"}, tries(out)); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	first, second := out.Scenarios[0].Workspace, out.Scenarios[1].Workspace
	if first == nil || second == nil || first.Path == second.Path {
		t.Fatalf("workspaces %+v and %+v: want one each", first, second)
	}
	if !first.Kept || !strings.Contains(filepath.Base(first.Path), "flaky") {
		t.Errorf("the invalid try's workspace %s: kept %v, want kept", first.Path, first.Kept)
	}
	if !strings.Contains(filepath.Base(second.Path), "retry1") {
		t.Errorf("the retry's workspace %s is not named after it", second.Path)
	}
	for i, sc := range out.Scenarios {
		if diff := cmp.Diff([]string{"dirty"}, sc.Workspace.Created); diff != "" {
			t.Errorf("try %d created (-want +got):\n%s", i, diff)
		}
	}
}

func TestRetriesAreNotSamplesOfRepeat(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": flakyScenario(dir, "")})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "2", "-j", "1")
	if res.code != 0 {
		t.Errorf("exit %d\n%s", res.code, res.stderr)
	}
	want := []string{"flaky#1:r0:error retried", "flaky#1:r1:passed flaky", "flaky#2:r0:passed"}
	if diff := cmp.Diff(want, tries(out)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if rates := out.Summary.PassRates; len(rates) != 1 || rates[0].Attempts != 2 || rates[0].Passed != 2 {
		t.Errorf("pass rates %+v: want 2 of 2 attempts passed (a retry is no sample)", rates)
	}
}

func TestRerunFailed(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("pass", "fail", "error", "pass", "fail")})
	if res, out := runResults(t, dir, "./s.yaml", "-j", "1", "--max-failures", "2"); res.code != 1 || len(out.Scenarios) != 5 {
		t.Fatalf("first run: exit %d, %v", res.code, verdicts(out))
	}
	if err := os.Rename(filepath.Join(dir, "out.json"), filepath.Join(dir, "first.json")); err != nil {
		t.Fatal(err)
	}
	// The failed, the errored and those --max-failures did not start; the
	// file named another way is the same file.
	res, out := runResults(t, dir, filepath.Join(dir, "s.yaml"), "--rerun-failed", "first.json", "-j", "1")
	if res.code != 1 {
		t.Errorf("rerun: exit %d, want 1\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"s2-fail:failed", "s3-error:error", "s4-pass:passed", "s5-fail:failed"}, verdicts(out)); diff != "" {
		t.Errorf("rerun (-want +got):\n%s", diff)
	}
	// With the other selection flags: both apply.
	_, out = runResults(t, dir, "s.yaml", "--rerun-failed", "first.json", "--run", "pass|error", "-j", "1")
	if diff := cmp.Diff([]string{"s3-error:error", "s4-pass:passed"}, verdicts(out)); diff != "" {
		t.Errorf("rerun --run (-want +got):\n%s", diff)
	}
}

func TestRerunFailedNothingToRerun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A flaky scenario that passed on its retry did not fail.
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": flakyScenario(dir, "") + "---\n" + controlScenarios("pass")})
	if res, out := runResults(t, dir, "s.yaml"); res.code != 0 || len(out.Scenarios) != 3 {
		t.Fatalf("first run: exit %d, %v", res.code, tries(out))
	}
	before := readFiles(t, dir, "out.json")["out.json"]
	res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "-o", "out.json")
	if res.code != 5 || !strings.Contains(res.stderr, "nothing to rerun: no scenario failed, errored, was invalid or was interrupted in out.json (--allow-empty accepts that, with exit 0)") {
		t.Errorf("exit %d, want 5 and nothing to rerun\n%s", res.code, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "-o", "out.json", "--allow-empty")
	if res.code != 0 || !strings.Contains(res.stderr, "nothing to rerun") {
		t.Errorf("--allow-empty: exit %d, want 0 and nothing to rerun\n%s", res.code, res.stderr)
	}
	if after := readFiles(t, dir, "out.json")["out.json"]; string(after) != string(before) {
		t.Error("the results file read was written over")
	}
	// Failures of scenarios the selection leaves out: nothing to rerun either.
	writeFiles(t, dir, map[string]string{"f.yaml": controlScenarios("fail")})
	acprun(t, dir, "run", "f.yaml", "-o", "f.json")
	res = acprun(t, dir, "run", "s.yaml", "--rerun-failed", "f.json")
	if res.code != 5 || !strings.Contains(res.stderr, "nothing to rerun: the scenario that failed, errored, was invalid or was interrupted in f.json is not selected") {
		t.Errorf("exit %d, want 5\n%s", res.code, res.stderr)
	}
}

func TestRerunFailedBadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("pass"), "bad.json": "{\"scenarios\": []}"})
	for file, want := range map[string]string{
		"missing.json": "acprun: --rerun-failed missing.json: no such file or directory",
		"bad.json":     "acprun: --rerun-failed bad.json: not acprun results: no schemaVersion",
		"s.yaml":       "acprun: --rerun-failed s.yaml:1:2: not acprun results: ",
	} {
		res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", file, "-o", "out.json")
		if res.code != 2 || !strings.Contains(res.stderr, want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s", file, res.code, want, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
			t.Errorf("%s: results written: something ran", file)
		}
	}
}

// TestFailFastCancelDuringStart checks that a scenario whose agent is still
// starting when --fail-fast=cancel stops the run is interrupted, not
// counted as an agent that could not start (exit 1, not 3).
func TestFailFastCancelDuringStart(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	started, never := filepath.Join(dir, "started"), filepath.Join(dir, "never")
	for _, p := range []string{started, never} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": controlMock,
		"s.yaml": fmt.Sprintf(`name: starting
agent: {command: [sh, -c, "echo go > '%s'; cat '%s'"]}
permissions: {default: deny}
killGrace: 100ms
cancelGrace: 100ms
turns:
  - prompt: pass
---
name: failing
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
setup: ["cat '%s'"]
turns:
  - prompt: fail
    expect: {text: {contains: pass}}
`, started, never, started),
	})
	res, out := runResults(t, dir, "s.yaml", "-j", "2", "--fail-fast=cancel", "--timeout", "2m")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"starting:interrupted", "failing:failed"}, verdicts(out)); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	sc := out.Scenarios[0]
	if sc.StartFailed || !strings.HasPrefix(sc.Error, "the run stopped at its first failed scenario (--fail-fast) before the session opened (") {
		t.Errorf("starting: startFailed %v, error %q", sc.StartFailed, sc.Error)
	}
}

func TestControlDryRun(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("pass", "fail") + "retries: 3\n"})
	if res, _ := runResults(t, dir, "s.yaml", "-j", "1", "--max-failures", "5"); res.code != 1 {
		t.Fatalf("first run: exit %d\n%s", res.code, res.stderr)
	}
	res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "--dry-run")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, "s1-pass") || !strings.Contains(res.stdout, "s2-fail") {
		t.Errorf("the plan is not of the failed scenario alone:\n%s", res.stdout)
	}
	if !strings.Contains(res.stdout, "  retries:  3 (an attempt that errors or is invalid runs again, in a fresh workspace)\n") {
		t.Errorf("the plan does not show the retries:\n%s", res.stdout)
	}
}

// TestRerunFailedOfAMatrixWithoutAgent: a run of an --agent matrix, rerun
// with --rerun-failed but without --agent, selects none of what failed,
// which ran on the config's agents; the error names them and the flag that
// selects them again (exit 5, nothing run), and that flag does.
func TestRerunFailedOfAMatrixWithoutAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":   "turns:\n  - steps: [{text: pass}]\n",
		"fail.mock.yaml": "turns:\n  - steps: [{text: nope}]\n",
		"acprun.yaml":    "agents:\n  good: {command: [acprun, mock-agent, ok.mock.yaml]}\n  bad: {command: [acprun, mock-agent, fail.mock.yaml]}\n",
		"s.yaml":         "name: one\nagent: {name: mock, args: [ok.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: pass}}}]\n",
	})
	if res, out := runResults(t, dir, "s.yaml", "--agent", "good,bad"); res.code != exitFailed || len(out.Scenarios) != 2 {
		t.Fatalf("first run: exit %d, %v", res.code, verdicts(out))
	}
	res := acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "-o", "again.json")
	want := "acprun: nothing to rerun: the scenario that failed, errored, was invalid or was interrupted in out.json is not selected; " +
		"it ran there on agent bad, which this run does not give it: run with --agent bad (--allow-empty accepts that, with exit 0)\n"
	if res.code != exitEmpty || res.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitEmpty, want)
	}
	res = acprun(t, dir, "run", "s.yaml", "--rerun-failed", "out.json", "--agent", "bad", "-o", "again.json")
	if res.code != exitFailed || !strings.Contains(res.stderr, "FAIL one [bad]") {
		t.Errorf("with the flag it gives: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestPassRatesCountNotRun: the pass-rate table counts the attempts that
// --fail-fast kept from starting as the totals do, "not run" and not
// "interrupted", and summary.passRates[] counts them in notRun.
func TestPassRatesCountNotRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": controlMock, "s.yaml": controlScenarios("fail", "pass")})
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--fail-fast", "--repeat", "2", "--html", "out.html")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"s1-fail   0/1 (0%), 1 not run\n", "s2-pass   no verdict, 2 not run\n", "1 failed, 3 not run in "} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the summary does not say %q:\n%s", want, res.stderr)
		}
	}
	var got []string
	for _, p := range out.Summary.PassRates {
		got = append(got, fmt.Sprintf("%s: %d attempts, %d interrupted, %d not run", p.Scenario, p.Attempts, p.Interrupted, p.NotRun))
	}
	want := []string{"s1-fail: 1 attempts, 1 interrupted, 1 not run", "s2-pass: 0 attempts, 2 interrupted, 2 not run"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary.passRates (-want +got):\n%s", diff)
	}
	if html, err := os.ReadFile(filepath.Join(dir, "out.html")); err != nil || !strings.Contains(string(html), "2 not run") {
		t.Errorf("the HTML report does not say 2 not run (%v)", err)
	}
}
