package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
)

// maxCell bounds the text of one Markdown table cell: GitHub caps a step
// summary at 1 MiB.
const maxCell = 500

// maxAnnotations is how many ::error commands, and separately how many
// ::warning commands, acprun writes for one step: GitHub shows 10
// annotations of each level per step (and 50 per job) and drops the rest
// silently. Past it, one ::notice says how many were left out and where to
// find them.
const maxAnnotations = 10

// GitHub writes what GitHub Actions shows of a run: on stdout, an ::error
// workflow command per failed expectation, at the expectation's own
// file:line:col (the scenario's file:line when the failure has no
// position; no file nor line when there is no scenario file, as for a
// run of --prompt), one per errored scenario at the scenario, a ::warning per
// interrupted scenario (cut short: no verdict, so its failures are not
// errors) at the scenario, an ::error per invalid scenario (it measured
// nothing; its failures are not annotated either) where its reason points
// (the protect list, expect.agent) or at the scenario, and one per
// warning of a scenario or turn (the failures and errors of an attempt
// whose scenario met its minimum pass rate are warnings too), and an
// ::error at a scenario with a minimum pass rate none of whose attempts
// gave a verdict, one at least having started (its minimum is not met,
// though no attempt failed); at
// most maxAnnotations of each, then a
// ::notice with the count left out. Files under $GITHUB_WORKSPACE are
// named relative to it, as GitHub needs to place an annotation in the
// repository. When summaryFile is not empty (the $GITHUB_STEP_SUMMARY
// file), a Markdown table of the results is appended to it.
func GitHub(stdout io.Writer, summaryFile string, rep report.Report) error {
	var b strings.Builder
	errs, warns := annotations(rep)
	if ws := os.Getenv("GITHUB_WORKSPACE"); ws != "" {
		for _, as := range [][]annotation{errs, warns} {
			for i := range as {
				as[i].pos.file = inWorkspace(as[i].pos.file, ws)
			}
		}
	}
	writeAnnotations(&b, "error", errs, "failure or error", "failures and errors")
	writeAnnotations(&b, "warning", warns, "warning", "warnings")
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if summaryFile == "" {
		return nil
	}
	f, err := os.OpenFile(summaryFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = io.WriteString(f, Markdown(rep))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	return nil
}

// problemKind is what an annotation reports.
type problemKind int

const (
	problemError   problemKind = iota // the scenario's error (Result.Error)
	problemFailure                    // one failed expectation
	problemWarning                    // one warning of the scenario or a turn
)

// problem is one thing to annotate: its kind, its text (as the results
// hold it, less the position), where it points, and the turn it belongs
// to (0: the scenario), whose text an excerpt can show.
type problem struct {
	kind problemKind
	text string
	pos  sourcePos
	turn int
}

// sourcePos is a position in a scenario (or config) file; col is 0 when
// only the line is known.
type sourcePos struct {
	file      string
	line, col int
}

// properties is p as a workflow command's file, line and col properties,
// each followed by a comma: only those known, and none without a file
// (a run of --prompt has no scenario file), which GitHub takes as an
// annotation of the run, not of a file.
func (p sourcePos) properties() string {
	if p.file == "" {
		return ""
	}
	s := "file=" + escapeProperty(printable(p.file)) + ","
	if p.line > 0 {
		s += fmt.Sprintf("line=%d,", p.line)
		if p.col > 0 {
			s += fmt.Sprintf("col=%d,", p.col)
		}
	}
	return s
}

// annotation is one workflow command.
type annotation struct {
	pos     sourcePos
	title   string
	message string
}

// annotations lists the ::error and ::warning commands of a run, in the
// order of the results.
func annotations(rep report.Report) (errs, warns []annotation) {
	forgiven := report.Forgiven(rep)
	unmet := map[passRateKey]report.PassRate{} // a minimum, and no attempt gave a verdict
	for _, p := range report.PassRates(rep) {
		if p.Attempts == 0 && p.Met != nil {
			unmet[passRateKey{p.File, p.Scenario, p.Agent}] = p
		}
	}
	for _, r := range rep.Scenarios {
		if p, ok := unmet[passRateKey{r.File, r.Name, r.Agent.Name}]; ok && !r.NotRun {
			// At its first result that ran: its attempts, interrupted or
			// invalid, fail no expectation, but the scenario fails its
			// minimum (the exit code, JUnit's passRate testcase). One
			// none of whose attempts started is not annotated, as a
			// scenario not run is not: hundreds would crowd out the rest.
			delete(unmet, passRateKey{r.File, r.Name, r.Agent.Name})
			scenario := r
			scenario.Attempt = 0 // the scenario's label, not its first attempt's
			errs = append(errs, annotation{pos: sourcePos{file: r.File, line: r.Line},
				title: fmt.Sprintf("acprun: %s below its minimum pass rate", scenario.Label()), message: noVerdictMessage(p)})
		}
		if r.NotRun || !r.Verdict() {
			continue // nothing of it ran, or a retried try: not a verdict
		}
		at := sourcePos{file: r.File, line: r.Line}
		verb := "failed"
		if r.Status != report.StatusFailed {
			verb = "errored"
		}
		title := fmt.Sprintf("acprun: %s %s", r.Label(), verb)
		problems := &errs
		if forgiven(r) { // a warning: the scenario met its pass rate
			title += " (its scenario met its minimum pass rate)"
			problems = &warns
		}
		switch r.Status {
		case report.StatusPassed:
		case report.StatusInterrupted:
			p := problem{kind: problemError, text: r.Error, pos: at}
			warns = append(warns, annotation{pos: at, title: fmt.Sprintf("acprun: %s interrupted", r.Label()), message: annotationMessage(r, p)})
		case report.StatusInvalid:
			// An error, so that it is not taken for green; its failures
			// are no verdict, and not annotated.
			p := problem{kind: problemError, pos: at}
			if inv := r.Invalid; inv != nil {
				p = locate(problemError, inv.Message, at) // at the protect list or expect.agent
				p.text = "invalid (" + inv.Reason + "): " + p.text
			}
			errs = append(errs, annotation{pos: p.pos, title: fmt.Sprintf("acprun: %s invalid", r.Label()), message: annotationMessage(r, p)})
		default:
			if r.Error != "" || len(r.Failures) == 0 {
				p := problem{kind: problemError, text: r.Error, pos: at}
				p.turn, _ = splitTurn(r.Error)
				*problems = append(*problems, annotation{pos: at, title: title, message: annotationMessage(r, p)})
			}
			for _, f := range r.Failures {
				p := locate(problemFailure, f, at)
				*problems = append(*problems, annotation{pos: p.pos, title: title, message: annotationMessage(r, p)})
			}
		}
		for _, w := range r.Warnings {
			p := locate(problemWarning, w, at)
			warns = append(warns, annotation{pos: p.pos, title: fmt.Sprintf("acprun: %s", r.Label()), message: annotationMessage(r, p)})
		}
	}
	return errs, warns
}

// annotationMessage is the message of the annotation of p, a problem of
// the result r: what went wrong, without the position the annotation
// already points at, its lines made safe as the text summary's are
// (messageLines). An error says the turns' stop reasons too.
func annotationMessage(r report.Result, p problem) string {
	var lines []string
	switch p.kind {
	case problemError:
		if p.text != "" {
			lines = append(lines, messageLines(p.text)...)
		}
		lines = append(lines, "stop reasons: "+stopReasons(r))
		lines = append(lines, stderrExcerpt(r)...)
	case problemFailure:
		rs := reason{Msg: p.text}
		if p.turn > 0 && p.turn <= len(r.Turns) {
			rs.Excerpt = turnExcerpt(r.Turns[p.turn-1])
		}
		lines = append(lines, reasonLines([]reason{rs})...)
	default:
		lines = messageLines(p.text)
	}
	return strings.Join(lines, "\n")
}

// locate finds where a failure or warning points: the file:line:col it
// starts with (after "turn N: "), as every expectation's failure does,
// else at. The text returned keeps "turn N: " and drops the position.
func locate(kind problemKind, text string, at sourcePos) problem {
	p := problem{kind: kind, text: text, pos: at}
	turn, rest := splitTurn(text)
	p.turn = turn
	if pos, msg, ok := cutPos(rest); ok {
		p.pos = pos
		p.text = msg
		if turn > 0 {
			p.text = fmt.Sprintf("turn %d: %s", turn, msg)
		}
	}
	return p
}

// leadingPos matches the "file:line:col: " a positioned message starts
// with (scenario.Pos's form); the file is the shortest prefix that fits.
// It is compiled on first use (GitHub annotations), not at every start.
var leadingPos = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.+?):([1-9][0-9]*):([0-9]+): `)
})

// cutPos splits "file:line:col: msg" into its position and msg.
func cutPos(s string) (sourcePos, string, bool) {
	m := leadingPos().FindStringSubmatch(s)
	if m == nil {
		return sourcePos{}, s, false
	}
	line, err1 := strconv.Atoi(m[2])
	col, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil {
		return sourcePos{}, s, false
	}
	return sourcePos{file: m[1], line: line, col: col}, s[len(m[0]):], true
}

// inWorkspace names file relative to the workspace directory ws when it
// is inside it (symlinks resolved, as the runner's checkout may be
// reached through one), else as it is.
func inWorkspace(file, ws string) string {
	if file == "" {
		return "" // no file (a run of --prompt), not the workspace's root
	}
	abs, err1 := filepath.Abs(file)
	root, err2 := filepath.Abs(ws)
	if err1 != nil || err2 != nil {
		return file
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(rel) {
		realFile, err1 := filepath.EvalSymlinks(abs)
		realRoot, err2 := filepath.EvalSymlinks(root)
		if err1 != nil || err2 != nil {
			return file
		}
		if rel, err = filepath.Rel(realRoot, realFile); err != nil || !filepath.IsLocal(rel) {
			return file
		}
	}
	return filepath.ToSlash(rel)
}

// writeAnnotations writes the first maxAnnotations of as as workflow
// commands of level, then a ::notice saying how many were left out (one
// and many name what they are). The title (which names the scenario) is
// made printable, as the message already is, before the workflow
// command's own escaping.
func writeAnnotations(b *strings.Builder, level string, as []annotation, one, many string) {
	for i, a := range as {
		if i == maxAnnotations {
			n := len(as) - maxAnnotations
			fmt.Fprintf(b, "::notice title=%s::%s\n",
				escapeProperty("acprun: more "+many),
				escapeData(fmt.Sprintf("%d more %s not annotated (GitHub shows %d %s annotations per step); see the step summary or the results file",
					n, plural(n, one, many), maxAnnotations, level)))
			return
		}
		fmt.Fprintf(b, "::%s %stitle=%s::%s\n", level, a.pos.properties(), escapeProperty(printable(a.title)), escapeData(a.message))
	}
}

// Markdown renders the results as a Markdown heading, totals and a table
// with one row per scenario result, for $GITHUB_STEP_SUMMARY.
func Markdown(rep report.Report) string {
	s := report.Summarize(rep)
	var b strings.Builder
	b.WriteString("## acprun results\n\n")
	// The counts of the text summary's totals line, the pass rates met,
	// flaky tries and reruns included (what made the run's verdict), then
	// of how many results, and the warnings.
	plain := func(a ...any) string { return fmt.Sprint(a...) }
	noWarnings := s
	noWarnings.Warnings = 0
	warned := ""
	if s.Warnings > 0 {
		warned = ", " + warnings(s.Warnings)
	}
	fmt.Fprintf(&b, "**%s** of %d%s in %s%s\n\n", counts(noWarnings, plain, plain), s.Scenarios, warned, Duration(rep.Duration), mdCell(totals(s)))
	switch {
	case rep.Interrupted && s.Interrupted == 0:
		b.WriteString("> [!WARNING]\n> The run was interrupted as it ended: every scenario has its result.\n\n")
	case rep.Interrupted:
		b.WriteString("> [!WARNING]\n> The run was interrupted: results are partial.\n\n")
	}
	if rep.PolicyOverride != "" {
		fmt.Fprintf(&b, "> [!NOTE]\n> Every permission request was answered by %s.\n\n", mdCell(printable(rep.PolicyOverride)))
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
		case report.StatusPassed:
		case report.StatusFailed:
			status = "❌ failed"
			details = strings.Join(r.Failures, "\n")
		case report.StatusInterrupted:
			status = "⏹️ interrupted"
			details = strings.Join(append([]string{r.Error}, r.Failures...), "\n")
		case report.StatusInvalid:
			status = "🚫 invalid"
			if r.Invalid != nil {
				details = strings.Join(append([]string{r.Invalid.String()}, r.Failures...), "\n")
			}
		default:
			status = "💥 error"
			details = strings.Join(append([]string{r.Error}, r.Failures...), "\n")
		}
		switch {
		case r.Retried:
			status = "🔁 rerun" // errored or invalid, then ran again
		case r.NotRun:
			status = "⏭️ not run" // never started: counted apart from those cut short
		case r.Flaky:
			status = "⚠️ flaky"
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s |\n",
			status, mdCell(printable(r.Label())), mdCode(place(r.File, r.Line)),
			mdCell(stopReasons(r)), Duration(r.Duration), mdCell(details))
	}
	b.WriteString("\n")
	return b.String()
}

// mdCell makes s safe inside a Markdown table cell, or the heading's
// totals: each line printable (as the text summary's are), at most
// maxCell characters, then written as mdText writes it, line breaks as
// <br>.
func mdCell(s string) string {
	lines := textLines(strings.TrimSpace(s))
	for i, l := range lines {
		lines[i] = printable(l)
	}
	s = strings.Join(lines, "\n")
	return mdText(termtext.Cut(s, maxCell))
}

// mdText writes s, text an agent or a file chose, as GitHub Flavored
// Markdown that renders as s itself, line breaks as <br>, and that makes
// no markup of its own: HTML escaped; pipes escaped, so that it makes no
// table cell; brackets as character references, so that it makes no
// image (fetched from a URL it chose), link or footnote; no autolink of
// the GFM extension either, the ':' of "://" and the '.' of "www." as
// character references and an empty HTML comment (which the summary
// does not show) after each '@', where an email address, "mailto:" or
// "xmpp:" would be linked (character references would not do there: the
// extension reads the text they make); and '*', '_', '~', '`' and '$'
// escaped with a backslash, so that it makes no emphasis, strikethrough,
// code span or math ('_' between ASCII letters or digits, which
// emphasizes nothing, as it is). A backslash of s stays one: it is
// doubled where it would escape what follows it.
func mdText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			b.WriteString("<br>")
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '[':
			b.WriteString("&#91;")
		case c == ']':
			b.WriteString("&#93;")
		case c == ':' && strings.HasPrefix(s[i:], "://"):
			b.WriteString("&#58;")
		case c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString("&#46;")
		case c == '@':
			b.WriteString("@<!---->")
		case c == '\\' && (i+1 == len(s) || s[i+1] == '\n' || isASCIIPunct(s[i+1])):
			b.WriteString(`\\`)
		case c == '_' && i > 0 && i+1 < len(s) && isASCIIAlnum(s[i-1]) && isASCIIAlnum(s[i+1]):
			b.WriteByte(c)
		case strings.IndexByte("|*_~`$", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isASCIIPunct reports whether c is one of the ASCII punctuation
// characters, which a backslash before it escapes in Markdown.
func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// isASCIIAlnum reports whether c is an ASCII letter or digit.
func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
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
