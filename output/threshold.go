package output

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acprun/acprun/report"
)

// minPassRate says how a pass rate fares against its minimum: "min 80%:
// met" or "min 80%: below".
func minPassRate(p report.PassRate) string {
	verdict := "below"
	if *p.Met {
		verdict = "met"
	}
	_, minimum := p.Percents()
	return fmt.Sprintf("min %s: %s", minimum, verdict)
}

// ratesMet counts the pass rates that had a minimum (of) and those that
// met it.
func ratesMet(rates []report.PassRate) (met, of int) {
	for _, p := range rates {
		if p.Met != nil {
			of++
			if *p.Met {
				met++
			}
		}
	}
	return met, of
}

// isSample reports whether the verdict r is a sample of its scenario's
// pass rate: not interrupted, nor invalid (report.PassRates).
func isSample(r report.Result) bool {
	return r.Status != report.StatusInterrupted && r.Status != report.StatusInvalid
}

// junitRateCase is the one testcase of a scenario judged by its pass rate
// against an agent (p, whose minimum is set): it stands for rs, the
// verdicts of its attempts that are samples of it (interrupted and invalid
// attempts keep their own testcases). It fails when the rate is below its
// minimum, its <failure> listing why each attempt that did not pass did
// not; when the rate is met, <system-out> lists them. Its properties are
// the pass rate's and the minimum's.
func junitRateCase(p report.PassRate, rs []report.Result) junitTestCase {
	first := rs[0]
	tc := junitTestCase{Name: rateCaseName(first), Classname: suiteName(first.File), File: first.File, Line: first.Line}
	var total float64
	var b strings.Builder
	for _, r := range rs {
		total += r.Duration.Seconds()
		if r.Status == report.StatusPassed {
			continue
		}
		fmt.Fprintf(&b, "%s %s:\n%s", attemptName(r), r.Status, problemBody(r))
		if out := systemOut(r); out != "" {
			b.WriteString(out)
		}
	}
	tc.Time = strconv.FormatFloat(total, 'f', 3, 64)
	tc.Properties = &junitProperties{append(passRateProperties(p), minPassRateProperties(p)...)}
	rate, minimum := p.Percents()
	rate = fmt.Sprintf("pass rate %d/%d (%s)", p.Passed, p.Attempts, rate)
	switch {
	case !*p.Met:
		tc.Failure = &junitProblem{Message: fmt.Sprintf("%s is below the minimum %s", rate, minimum), Type: "passRate", Body: cdata(xmlText(b.String()))}
	case b.Len() > 0:
		tc.SystemOut = newJUnitText(xmlText(fmt.Sprintf("%s meets the minimum %s; the attempts that did not pass:\n%s", rate, minimum, b.String())))
	}
	return tc
}

// junitNoVerdictCase is the one testcase of a scenario with a minimum pass
// rate against an agent (p) none of whose attempts (rs, interrupted or
// invalid, which keep their own testcases) gave a verdict: it fails, as
// the minimum is not met (the text summary's "no verdict, …, min 50%:
// below"), its <failure> listing why each attempt gave none. Its time is
// 0: its attempts' testcases hold theirs.
func junitNoVerdictCase(p report.PassRate, rs []report.Result) junitTestCase {
	first := rs[0]
	tc := junitTestCase{Name: rateCaseName(first), Classname: suiteName(first.File), File: first.File, Line: first.Line, Time: seconds(0)}
	var b strings.Builder
	for _, r := range rs {
		why := r.Error
		if r.Invalid != nil {
			why = r.Invalid.String()
		}
		fmt.Fprintf(&b, "%s %s: %s\n", attemptName(r), r.Status, why)
	}
	tc.Properties = &junitProperties{append(passRateProperties(p), minPassRateProperties(p)...)}
	tc.Failure = &junitProblem{Message: noVerdictMessage(p), Type: "passRate", Body: cdata(xmlText(b.String()))}
	return tc
}

// minPassRateProperties are the properties of p's minimum: minPassRate,
// to as many decimals as its rate (passRateProperties), so that a rate
// below it never reads equal to it (report.PassRate.Fractions), and
// minPassRateMet.
func minPassRateProperties(p report.PassRate) []junitProperty {
	_, minimum := p.Fractions()
	return []junitProperty{{Name: "minPassRate", Value: minimum}, {Name: "minPassRateMet", Value: strconv.FormatBool(*p.Met)}}
}

// noVerdictMessage says why the minimum of p, a pass rate none of whose
// attempts gave a verdict, is not met: "no attempt gave a verdict (2
// interrupted): the minimum 50% is not met".
func noVerdictMessage(p report.PassRate) string {
	_, minimum := p.Percents()
	return fmt.Sprintf("no attempt gave a verdict (%s): the minimum %s is not met", strings.Join(p.NoVerdict(), ", "), minimum)
}

// rateCaseName is the name of the testcase of the pass rate of r's
// scenario against its agent: its label, without r's attempt, then "(pass
// rate)" ("login [claude] (pass rate)"), so that it is not the name of its
// first attempt's testcase ("login [claude]", as in the lines), which it
// stands beside when that attempt is no sample or its agent could not
// start: a dashboard that merges testcases of one name would drop one.
func rateCaseName(r report.Result) string {
	r.Attempt = 0 // the scenario's label, not its first attempt's
	return r.Label() + " (pass rate)"
}

// attemptName names r's attempt in a pass rate's testcase: "attempt 2",
// or "the attempt" when its scenario was not repeated.
func attemptName(r report.Result) string {
	if r.Attempt > 0 {
		return "attempt " + strconv.Itoa(r.Attempt)
	}
	return "the attempt"
}
