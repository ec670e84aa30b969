package output

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/acprun/acprun/runner"
)

// maxCell bounds the text of one Markdown table cell: GitHub caps a step
// summary at 1 MiB.
const maxCell = 500

// GitHub writes what GitHub Actions shows of a run: an ::error workflow
// command per failed or errored scenario on stdout, pointing at the
// scenario's file and line, and, when summaryFile is not empty (the
// $GITHUB_STEP_SUMMARY file), a Markdown table of the results appended to
// it.
func GitHub(stdout io.Writer, summaryFile string, rep runner.Report) error {
	var b strings.Builder
	for _, r := range rep.Scenarios {
		if r.Status == runner.StatusPassed || !r.Verdict() {
			continue // a retried try is not the verdict
		}
		verb := "failed"
		if r.Status != runner.StatusFailed {
			verb = "errored"
		}
		fmt.Fprintf(&b, "::error file=%s,line=%d,title=%s::%s\n",
			escapeProperty(r.File), r.Line,
			escapeProperty(fmt.Sprintf("acprun: %s %s", label(r), verb)),
			escapeData(problemMessage(r)))
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if summaryFile == "" {
		return nil
	}
	f, err := os.OpenFile(summaryFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	if _, err := io.WriteString(f, Markdown(rep)); err != nil {
		f.Close()
		return fmt.Errorf("step summary: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	return nil
}

// problemMessage says why a scenario did not pass, on several lines.
func problemMessage(r runner.Result) string {
	var lines []string
	if r.Error != "" {
		lines = append(lines, r.Error)
	}
	lines = append(lines, "stop reasons: "+stopReasons(r))
	lines = append(lines, r.Failures...)
	return strings.Join(lines, "\n")
}

// Markdown renders the results as a Markdown heading, totals and a table
// with one row per scenario result, for $GITHUB_STEP_SUMMARY.
func Markdown(rep runner.Report) string {
	s := Summarize(rep)
	var b strings.Builder
	b.WriteString("## acprun results\n\n")
	warned := ""
	if s.Warnings > 0 {
		warned = ", " + warnings(s.Warnings)
	}
	fmt.Fprintf(&b, "**%d passed, %d failed, %d errors** of %d%s in %s%s\n\n",
		s.Passed, s.Failed, s.Errored, s.Scenarios, warned, duration(rep.Duration), totals(s))
	if rep.Interrupted {
		b.WriteString("> [!WARNING]\n> The run was interrupted: results are partial.\n\n")
	}
	if rep.PolicyOverride != "" {
		fmt.Fprintf(&b, "> [!NOTE]\n> Every permission request was answered by %s.\n\n", mdCell(rep.PolicyOverride))
	}
	if len(rep.Scenarios) == 0 {
		b.WriteString("No scenario ran.\n\n")
		return b.String()
	}
	b.WriteString("| Status | Scenario | File | Stop reasons | Time | Details |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | --- |\n")
	for _, r := range rep.Scenarios {
		status := "✅ passed"
		details := ""
		switch r.Status {
		case runner.StatusPassed:
		case runner.StatusFailed:
			status = "❌ failed"
			details = strings.Join(r.Failures, "\n")
		default:
			status = "💥 error"
			details = strings.Join(append([]string{r.Error}, r.Failures...), "\n")
		}
		switch {
		case r.Retried:
			status = "🔁 rerun" // failed or errored, then ran again
		case r.Flaky:
			status = "⚠️ flaky"
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s |\n",
			status, mdCell(label(r)), mdCode(r.File+":"+strconv.Itoa(r.Line)),
			mdCell(stopReasons(r)), duration(r.Duration), mdCell(details))
	}
	b.WriteString("\n")
	return b.String()
}

// mdCell makes s safe inside a Markdown table cell: HTML and pipes
// escaped, newlines as <br>, at most maxCell characters.
func mdCell(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxCell {
		s = string(r[:maxCell]) + "…"
	}
	s = strings.NewReplacer(
		"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|",
		"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
	).Replace(s)
	return s
}

// mdCode makes s safe inside a `code span` in a table cell.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", "\\|", "\n", " ", "\r", " ").Replace(s)
}

// escapeData escapes a workflow command's message, as @actions/core does.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value, as
// @actions/core does.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
