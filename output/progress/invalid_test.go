package progress_test

import (
	"bytes"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// TestInvalidProgress: an invalid result is "?" among the dots, its line
// says INVALID, and its scenario_finished event says why.
func TestInvalidProgress(t *testing.T) {
	noColor(t)
	inv := &report.Invalid{Reason: report.InvalidUpstream, Message: "turn 1: session/prompt: rate limit (code 429)"}
	results := []report.Result{
		{Name: "a", Status: report.StatusPassed},
		{Name: "b", Status: report.StatusInvalid, Invalid: inv},
		{Name: "c", Status: report.StatusFailed},
	}
	var dots, lines, events bytes.Buffer
	d := progress.NewPrinter(&dots, len(results), progress.Options{Dots: true})
	l := progress.NewPrinter(&lines, len(results), progress.Options{})
	e := progress.NewEvents(&events)
	for _, r := range results {
		for _, o := range []runner.Observer{d, l, e} {
			o.ScenarioFinished(runner.Ref{Name: r.Name}, r)
		}
	}
	d.Finish()
	l.Finish()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := dots.String(); got != ".?F\n" {
		t.Errorf("dots %q, want .?F", got)
	}
	if got, want := lines.String(), "PASS a (no turns, 0s)\nINVALID b (no turns, 0s)\nFAIL c (no turns, 0s)\n"; got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
	var ev []progress.Event
	dec := json.NewDecoder(&events)
	for dec.More() {
		var one progress.Event
		if err := dec.Decode(&one); err != nil {
			t.Fatal(err)
		}
		ev = append(ev, one)
	}
	if len(ev) != 3 || ev[1].Status != report.StatusInvalid || ev[1].Invalid == nil || ev[1].Invalid.Message != inv.Message || ev[1].Invalid.Reason != inv.Reason || ev[0].Invalid != nil {
		t.Errorf("events %+v: want b's to be invalid (upstream)", ev)
	}
}
