package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/acprun/acprun/runner"
	"github.com/fatih/color"
)

// Text writes the human summary: one line per scenario, its failures, and
// the totals. Colour follows color.NoColor, which main sets once.
func Text(w io.Writer, rep runner.Report) error {
	pass := color.New(color.FgGreen, color.Bold).SprintFunc()
	fail := color.New(color.FgRed, color.Bold).SprintFunc()
	warn := color.New(color.FgYellow).SprintFunc()
	dim := color.New(color.Faint).SprintFunc()
	var b strings.Builder
	for _, sc := range rep.Scenarios {
		status := pass("PASS")
		switch {
		case sc.Retried:
			status = warn("RERUN") // failed or errored, and ran again
		case sc.Status == runner.StatusFailed:
			status = fail("FAIL")
		case sc.Status == runner.StatusError:
			status = fail("ERROR")
		}
		detail := stopReasons(sc) + ", " + duration(sc.Duration)
		if sc.Retry > 0 {
			detail += ", retry " + strconv.Itoa(sc.Retry)
		}
		if sc.Flaky {
			detail += ", flaky"
		}
		if sc.Allowed+sc.Denied > 0 {
			detail += fmt.Sprintf(", %d allowed, %d denied", sc.Allowed, sc.Denied)
		}
		fmt.Fprintf(&b, "%s %s %s\n", status, label(sc), dim("("+detail+")"))
		if sc.Error != "" {
			fmt.Fprintf(&b, "    %s\n", indent(sc.Error))
		}
		for _, f := range sc.Failures {
			fmt.Fprintf(&b, "    %s\n", indent(f))
		}
		for _, wmsg := range sc.Warnings {
			fmt.Fprintf(&b, "    %s %s\n", warn("warning:"), indent(wmsg))
		}
		if ws := sc.Workspace; ws != nil && ws.Kept && sc.Status != runner.StatusPassed {
			fmt.Fprintf(&b, "    workspace kept: %s\n", ws.Path)
		}
		if sc.Status != runner.StatusPassed && sc.StderrTail != "" {
			fmt.Fprintf(&b, "    agent stderr (last lines):\n")
			for _, l := range lastLines(sc.StderrTail, 5) {
				fmt.Fprintf(&b, "      %s\n", l)
			}
		}
	}
	s := Summarize(rep)
	if len(s.PassRates) > 0 {
		passRateTable(&b, s.PassRates)
	}
	parts := []string{fmt.Sprintf("%d passed", s.Passed)}
	failed := fmt.Sprintf("%d failed", s.Failed)
	if s.Failed > 0 {
		failed = fail(failed)
	}
	parts = append(parts, failed)
	if s.Errored > 0 {
		parts = append(parts, fail(fmt.Sprintf("%d errors", s.Errored)))
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
	fmt.Fprintf(&b, "\n%s in %s%s\n", strings.Join(parts, ", "), duration(rep.Duration), totals(s))
	if rep.PolicyOverride != "" {
		fmt.Fprintf(&b, "%s every permission request was answered by %s\n", warn("note:"), rep.PolicyOverride)
	}
	if rep.Interrupted {
		fmt.Fprintf(&b, "%s\n", fail("interrupted: results are partial"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// label names one result: the scenario, then its agent when it has a name,
// then its attempt when it was retried ("login [claude] #2").
func label(r runner.Result) string {
	s := r.Name
	if r.Agent.Name != "" {
		s += " [" + r.Agent.Name + "]"
	}
	if r.Attempt > 1 {
		s += " #" + strconv.Itoa(r.Attempt)
	}
	return s
}

// stopReasons lists a scenario's turn outcomes, e.g. "end_turn, max_tokens".
func stopReasons(sc runner.Result) string {
	if len(sc.Turns) == 0 {
		return "no turns"
	}
	rs := make([]string, len(sc.Turns))
	for i, t := range sc.Turns {
		rs[i] = t.StopReason
		if t.CancelCause != "" {
			rs[i] += " after " + t.CancelCause
		}
	}
	return strings.Join(rs, ", ")
}

func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// indent puts the continuation lines of a message (the output a failed
// command ends with) under its first, so that none starts at the margin
// where scenario lines do.
func indent(msg string) string {
	return strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", "\n      ")
}

// lastLines returns the last n lines of s, without its final line break.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// warnings counts warnings as pytest does: "1 warning", "3 warnings".
func warnings(n int) string {
	return fmt.Sprintf("%d %s", n, plural(n, "warning", "warnings"))
}

// totals is the tail of the summary line: turns by stop reason and the
// permission counts, e.g. "; turns: end_turn 2; permissions: 1 allowed, 0 denied".
func totals(s Summary) string {
	var b strings.Builder
	if len(s.Turns) > 0 {
		var turns []string
		for _, k := range sortedKeys(s.Turns) {
			turns = append(turns, fmt.Sprintf("%s %d", k, s.Turns[k]))
		}
		fmt.Fprintf(&b, "; turns: %s", strings.Join(turns, ", "))
	}
	if s.Allowed+s.Denied > 0 {
		fmt.Fprintf(&b, "; permissions: %d allowed, %d denied", s.Allowed, s.Denied)
	}
	return b.String()
}
