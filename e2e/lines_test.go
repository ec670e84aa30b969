package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The end-to-end tests of what a person reads when stderr is not a
// terminal: one line per scenario as it ends (--format lines, dots or
// quiet), then a summary of only what did not pass, each reason followed
// by an excerpt of the turn's text or the agent's stderr, the pass-rate
// table when there is something to compare, the scenarios an interrupt
// kept from running, and the totals.

// linesDuration matches the durations acprun prints (12ms, 1.5s, 850µs).
var linesDuration = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s)\b`)

// linesShape is stderr with every duration written DUR, split into lines
// (without the empty string after the last line break).
func linesShape(stderr string) []string {
	return strings.Split(strings.TrimSuffix(linesDuration.ReplaceAllString(stderr, "DUR"), "\n"), "\n")
}

// linesScript is the mock agent of most of these tests: turn 1 says 12
// lines, the first with the agent's secret; turn 2 writes two lines to stderr (one with the agent's secret)
// and exits; any other prompt is answered "ok".
const linesScript = `turns:
  - match: banana
    steps:
      - text: "line 1 tok_LinesSecret0123456789abcdef\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\n"
  - match: crash
    steps:
      - stderr: "loading model with token tok_LinesSecret0123456789abcdef"
      - stderr: "fatal: out of tokens"
      - exit: 3
default:
  steps: [{text: ok}]
`

// linesScenarios is one passing scenario, one failing an expectation on
// a long text, and one whose agent crashes on its second turn.
const linesScenarios = `name: passes
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
---
name: wants-banana
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {TOKEN: tok_LinesSecret0123456789abcdef}
permissions: {default: deny}
turns:
  - prompt: banana
    expect: {text: {contains: banana split}}
---
name: crashes
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {TOKEN: tok_LinesSecret0123456789abcdef}
permissions: {default: deny}
turns:
  - prompt: hi
  - prompt: crash
  - prompt: still there?
`

// TestLinesHundredPassingScenarios: 100 passing scenarios print 100
// lines, each once, then a blank line, the totals and the results file:
// 103 lines, where every scenario used to be printed twice.
func TestLinesHundredPassingScenarios(t *testing.T) {
	t.Parallel()
	bin, err := plainBinary() // 100 agents: the race detector would make it slow
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var docs []string
	for i := 1; i <= 100; i++ {
		docs = append(docs, fmt.Sprintf("name: s%03d\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n", i))
	}
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": "default: {steps: [{text: ok}]}\n", "s.yaml": strings.Join(docs, "---\n")})
	res, _ := runBinary(t, bin, dir, nil, "run", "s.yaml", "-o", "out.json")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	lines := linesShape(res.stderr)
	if len(lines) != 103 {
		t.Fatalf("%d lines, want 103 (100 scenarios, a blank line, the totals, the results):\n%s", len(lines), res.stderr)
	}
	seen := map[string]bool{}
	line := regexp.MustCompile(`^PASS (s[0-9]{3}) \(end_turn, DUR\)$`)
	for _, l := range lines[:100] {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %q is not a scenario's line", l)
			continue
		}
		if seen[m[1]] {
			t.Errorf("%s printed twice", m[1])
		}
		seen[m[1]] = true
	}
	if len(seen) != 100 {
		t.Errorf("%d scenarios printed, want 100", len(seen))
	}
	if diff := cmp.Diff([]string{"", "100 passed, 0 failed in DUR; turns: end_turn 100", "results: out.json"}, lines[100:]); diff != "" {
		t.Errorf("end of the output (-want +got):\n%s", diff)
	}
}

// linesSummary is what follows the scenario lines of linesScenarios: the
// failure with the first and last 4 of the turn's 12 lines, the error with
// the agent's stderr (its secret redacted), and the totals.
var linesSummary = []string{
	"",
	"FAIL wants-banana (end_turn, DUR)",
	`    turn 1: s.yaml:14:31: text does not contain "banana split"`,
	"      turn 1 text (12 lines):",
	"      | line 1 [REDACTED]",
	"      | line 2",
	"      | line 3",
	"      | line 4",
	"      | … 4 more lines …",
	"      | line 9",
	"      | line 10",
	"      | line 11",
	"      | line 12",
	"ERROR crashes (end_turn, agent_exited, skipped, DUR)",
	"    turn 2: the agent exited with code 3",
	"    turn 2: s.yaml:23:5: stopReason agent_exited, want end_turn (the agent exited with code 3)",
	"      turn 2 text: none",
	"    agent stderr (last 2 lines):",
	"    | loading model with token [REDACTED]",
	"    | fatal: out of tokens",
	"",
	"1 passed, 1 failed, 1 error in DUR; turns: agent_exited 1, end_turn 3, skipped 1",
}

// TestLinesSummaryExplainsFailures runs a passing, a failing and an
// erroring scenario one after the other: each has its line as it ends,
// then the summary lists only the two that did not pass, with excerpts.
func TestLinesSummaryExplainsFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": linesScript, "s.yaml": linesScenarios})
	res := acprun(t, dir, "run", "s.yaml", "-j", "1", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	want := append([]string{
		"PASS passes (end_turn, DUR)",
		"FAIL wants-banana (end_turn, DUR)",
		"ERROR crashes (end_turn, agent_exited, skipped, DUR)",
	}, linesSummary...)
	want = append(want, "results: out.json")
	if diff := cmp.Diff(want, linesShape(res.stderr)); diff != "" {
		t.Errorf("stderr (-want +got):\n%s\n%s", diff, res.stderr)
	}
	if strings.Contains(res.stderr, "tok_LinesSecret") {
		t.Errorf("the agent's secret is in the summary:\n%s", res.stderr)
	}
}

// TestLinesFormats: --format dots writes one character per scenario,
// --format quiet and -q nothing as scenarios end (nor the results line);
// the summary is the same whatever the format.
func TestLinesFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": linesScript, "s.yaml": linesScenarios})
	summary := append([]string{}, linesSummary...)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--format", "dots"}, append(append([]string{".FE"}, summary...), "results: out.json")},
		{[]string{"--format", "quiet"}, summary},
		{[]string{"-q"}, summary},
		{[]string{"--quiet", "--format", "dots"}, summary}, // -q wins: it says less
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			res := acprun(t, dir, append([]string{"run", "s.yaml", "-j", "1", "-o", "out.json"}, tt.args...)...)
			if res.code != exitFailed {
				t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
			}
			if diff := cmp.Diff(tt.want, linesShape(res.stderr)); diff != "" {
				t.Errorf("stderr (-want +got):\n%s\n%s", diff, res.stderr)
			}
		})
	}
	bad := acprun(t, dir, "run", "s.yaml", "--format", "json")
	if bad.code != exitUsage || !strings.Contains(bad.stderr, "--format") {
		t.Errorf("--format json: exit %d, want 2 and a word on --format\n%s", bad.code, bad.stderr)
	}
}

// TestLinesExcerptsInJUnitAndGitHub: the JUnit <failure> and <error>
// bodies and the GitHub annotations carry the same excerpts as the
// summary, the agent's secret redacted.
func TestLinesExcerptsInJUnitAndGitHub(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": linesScript, "s.yaml": linesScenarios})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY="}, "run", "s.yaml", "-j", "1", "-o", "out.json", "--junit", "junit.xml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	junit := string(readFiles(t, dir, "junit.xml")["junit.xml"])
	for _, want := range []string{
		"failed: turn 1: s.yaml:14:31: text does not contain \"banana split\"\n" +
			"  turn 1 text (12 lines):\n  | line 1 [REDACTED]\n  | line 2\n  | line 3\n  | line 4\n  | … 4 more lines …\n" +
			"  | line 9\n  | line 10\n  | line 11\n  | line 12\n]]></failure>",
		"agent stderr (last 2 lines):\n| loading model with token [REDACTED]\n| fatal: out of tokens\n",
	} {
		if !strings.Contains(junit, want) {
			t.Errorf("junit.xml lacks\n%s\ngot:\n%s", want, junit)
		}
	}
	for _, want := range []string{
		`text does not contain \"banana split\"%0A  turn 1 text (12 lines):%0A  | line 1 [REDACTED]%0A`,
		`%0A  | … 4 more lines …%0A  | line 9%0A  | line 10%0A  | line 11%0A  | line 12`,
		"%0Aagent stderr (last 2 lines):%0A| loading model with token [REDACTED]%0A| fatal: out of tokens",
	} {
		want = strings.ReplaceAll(want, `\"`, `"`)
		if !strings.Contains(res.stdout, want) {
			t.Errorf("annotations lack %q:\n%s", want, res.stdout)
		}
	}
	if all := junit + res.stdout + res.stderr; strings.Contains(all, "tok_LinesSecret") {
		t.Errorf("the agent's secret is in an output")
	}
}

// TestLinesPassRateTable: the table appears with --repeat 2 or an --agent
// matrix, not for a run once of a scenario that names its agent; with a
// named agent and a command side by side, each has a column: the name,
// and the command's program ("acprun").
func TestLinesPassRateTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":  "default: {steps: [{text: ok}]}\n",
		"bad.mock.yaml": "default: {steps: [{text: no}]}\n",
		"acprun.yaml":   "agents:\n  good: {command: [acprun, mock-agent, ok.mock.yaml]}\n  bad: {command: [acprun, mock-agent, bad.mock.yaml]}\n",
		"cmd.yaml":      "name: by-command\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: ok}}}]\n",
		"named.yaml":    "name: by-name\nagent: good\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {text: {contains: ok}}}]\n",
	})
	tests := []struct {
		name  string
		args  []string
		code  int
		table []string // nil: no table
	}{
		{"named agent once", []string{"cmd.yaml", "named.yaml"}, 0, nil},
		{"repeat", []string{"cmd.yaml", "named.yaml", "--repeat", "2"}, 0, []string{
			"scenario    acprun                              good",
			"by-command  2/2 (100%) pass@2=1.00 pass^2=1.00  -",
			"by-name     -                                   2/2 (100%) pass@2=1.00 pass^2=1.00",
		}},
		{"matrix", []string{"named.yaml", "--agent", "good", "--agent", "bad"}, 1, []string{
			"scenario  good        bad",
			"by-name   1/1 (100%)  0/1 (0%)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := acprun(t, dir, append([]string{"run", "-j", "1", "-o", "out.json", "-q"}, tt.args...)...)
			if res.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", res.code, tt.code, res.stderr)
			}
			lines := linesShape(res.stderr)
			i := -1
			for j, l := range lines {
				if strings.HasPrefix(l, "scenario ") {
					i = j
				}
			}
			switch {
			case tt.table == nil && i >= 0:
				t.Errorf("a pass-rate table:\n%s", res.stderr)
			case tt.table != nil && i < 0:
				t.Errorf("no pass-rate table:\n%s", res.stderr)
			case tt.table != nil:
				if diff := cmp.Diff(tt.table, lines[i:min(i+len(tt.table), len(lines))]); diff != "" {
					t.Errorf("table (-want +got):\n%s\n%s", diff, res.stderr)
				}
			}
		})
	}
}

// TestLinesInterruptListsNotRun interrupts a run of four scenarios, one at
// a time, while the second waits: the first has its line, the interrupt
// is said before anything stops, the second is
// INTERRUPTED (not a failed expectation), the last two are listed as not
// run, in the summary and in the results (notRun, status interrupted).
func TestLinesInterruptListsNotRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name, script string) string {
		return fmt.Sprintf("name: %s\nagent: {command: [acprun, mock-agent, %s]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {stopReason: end_turn}}]\n", name, script)
	}
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":   "default: {steps: [{text: ok}]}\n",
		"wait.mock.yaml": "default: {steps: [{text: working}, {waitForCancel: true}]}\n",
		"s.yaml": strings.Join([]string{
			scenario("first", "ok.mock.yaml"), scenario("second", "wait.mock.yaml"),
			scenario("third", "ok.mock.yaml"), scenario("fourth", "ok.mock.yaml"),
		}, "---\n"),
	})
	run := runFollowingTranscript(t, t.Context(), dir, "second", "-j", "1")
	run.waitFor("the second scenario is working", `"dir":"a2c"`, `"text":"working"`)
	run.interrupt()
	out := run.waitInterrupted()
	want := []string{
		"PASS first (end_turn, DUR)",
		"acprun: interrupted: cancelling the running turns, then writing the results (interrupt again to stop the agents at once)",
		"INTERRUPTED second (cancelled after interrupt, DUR)",
		"",
		"INTERRUPTED second (cancelled after interrupt, DUR)",
		"    acprun was interrupted during turn 1",
		"    turn 1: s.yaml:9:30: the turn did not finish: acprun cancelled it after interrupt, which no expectation accepts (the agent answered cancelled)",
		"      turn 1 text (1 line):",
		"      | working",
		"NOT RUN third (s.yaml:11)",
		"NOT RUN fourth (s.yaml:16)",
		"",
		"1 passed, 0 failed, 1 interrupted, 2 not run in DUR; turns: cancelled 1, end_turn 1, skipped 2",
		"interrupted: results are partial; 2 scenarios did not run",
		"results: out.json",
	}
	if diff := cmp.Diff(want, linesShape(run.stderr.String())); diff != "" {
		t.Errorf("stderr (-want +got):\n%s\n%s", diff, run.stderr.String())
	}
	if len(out.Scenarios) != 4 {
		t.Fatalf("%d results, want 4", len(out.Scenarios))
	}
	for _, r := range out.Scenarios[2:] {
		if !r.NotRun || r.Status != "interrupted" || r.Error != "not run: interrupted first" {
			t.Errorf("%s: notRun %v, status %s, error %q; want not run, interrupted, why", r.Name, r.NotRun, r.Status, r.Error)
		}
	}
	if s := out.Summary; s.NotRun != 2 || s.Interrupted != 3 || s.Errored != 0 || s.Passed != 1 || s.Failed != 0 {
		t.Errorf("summary %+v, want 1 passed, 3 interrupted of which 2 not run", s)
	}
}

// TestLinesInterruptRepeatedCountsAttempts: with --repeat, what an
// interrupt kept from starting is attempts, two of one scenario here, and
// the summary counts them so.
func TestLinesInterruptRepeatedCountsAttempts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name, script string) string {
		return fmt.Sprintf("name: %s\nagent: {command: [acprun, mock-agent, %s]}\npermissions: {default: deny}\nturns: [{prompt: hi, expect: {stopReason: end_turn}}]\n", name, script)
	}
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml":   "default: {steps: [{text: ok}]}\n",
		"wait.mock.yaml": "default: {steps: [{text: working}, {waitForCancel: true}]}\n",
		"s.yaml":         scenario("second", "wait.mock.yaml") + "---\n" + scenario("third", "ok.mock.yaml"),
	})
	// second #1 waits; second #2, third #1 and third #2 do not start.
	run := runFollowingTranscript(t, t.Context(), dir, "second#1", "-j", "1", "--repeat", "2")
	run.waitFor("the first attempt of second is working", `"dir":"a2c"`, `"text":"working"`)
	run.interrupt()
	out := run.waitInterrupted()
	const want = "\ninterrupted: results are partial; 3 attempts of 2 scenarios did not run\n"
	if !strings.Contains(run.stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, run.stderr.String())
	}
	if s := out.Summary; s.NotRun != 3 {
		t.Errorf("summary %+v, want 3 not run", s)
	}
}

// TestLinesMerge: acprun merge, whose scenarios ended elsewhere, prints
// the line of each before the summary.
func TestLinesMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": linesScript, "s.yaml": linesScenarios})
	if res := acprun(t, dir, "run", "s.yaml", "-j", "1", "-o", "a.json", "--shard", "1/2"); res.code > 1 {
		t.Fatalf("shard 1: exit %d\n%s", res.code, res.stderr)
	}
	if res := acprun(t, dir, "run", "s.yaml", "-j", "1", "-o", "b.json", "--shard", "2/2"); res.code > 1 {
		t.Fatalf("shard 2: exit %d\n%s", res.code, res.stderr)
	}
	res := acprun(t, dir, "merge", "a.json", "b.json", "-o", "all.json")
	if res.code != exitFailed {
		t.Fatalf("merge: exit %d, want 1\n%s", res.code, res.stderr)
	}
	lines := linesShape(res.stderr)
	var heads []string
	for _, l := range lines {
		if regexp.MustCompile(`^(PASS|FAIL|ERROR) `).MatchString(l) {
			heads = append(heads, l)
		}
	}
	want := []string{
		"PASS passes (end_turn, DUR)",
		"FAIL wants-banana (end_turn, DUR)",
		"ERROR crashes (end_turn, agent_exited, skipped, DUR)",
		"FAIL wants-banana (end_turn, DUR)",
		"ERROR crashes (end_turn, agent_exited, skipped, DUR)",
	}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("scenario lines (-want +got):\n%s\n%s", diff, res.stderr)
	}
	if got := lines[len(lines)-2]; !strings.HasPrefix(got, "1 passed, 1 failed, 1 error in ") {
		t.Errorf("totals %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "all.json")); err != nil {
		t.Error(err)
	}
}

// TestLinesRunTimeoutListsNotRun: the scenario the run's --timeout cut
// short is INTERRUPTED, those it kept from starting are listed as not run
// too, and the run exits 1 (not 130: nobody interrupted it; not 0: they
// did not pass).
func TestLinesRunTimeoutListsNotRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"wait.mock.yaml": "default: {steps: [{waitForCancel: true}]}\n",
		"s.yaml": "name: waits\nagent: {command: [acprun, mock-agent, wait.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n" +
			"---\nname: later\nagent: {command: [acprun, mock-agent, wait.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	// Long enough for the agent to reach turn 1 on a loaded machine: the
	// run's --timeout counts from the start, agent start-up included.
	res, out := runResults(t, dir, "s.yaml", "-j", "1", "--timeout", "5s")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	shape := strings.Join(linesShape(res.stderr), "\n")
	for _, want := range []string{"\nINTERRUPTED waits (cancelled after runTimeout, DUR)\n    the run's --timeout passed during turn 1\n",
		"\nNOT RUN later (s.yaml:6)\n", "\n0 passed, 0 failed, 1 interrupted, 1 not run in DUR; turns: cancelled 1, skipped 1\n"} {
		if !strings.Contains(shape, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if len(out.Scenarios) != 2 || !out.Scenarios[1].NotRun || out.Scenarios[1].Error != "not run: the run's --timeout passed first" {
		t.Errorf("results %+v, want the second not run, for the timeout", out.Scenarios)
	}
}
