package output

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
	"github.com/fatih/color"
)

// Text writes the human summary of a run: the results that did not pass,
// each with its line, its reasons and their excerpts; the warnings of those
// that passed; the scenarios that never ran; the pass-rate table when there
// is one (report.PassRates); and the totals. Passing results are not
// listed: each had its Line as it ended (progress.Printer, or Lines). Colour follows
// color.NoColor, which main sets once.
func Text(w io.Writer, rep report.Report) error {
	fail := termtext.Paint(color.FgRed, color.Bold).SprintFunc()
	warn := termtext.Paint(color.FgYellow).SprintFunc()
	var b strings.Builder
	section := func() {
		if b.Len() == 0 {
			b.WriteString("\n")
		}
	}
	for _, sc := range rep.Scenarios {
		if sc.Status == report.StatusPassed || sc.NotRun {
			continue // not run: listed below
		}
		section()
		fmt.Fprintf(&b, "%s\n", scenarioLine(sc, true))
		for _, l := range reasonLines(reasons(sc)) {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		for _, wmsg := range sc.Warnings {
			writeWarning(&b, warn, wmsg)
		}
		if ws := sc.Workspace; ws != nil && ws.Kept {
			fmt.Fprintf(&b, "    workspace kept: %s\n", printable(ws.Path))
		}
	}
	for _, sc := range rep.Scenarios {
		if sc.Status != report.StatusPassed || len(sc.Warnings) == 0 {
			continue
		}
		section()
		fmt.Fprintf(&b, "%s %s\n", warn("WARN"), printable(sc.Label()))
		for _, wmsg := range sc.Warnings {
			writeWarning(&b, warn, wmsg)
		}
	}
	for _, sc := range rep.Scenarios {
		if sc.NotRun {
			section()
			fmt.Fprintf(&b, "%s %s (%s)\n", warn("NOT RUN"), printable(sc.Label()), place(sc.File, sc.Line))
		}
	}
	s := report.Summarize(rep)
	if len(s.PassRates) > 0 {
		passRateTable(&b, s.PassRates, rep)
	}
	fmt.Fprintf(&b, "\n%s in %s%s\n", counts(s, fail, warn), Duration(rep.Duration), totals(s))
	if rep.PolicyOverride != "" {
		fmt.Fprintf(&b, "%s every permission request was answered by %s\n", warn("note:"), printable(rep.PolicyOverride))
	}
	if s.NotRun > 0 && !rep.Interrupted {
		// What stopped a run that was not interrupted (--fail-fast,
		// --max-failures, --timeout) is said once, as JUnit and the step
		// summary say it for each of them; an interrupt is said below.
		fmt.Fprintf(&b, "%s\n", warn(notRunWhy(rep, s.NotRun)))
	}
	if rep.Interrupted {
		msg := "interrupted: results are partial"
		if s.Interrupted == 0 {
			// It came as the last scenario ended (its agent stopping, its
			// teardown running): none was cut short.
			msg = "interrupted as the run ended: every scenario has its result"
		}
		if s.NotRun > 0 {
			msg += "; " + notRunCount(rep, s.NotRun) + " did not run"
		}
		fmt.Fprintf(&b, "%s\n", fail(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// notRunWhy says that n scenarios (or attempts, see notRunCount) did not
// run, and why, as their results say it, each reason once: "2 scenarios
// did not run: the run stopped at its first failed scenario (--fail-fast)".
func notRunWhy(rep report.Report, n int) string {
	var whys []string
	for _, sc := range rep.Scenarios {
		why := printable(strings.TrimPrefix(sc.Error, "not run: "))
		if sc.NotRun && why != "" && !slices.Contains(whys, why) {
			whys = append(whys, why)
		}
	}
	msg := notRunCount(rep, n) + " did not run"
	if len(whys) > 0 {
		msg += ": " + strings.Join(whys, "; ")
	}
	return msg
}

// notRunCount names the n results of rep that did not run by what they
// are: "2 scenarios", or with --repeat (results with an Attempt) "3
// attempts of 2 scenarios", since several may be of one scenario.
func notRunCount(rep report.Report, n int) string {
	type key struct {
		dir, file, name, agent string
		line, varSet           int
	}
	scenarios := map[key]bool{}
	repeated := false
	for _, sc := range rep.Scenarios {
		if sc.NotRun {
			scenarios[key{sc.Dir, sc.File, sc.Name, sc.Agent.Name, sc.Line, sc.VarSet}] = true
			repeated = repeated || sc.Attempt > 0
		}
	}
	if !repeated {
		return fmt.Sprintf("%d %s", n, plural(n, "scenario", "scenarios"))
	}
	return fmt.Sprintf("%d %s of %d %s", n, plural(n, "attempt", "attempts"),
		len(scenarios), plural(len(scenarios), "scenario", "scenarios"))
}

// Counts is what the totals line of Text says of the scenarios of s,
// without the duration and the token totals: "3 passed, 1 failed, 1
// error, 1 invalid, 1 interrupted, 2 not run, 1 warning" (see counts),
// coloured as Text colours it. acprun report says it of what it rendered.
func Counts(s report.Summary) string {
	return counts(s, termtext.Paint(color.FgRed, color.Bold).SprintFunc(), termtext.Paint(color.FgYellow).SprintFunc())
}

// counts is the start of the totals line: "3 passed, 1 failed, 1 error,
// 1 of 2 pass rates met, 1 invalid, 1 interrupted, 2 not run, 1 warning".
// Failures are always counted; errors, the pass rates that had a minimum,
// invalid scenarios, scenarios cut short (interrupted, but started),
// scenarios not run and warnings when there are some.
func counts(s report.Summary, fail, warn func(...any) string) string {
	cut := s.Interrupted - s.NotRun
	parts := []string{fmt.Sprintf("%d passed", s.Passed)}
	failed := fmt.Sprintf("%d failed", s.Failed)
	if s.Failed > 0 {
		failed = fail(failed)
	}
	parts = append(parts, failed)
	if s.Errored > 0 {
		parts = append(parts, fail(fmt.Sprintf("%d %s", s.Errored, plural(s.Errored, "error", "errors"))))
	}
	if met, of := ratesMet(s.PassRates); of > 0 {
		rates := fmt.Sprintf("%d of %d %s met", met, of, plural(of, "pass rate", "pass rates"))
		if met < of {
			rates = fail(rates)
		}
		parts = append(parts, rates)
	}
	if s.Invalid > 0 {
		parts = append(parts, termtext.Paint(color.FgMagenta).Sprint(fmt.Sprintf("%d invalid", s.Invalid)))
	}
	if cut > 0 {
		parts = append(parts, warn(fmt.Sprintf("%d interrupted", cut)))
	}
	if s.NotRun > 0 {
		parts = append(parts, warn(fmt.Sprintf("%d not run", s.NotRun)))
	}
	if s.Flaky > 0 {
		parts = append(parts, warn(fmt.Sprintf("%d flaky", s.Flaky)))
	}
	if s.Retried > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", s.Retried, plural(s.Retried, "rerun", "reruns")))
	}
	if s.Warnings > 0 {
		parts = append(parts, warn(warnings(s.Warnings)))
	}
	return strings.Join(parts, ", ")
}

// Lines writes the Line of every result that ran, as the progress shows
// each when it ends (for acprun merge, whose results ended elsewhere).
func Lines(w io.Writer, rep report.Report) error {
	var b strings.Builder
	for _, sc := range rep.Scenarios {
		if !sc.NotRun {
			fmt.Fprintf(&b, "%s\n", Line(sc))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Line is the line of one result: its status, its label, then its stop
// reasons, duration and permission counts, e.g. "FAIL login [claude] #2
// (end_turn, 1.2s, 1 allowed, 0 denied)".
func Line(r report.Result) string { return scenarioLine(r, false) }

// scenarioLine is Line; bold makes the status bold, as the summary shows
// it.
func scenarioLine(sc report.Result, bold bool) string {
	attrs := []color.Attribute{color.FgGreen}
	status := "PASS"
	switch {
	case sc.Retried:
		attrs, status = []color.Attribute{color.FgYellow}, "RERUN" // errored or invalid, and ran again
	case sc.NotRun:
		attrs, status = []color.Attribute{color.FgYellow}, "NOT RUN"
	case sc.Status == report.StatusInterrupted:
		attrs, status = []color.Attribute{color.FgYellow}, "INTERRUPTED"
	case sc.Status == report.StatusInvalid:
		attrs, status = []color.Attribute{color.FgMagenta}, "INVALID" // measured nothing: neither a pass nor a failure
	case sc.Status == report.StatusFailed:
		attrs, status = []color.Attribute{color.FgRed}, "FAIL"
	case sc.Status != report.StatusPassed:
		attrs, status = []color.Attribute{color.FgRed}, "ERROR"
	}
	if bold {
		attrs = append(attrs, color.Bold)
	}
	detail := stopReasons(sc) + ", " + Duration(sc.Duration)
	if sc.Retry > 0 {
		detail += ", retry " + strconv.Itoa(sc.Retry)
	}
	if sc.Flaky {
		detail += ", flaky"
	}
	if sc.Allowed+sc.Denied > 0 {
		detail += fmt.Sprintf(", %d allowed, %d denied", sc.Allowed, sc.Denied)
	}
	dim := termtext.Paint(color.Faint).SprintFunc()
	return fmt.Sprintf("%s %s %s", termtext.Paint(attrs...).Sprint(status), printable(sc.Label()), dim("("+detail+")"))
}

// stopReasons lists a scenario's turn outcomes, e.g. "end_turn, max_tokens",
// or says "no turn ran" when none was even tried (the agent did not start,
// setup failed, the scenario was not run). A stop reason is any string the
// agent sent: each is printable, and cut as an excerpt's line is
// (excerptLine), so that a long one does not flood the line; the results
// keep it whole.
func stopReasons(sc report.Result) string {
	if len(sc.Turns) == 0 {
		return "no turns"
	}
	if !slices.ContainsFunc(sc.Turns, func(t report.TurnResult) bool { return t.StopReason != report.OutcomeSkipped || t.CancelCause != "" }) {
		return "no turn ran"
	}
	rs := make([]string, len(sc.Turns))
	for i, t := range sc.Turns {
		rs[i] = stopReasonText(t.StopReason)
		if t.CancelCause != "" {
			rs[i] += " after " + printable(t.CancelCause)
		}
	}
	return strings.Join(rs, ", ")
}

// noStopReason stands for the stop reason of a turn that has none (in
// results written by hand: acprun records one for every turn).
const noStopReason = "no stop reason"

// stopReasonText is a stop reason as a line of the summary shows it:
// printable and cut (excerptLine), or noStopReason when there is none.
func stopReasonText(reason string) string {
	if reason == "" {
		return noStopReason
	}
	return excerptLine(reason)
}

func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// writeWarning writes a warning of a scenario (messageLines), its
// continuation lines under its first.
func writeWarning(b *strings.Builder, warn func(...any) string, msg string) {
	lines := messageLines(msg)
	fmt.Fprintf(b, "    %s %s\n", warn("warning:"), lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintf(b, "      %s\n", l)
	}
}

// lastLines returns the last n lines of s (textLines).
func lastLines(s string, n int) []string {
	lines := textLines(s)
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// warnings counts warnings as pytest does: "1 warning", "3 warnings".
func warnings(n int) string {
	return fmt.Sprintf("%d %s", n, plural(n, "warning", "warnings"))
}

// totals is the tail of the summary line: turns by stop reason (each
// printable and cut as on a result's line: the agent chose it) and the
// permission counts, e.g.
// "; turns: end_turn 2; permissions: 1 allowed, 0 denied".
func totals(s report.Summary) string {
	var b strings.Builder
	if len(s.Turns) > 0 {
		var turns []string
		for _, k := range slices.Sorted(maps.Keys(s.Turns)) {
			turns = append(turns, fmt.Sprintf("%s %d", stopReasonText(k), s.Turns[k]))
		}
		fmt.Fprintf(&b, "; turns: %s", strings.Join(turns, ", "))
	}
	if s.Allowed+s.Denied > 0 {
		fmt.Fprintf(&b, "; permissions: %d allowed, %d denied", s.Allowed, s.Denied)
	}
	return b.String()
}

// place says where a scenario is written: file:line (its name printable:
// an agent may have chosen it), or for the scenario
// of a run without a scenario file (run --agent NAME --prompt TEXT), which
// has no file, that it came from --prompt.
func place(file string, line int) string {
	if file == "" {
		return "--prompt, no scenario file"
	}
	return fmt.Sprintf("%s:%d", printable(file), line)
}
