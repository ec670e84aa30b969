package output

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
)

// junitTestSuites is the root element of a JUnit XML report.
type junitTestSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitTestSuite `xml:"testsuite"`
}

// junitTestSuite holds the scenarios of one file.
type junitTestSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitTestCase  `xml:"testcase"`
}

// junitCounts are the attributes that count the testcases of a suite, or
// of all of them, and their time.
type junitCounts struct {
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr,omitempty"`
	Time     string `xml:"time,attr"`
}

// count counts tc.
func (c *junitCounts) count(tc junitTestCase) {
	c.Tests++
	switch {
	case tc.Failure != nil:
		c.Failures++
	case tc.Error != nil:
		c.Errors++
	case tc.Skipped != nil:
		c.Skipped++
	}
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitTestCase is one scenario × agent × attempt.
type junitTestCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	File      string `xml:"file,attr,omitempty"`
	Line      int    `xml:"line,attr,omitempty"`
	Time      string `xml:"time,attr"`
	// Properties come first, where pytest (record_property) puts them.
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitProblem    `xml:"failure,omitempty"`
	Error      *junitProblem    `xml:"error,omitempty"`
	Skipped    *junitSkipped    `xml:"skipped,omitempty"`
	SystemOut  *junitText       `xml:"system-out,omitempty"`
}

// junitProblem is a <failure> or an <error>; its body is text kept as
// written, in CDATA (newJUnitText).
type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",innerxml"`
}

// junitSkipped is the <skipped> of an interrupted scenario: cut short, or
// never started.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// junitText is an element whose text is kept as written, in CDATA
// (newJUnitText).
type junitText struct {
	CDATA string `xml:",innerxml"`
}

// newJUnitText is the junitText of text: one CDATA section (cdata).
func newJUnitText(text string) *junitText { return &junitText{cdata(text)} }

// cdata is text as one CDATA section, split where text holds "]]>", where
// it holds "##[", between the two '#', and where one of its lines begins
// with "::" after blanks (termtext.IsBlank), between the two colons, so that the document
// holds no "##[" and no line of it begins so: GitHub's runner would run
// either as a workflow command in a step's log, which the JUnit written to
// stdout often is (and an escape such as &#35; is no escape in CDATA). It
// reads back as text.
func cdata(text string) string {
	var b strings.Builder
	b.WriteString("<![CDATA[")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "]]>", "]]]]><![CDATA[>"), "##[", "#]]><![CDATA[#[")
	for text != "" {
		// A line ends at '\n' or '\r', as the runner reads a log.
		end := strings.IndexAny(text, "\r\n") + 1
		if end == 0 {
			end = len(text)
		}
		line := text[:end]
		text = text[end:]
		if rest := termtext.TrimBlanks(line); strings.HasPrefix(rest, "::") {
			b.WriteString(line[:len(line)-len(rest)+1])
			b.WriteString("]]><![CDATA[")
			line = rest[1:]
		}
		b.WriteString(line)
	}
	b.WriteString("]]>")
	return b.String()
}

// JUnit writes the report as JUnit XML: one testsuite per scenario file (in
// the order the files first appear), one testcase per scenario result
// (scenario × agent × attempt). A failed scenario gets a <failure> whose
// message lists its stop reasons and failed expectations; a scenario that
// could not run to its end gets an <error> (of the type of its
// errorCause: auth, setupTimeout, protocolVersion; else startFailed or
// error), one that measured nothing
// (invalid) an <error> of type invalid whose message says why ("invalid
// (upstream): …"), and one that was interrupted
// (cut short or never started by an interrupt, the run's --timeout or
// --fail-fast: no verdict) a <skipped> saying why. <system-out> holds the
// transcript path, skipped turns, warnings and the agent's stderr tail; the
// setup request acprun cancelled (setupCancel) is in the <error>'s text, or
// in <system-out> of an interrupted scenario.
// The testcases of a scenario that ran several times (--repeat) carry
// the pass rate of its attempts against that agent as <properties>:
// attempts, passed, passRate, pass@1…pass@n and pass^1…pass^n. A
// scenario with a minimum pass rate (expect.passRate, run
// --min-pass-rate) is judged by it: its attempts against an agent are one
// testcase, failed when the rate is below the minimum (see junitRateCase);
// an attempt whose agent could not start, which no minimum forgives
// (report.Forgiven: the run exits 3), has its own testcase too, an
// <error>. One none of whose attempts gave a verdict (interrupted, not
// run or invalid) has not met its minimum: a failed testcase says so
// (see junitNoVerdictCase) before its attempts' own testcases. Times come
// from the report: a testcase's is the time its attempt took, every try
// of it (retries:) together, and a suite's that of its testcases.
func JUnit(w io.Writer, rep report.Report) error {
	root := junitTestSuites{Name: "acprun", junitCounts: junitCounts{Time: seconds(rep.Duration)}}
	results := verdictsWithTries(rep.Scenarios)
	rates := map[passRateKey]report.PassRate{}
	judged := map[passRateKey][]report.Result{}    // by their pass rate: one testcase each
	noVerdict := map[passRateKey][]report.Result{} // a minimum and no verdict: one failed testcase each
	for _, p := range report.PassRates(rep) {
		k := passRateKey{p.File, p.Scenario, p.Agent}
		if p.Attempts == 0 {
			// No verdict: its attempts are skipped or invalid testcases
			// of their own, and a minimum it had is not met.
			if p.Met != nil {
				rates[k], noVerdict[k] = p, []report.Result{}
			}
			continue
		}
		if p.Attempts > 1 || p.Met != nil {
			rates[k] = p
		}
		if p.Met != nil {
			judged[k] = []report.Result{}
		}
	}
	for _, r := range results {
		k := passRateKey{r.File, r.Name, r.Agent.Name}
		if rs, ok := judged[k]; ok && isSample(r) {
			judged[k] = append(rs, r)
		}
		if rs, ok := noVerdict[k]; ok {
			noVerdict[k] = append(rs, r)
		}
	}
	index := map[string]int{}
	var suiteTime []time.Duration
	for _, r := range results {
		k := passRateKey{r.File, r.Name, r.Agent.Name}
		rs, byRate := judged[k]
		byRate = byRate && isSample(r)
		if byRate && r.Attempt != rs[0].Attempt && !r.StartFailed {
			i := index[r.File]
			suiteTime[i] += r.Duration
			continue // its scenario's testcase is made at its first attempt
		}
		i, ok := index[r.File]
		if !ok {
			i = len(root.Suites)
			index[r.File] = i
			suite := junitTestSuite{Name: suiteName(r.File)}
			if !rep.StartedAt.IsZero() {
				suite.Timestamp = rep.StartedAt.UTC().Format("2006-01-02T15:04:05")
			}
			var props []junitProperty
			if rep.PolicyOverride != "" {
				props = append(props, junitProperty{Name: "policyOverride", Value: rep.PolicyOverride})
			}
			if rep.Interrupted {
				props = append(props, junitProperty{Name: "interrupted", Value: "true"})
			}
			if props != nil {
				suite.Properties = &junitProperties{props}
			}
			root.Suites = append(root.Suites, suite)
			suiteTime = append(suiteTime, 0)
		}
		s := &root.Suites[i]
		var cases []junitTestCase
		switch {
		case byRate && r.Attempt == rs[0].Attempt:
			cases = append(cases, junitRateCase(rates[k], rs))
			if r.StartFailed {
				cases = append(cases, junitCase(r))
			}
		case byRate: // an attempt whose agent could not start: not forgiven
			cases = append(cases, junitCase(r))
		case noVerdict[k] != nil:
			if rs := noVerdict[k]; r.Attempt == rs[0].Attempt {
				cases = append(cases, junitNoVerdictCase(rates[k], rs))
			}
			cases = append(cases, junitCase(r))
		default:
			tc := junitCase(r)
			if p, ok := rates[k]; ok {
				tc.Properties = &junitProperties{passRateProperties(p)}
			}
			cases = append(cases, tc)
		}
		for _, tc := range cases {
			s.count(tc)
			root.count(tc)
		}
		suiteTime[i] += r.Duration
		s.Cases = append(s.Cases, cases...)
	}
	for i := range root.Suites {
		root.Suites[i].Time = seconds(suiteTime[i])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// attemptKey tells the attempts of a run apart: the tries of one attempt
// (retries:) share it.
type attemptKey struct {
	file, name, agent     string
	line, varSet, attempt int
}

// verdictsWithTries returns the results of rs that are their attempt's
// verdict (report.Result.Verdict: the tries retried are left out), each
// with the time of all its attempt's tries as its Duration: a retried
// attempt took the time of every try, as the results record them.
func verdictsWithTries(rs []report.Result) []report.Result {
	keyOf := func(r report.Result) attemptKey {
		return attemptKey{r.File, r.Name, r.Agent.Name, r.Line, r.VarSet, max(r.Attempt, 1)}
	}
	took := map[attemptKey]time.Duration{}
	for _, r := range rs {
		took[keyOf(r)] += r.Duration
	}
	var out []report.Result
	for _, r := range rs {
		if r.Verdict() {
			r.Duration = took[keyOf(r)]
			out = append(out, r)
		}
	}
	return out
}

// suiteName names the suite of a scenario file; the scenario of a run
// without one (run --agent NAME --prompt TEXT) is in the suite "--prompt".
func suiteName(file string) string {
	if file == "" {
		return "--prompt"
	}
	return file
}

// junitCase builds the testcase of one result.
func junitCase(r report.Result) junitTestCase {
	tc := junitTestCase{
		Name:      r.Label(),
		Classname: suiteName(r.File),
		File:      r.File,
		Line:      r.Line,
		Time:      seconds(r.Duration),
	}
	if out := systemOut(r); out != "" {
		tc.SystemOut = newJUnitText(xmlText(out))
	}
	switch {
	case r.NotRun:
		tc.Skipped = &junitSkipped{Message: r.Error}
		tc.SystemOut = nil
	case r.Status == report.StatusInterrupted:
		tc.Skipped = &junitSkipped{Message: "interrupted: " + r.Error}
	case r.Status == report.StatusPassed:
	case r.Status == report.StatusInvalid && r.Invalid != nil:
		// An <error>, not a <skipped>: the test could not be carried out
		// as written, which a CI report must not show as green or grey.
		tc.Error = &junitProblem{Message: r.Invalid.String(), Type: "invalid", Body: cdata(xmlText(problemBody(r)))}
	case r.Status == report.StatusFailed:
		msg := "stop reasons: " + stopReasons(r)
		if len(r.Failures) > 0 {
			msg += "; " + strings.Join(r.Failures, "; ")
		}
		tc.Failure = &junitProblem{Message: msg, Type: "failed", Body: cdata(xmlText(problemBody(r)))}
	default:
		typ := "error"
		if r.StartFailed {
			typ = "startFailed"
		}
		typ = cmp.Or(r.ErrorCause, typ) // auth, setupTimeout, protocolVersion
		msg := cmp.Or(r.Error, "stop reasons: "+stopReasons(r))
		tc.Error = &junitProblem{Message: msg, Type: typ, Body: cdata(xmlText(problemBody(r)))}
	}
	return tc
}

// passRateProperties are the properties of the testcases of a repeated
// scenario: its pass rate over all its attempts against one agent, to as
// many decimals as it takes to read below a minimum it is below
// (minPassRateProperties).
func passRateProperties(p report.PassRate) []junitProperty {
	rate, _ := p.Fractions()
	props := []junitProperty{
		{Name: "attempts", Value: strconv.Itoa(p.Attempts)},
		{Name: "passed", Value: strconv.Itoa(p.Passed)},
		{Name: "passRate", Value: rate},
	}
	for k := 1; k <= p.Attempts; k++ {
		props = append(props, junitProperty{Name: "pass@" + strconv.Itoa(k), Value: report.FormatRate(p.PassAtK.At(k))})
	}
	for k := 1; k <= p.Attempts; k++ {
		props = append(props, junitProperty{Name: "pass^" + strconv.Itoa(k), Value: report.FormatRate(p.PassHatK.At(k))})
	}
	if p.Interrupted > 0 {
		props = append(props, junitProperty{Name: "interrupted", Value: strconv.Itoa(p.Interrupted)})
	}
	if p.NotRun > 0 { // of those interrupted, as in the results
		props = append(props, junitProperty{Name: "notRun", Value: strconv.Itoa(p.NotRun)})
	}
	if p.Invalid > 0 {
		props = append(props, junitProperty{Name: "invalid", Value: strconv.Itoa(p.Invalid)})
	}
	return props
}

// problemBody is the text of a <failure> or <error>: why the result is
// invalid, the error, the setup request cancelled, every turn's
// outcome, the failed expectations, each turn's followed by an excerpt of
// its text, the tail of the agent's stderr for an error, and protocol
// violations.
func problemBody(r report.Result) string {
	var b strings.Builder
	if r.Invalid != nil {
		fmt.Fprintf(&b, "%s\n", r.Invalid)
	}
	if r.Error != "" && !slices.ContainsFunc(r.Turns, func(t report.TurnResult) bool {
		return t.Error != "" && strings.HasSuffix(r.Error, t.Error)
	}) {
		fmt.Fprintf(&b, "%s\n", r.Error) // not already said by a turn below
	}
	if r.SetupCancel != nil {
		fmt.Fprintf(&b, "setup: %s\n", r.SetupCancel)
	}
	for _, t := range r.Turns {
		fmt.Fprintf(&b, "turn %d: %s", t.Index, cmp.Or(t.StopReason, noStopReason))
		if t.CancelCause != "" {
			fmt.Fprintf(&b, " after %s", t.CancelCause)
		}
		if t.Error != "" {
			fmt.Fprintf(&b, ": %s", t.Error)
		}
		b.WriteString("\n")
	}
	for _, rs := range reasons(r) {
		if (rs.Msg == r.Error || r.Invalid != nil && rs.Msg == r.Invalid.String()) && rs.Excerpt == nil {
			continue // said above
		}
		pad := ""
		if rs.Msg != "" {
			fmt.Fprintf(&b, "failed: %s\n", rs.Msg)
			pad = "  "
		}
		for _, l := range rs.Excerpt {
			fmt.Fprintf(&b, "%s%s\n", pad, l)
		}
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "protocol violation: %s\n", v)
	}
	return b.String()
}

// systemOut is a testcase's <system-out>: where to look next.
func systemOut(r report.Result) string {
	var b strings.Builder
	if r.Transcript != "" {
		fmt.Fprintf(&b, "transcript: %s\n", r.Transcript)
	}
	var skipped []string
	for _, t := range r.Turns {
		if t.StopReason == report.OutcomeSkipped {
			skipped = append(skipped, strconv.Itoa(t.Index))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "skipped turns: %s\n", strings.Join(skipped, ", "))
	}
	if r.SetupCancel != nil && r.Status == report.StatusInterrupted { // no problem body says it
		fmt.Fprintf(&b, "setup: %s\n", r.SetupCancel)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if r.StderrTail != "" {
		b.WriteString("agent stderr (last lines):\n")
		b.WriteString(strings.TrimRight(r.StderrTail, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// xmlText replaces what XML 1.0 cannot hold (control characters such as
// the ESC of colour codes; strings.Map already turns invalid UTF-8 into
// U+FFFD) with U+FFFD. encoding/xml does
// this for attributes and escaped text, but not inside CDATA.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// seconds formats d as JUnit wants it: seconds with millisecond precision,
// cut to the millisecond as the results' durationMs are, so that the two
// say the same time.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Truncate(time.Millisecond).Seconds(), 'f', 3, 64)
}
