package output_test

import (
	"bytes"
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
