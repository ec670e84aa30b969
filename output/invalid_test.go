package output_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/acprun/acprun/runner"
)

// invalidReport is a run with every reason to be invalid: an agent that
// changed a protected file, the wrong agent, and an attempt of a repeated
// scenario that the agent's provider rate-limited (the other passed), plus
// one that failed.
func invalidReport() report.Report {
	agent := report.AgentInfo{Command: []string{"claude-code-acp"}, InfoName: "claude-code-acp", InfoVersion: "0.5.1"}
	turn := func(stop, text string, fails ...string) []report.TurnResult {
		return []report.TurnResult{{Index: 1, Prompt: "fix the tests", StopReason: stop, Duration: ms(900), Text: text, Failures: fails}}
	}
	rep := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: reporttest.Sample().StartedAt, Duration: ms(4_000)}
	rep.Scenarios = []report.Result{
		reporttest.Complete(report.Result{Name: "cheat", File: "s.yaml", Line: 1, Agent: agent, Status: report.StatusInvalid, Duration: ms(1_000),
			Invalid: &report.Invalid{Reason: report.InvalidTampered,
				Message: "s.yaml:4:22: workspace.protect: the agent changed protected files: modified tests/a_test.go; deleted verify.sh",
				Files:   []string{"tests/a_test.go", "verify.sh"}},
			Turns: turn("end_turn", "I fixed the tests.")}),
		reporttest.Complete(report.Result{Name: "wrong", File: "s.yaml", Line: 12, Agent: agent, Status: report.StatusInvalid, Duration: ms(100),
			Invalid: &report.Invalid{Reason: report.InvalidAgent,
				Message: `s.yaml:16:11: expect.agent: the agent is "claude-code-acp" 0.5.1, want name "codex-acp"`},
			Turns: []report.TurnResult{{Index: 1, Prompt: "fix the tests", StopReason: report.OutcomeSkipped}}}),
		reporttest.Complete(report.Result{Name: "busy", File: "s.yaml", Line: 20, Attempt: 1, Agent: agent, Status: report.StatusInvalid, Duration: ms(500),
			Invalid:  &report.Invalid{Reason: report.InvalidUpstream, Message: "turn 1: session/prompt: Overloaded (code -32603)"},
			Failures: []string{"turn 1: s.yaml:24:17: stopReason is error, want end_turn"},
			Turns: []report.TurnResult{{Index: 1, Prompt: "fix the tests", StopReason: report.OutcomeError, Duration: ms(400),
				Error: "session/prompt: Overloaded (code -32603)", Failures: []string{"s.yaml:24:17: stopReason is error, want end_turn"}}}}),
		reporttest.Complete(report.Result{Name: "busy", File: "s.yaml", Line: 20, Attempt: 2, Agent: agent, Status: report.StatusPassed, Duration: ms(900),
			Turns: turn("end_turn", "done")}),
		reporttest.Complete(report.Result{Name: "plain", File: "s.yaml", Line: 30, Agent: agent, Status: report.StatusFailed, Duration: ms(900),
			Failures: []string{`turn 1: s.yaml:34:17: text does not contain "ok"`},
			Turns:    turn("end_turn", "nope", `s.yaml:34:17: text does not contain "ok"`)}),
	}
	return rep
}

// TestTextCountsInvalidApart: the summary lists the invalid results with
// their reason, and counts them apart from failures and errors; the pass
// rate leaves the invalid attempt out.
func TestTextCountsInvalidApart(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	if err := output.Text(&buf, invalidReport()); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"INVALID cheat (end_turn, 1s)\n    invalid (tampered): s.yaml:4:22: workspace.protect: the agent changed protected files: modified tests/a_test.go; deleted verify.sh\n",
		"INVALID busy (error, 500ms)\n    invalid (upstream): turn 1: session/prompt: Overloaded (code -32603)\n",
		"busy      1/1 (100%), 1 invalid\n",
		"\n1 passed, 1 failed, 3 invalid in 4s",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	if output.Line(invalidReport().Scenarios[1]) != "INVALID wrong (no turn ran, 100ms)" {
		t.Errorf("line %q", output.Line(invalidReport().Scenarios[1]))
	}
}

// TestJUnitInvalidIsAnError: an invalid result is an <error> of type
// invalid (never green, nor a grey skip) whose message says why.
func TestJUnitInvalidIsAnError(t *testing.T) {
	var buf bytes.Buffer
	if err := output.JUnit(&buf, invalidReport()); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		`<testsuites name="acprun" tests="5" failures="1" errors="3" time="4.000">`,
		`<error message="invalid (agent): s.yaml:16:11: expect.agent: the agent is &#34;claude-code-acp&#34; 0.5.1, want name &#34;codex-acp&#34;" type="invalid">`,
		`<error message="invalid (upstream): turn 1: session/prompt: Overloaded (code -32603)" type="invalid">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the JUnit XML lacks %s:\n%s", want, got)
		}
	}
}

// TestGitHubAnnotatesInvalid: an invalid result is one ::error, where its
// reason points; its failures are no verdict and get no annotation.
func TestGitHubAnnotatesInvalid(t *testing.T) {
	var stdout bytes.Buffer
	if err := output.GitHub(&stdout, "", invalidReport()); err != nil {
		t.Fatal(err)
	}
	want := "::error file=s.yaml,line=4,col=22,title=acprun%3A cheat invalid::invalid (tampered): workspace.protect: the agent changed protected files: modified tests/a_test.go; deleted verify.sh%0Astop reasons: end_turn\n" +
		"::error file=s.yaml,line=16,col=11,title=acprun%3A wrong invalid::invalid (agent): expect.agent: the agent is \"claude-code-acp\" 0.5.1, want name \"codex-acp\"%0Astop reasons: no turn ran\n" +
		"::error file=s.yaml,line=20,title=acprun%3A busy invalid::invalid (upstream): turn 1: session/prompt: Overloaded (code -32603)%0Astop reasons: error\n" +
		"::error file=s.yaml,line=34,col=17,title=acprun%3A plain failed::turn 1: text does not contain \"ok\"%0A  turn 1 text (1 line):%0A  | nope\n"
	if got := stdout.String(); got != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", got, want)
	}
	md := output.Markdown(invalidReport())
	for _, part := range []string{"**1 passed, 1 failed, 3 invalid** of 5", "| 🚫 invalid | busy |"} {
		if !strings.Contains(md, part) {
			t.Errorf("the step summary lacks %q:\n%s", part, md)
		}
	}
}

// TestPlanShowsProtect: --dry-run names the files the agent must leave
// alone.
func TestPlanShowsProtect(t *testing.T) {
	p := minimal()
	p.Workspace = &runner.WorkspacePlan{From: "/fixture", Protect: []string{"tests/**", "verify.sh"}}
	var buf bytes.Buffer
	if err := output.Plan(&buf, []runner.ScenarioPlan{p}); err != nil {
		t.Fatal(err)
	}
	want := "  workspace: copy of /fixture per attempt (cwd and roots are mapped into it)\n" +
		"  protect:  tests/**, verify.sh (an agent that changes them makes the attempt invalid)\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("plan lacks\n%s\ngot:\n%s", want, buf.String())
	}
}
