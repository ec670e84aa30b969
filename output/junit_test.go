package output_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/google/go-cmp/cmp"
)

// TestJUnitGolden compares the JUnit XML with testdata/junit-*.golden.
func TestJUnitGolden(t *testing.T) {
	for name, rep := range reports() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.JUnit(&buf, rep); err != nil {
				t.Fatalf("JUnit: %v", err)
			}
			testkit.Golden(t, filepath.Join("testdata", "junit-"+name+".golden"), buf.Bytes())
		})
	}
}

// The JUnit XML schema as CI tools read it, independent of output's types.
type xTestSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []xTestSuite `xml:"testsuite"`
}

type xTestSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []xTestCase `xml:"testcase"`
}

type xTestCase struct {
	Name      string    `xml:"name,attr"`
	Classname string    `xml:"classname,attr"`
	Time      string    `xml:"time,attr"`
	Failure   *xProblem `xml:"failure"`
	Error     *xProblem `xml:"error"`
	SystemOut string    `xml:"system-out"`
}

type xProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// TestJUnitParses reads the JUnit XML back with encoding/xml and checks
// the suites, cases, failures and errors a CI tool would show.
func TestJUnitParses(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JUnit(&buf, reporttest.Sample()); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var got xTestSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse JUnit: %v\n%s", err, buf.Bytes())
	}

	// What each case must show; bodies and system-out are checked by parts.
	type caseSummary struct {
		Suite, Name, Classname, Time string
		Failure, Error               string // message, "" when absent
		ProblemType                  string
	}
	var cases []caseSummary
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			cs := caseSummary{Suite: s.Name, Name: c.Name, Classname: c.Classname, Time: c.Time}
			if c.Failure != nil {
				cs.Failure, cs.ProblemType = c.Failure.Message, c.Failure.Type
			}
			if c.Error != nil {
				cs.Error, cs.ProblemType = c.Error.Message, c.Error.Type
			}
			cases = append(cases, cs)
		}
	}
	want := []caseSummary{
		{Suite: "examples/basic.yaml", Name: "basic", Classname: "examples/basic.yaml", Time: "1.234"},
		{
			Suite: "examples/basic.yaml", Name: "refuses <politely> [claude] #2", Classname: "examples/basic.yaml", Time: "65.432",
			Failure:     `stop reasons: end_turn, cancelled after turnTimeout, skipped; turn 1: text does not contain "hello" | "bye"; turn 2: stopReason is cancelled, want end_turn`,
			ProblemType: "failed",
		},
		{
			Suite: "examples/stops.yaml", Name: "crash", Classname: "examples/stops.yaml", Time: "0.321",
			Error: "turn 1: the agent exited with code 2", ProblemType: "error",
		},
		{
			Suite: "examples/stops.yaml", Name: "no agent, 100% broken", Classname: "examples/stops.yaml", Time: "0.005",
			Error: "start agent: fork/exec /nonexistent/agent: no such file or directory", ProblemType: "startFailed",
		},
	}
	if diff := cmp.Diff(want, cases); diff != "" {
		t.Errorf("test cases (-want +got):\n%s", diff)
	}

	type counts struct{ Tests, Failures, Errors int }
	if diff := cmp.Diff(counts{4, 1, 2}, counts{got.Tests, got.Failures, got.Errors}); diff != "" {
		t.Errorf("testsuites counts (-want +got):\n%s", diff)
	}
	var suiteCounts []counts
	for _, s := range got.Suites {
		suiteCounts = append(suiteCounts, counts{s.Tests, s.Failures, s.Errors})
	}
	if diff := cmp.Diff([]counts{{2, 1, 0}, {2, 0, 2}}, suiteCounts); diff != "" {
		t.Errorf("testsuite counts (-want +got):\n%s", diff)
	}
	if got.Time != "12.345" || got.Suites[0].Time != "66.666" || got.Suites[1].Time != "0.326" {
		t.Errorf("times: testsuites %s, suites %s and %s; want 12.345, 66.666 and 0.326", got.Time, got.Suites[0].Time, got.Suites[1].Time)
	}

	refuses := got.Suites[0].Cases[1]
	for _, part := range []string{
		"transcript: transcripts/refuses.jsonl\n",
		"skipped turns: 3\n",
		"warning: mode \"plan\" not offered by the agent; not set\n",
		"agent stderr (last lines):\nwarn: \uFFFD[33mslow model\uFFFD[0m & <retrying>\n",
	} {
		if !strings.Contains(refuses.SystemOut, part) {
			t.Errorf("system-out of %q = %q; want it to contain %q", refuses.Name, refuses.SystemOut, part)
		}
	}
	for _, part := range []string{"turn 2: cancelled after turnTimeout\n", "turn 3: skipped\n", "failed: turn 2: stopReason is cancelled, want end_turn\n"} {
		if !strings.Contains(refuses.Failure.Body, part) {
			t.Errorf("failure body of %q = %q; want it to contain %q", refuses.Name, refuses.Failure.Body, part)
		}
	}
	crash := got.Suites[1].Cases[0]
	for _, part := range []string{"turn 1: agent_exited: the agent exited with code 2\n", "protocol violation: line 3: not JSON: \"Loading…\"\n"} {
		if !strings.Contains(crash.Error.Body, part) {
			t.Errorf("error body of %q = %q; want it to contain %q", crash.Name, crash.Error.Body, part)
		}
	}
	if passed := got.Suites[0].Cases[0]; passed.SystemOut != "transcript: transcripts/basic.jsonl\n" {
		t.Errorf("system-out of %q = %q; want only the transcript", passed.Name, passed.SystemOut)
	}
}

// TestJUnitTimesAgreeWithResults: a case's time is the results'
// durationMs in seconds, cut to the millisecond as it is (115.9 ms is
// 0.115, not 0.116).
func TestJUnitTimesAgreeWithResults(t *testing.T) {
	rep := reporttest.Sample()
	rep.Duration = 2*time.Second + 999900*time.Microsecond
	rep.Scenarios[0].Duration = 115900 * time.Microsecond
	rep.Scenarios[0].DurationMs = rep.Scenarios[0].Duration.Milliseconds() // as the runner sets it
	var res, junit bytes.Buffer
	if err := report.Write(&res, rep); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := output.JUnit(&junit, rep); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var doc struct {
		DurationMs int64 `json:"durationMs"`
		Scenarios  []struct {
			DurationMs int64 `json:"durationMs"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(res.Bytes(), &doc); err != nil {
		t.Fatalf("results: %v", err)
	}
	var got xTestSuites
	if err := xml.Unmarshal(junit.Bytes(), &got); err != nil {
		t.Fatalf("parse JUnit: %v", err)
	}
	if doc.DurationMs != 2999 || got.Time != "2.999" {
		t.Errorf("run: durationMs %d, JUnit time %s; want 2999 and 2.999", doc.DurationMs, got.Time)
	}
	if doc.Scenarios[0].DurationMs != 115 || got.Suites[0].Cases[0].Time != "0.115" {
		t.Errorf("scenario: durationMs %d, JUnit time %s; want 115 and 0.115", doc.Scenarios[0].DurationMs, got.Suites[0].Cases[0].Time)
	}
}

// TestJUnitText checks that text XML cannot hold, or that would end a
// CDATA section, still gives a document that parses and says the same.
func TestJUnitText(t *testing.T) {
	rep := reporttest.Sample()
	rep.Scenarios = rep.Scenarios[2:3]
	rep.Scenarios[0].StderrTail = "a ]]> b\x00c\xffd\n"
	var buf bytes.Buffer
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var got xTestSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse JUnit: %v\n%s", err, buf.Bytes())
	}
	out := got.Suites[0].Cases[0].SystemOut
	if want := "agent stderr (last lines):\na ]]> b\uFFFDc\uFFFDd\n"; !strings.HasSuffix(out, want) {
		t.Errorf("system-out = %q; want it to end with %q", out, want)
	}
}

// TestJUnitErrorCause: an error with an errorCause is an <error> of that
// type (a start failure without one stays startFailed), and the setup
// request acprun cancelled is said in the <error>'s text, or in the
// <system-out> of an interrupted scenario, which has no <error>.
func TestJUnitErrorCause(t *testing.T) {
	agent := report.AgentInfo{Command: []string{"agent"}}
	slow := &report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: report.AnswerNone, WaitedMs: 1000}
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		{Name: "auth", File: "s.yaml", Agent: agent, Status: report.StatusError, StartFailed: true, ErrorCause: report.ErrorAuth,
			Error: "the agent asks for authentication"},
		{Name: "slow", File: "s.yaml", Agent: agent, Status: report.StatusError, ErrorCause: report.ErrorSetupTimeout,
			Error: "session/new was not answered in 2m0s", SetupCancel: slow},
		{Name: "start", File: "s.yaml", Agent: agent, Status: report.StatusError, StartFailed: true, Error: "exec: not found"},
		{Name: "stopped", File: "s.yaml", Agent: agent, Status: report.StatusInterrupted, Error: "acprun was interrupted",
			SetupCancel: &report.SetupCancel{Method: "initialize", Cause: "interrupt", Answer: report.AnswerCancelled, WaitedMs: 4}},
	}}
	var buf bytes.Buffer
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got xTestSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse JUnit: %v\n%s", err, buf.Bytes())
	}
	type view struct{ Type, Message, Body, SystemOut string }
	var views []view
	for _, c := range got.Suites[0].Cases {
		v := view{SystemOut: c.SystemOut}
		if c.Error != nil {
			v.Type, v.Message, v.Body = c.Error.Type, c.Error.Message, c.Error.Body
		}
		views = append(views, v)
	}
	want := []view{
		{Type: "auth", Message: "the agent asks for authentication", Body: "the agent asks for authentication\n"},
		{Type: "setupTimeout", Message: "session/new was not answered in 2m0s",
			Body: "session/new was not answered in 2m0s\nsetup: session/new cancelled at setupTimeout: no answer in 1s (the agent is hung or dead)\n"},
		{Type: "startFailed", Message: "exec: not found", Body: "exec: not found\n"},
		{SystemOut: "setup: initialize cancelled at interrupt: the agent confirmed the cancel in 4ms (alive, and slow)\n"},
	}
	if diff := cmp.Diff(want, views); diff != "" {
		t.Errorf("errors (-want +got):\n%s\n%s", diff, buf.Bytes())
	}
}

// TestJUnitTextBeginsNoLineWithCommand: a text whose lines begin with
// "::" after blanks, or that holds "##[" (workflow commands), in
// <system-out> or in a <failure>'s or <error>'s body, is written in CDATA
// sections that read back as the text, and no line of the document begins
// with "::" nor holds "##[": the escapes of JUnit written to stdout, which
// mean nothing in CDATA, are never needed there.
func TestJUnitTextBeginsNoLineWithCommand(t *testing.T) {
	rep := reporttest.Sample()
	rep.Scenarios = rep.Scenarios[2:3]
	// Blanks are any the runner trims (.NET's TrimStart), and a line
	// ends at '\r' too.
	tail := "ok\n::error file=a::b\n  \t::add-mask::s ]]> x\n::\n:: ::\nend ::\na ##[group]b ###[c ]]>##[d\n" +
		"\u00a0::warning::nbsp\n\u3000\u2003::w\nx\r::w\r\n"
	rep.Scenarios[0].StderrTail = tail
	const failure = "verify `x` exited with code 1; output ends:\n::error::x\n##[group]y"
	rep.Scenarios[0].Failures = append(rep.Scenarios[0].Failures, failure)
	var buf bytes.Buffer
	if err := output.JUnit(&buf, rep); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	for line := range strings.Lines(strings.ReplaceAll(buf.String(), "\r", "\n")) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Errorf("the document holds the line %q", line)
		}
	}
	var got xTestSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("parse JUnit: %v\n%s", err, buf.Bytes())
	}
	c := got.Suites[0].Cases[0]
	// (XML reads a line break as '\n'.)
	if !strings.HasSuffix(c.SystemOut, "agent stderr (last lines):\n"+strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(tail)) {
		t.Errorf("system-out = %q; want it to end with the stderr tail %q", c.SystemOut, tail)
	}
	var body string
	for _, p := range []*xProblem{c.Failure, c.Error} {
		if p != nil {
			body = p.Body
		}
	}
	if !strings.Contains(body, failure) {
		t.Errorf("failure or error body = %q; want it to hold %q", body, failure)
	}
}
