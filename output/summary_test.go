package output_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
)

// reports are the runs the goldens are made of.
func reports() map[string]report.Report {
	interrupted := reporttest.Sample()
	interrupted.Interrupted = true
	interrupted.PolicyOverride = "--allow-all"
	interrupted.Scenarios = interrupted.Scenarios[:2]
	return map[string]report.Report{
		"full":        reporttest.Sample(),
		"interrupted": interrupted,
		"notrun":      notRunReport(),
		"invalid":     invalidReport(),
		"repeat":      reporttest.Repeat(),
		"empty": {
			SchemaVersion: report.SchemaVersion,
			StartedAt:     time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
			Duration:      ms(2),
		},
	}
}

// notRunReport is a run interrupted while its second scenario ran: the
// first passed, the last two never started.
func notRunReport() report.Report {
	rep := report.Report{
		SchemaVersion: report.SchemaVersion, StartedAt: reporttest.Sample().StartedAt, Duration: ms(1_500), Interrupted: true,
	}
	agent := report.AgentInfo{Command: []string{"claude-code-acp"}}
	rep.Scenarios = []report.Result{
		reporttest.Complete(report.Result{Name: "first", File: "s.yaml", Line: 1, Agent: agent, Status: report.StatusPassed, Duration: ms(300),
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn", Duration: ms(290), Text: "hello"}}}),
		reporttest.Complete(report.Result{Name: "second", File: "s.yaml", Line: 6, Agent: agent, Status: report.StatusInterrupted, Duration: ms(1_100),
			Error:    "acprun was interrupted during turn 1",
			Failures: []string{"turn 1: s.yaml:9:30: the turn did not finish: acprun cancelled it after interrupt, which no expectation accepts (the agent answered cancelled)"},
			Turns: []report.TurnResult{{Index: 1, Prompt: "work", StopReason: "cancelled", CancelCause: report.CauseInterrupt, Duration: ms(1_050),
				Text: "working", Failures: []string{"s.yaml:9:30: the turn did not finish: acprun cancelled it after interrupt, which no expectation accepts (the agent answered cancelled)"}}}}),
	}
	for i, name := range []string{"third", "fourth"} {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: name, File: "s.yaml", Line: 11 + 5*i, Agent: agent,
			Status: report.StatusInterrupted, NotRun: true, Error: "not run: interrupted first",
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: report.OutcomeSkipped}}})
	}
	return rep
}

// TestTextGolden compares the text summary, without colour, with
// testdata/summary-*.golden.
func TestTextGolden(t *testing.T) {
	noColor(t)
	for name, rep := range reports() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Text(&buf, rep); err != nil {
				t.Fatalf("Text: %v", err)
			}
			testkit.Golden(t, filepath.Join("testdata", "summary-"+name+".golden"), buf.Bytes())
		})
	}
}

// TestTextIndentsMultiLineMessages: the output a failed command ends with
// stays under its scenario, each line indented and quoted as excerpts are
// (so that none starts a line with what the command printed), and a kept
// workspace is named only for a scenario that did not pass (those that
// passed are not listed at all).
func TestTextIndentsMultiLineMessages(t *testing.T) {
	noColor(t)
	rep := report.Report{
		SchemaVersion: report.SchemaVersion,
		Scenarios: []report.Result{
			reporttest.Complete(report.Result{
				Name: "setup-fails", Status: report.StatusError,
				Error:     "s.yaml:5:5: setup `make` exited with code 2, want 0; output ends:\nmake: *** no rule\nstop.\n",
				Warnings:  []string{"s.yaml:9:5: teardown `down` exited with code 1, want 0; output ends:\ngone"},
				Workspace: &report.WorkspaceResult{Path: "/ws/acprun-setup-fails-1", Kept: true},
			}),
			reporttest.Complete(report.Result{
				Name: "verify-fails", Status: report.StatusFailed,
				Failures:  []string{"s.yaml:12:5: verify `go test` exited with code 1, want 0; output ends:\nFAIL x\nFAIL"},
				Workspace: &report.WorkspaceResult{Path: "/ws/acprun-verify-fails-2", Kept: true},
			}),
			reporttest.Complete(report.Result{
				Name: "kept-pass", Status: report.StatusPassed,
				Workspace: &report.WorkspaceResult{Path: "/ws/acprun-kept-pass-3", Kept: true},
			}),
		},
	}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"ERROR setup-fails (no turns, 0s)\n" +
			"    s.yaml:5:5: setup `make` exited with code 2, want 0; output ends:\n" +
			"      | make: *** no rule\n" +
			"      | stop.\n" +
			"    warning: s.yaml:9:5: teardown `down` exited with code 1, want 0; output ends:\n" +
			"      | gone\n" +
			"    workspace kept: /ws/acprun-setup-fails-1\n",
		"FAIL verify-fails (no turns, 0s)\n" +
			"    s.yaml:12:5: verify `go test` exited with code 1, want 0; output ends:\n" +
			"      | FAIL x\n" +
			"      | FAIL\n" +
			"    workspace kept: /ws/acprun-verify-fails-2\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks\n%s\ngot:\n%s", want, got)
		}
	}
	if strings.Contains(got, "kept-pass") {
		t.Errorf("summary lists a scenario that passed:\n%s", got)
	}
}

// TestLongStopReasonCut: a stop reason of 100 KB that an agent sent is
// cut on the result's line and in the totals, as an excerpt's line is
// (200 characters and "…"), where it was printed whole; the results keep
// it whole.
func TestLongStopReasonCut(t *testing.T) {
	noColor(t)
	long := strings.Repeat("x", 100_000)
	r := reporttest.Complete(report.Result{Name: "long", Status: report.StatusFailed, Duration: ms(5),
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: long}}})
	cut := strings.Repeat("x", 200) + "…"
	if got, want := output.Line(r), "FAIL long ("+cut+", 5ms)"; got != want {
		t.Errorf("Line = %.300q (%d bytes), want %q", got, len(got), want)
	}
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{r}}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); strings.Contains(got, strings.Repeat("x", 201)) || !strings.Contains(got, "; turns: "+cut+" 1") {
		t.Errorf("summary (%d bytes) holds the whole stop reason or lacks the cut one in its totals:\n%.600s", len(got), got)
	}
	if r.Turns[0].StopReason != long {
		t.Error("the result's stop reason was changed")
	}
}

// TestTextSaysWhyNotRun: the summary of a run that --fail-fast,
// --max-failures or --timeout stopped (not interrupted) says once why its
// scenarios did not run, as their results (JUnit, the step summary) say
// it; an interrupted run says it is interrupted, and no more.
func TestTextSaysWhyNotRun(t *testing.T) {
	noColor(t)
	stopped := notRunReport()
	stopped.Interrupted = false
	stopped.Scenarios = stopped.Scenarios[:1]
	for _, name := range []string{"later", "last"} {
		stopped.Scenarios = append(stopped.Scenarios, report.Result{Name: name, File: "s.yaml", Line: 11, Status: report.StatusInterrupted, NotRun: true,
			Error: "not run: the run stopped after 2 failed scenarios (--max-failures 2)",
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: report.OutcomeSkipped}}})
	}
	tests := []struct {
		name string
		rep  report.Report
		want string
	}{
		{"stopped", stopped, "\n2 scenarios did not run: the run stopped after 2 failed scenarios (--max-failures 2)\n"},
		{"interrupted", notRunReport(), "\ninterrupted: results are partial; 2 scenarios did not run\n"},
		// With --repeat what did not run is attempts, perhaps several of
		// one scenario, and is counted so.
		{"stopped, repeated", repeatedNotRun(false), "\n3 attempts of 2 scenarios did not run: the run stopped at its first failed attempt (--fail-fast)\n"},
		{"interrupted, repeated", repeatedNotRun(true), "\ninterrupted: results are partial; 3 attempts of 2 scenarios did not run\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.Text(&buf, tt.rep); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if !strings.Contains(got, tt.want) {
				t.Errorf("summary lacks %q:\n%s", tt.want, got)
			}
			if n := strings.Count(got, "did not run"); n != 1 {
				t.Errorf("summary says %d times that scenarios did not run, want once:\n%s", n, got)
			}
		})
	}
}

// repeatedNotRun is a run with --repeat 2 of two scenarios that stopped
// (or, interrupted, was stopped) after the first attempt: three attempts
// of two scenarios did not run.
func repeatedNotRun(interrupted bool) report.Report {
	rep := notRunReport()
	rep.Interrupted = interrupted
	why := "not run: the run stopped at its first failed attempt (--fail-fast)"
	if interrupted {
		why = "not run: interrupted first"
	}
	first := reporttest.Complete(report.Result{Name: "a", File: "s.yaml", Line: 1, Attempt: 1, Status: report.StatusFailed, Duration: ms(300),
		Failures: []string{"turn 1: no"},
		Turns:    []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn", Duration: ms(290), Failures: []string{"no"}}}})
	rep.Scenarios = []report.Result{first}
	for _, r := range []struct {
		name          string
		line, attempt int
	}{{"a", 1, 2}, {"b", 6, 1}, {"b", 6, 2}} {
		rep.Scenarios = append(rep.Scenarios, report.Result{Name: r.name, File: "s.yaml", Line: r.line, Attempt: r.attempt,
			Status: report.StatusInterrupted, NotRun: true, Error: why,
			Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: report.OutcomeSkipped}}})
	}
	return rep
}

// TestNoStopReason: a turn with no stop reason (results written by hand)
// says so on its scenario's line, in the summary's totals and in JUnit,
// rather than leaving a gap ("PASS a (, 0s)", "turns:  1").
func TestNoStopReason(t *testing.T) {
	noColor(t)
	r := reporttest.Complete(report.Result{Name: "a", Status: report.StatusPassed, Duration: ms(5),
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi"}, {Index: 2, Prompt: "more", StopReason: "end_turn"}}})
	if got, want := output.Line(r), "PASS a (no stop reason, end_turn, 5ms)"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{r}}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "; turns: no stop reason 1, end_turn 1") {
		t.Errorf("summary totals do not say a turn had no stop reason:\n%s", got)
	}
	buf.Reset()
	r.Status, r.Failures = report.StatusFailed, []string{"s.yaml:3:5: a failure"}
	if err := output.JUnit(&buf, report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{r}}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "turn 1: no stop reason\n") {
		t.Errorf("JUnit does not say turn 1 had no stop reason:\n%s", got)
	}
}

// TestTextPlurals: "1 error", "2 errors", "1 warning"; passes and
// failures are always counted, errors and warnings only when there are
// some; a passing scenario's warnings are listed under its name.
func TestTextPlurals(t *testing.T) {
	noColor(t)
	errored := func(name string) report.Result {
		return report.Result{Name: name, Status: report.StatusError, Error: "boom"}
	}
	warned := report.Result{Name: "warned", Status: report.StatusPassed, Warnings: []string{"slow"}}
	tests := []struct {
		rs   []report.Result
		want string
	}{
		{[]report.Result{errored("a")}, "0 passed, 0 failed, 1 error in 0s\n"},
		{[]report.Result{errored("a"), errored("b"), warned}, "1 passed, 0 failed, 2 errors, 1 warning in 0s\n"},
		{[]report.Result{warned}, "\nWARN warned\n    warning: slow\n\n1 passed, 0 failed, 1 warning in 0s\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := output.Text(&buf, report.Report{Scenarios: tt.rs}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(buf.String(), tt.want) {
			t.Errorf("summary\n%s\nwant it to end with\n%s", buf.String(), tt.want)
		}
	}
}

// TestTextSummaryCountsWarnings checks the last line of the text summary
// and the Markdown totals: "N warnings" when there are any.
func TestTextSummaryCountsWarnings(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	if err := output.Text(&buf, reporttest.Matrix()); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	last := string(lines[len(lines)-1])
	if !regexpMatch(`^5 passed, 0 failed, 6 warnings in 100ms;`, last) {
		t.Errorf("last summary line %q; want it to count 6 warnings", last)
	}
	if md := output.Markdown(reporttest.Matrix()); !regexpMatch(`\*\*5 passed, 0 failed\*\* of 5, 6 warnings in 100ms`, md) {
		t.Errorf("Markdown totals do not count 6 warnings:\n%s", md)
	}
	buf.Reset()
	if err := output.Text(&buf, reports()["empty"]); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("warning")) {
		t.Errorf("a run without warnings mentions warnings:\n%s", buf.String())
	}
}

// TestCounts: Counts says of the scenarios what the totals line of Text
// says, every status counted, in the same order and words.
func TestCounts(t *testing.T) {
	noColor(t)
	rep := report.Report{Scenarios: []report.Result{
		{Name: "p", Status: report.StatusPassed},
		{Name: "f", Status: report.StatusFailed, Failures: []string{"x"}},
		{Name: "e", Status: report.StatusError, Error: "boom"},
		{Name: "i", Status: report.StatusInvalid, Invalid: &report.Invalid{Reason: report.InvalidTampered, Message: "m"}},
		{Name: "c", Status: report.StatusInterrupted, Error: "cut"},
		{Name: "n", Status: report.StatusInterrupted, NotRun: true},
		{Name: "w", Status: report.StatusPassed, Warnings: []string{"slow"}},
	}}
	want := "2 passed, 1 failed, 1 error, 1 invalid, 1 interrupted, 1 not run, 1 warning"
	if got := output.Counts(report.Summarize(rep)); got != want {
		t.Errorf("Counts = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if err := output.Text(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n"+want+" in ") {
		t.Errorf("summary:\n%s\nwant its totals to say %q", buf.String(), want)
	}
}
