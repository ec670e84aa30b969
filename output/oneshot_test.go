package output_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// TestNoScenarioFile: the scenario of a run without a scenario file (run
// --agent NAME --prompt TEXT) has no file: the plan and the NOT RUN line
// say it came from --prompt instead of printing an empty file:line.
func TestNoScenarioFile(t *testing.T) {
	noColor(t)
	p := minimal()
	p.Ref = runner.Ref{Name: "prompt", Agent: "claude"}
	var plan bytes.Buffer
	if err := output.Plan(&plan, []runner.ScenarioPlan{p}); err != nil {
		t.Fatal(err)
	}
	if want := "prompt  (--prompt, no scenario file)\n"; !strings.HasPrefix(plan.String(), want) {
		t.Errorf("plan:\n%s\nwant it to start with %q", plan.String(), want)
	}

	rep := report.Report{SchemaVersion: report.SchemaVersion, Interrupted: true, Scenarios: []report.Result{{
		Name: "prompt", Agent: report.AgentInfo{Name: "claude"}, Status: report.StatusInterrupted, NotRun: true,
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: report.OutcomeSkipped}},
	}}}
	var text bytes.Buffer
	if err := output.Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	if want := "NOT RUN prompt [claude] (--prompt, no scenario file)\n"; !strings.Contains(text.String(), want) {
		t.Errorf("summary:\n%s\nwant %q", text.String(), want)
	}
}

// TestNoScenarioFileCI: JUnit puts the scenario of a run without a
// scenario file in the suite "--prompt", and the GitHub step summary says
// where it came from, instead of empty names and ":0".
func TestNoScenarioFileCI(t *testing.T) {
	noColor(t)
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{{
		Name: "prompt", Agent: report.AgentInfo{Name: "claude"}, Status: report.StatusPassed,
		Turns: []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn"}},
	}}}
	var junit bytes.Buffer
	if err := output.JUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `<testsuite name="--prompt"`) || !strings.Contains(junit.String(), `classname="--prompt"`) {
		t.Errorf("JUnit:\n%s\nwant the suite and class --prompt", junit.String())
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	if err := output.GitHub(&bytes.Buffer{}, summary, rep); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "`--prompt, no scenario file`") || strings.Contains(string(data), ":0`") {
		t.Errorf("step summary:\n%s\nwant the scenario placed at --prompt", data)
	}
}

// TestNoScenarioFileAnnotations: the GitHub annotations of a run without a
// scenario file name no file nor line (not "file=,line=0", nor the
// workspace's root when acprun runs there), and keep those a failure's
// own position gives.
func TestNoScenarioFileAnnotations(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_WORKSPACE", wd) // acprun run from the checkout's root
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{{
		Name: "prompt", Agent: report.AgentInfo{Name: "other"}, Status: report.StatusFailed,
		Failures: []string{"turn 1: --prompt: stopReason max_tokens, want end_turn", "acprun.yaml:4:3: 2 permission requests denied, want 0"},
		Warnings: []string{"--prompt: no permissions"},
		Turns:    []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "max_tokens"}},
	}}}
	var buf bytes.Buffer
	if err := output.GitHub(&buf, "", rep); err != nil {
		t.Fatal(err)
	}
	want := "::error title=acprun%3A prompt [other] failed::turn 1: --prompt: stopReason max_tokens, want end_turn%0A  turn 1 text: none\n" +
		"::error file=acprun.yaml,line=4,col=3,title=acprun%3A prompt [other] failed::2 permission requests denied, want 0\n" +
		"::warning title=acprun%3A prompt [other]::--prompt: no permissions\n"
	if got := buf.String(); got != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", got, want)
	}
}
