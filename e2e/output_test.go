package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
)

// shardScenario is one scenario of a hand-written results file.
type shardScenario struct {
	name, file  string
	line        int
	status      string
	startFailed bool
}

// shardJSON is a results file as acprun run writes it.
func shardJSON(t *testing.T, startedAt string, durationMs int, interrupted bool, scs ...shardScenario) string {
	t.Helper()
	doc := report.Results{
		SchemaVersion: 1, StartedAt: startedAt, DurationMs: int64(durationMs), Interrupted: interrupted,
		ByStopReason: map[string][]report.TurnRef{},
	}
	for _, s := range scs {
		sc := report.Result{
			Name: s.name, File: s.file, Line: s.line, Status: report.Status(s.status), StartFailed: s.startFailed, DurationMs: 40,
			Agent: report.AgentInfo{Command: []string{"agent"}},
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn", DurationMs: 30, Text: "hello"}},
		}
		switch {
		case s.startFailed:
			sc.Error = "start agent: no such file"
			sc.Turns[0].StopReason = "skipped"
		case s.status == "failed":
			sc.Failures = []string{`turn 1: text does not contain "bye"`}
		case s.status == "error":
			sc.Error = "turn 1: the agent exited with code 2"
			sc.Turns[0].StopReason = "agent_exited"
		}
		doc.Scenarios = append(doc.Scenarios, sc)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestMergeExitCodes(t *testing.T) {
	t.Parallel()
	pass := shardScenario{name: "alpha", file: "a.yaml", line: 1, status: "passed"}
	pass2 := shardScenario{name: "beta", file: "b.yaml", line: 1, status: "passed"}
	fail := shardScenario{name: "beta", file: "b.yaml", line: 1, status: "failed"}
	crash := shardScenario{name: "beta", file: "b.yaml", line: 1, status: "error"}
	noStart := shardScenario{name: "beta", file: "b.yaml", line: 1, status: "error", startFailed: true}
	const t0, t1 = "2026-03-14T09:26:53.589Z", "2026-03-14T09:26:50.000Z"
	tests := []struct {
		name        string
		a, b        shardScenario
		interrupted bool
		want        int
	}{
		{"all passed", pass, pass2, false, exitOK},
		{"one failed", pass, fail, false, exitFailed},
		{"one errored", pass, crash, false, exitFailed},
		{"agent did not start", pass, noStart, false, exitAgent},
		{"interrupted shard", pass, pass2, true, exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				// b before a, and b started first: merge sorts and keeps the earliest start.
				"1.json": shardJSON(t, t0, 1500, tt.interrupted, tt.b),
				"2.json": shardJSON(t, t1, 900, false, tt.a),
			})
			res := acprun(t, dir, "merge", "1.json", "2.json", "-o", "out/all.json")
			if res.code != tt.want {
				t.Fatalf("merge: exit %d, want %d\nstderr:\n%s", res.code, tt.want, res.stderr)
			}
			out := readResults(t, filepath.Join(dir, "out/all.json"))
			if diff := cmp.Diff([]string{"alpha:passed", "beta:" + tt.b.status}, scenarioNames(out)); diff != "" {
				t.Errorf("merged scenarios (-want +got):\n%s", diff)
			}
			if out.StartedAt != t1 || out.DurationMs != 1500 || out.Interrupted != tt.interrupted {
				t.Errorf("merged startedAt %s, durationMs %d, interrupted %v; want %s, 1500, %v", out.StartedAt, out.DurationMs, out.Interrupted, t1, tt.interrupted)
			}
			if out.Summary.Scenarios != 2 {
				t.Errorf("summary.scenarios = %d, want 2", out.Summary.Scenarios)
			}
			if !strings.Contains(res.stderr, "alpha") || !strings.Contains(res.stderr, "results: out/all.json") {
				t.Errorf("stderr lacks the summary:\n%s", res.stderr)
			}
		})
	}
}

func TestMergeBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := shardJSON(t, "2026-03-14T09:26:53.589Z", 10, false, shardScenario{name: "alpha", file: "a.yaml", line: 1, status: "passed"})
	writeFiles(t, dir, map[string]string{
		"good.json":    good,
		"copy.json":    good,
		"v9.json":      `{"schemaVersion": 9, "scenarios": []}`,
		"garbage.json": "not json at all",
		"twice.json": shardJSON(t, "2026-03-14T09:26:53.589Z", 10, false, shardScenario{name: "alpha", file: "a.yaml", line: 1, status: "passed"},
			shardScenario{name: "alpha", file: "a.yaml", line: 1, status: "passed"}),
	})
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"future schema", []string{"good.json", "v9.json"}, "v9.json:1:19: schemaVersion 9 is not supported"},
		{"not results", []string{"garbage.json", "good.json"}, "garbage.json:1:2: not acprun results: invalid character 'o' in literal null"},
		{"missing", []string{"good.json", "missing.json"}, "missing.json"},
		{"overlapping shards", []string{"good.json", "copy.json"}, "acprun: merge: copy.json: scenario \"alpha\" (a.yaml:1) is also in good.json: the shards overlap"},
		{"a file given twice", []string{"good.json", "./good.json"}, "acprun: merge: ./good.json: the same file as good.json, given twice: give each results file once"},
		{"a result twice", []string{"twice.json"}, `acprun: merge: twice.json: scenarios.0 and scenarios.1 are the same result, of scenario "alpha" (a.yaml:1): acprun writes each result once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := acprun(t, dir, append([]string{"merge", "-o", "out.json"}, tt.args...)...)
			if res.code != exitUsage {
				t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, exitUsage, res.stderr)
			}
			if !strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr does not contain %q:\n%s", tt.want, res.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "out.json")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("out.json was written (stat: %v); want nothing written", err)
			}
		})
	}
}

func TestMergeToStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.json": shardJSON(t, "2026-03-14T09:26:53.589Z", 10, false, shardScenario{name: "alpha", file: "a.yaml", line: 1, status: "passed"}),
	})
	res := acprun(t, dir, "merge", "a.json", "-o", "-")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	out, err := report.Read(strings.NewReader(res.stdout))
	if err != nil {
		t.Fatalf("stdout is not the JSON results: %v\n%s", err, res.stdout)
	}
	if diff := cmp.Diff([]string{"alpha:passed"}, scenarioNames(out)); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if strings.Contains(res.stderr, "results:") {
		t.Errorf("stderr names a results file though they went to stdout:\n%s", res.stderr)
	}
}

// outputScenarios is one passing and one failing scenario on the mock
// agent, in two files.
func outputScenarios(t *testing.T, dir string) {
	t.Helper()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"a.yaml": `name: alpha
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: hi
    expect: {text: {contains: hello}}
`,
		"b.yaml": `name: beta
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: hi
    expect: {text: {contains: bye}}
  - prompt: again
`,
	})
}

func TestJUnitFromRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	res := acprun(t, dir, "run", "a.yaml", "b.yaml", "--junit", "reports/junit.xml", "--json", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "reports/junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Time    string `xml:"time,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, data)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	var got []string
	for i, s := range doc.Suites {
		for _, c := range s.Cases {
			// The time the results give, in seconds: the same cut.
			if ms := out.Scenarios[i].DurationMs; c.Time != fmt.Sprintf("%d.%03d", ms/1000, ms%1000) {
				t.Errorf("%s: JUnit time %s, results durationMs %d", c.Name, c.Time, ms)
			}
			line := s.Name + ": " + c.Name
			if c.Failure != nil {
				line += ": " + c.Failure.Message
			}
			got = append(got, line)
		}
	}
	want := []string{
		"a.yaml: alpha",
		`b.yaml: beta: stop reasons: end_turn, end_turn; turn 1: b.yaml:5:31: text does not contain "bye"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JUnit cases (-want +got):\n%s", diff)
	}
	if doc.Tests != 2 || doc.Failures != 1 {
		t.Errorf("testsuites: %d tests, %d failures; want 2, 1", doc.Tests, doc.Failures)
	}
}

// TestEventsSurviveKill kills acprun with SIGKILL while its agent hangs:
// the events file keeps every line written, each of them JSON. Events are
// written by a goroutine of their own, so the agent says it started only
// once the scenario_started line is in the file.
func TestEventsSurviveKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// The agent waits for its scenario_started event in the file, says its
	// pid on the fifo, then becomes the mock agent ($$ is a $ after
	// interpolation).
	writeFiles(t, dir, map[string]string{
		"hang.mock.yaml": "turns:\n  - steps: [{text: working}, {hang: true}]\n",
		"hang.yaml": fmt.Sprintf(`name: hangs
agent:
  command: [sh, -c, 'until grep -q scenario_started events.jsonl; do sleep 0.01; done; echo $$$$ > "$0"; exec "$1" mock-agent hang.mock.yaml', %q, %q]
turns:
  - prompt: go
`, fifo, acprunBin),
	})
	// O_RDWR: opening does not wait for the writer, and reads can time out.
	ready, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()

	cmd := exec.Command(acprunFor(t), "run", "hang.yaml", "--events", "events.jsonl", "--json", "out.json")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(ready).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the agent never started: %v\nstderr:\n%s", err, stderr.String())
	}
	agentPid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("agent pid %q: %v", line, err)
	}
	// acprun is gone without cleaning up: end its agent's process group.
	t.Cleanup(func() { syscall.Kill(-agentPid, syscall.SIGKILL); syscall.Kill(agentPid, syscall.SIGKILL) })

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatalf("events file: %v", err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Errorf("events file does not end with a whole line: %q", data)
	}
	var events []string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		// time is RFC 3339 (with nanoseconds): progress.Event reads it as a
		// time.Time, so a line with another format does not decode, and
		// one without it has the zero time.
		var ev progress.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Errorf("line %d %q is not a JSON event: %v", i+1, l, err)
			continue
		}
		if ev.Time.IsZero() {
			t.Errorf("line %d %q has no time", i+1, l)
		}
		events = append(events, ev.Event+" "+ev.Scenario)
	}
	if len(events) == 0 || events[0] != "scenario_started hangs" {
		t.Errorf("events = %q; want scenario_started hangs first", events)
	}
	for _, ev := range events {
		if strings.HasPrefix(ev, "scenario_finished") {
			t.Errorf("events = %q; want no scenario_finished from a killed run", events)
		}
	}
}

// TestOutputProgressTerminal runs acprun with stderr on a pseudo-terminal:
// the progress bar is drawn there.
func TestOutputProgressTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	got, code := onTerminal(t, dir, nil, "run", "a.yaml", "b.yaml", "-j", "1", "--json", "out.json", "--color", "never")
	if code != exitFailed {
		t.Fatalf("exit %d; want %d\n%s", code, exitFailed, got)
	}
	if !regexp.MustCompile(`\] \d/2  \d running`).MatchString(got) {
		t.Errorf("no progress bar (done/total, running) on the terminal:\n%q", got)
	}
	if !strings.Contains(got, "1 passed, 1 failed") {
		t.Errorf("no summary on the terminal:\n%q", got)
	}
}

// TestOutputProgressDumbTerminal runs acprun with stderr on a terminal that
// says it takes no escape sequences (TERM=dumb): the result lines only, as
// on a pipe, with no live area and no colour.
func TestOutputProgressDumbTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	got, code := onTerminal(t, dir, []string{"TERM=dumb"}, "run", "a.yaml", "b.yaml", "-j", "1", "-o", "out.json")
	if code != exitFailed {
		t.Fatalf("exit %d; want %d\n%s", code, exitFailed, got)
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("escape sequences on a TERM=dumb terminal:\n%q", got)
	}
	for _, re := range []string{`(?m)^PASS alpha \(end_turn, [0-9.]+m?s\)\r?$`, `(?m)^FAIL beta \(end_turn, end_turn, [0-9.]+m?s\)\r?$`, `1 passed, 1 failed`} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("the terminal shows no line matching %s:\n%q", re, got)
		}
	}
}

// TestOutputProgressPipe runs acprun with stderr on a pipe: one plain line
// per finished scenario, no bar; -q leaves only the summary.
func TestOutputProgressPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outputScenarios(t, dir)
	res := acprun(t, dir, "run", "a.yaml", "b.yaml", "-j", "1", "--json", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, re := range []string{`(?m)^PASS alpha \(end_turn, [0-9.]+m?s\)$`, `(?m)^FAIL beta \(end_turn, end_turn, [0-9.]+m?s\)$`} {
		if !regexp.MustCompile(re).MatchString(res.stderr) {
			t.Errorf("stderr has no line matching %s:\n%s", re, res.stderr)
		}
	}
	if strings.ContainsAny(res.stderr, "\r█") {
		t.Errorf("progress bar drawn on a pipe:\n%q", res.stderr)
	}

	quiet := acprun(t, dir, "run", "a.yaml", "b.yaml", "-q", "--json", "out.json")
	if regexp.MustCompile(`(?m)^PASS alpha `).MatchString(quiet.stderr) {
		t.Errorf("-q: stderr has progress lines:\n%s", quiet.stderr)
	}
}

// TestOutputGitHubActions runs acprun as in a GitHub Actions step:
// an ::error command at the failed expectation, a table in the step summary.
func TestOutputGitHubActions(t *testing.T) {
	dir := t.TempDir()
	outputScenarios(t, dir)
	summary := filepath.Join(dir, "step_summary.md")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	res := acprun(t, dir, "run", "a.yaml", "b.yaml", "--json", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	want := `::error file=b.yaml,line=5,col=31,title=acprun%3A beta failed::turn 1: text does not contain "bye"` +
		`%0A  turn 1 text (1 line):%0A  | hello` // the excerpt
	if !strings.Contains(res.stdout, want+"\n") {
		t.Errorf("no annotation %q in stdout:\n%s\nstderr:\n%s", want, res.stdout, res.stderr)
	}
	if strings.Contains(res.stdout+res.stderr, "title=acprun%3A alpha failed") || strings.Contains(res.stdout+res.stderr, "title=acprun%3A alpha errored") {
		t.Errorf("error annotation for the passing scenario")
	}
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("step summary: %v", err)
	}
	for _, part := range []string{"| ✅ passed | alpha | `a.yaml:1` |", "| ❌ failed | beta | `b.yaml:1` |"} {
		if !strings.Contains(string(data), part) {
			t.Errorf("step summary lacks %q:\n%s", part, data)
		}
	}
}
