package output

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
)

// Caps of the excerpts that explain a failure.
const (
	// excerptHead and excerptTail are how many of its first and last lines
	// a turn's text excerpt keeps.
	excerptHead = 4
	excerptTail = 4
	// stderrExcerptLines is how many last lines of the agent's stderr an
	// error shows.
	stderrExcerptLines = 10
	// excerptWidth caps each line of an excerpt, in characters.
	excerptWidth = 200
)

// reason is one reason a scenario did not pass, as the results give it
// (an error or a failed expectation), with the excerpt that explains it:
// a heading line, then the quoted lines.
type reason struct {
	Msg     string
	Excerpt []string
}

// reasons lists why r did not pass, for the text summary, JUnit and GitHub
// alike: why it was invalid, its error, its failed expectations (those of
// a turn followed, after the turn's last one, by an excerpt of the turn's
// text), and for an error, or a turn the agent ended badly, the tail of
// the agent's stderr. A result that passed has none.
func reasons(r report.Result) []reason {
	if r.Status == report.StatusPassed {
		return nil
	}
	var out []reason
	if r.Invalid != nil {
		out = append(out, reason{Msg: r.Invalid.String()})
	}
	if r.Error != "" {
		out = append(out, reason{Msg: r.Error})
	}
	left := map[int]int{} // turn index → failures of it still to list
	for _, t := range r.Turns {
		left[t.Index] = len(t.Failures)
	}
	for _, f := range r.Failures {
		rs := reason{Msg: f}
		if n, _ := splitTurn(f); n > 0 && left[n] > 0 {
			left[n]--
			if left[n] == 0 {
				rs.Excerpt = turnExcerpt(r.Turns[n-1])
			}
		}
		out = append(out, rs)
	}
	if ex := stderrExcerpt(r); ex != nil {
		out = append(out, reason{Excerpt: ex})
	}
	return out
}

// splitTurn splits "turn N: rest", as the runner prefixes a turn's
// failures and warnings, into N and rest; 0 and s when s does not start
// so.
func splitTurn(s string) (int, string) {
	rest, ok := strings.CutPrefix(s, "turn ")
	if !ok {
		return 0, s
	}
	num, after, ok := strings.Cut(rest, ": ")
	if !ok {
		return 0, s
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strings.TrimLeft(num, "0123456789") != "" {
		return 0, s
	}
	return n, after
}

// turnExcerpt is the excerpt of a turn's text that follows its failed
// expectations: a heading, then the first and last lines of the text.
func turnExcerpt(t report.TurnResult) []string {
	switch {
	case t.TextOmitted:
		return []string{fmt.Sprintf("turn %d text: not kept (--no-text)", t.Index)}
	case strings.TrimSpace(t.Text) == "":
		return []string{fmt.Sprintf("turn %d text: none", t.Index)}
	}
	lines := textLines(t.Text)
	head := fmt.Sprintf("turn %d text (%d %s):", t.Index, len(lines), plural(len(lines), "line", "lines"))
	return append([]string{head}, quote(headTail(lines, excerptHead, excerptTail))...)
}

// stderrExcerpt is the tail of the agent's stderr that follows an error:
// shown for a scenario that errored or whose agent ended a turn badly
// (exited, stopped answering, answered with an error), nil otherwise.
func stderrExcerpt(r report.Result) []string {
	if strings.TrimSpace(r.StderrTail) == "" || !agentMisbehaved(r) {
		return nil
	}
	lines := textLines(r.StderrTail)
	shown := lines[max(len(lines)-stderrExcerptLines, 0):]
	out := []string{fmt.Sprintf("agent stderr (last %d %s):", len(shown), plural(len(shown), "line", "lines"))}
	if cut := len(lines) - len(shown); cut > 0 {
		shown = append([]string{fmt.Sprintf("… %d earlier %s …", cut, plural(cut, "line", "lines"))}, shown...)
	}
	return append(out, quote(shown)...)
}

// agentMisbehaved reports whether r errored or one of its turns ended
// without a stop reason of the agent's: where the agent's stderr says why.
func agentMisbehaved(r report.Result) bool {
	if r.Status == report.StatusError {
		return true
	}
	for _, t := range r.Turns {
		switch t.StopReason {
		case report.OutcomeError, report.OutcomeAgentExited, report.OutcomeUnresponsive:
			return true
		}
	}
	return false
}

// textLines splits text into lines, without the line breaks that end it.
func textLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// headTail keeps the first head and last tail of lines, with one
// "… N more lines …" line in place of the others. It cuts nothing when
// that line would stand for a single line.
func headTail(lines []string, head, tail int) []string {
	if len(lines) <= head+tail+1 {
		return lines
	}
	cut := len(lines) - head - tail
	out := append([]string{}, lines[:head]...)
	out = append(out, fmt.Sprintf("… %d more lines …", cut))
	return append(out, lines[len(lines)-tail:]...)
}

// quote prefixes every line with "| ", so that the agent's words are
// not mistaken for acprun's, after making each line safe to print: at
// most excerptWidth characters, control characters (the escape of
// colour codes and cursor moves) written as \xNN. The "| " does not stop
// a legacy workflow command ("##[error]"), which GitHub Actions runs
// anywhere in a line: termtext.Escape writes its second '#' as \x23.
func quote(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "| " + excerptLine(l)
	}
	return out
}

// excerptLine is line cut at excerptWidth characters (marked "…"), with
// control characters and invalid UTF-8 escaped, tabs kept.
func excerptLine(line string) string {
	n := 0
	for i := range line {
		if n == excerptWidth {
			return termtext.Escape(line[:i], true) + "…"
		}
		n++
	}
	return termtext.Escape(line, true)
}

// printable is s, a value an agent or a file chose (a scenario's name, a
// stop reason, a path), made safe to print as part of one line: its
// control characters (line breaks among them) and invalid UTF-8 written
// as \xNN, tabs kept, as excerpts are (termtext.Escape). Every such value
// of the human output goes through it, or through messageLines.
func printable(s string) string { return termtext.Escape(s, true) }

// messageLines is msg, a reason or a warning as the results give it, as
// lines safe to print: its first line made printable, and the lines that
// follow it (the end of a command's output, or a line break an agent put
// in a stop reason or an error message) quoted as excerpts are, so that
// no line of acprun's output starts with text the message carries (a
// "::error" workflow command, which GitHub Actions runs even indented).
func messageLines(msg string) []string {
	lines := textLines(msg)
	return append([]string{printable(lines[0])}, quote(lines[1:])...)
}

// reasonLines renders reasons as lines: each message (messageLines),
// then its excerpt, indented by two spaces under it.
func reasonLines(rs []reason) []string {
	var out []string
	for _, r := range rs {
		if r.Msg == "" {
			out = append(out, r.Excerpt...)
			continue
		}
		msg := messageLines(r.Msg)
		out = append(out, msg[0])
		for _, l := range append(msg[1:], r.Excerpt...) {
			out = append(out, "  "+l)
		}
	}
	return out
}
