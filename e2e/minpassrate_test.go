package e2e_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// End-to-end tests of the pass threshold of repeated runs: run
// --min-pass-rate and expect.passRate.

// thresholdFiles writes a scenario whose verify command passes its first
// three attempts and fails the others (it counts them in a file, so the
// run takes -j 1), with expect given at the scenario level.
func thresholdFiles(t *testing.T, expect string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		"s.yaml": `name: flaky
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
verify:
  - 'n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count; [ "$n" -lt 3 ]'
` + expect + `turns: [{prompt: go}]
`,
	})
	return dir
}

// TestMinPassRateMet: 3 of 5 attempts pass, which meets --min-pass-rate
// 0.6: the run exits 0, its results and the table show the rate against
// the minimum, JUnit has one passing testcase for the scenario, and merge
// of the results exits 0 too.
func TestMinPassRateMet(t *testing.T) {
	t.Parallel()
	dir := thresholdFiles(t, "")
	res, out := runResults(t, dir, "s.yaml", "--repeat", "5", "-j", "1", "--min-pass-rate", "0.6", "--junit", "junit.xml")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0: 3 of 5 meets 0.6\n%s", res.code, res.stderr)
	}
	if n := len(out.Summary.PassRates); n != 1 {
		t.Fatalf("%d pass rates, want 1", n)
	}
	p := out.Summary.PassRates[0]
	if p.Passed != 3 || p.Attempts != 5 || p.MinPassRate != 0.6 || p.Met == nil || !*p.Met || out.Summary.Failed != 2 {
		t.Errorf("pass rate %+v, %d failed; want 3/5, min 0.6 met, and the 2 failed attempts counted", p, out.Summary.Failed)
	}
	for _, r := range out.Scenarios {
		if r.MinPassRate != 0.6 {
			t.Errorf("%s: minPassRate %g, want 0.6", r.Label(), r.MinPassRate)
		}
	}
	for _, want := range []string{"3/5 (60%) pass@5=1.00 pass^5=0.00, min 60%: met", "3 passed, 2 failed, 1 of 1 pass rate met"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.stderr)
		}
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &junit); err != nil || junit.Tests != 1 || junit.Failures != 0 || !strings.Contains(string(data), `name="minPassRateMet" value="true"`) {
		t.Errorf("JUnit (%v): %d tests, %d failures; want 1 passing testcase with minPassRateMet\n%s", err, junit.Tests, junit.Failures, data)
	}
	if merged := acprun(t, dir, "merge", "out.json", "-o", "merged.json"); merged.code != exitOK {
		t.Errorf("merge: exit %d, want 0 as the run\n%s", merged.code, merged.stderr)
	}
}

// TestMinPassRateBelow: 3 of 5 is below 0.8: exit 1, and JUnit's one
// testcase fails naming the rate and the minimum.
func TestMinPassRateBelow(t *testing.T) {
	t.Parallel()
	dir := thresholdFiles(t, "")
	res, out := runResults(t, dir, "s.yaml", "--repeat", "5", "-j", "1", "--min-pass-rate", "0.8", "--junit", "junit.xml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1: 3 of 5 is below 0.8\n%s", res.code, res.stderr)
	}
	if p := out.Summary.PassRates[0]; p.Met == nil || *p.Met {
		t.Errorf("pass rate %+v, want min 0.8 not met", p)
	}
	for _, want := range []string{"min 80%: below", "0 of 1 pass rate met"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.stderr)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `<failure message="pass rate 3/5 (60%) is below the minimum 80%" type="passRate">`; !strings.Contains(string(data), want) {
		t.Errorf("JUnit lacks %s:\n%s", want, data)
	}
}

// TestMinPassRatePrecision: 2 of 3 attempts pass, below a minimum that
// rounds like the rate: the table on stderr, the HTML report and JUnit
// (its message and its properties) print the rate and the minimum alike,
// so the rate reads below it.
func TestMinPassRatePrecision(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ min, rate, minimum, rateProp string }{
		{"0.667", "2/3 (66.67%)", "66.7%", "0.6667"},
		{"0.6667", "2/3 (66.667%)", "66.67%", "0.66667"},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
			"s.yaml": `name: flaky
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
verify:
  - 'n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count; [ "$n" != 1 ]'
turns: [{prompt: go}]
`,
		})
		res, _ := runResults(t, dir, "s.yaml", "--repeat", "3", "-j", "1", "--min-pass-rate", tt.min, "--junit", "junit.xml", "--html", "r.html")
		if res.code != exitFailed {
			t.Fatalf("min %s: exit %d, want 1: 2 of 3 is below it\n%s", tt.min, res.code, res.stderr)
		}
		if want := "flaky     " + tt.rate + " pass@3=1.00 pass^3=0.00, min " + tt.minimum + ": below\n"; !strings.Contains(res.stderr, want) {
			t.Errorf("min %s: summary lacks %q:\n%s", tt.min, want, res.stderr)
		}
		page, err := os.ReadFile(filepath.Join(dir, "r.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{">" + tt.rate + "<br><small>", "pass@3 1.00 · pass^3 0.00 · min " + tt.minimum + ": below</small>"} {
			if !strings.Contains(string(page), want) {
				t.Errorf("min %s: HTML report lacks %q", tt.min, want)
			}
		}
		junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`<failure message="pass rate ` + tt.rate + ` is below the minimum ` + tt.minimum + `" type="passRate">`,
			`<property name="passRate" value="` + tt.rateProp + `">`,
			`<property name="minPassRate" value="` + tt.min + `">`,
		} {
			if !strings.Contains(string(junit), want) {
				t.Errorf("min %s: JUnit lacks %s:\n%s", tt.min, want, junit)
			}
		}
	}
}

// TestMinPassRateScenarioWins: the scenario's expect.passRate wins over
// the flag, either way.
func TestMinPassRateScenarioWins(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		expect, flag string
		want         int
	}{
		{"expect: {passRate: 0.6}\n", "0.9", exitOK},
		{"expect: {passRate: 0.8}\n", "0.5", exitFailed},
		{"expect: {passRate: 0.8}\n", "", exitFailed},
	} {
		dir := thresholdFiles(t, tt.expect)
		args := []string{"s.yaml", "--repeat", "5", "-j", "1"}
		if tt.flag != "" {
			args = append(args, "--min-pass-rate", tt.flag)
		}
		res, _ := runResults(t, dir, args...)
		if res.code != tt.want {
			t.Errorf("%s with --min-pass-rate %q: exit %d, want %d\n%s", strings.TrimSpace(tt.expect), tt.flag, res.code, tt.want, res.stderr)
		}
	}
}

// TestMinPassRateBadValues: a rate outside (0, 1] is a usage error of
// the flag and a positioned error of the file; nothing runs.
func TestMinPassRateBadValues(t *testing.T) {
	t.Parallel()
	dir := thresholdFiles(t, "expect: {passRate: 80}\n")
	res := acprun(t, dir, "run", "s.yaml", "--min-pass-rate", "1.5", "-o", "out.json")
	if res.code != exitUsage || !strings.Contains(res.stderr, "--min-pass-rate 1.5: want a share of the attempts above 0 and at most 1") {
		t.Errorf("--min-pass-rate 1.5: exit %d, want 2 and why\n%s", res.code, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "--min-pass-rate", "80%", "-o", "out.json")
	if res.code != exitUsage || !strings.Contains(res.stderr, `--min-pass-rate: "80%": want a share of the attempts above 0 and at most 1, e.g. 0.8`) {
		t.Errorf("--min-pass-rate 80%%: exit %d, want 2 and what it wants\n%s", res.code, res.stderr)
	}
	res = acprun(t, dir, "run", "s.yaml", "-o", "out.json")
	if res.code != exitUsage || !strings.Contains(res.stderr, "s.yaml:6:20: expected a pass rate above 0 and at most 1, got 80 (write 0.8 for 80% of the attempts)") {
		t.Errorf("passRate: 80: exit %d, want 2 and a positioned error\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "count")); err == nil {
		t.Error("a scenario ran")
	}
}

// TestMinPassRateFailFast: --fail-fast stops at a failed attempt only
// once its scenario can no longer reach its minimum: with 0.6 the two
// failed attempts of five leave it in reach, and every attempt runs.
func TestMinPassRateFailFast(t *testing.T) {
	t.Parallel()
	dir := thresholdFiles(t, "")
	res, out := runResults(t, dir, "s.yaml", "--repeat", "5", "-j", "1", "--min-pass-rate", "0.6", "--fail-fast")
	if res.code != exitOK || len(out.Scenarios) != 5 || out.Summary.NotRun != 0 {
		t.Errorf("exit %d, %d results, %d not run; want 0 and all 5 run\n%s", res.code, len(out.Scenarios), out.Summary.NotRun, res.stderr)
	}
	// Without the minimum, the first failed attempt (the 4th) stops it.
	dir = thresholdFiles(t, "")
	res, out = runResults(t, dir, "s.yaml", "--repeat", "5", "-j", "1", "--fail-fast")
	if res.code != exitFailed || out.Summary.NotRun != 1 {
		t.Errorf("without a minimum: exit %d, %d not run; want 1 and the 5th not run\n%s", res.code, out.Summary.NotRun, res.stderr)
	}
}

// TestMinPassRateMaxFailuresInvalid: an invalid attempt is no sample of
// the rate, so with one of four invalid the failed attempt after it leaves
// 0.75 out of reach (2 of 3 at best): that is the scenario's failure, the
// second with the invalid one, and --max-failures 2 stops the run there.
func TestMinPassRateMaxFailuresInvalid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// setup gives each attempt its agent by a count kept outside its
	// workspace (the run takes -j 1): rate limited, wrong, then right.
	writeFiles(t, dir, map[string]string{
		"fx/keep":              "",
		"scripts/0.mock.yaml":  "default: {error: {code: 429, message: rate limit}}\n",
		"scripts/1.mock.yaml":  "default: {steps: [{text: wrong}]}\n",
		"scripts/ok.mock.yaml": "default: {steps: [{text: ok}]}\n",
		"s.yaml": `name: mf
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
workspace: {from: fx}
setup: ['n=$(cat ` + dir + `/count 2>/dev/null || echo 0); echo $((n+1)) > ` + dir + `/count; s=` + dir + `/scripts/$n.mock.yaml; [ -f "$s" ] || s=` + dir + `/scripts/ok.mock.yaml; cp "$s" agent.mock.yaml']
turns: [{prompt: go, expect: {text: {contains: ok}}}]
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--repeat", "4", "-j", "1", "--min-pass-rate", "0.75", "--max-failures", "2")
	if res.code != exitInvalid || out.Summary.Invalid != 1 || out.Summary.Failed != 1 || out.Summary.NotRun != 2 {
		t.Errorf("exit %d, %d invalid, %d failed, %d not run; want 7, and attempts 3 and 4 not run\n%s",
			res.code, out.Summary.Invalid, out.Summary.Failed, out.Summary.NotRun, res.stderr)
	}
	if want := "the run stopped after 2 failed attempts (--max-failures 2)"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
}

// TestMinPassRatePromptJUnit: a --prompt run repeated with a minimum has
// one JUnit testcase whose classname is its suite's, "--prompt".
func TestMinPassRatePromptJUnit(t *testing.T) {
	t.Parallel()
	dir := oneShotDir(t, nil)
	res := acprun(t, dir, "run", "--agent", "mock1", "--prompt", "hello", "--repeat", "2", "-j", "1", "--min-pass-rate", "0.5", "--junit", "junit.xml")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Classname string `xml:"classname,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &junit); err != nil || len(junit.Suites) != 1 || len(junit.Suites[0].Cases) != 1 ||
		junit.Suites[0].Name != "--prompt" || junit.Suites[0].Cases[0].Classname != "--prompt" {
		t.Errorf("JUnit (%v): want one suite --prompt with one testcase of classname --prompt\n%s", err, data)
	}
}

// TestMinPassRateStartFailed: an attempt whose agent could not start is
// not forgiven by its scenario's met minimum: the run exits 3, its
// annotations are errors, and JUnit agrees, with an <error
// type="startFailed"> testcase for each such attempt besides the
// scenario's passing one, which is named "flaky (pass rate)", apart from
// its first attempt's "flaky"; merge of the results exits 3 too.
func TestMinPassRateStartFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		// The agent cannot start at odd calls (the run takes -j 1).
		"flaky.sh": "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\n" +
			"if [ $((n%2)) -eq 1 ]; then echo 'flaky start failure' >&2; exit 1; fi\nexec \"$ACPRUN_TEST_SELF\" mock-agent ok.mock.yaml\n",
		"s.yaml": "name: flaky\nagent: {command: [sh, flaky.sh]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary.md"), "GITHUB_WORKSPACE="},
		"run", "s.yaml", "--repeat", "4", "-j", "1", "--min-pass-rate", "0.5", "-o", "out.json", "--junit", "junit.xml")
	if res.code != exitAgent || !strings.Contains(res.stderr, "2 passed, 0 failed, 2 errors, 1 of 1 pass rate met") {
		t.Fatalf("exit %d, want %d: the agent could not start twice, though 2 of 4 meets 0.5\n%s", res.code, exitAgent, res.stderr)
	}
	// The step summary's totals say the pass rate met, as stderr's do.
	if md := readFiles(t, dir, "summary.md")["summary.md"]; !strings.Contains(string(md), "**2 passed, 0 failed, 2 errors, 1 of 1 pass rate met** of 4") {
		t.Errorf("the step summary lacks the pass rate met:\n%s", md)
	}
	for _, want := range []string{"::error file=s.yaml,line=1,title=acprun%3A flaky errored::", "::error file=s.yaml,line=1,title=acprun%3A flaky #3 errored::"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("annotations lack %q:\n%s", want, res.stdout)
		}
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Cases    []struct {
			Name  string `xml:"name,attr"`
			Error *struct {
				Type string `xml:"type,attr"`
			} `xml:"error"`
		} `xml:"testsuite>testcase"`
	}
	data := readFiles(t, dir, "junit.xml")["junit.xml"]
	if err := xml.Unmarshal(data, &junit); err != nil || junit.Tests != 3 || junit.Failures != 0 || junit.Errors != 2 {
		t.Fatalf("JUnit (%v): %d tests, %d failures, %d errors; want 3, 0 and 2\n%s", err, junit.Tests, junit.Failures, junit.Errors, data)
	}
	var got []string
	for _, c := range junit.Cases {
		if c.Error != nil {
			got = append(got, c.Name+" "+c.Error.Type)
		} else {
			got = append(got, c.Name)
		}
	}
	if want := []string{"flaky (pass rate)", "flaky startFailed", "flaky #3 startFailed"}; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("JUnit testcases %q, want %q\n%s", got, want, data)
	}
	if merged := acprun(t, dir, "merge", "out.json", "-o", "merged.json"); merged.code != exitAgent {
		t.Errorf("merge: exit %d, want %d as the run\n%s", merged.code, exitAgent, merged.stderr)
	}
}

// TestMinPassRateNoVerdict: a scenario whose agent never finishes a turn
// is cut short by the run's --timeout at both its attempts: it has no
// verdict, but it keeps its row in summary.passRates (no attempts, 2
// interrupted, its minimum not met), the table and the totals ("1 of 2
// pass rates met"), also once merged; the scenario that passed meets its
// minimum. JUnit agrees: s1 has a failed testcase saying no attempt gave
// a verdict, besides its attempts' skipped ones, so that the report is
// not green when the run exits 1, and so do GitHub's annotations: an
// ::error at s1 says its minimum is not met, besides the warnings of its
// interrupted attempts.
func TestMinPassRateNoVerdict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"slow.mock.yaml": "turns:\n  - steps: [{text: working}, {waitForCancel: true}]\n",
		"fast.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		"slow1.yaml": "name: s1\nagent: {command: [acprun, mock-agent, slow.mock.yaml]}\npermissions: {default: deny}\n" +
			"turnTimeout: 1m\nturns: [{prompt: one}, {prompt: two}]\n",
		"fast1.yaml": "name: f1\nagent: {command: [acprun, mock-agent, fast.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: go}]\n",
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="},
		"run", "slow1.yaml", "fast1.yaml", "--repeat", "2", "--min-pass-rate", "0.5", "-j", "4", "--timeout", "2s", "--junit", "junit.xml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1: s1 was interrupted\n%s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	var errs []string
	for _, l := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(l, "::error") {
			errs = append(errs, l)
		}
	}
	if want := []string{"::error file=slow1.yaml,line=1,title=acprun%3A s1 below its minimum pass rate::no attempt gave a verdict (2 interrupted): the minimum 50%25 is not met"}; !cmp.Equal(want, errs) {
		t.Errorf("::error annotations %q, want %q\n%s", errs, want, res.stdout)
	}
	type row struct {
		Scenario              string
		Attempts, Passed, Int int
		Min                   float64
		Met                   bool
	}
	var got []row
	for _, p := range out.Summary.PassRates {
		got = append(got, row{p.Scenario, p.Attempts, p.Passed, p.Interrupted, p.MinPassRate, p.Met != nil && *p.Met})
	}
	want := []row{{"f1", 2, 2, 0, 0.5, true}, {"s1", 0, 0, 2, 0.5, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary.passRates (-want +got):\n%s", diff)
	}
	if n := len(out.Summary.PassRates); n == 2 && out.Summary.PassRates[1].Met == nil {
		t.Errorf("s1: no minPassRateMet; want false")
	}
	for _, want := range []string{"s1        no verdict, 2 interrupted, min 50%: below\n", "2 passed, 0 failed, 1 of 2 pass rates met, 2 interrupted"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.stderr)
		}
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	data := readFiles(t, dir, "junit.xml")["junit.xml"]
	if err := xml.Unmarshal(data, &junit); err != nil || junit.Tests != 4 || junit.Failures != 1 || junit.Skipped != 2 {
		t.Errorf("JUnit (%v): %d tests, %d failures, %d skipped; want 4, 1 and 2\n%s", err, junit.Tests, junit.Failures, junit.Skipped, data)
	}
	var failed []string
	for _, c := range junit.Cases {
		if c.Failure != nil {
			failed = append(failed, c.Name+" "+c.Failure.Type+": "+c.Failure.Message)
		}
	}
	if want := []string{"s1 (pass rate) passRate: no attempt gave a verdict (2 interrupted): the minimum 50% is not met"}; !cmp.Equal(want, failed) {
		t.Errorf("JUnit failures %q, want %q\n%s", failed, want, data)
	}
	merged := acprun(t, dir, "merge", "out.json", "-o", "merged.json")
	if merged.code != exitFailed || !strings.Contains(merged.stderr, "1 of 2 pass rates met") {
		t.Errorf("merge: exit %d, want 1 and 1 of 2 pass rates met\n%s", merged.code, merged.stderr)
	}
}

// TestMinPassRateJUnitBodyIsText: a scenario below its minimum whose
// reply and failed expectation hold "<" and "&" gives a JUnit report that
// parses, its <failure> reading back as the reply and the failure: the
// body is text, not markup.
func TestMinPassRateJUnitBodyIsText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: \"a < b && </failure> c\"}]\n",
		"s.yaml": "name: markup\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: go, expect: {text: {contains: \"<done> & dusted\"}}}]\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "--repeat", "2", "-j", "1", "--min-pass-rate", "0.5", "--junit", "junit.xml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1: no attempt passed\n%s", res.code, res.stderr)
	}
	var junit struct {
		Cases []struct {
			Failure *struct {
				Type string `xml:"type,attr"`
				Body string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	data := readFiles(t, dir, "junit.xml")["junit.xml"]
	if err := xml.Unmarshal(data, &junit); err != nil || len(junit.Cases) != 1 || junit.Cases[0].Failure == nil {
		t.Fatalf("JUnit (%v): want one failed testcase\n%s", err, data)
	}
	for _, want := range []string{`text does not contain "<done> & dusted"`, "| a < b && </failure> c\n"} {
		if body := junit.Cases[0].Failure.Body; !strings.Contains(body, want) {
			t.Errorf("failure body %q lacks %q", body, want)
		}
	}
}
