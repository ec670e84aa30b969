package report_test

import (
	"testing"

	"github.com/acprun/acprun/report"
)

// TestSetupCancelString: each answer to a setup $/cancel_request reads as
// what it tells about the agent, with the request, the deadline and the
// wait.
func TestSetupCancelString(t *testing.T) {
	tests := []struct {
		c    report.SetupCancel
		want string
	}{
		{report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: report.AnswerCancelled, WaitedMs: 12},
			"session/new cancelled at setupTimeout: the agent confirmed the cancel in 12ms (alive, and slow)"},
		{report.SetupCancel{Method: "initialize", Cause: "scenarioTimeout", Answer: report.AnswerLate, WaitedMs: 1500},
			"initialize cancelled at scenarioTimeout: the agent answered after all in 1.5s (alive, and too slow)"},
		{report.SetupCancel{Method: "authenticate", Cause: "interrupt", Answer: report.AnswerError, Error: "-32603 boom", WaitedMs: 3},
			"authenticate cancelled at interrupt: the agent answered with an error in 3ms: -32603 boom"},
		{report.SetupCancel{Method: "session/load", Cause: "setupTimeout", Answer: report.AnswerNone, WaitedMs: 5000},
			"session/load cancelled at setupTimeout: no answer in 5s (the agent is hung or dead)"},
		{report.SetupCancel{Method: "session/new", Cause: "failFast", Answer: report.AnswerExited},
			"session/new cancelled at failFast: the agent exited after 0s"},
		{report.SetupCancel{Method: "session/new", Cause: "setupTimeout", Answer: "odd", WaitedMs: 1},
			"session/new cancelled at setupTimeout: answer odd in 1ms"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v.String() =\n %q, want\n %q", tt.c, got, tt.want)
		}
	}
}
