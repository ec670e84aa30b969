package htmlreport_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// TestErrorCauseLine: an errored scenario's card says its errorCause and
// the setup request acprun cancelled (with how the agent took it), each
// when present; a card with neither has no such line.
func TestErrorCauseLine(t *testing.T) {
	cancel := &report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: report.AnswerNone, WaitedMs: 1000}
	rep := sample()
	rep.Scenarios = append(rep.Scenarios,
		report.Result{Name: "slow", File: "c.yaml", Line: 1, Status: report.StatusError, ErrorCause: report.ErrorSetupTimeout,
			Error: "session/new was not answered in 2m0s", SetupCancel: cancel},
		report.Result{Name: "nokey", File: "c.yaml", Line: 5, Status: report.StatusError, StartFailed: true, ErrorCause: report.ErrorAuth,
			Error: "the agent asks for authentication"},
		report.Result{Name: "stopped", File: "c.yaml", Line: 9, Status: report.StatusInterrupted, Error: "acprun was interrupted",
			SetupCancel: &report.SetupCancel{Method: "initialize", Cause: "interrupt", Answer: report.AnswerCancelled, WaitedMs: 4}},
	)
	page := render(t, rep, htmlreport.Options{})
	for _, want := range []string{
		`<p class="errmsg">session/new was not answered in 2m0s</p><p class="meta cause">cause <code>setupTimeout</code> · setup: session/new cancelled at setupTimeout: no answer in 1s (the agent is hung or dead)</p>`,
		`<p class="errmsg">the agent asks for authentication</p><p class="meta cause">cause <code>auth</code></p>`,
		`<p class="errmsg">acprun was interrupted</p><p class="meta cause">setup: initialize cancelled at interrupt: the agent confirmed the cancel in 4ms (alive, and slow)</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(render(t, sample(), htmlreport.Options{}), `class="meta cause"`) {
		t.Error("a run without error causes has a cause line")
	}
}
