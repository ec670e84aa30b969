package output_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
)

// hostileReport is a run whose every string an agent or a file chose
// holds control characters and line breaks that would forge a line of
// output: a "::error" workflow command, a FAKE PASS after a carriage
// return, an escape sequence that retitles the terminal or clears it.
func hostileReport() report.Report {
	const forge = "\r\n::error title=INJ::x\x1b]0;pwned\x07\x1b[2J"
	return report.Report{
		SchemaVersion:  report.SchemaVersion,
		PolicyOverride: "--allow" + forge,
		Scenarios: []report.Result{
			reporttest.Complete(report.Result{
				Name: "name" + forge, File: "dir" + forge + "/s.yaml", Line: 3, Status: report.StatusFailed,
				Agent:    report.AgentInfo{Name: "agent" + forge},
				Failures: []string{"turn 1: s.yaml:5:9: stopReason evil" + forge + ", want end_turn"},
				Warnings: []string{"warned\x01\b" + forge},
				Turns: []report.TurnResult{{
					Index: 1, StopReason: "evil" + forge, CancelCause: "cause" + forge,
					Failures: []string{"s.yaml:5:9: stopReason evil" + forge + ", want end_turn"},
				}},
				Workspace: &report.WorkspaceResult{Path: "/ws/kept" + forge, Kept: true},
			}),
			reporttest.Complete(report.Result{
				Name: "errs" + forge, File: "s.yaml", Line: 9, Status: report.StatusError,
				Error: "turn 1: session/prompt: bad\x01\b" + forge + " (code -32000)",
				Turns: []report.TurnResult{{Index: 1, StopReason: report.OutcomeError, Error: "bad" + forge}},
			}),
			reporttest.Complete(report.Result{
				Name: "passes" + forge, File: "s.yaml", Line: 12, Status: report.StatusPassed,
				Warnings: []string{"slow" + forge},
				Turns:    []report.TurnResult{{Index: 1, StopReason: "end" + forge}},
			}),
			{Name: "later" + forge, File: "dir" + forge + "/s.yaml", Line: 20, NotRun: true, Status: report.StatusInterrupted},
		},
	}
}

// rawControl reports whether s holds a control character other than the
// line breaks that end lines.
func rawControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) })
}

// forgedLine returns the first line of s that starts, after spaces, with
// text a value of hostileReport carried where a line of acprun's starts.
func forgedLine(s string) string {
	for l := range strings.Lines(s) {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "::") || strings.HasPrefix(t, "FAKE") {
			return l
		}
	}
	return ""
}

// TestTextEscapesAgentText: the summary, and each result's Line, print
// every value an agent or a file chose (names, agent names, stop reasons,
// cancel causes, messages, warnings, paths) with its control characters
// escaped as \xNN (as excerpts are), and the line breaks a message holds
// start quoted lines: no control character reaches the output, and no
// line starts with text the values carried.
func TestTextEscapesAgentText(t *testing.T) {
	noColor(t)
	rep := hostileReport()
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := output.Lines(&buf, rep); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if rawControl(got) {
		t.Errorf("Text and Lines hold a raw control character:\n%q", got)
	}
	if l := forgedLine(got); l != "" {
		t.Errorf("Text and Lines: a line starts with what an agent sent: %q\nin:\n%s", l, got)
	}
	for _, want := range []string{
		`FAIL name\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J [agent\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J] ` +
			`(evil\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J after cause\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J, 0s)`,
		"    turn 1: s.yaml:5:9: stopReason evil\n      | ::error title=INJ::x\\x1b]0;pwned\\x07\\x1b[2J, want end_turn\n",
		"    turn 1: session/prompt: bad\\x01\\x08\n      | ::error title=INJ::x\\x1b]0;pwned\\x07\\x1b[2J (code -32000)\n",
		"    warning: warned\\x01\\x08\n      | ::error title=INJ::x\\x1b]0;pwned\\x07\\x1b[2J\n",
		`workspace kept: /ws/kept\x0d\x0a::error`,
		`NOT RUN later\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J (dir\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J/s.yaml:20)`,
		`turns: end\x0d\x0a::error title=INJ::x\x1b]0;pwned\x07\x1b[2J 1, error 1, evil\x0d\x0a`,
		`answered by --allow\x0d\x0a::error`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Text and Lines lack\n%s\ngot:\n%s", want, got)
		}
	}
}

// TestGitHubEscapesAgentText: the ::error and ::warning commands and the
// step summary's Markdown hold no control character an agent or a file
// chose, and in the step summary's heading a stop reason is escaped as
// in its cells.
func TestGitHubEscapesAgentText(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "")
	path := filepath.Join(t.TempDir(), "summary.md")
	var stdout bytes.Buffer
	if err := output.GitHub(&stdout, path, hostileReport()); err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(stdout.String()) {
		if rawControl(l) {
			t.Errorf("workflow command with a raw control character: %q", l)
		}
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") {
			t.Errorf("stdout line is not one of acprun's workflow commands: %q", l)
		}
	}
	md := output.Markdown(hostileReport())
	if rawControl(md) {
		t.Errorf("Markdown holds a raw control character:\n%q", md)
	}
	if l := forgedLine(md); l != "" {
		t.Errorf("Markdown: a line starts with what an agent sent: %q\nin:\n%s", l, md)
	}
	// Brackets in a cell are character references (mdCell); a code span
	// keeps them.
	for _, want := range []string{
		`; turns: end\x0d\x0a::error title=INJ::x\x1b&#93;0;pwned\x07\x1b&#91;2J 1, error 1, evil\x0d\x0a::error`,
		`| name\x0d\x0a::error title=INJ::x\x1b&#93;0;pwned\x07\x1b&#91;2J &#91;agent\x0d\x0a`,
		"`dir\\x0d\\x0a::error title=INJ::x\\x1b]0;pwned\\x07\\x1b[2J/s.yaml:3`",
		`session/prompt: bad\x01\x08<br>::error title=INJ::x\x1b&#93;0;pwned\x07\x1b&#91;2J (code -32000)`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks\n%s\ngot:\n%s", want, md)
		}
	}
}

// TestLegacyCommandsEscaped: "##[", which GitHub Actions runs as a
// workflow command wherever it is in a line (a quoting "| " does not stop
// it), reaches neither the text summary, nor the result lines, nor the
// ::error and ::warning commands, nor the step summary: in each value an
// agent or a file chose (names, stop reasons, errors, failures, warnings,
// excerpts of the agent's text and stderr) its second '#' is \x23.
func TestLegacyCommandsEscaped(t *testing.T) {
	noColor(t)
	t.Setenv("GITHUB_WORKSPACE", "")
	const cmd = "##[set-output name=x]y ##[group]g"
	rep := report.Report{
		SchemaVersion: report.SchemaVersion,
		Scenarios: []report.Result{
			reporttest.Complete(report.Result{
				Name: "fails " + cmd, File: "s.yaml", Line: 3, Status: report.StatusFailed,
				Agent:    report.AgentInfo{Name: "agent"},
				Failures: []string{"turn 1: s.yaml:5:9: text lacks zzz " + cmd},
				Warnings: []string{"warned " + cmd},
				Turns: []report.TurnResult{{
					Index: 1, StopReason: "stop" + cmd, Text: "said\n##[error]forged\n  " + cmd,
					Failures: []string{"s.yaml:5:9: text lacks zzz " + cmd},
				}},
			}),
			reporttest.Complete(report.Result{
				Name: "errs", File: "s.yaml", Line: 9, Status: report.StatusError,
				Error:      "turn 1: session/prompt: bad " + cmd + " (code -32000)",
				StderrTail: "log\n##[warning]w\n",
				Turns:      []report.TurnResult{{Index: 1, StopReason: report.OutcomeError, Error: "bad " + cmd}},
			}),
		},
	}
	var text bytes.Buffer
	if err := output.Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	if err := output.Lines(&text, rep); err != nil {
		t.Fatal(err)
	}
	var gh bytes.Buffer
	if err := output.GitHub(&gh, "", rep); err != nil {
		t.Fatal(err)
	}
	// The step summary's Markdown writes brackets as character references
	// (mdCell): it renders as the others read.
	for name, tt := range map[string]struct{ out, want string }{
		"Text and Lines": {text.String(), `#\x23[set-output name=x]y #\x23[group]g`},
		"GitHub":         {gh.String(), `#\x23[set-output name=x]y #\x23[group]g`},
		"Markdown":       {output.Markdown(rep), `#\x23&#91;set-output name=x&#93;y #\x23&#91;group&#93;g`},
	} {
		if strings.Contains(tt.out, "##[") {
			t.Errorf("%s holds ##[:\n%s", name, tt.out)
		}
		if !strings.Contains(tt.out, tt.want) {
			t.Errorf("%s lacks the escaped commands:\n%s", name, tt.out)
		}
	}
	for _, want := range []string{
		`FAIL fails #\x23[set-output name=x]y #\x23[group]g [agent] (stop#\x23[set-output`,
		"      | #\\x23[error]forged\n",
		"    | log\n    | #\\x23[warning]w\n",
		"turn 1: session/prompt: bad #\\x23[set-output name=x]y #\\x23[group]g (code -32000)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("Text and Lines lack\n%s\ngot:\n%s", want, text.String())
		}
	}
}
