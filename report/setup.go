package report

import (
	"cmp"
	"fmt"
	"time"
)

// Error causes (Result.ErrorCause): why a scenario could not run, for
// programs that act on it (retry later, ask for a key, upgrade acprun).
const (
	// ErrorAuth: the agent asked for authentication acprun could not give
	// (auth_required at session/new, or authenticate failed).
	ErrorAuth = "auth"
	// ErrorProtocolVersion: the agent answered initialize with an ACP
	// protocol version acprun does not speak.
	ErrorProtocolVersion = "protocolVersion"
	// ErrorSetupTimeout: a setup request (initialize, authenticate,
	// session/new, session/load, session/resume, a session setting) was not
	// answered before the setup timeout or the scenario's timeout; see
	// Result.SetupCancel.
	ErrorSetupTimeout = "setupTimeout"
)

// CauseSetupTimeout is SetupCancel.Cause when the setup timeout (2m for
// everything before the first turn) passed.
const CauseSetupTimeout = "setupTimeout"

// SetupCancel is the $/cancel_request acprun sent for a setup request
// that outlived its deadline, before it stopped the agent. How the agent
// took it tells a slow agent from a dead one.
type SetupCancel struct {
	// Method is the request cancelled, e.g. session/new.
	Method string `json:"method"`
	// Cause is the deadline that passed: setupTimeout, scenarioTimeout,
	// runTimeout, or interrupt and failFast (the run's end).
	Cause string `json:"cause"`
	// Answer is how the agent answered within cancelGrace (see the
	// Answer* constants).
	Answer string `json:"answer"`
	// Error is the agent's error answer, for AnswerError.
	Error string `json:"error,omitempty"`
	// WaitedMs is how long acprun waited for the answer after sending
	// $/cancel_request.
	WaitedMs int64 `json:"waitedMs"`
}

// SetupCancel answers.
const (
	// AnswerCancelled: the agent answered the request with the error
	// -32800 (request cancelled): it is alive, and was slow.
	AnswerCancelled = "cancelled"
	// AnswerLate: the agent answered the request after all (a result):
	// alive, and too slow.
	AnswerLate = "answered"
	// AnswerError: the agent answered with another error.
	AnswerError = "error"
	// AnswerNone: no answer within cancelGrace: the agent is hung or dead.
	AnswerNone = "none"
	// AnswerExited: the agent's output ended (it exited) first.
	AnswerExited = "exited"
)

// String says in one line which setup request was cancelled, at which
// deadline, and how the agent took the $/cancel_request: "session/new
// cancelled at setupTimeout: no answer in 5s (the agent is hung or dead)".
func (c SetupCancel) String() string {
	waited := (time.Duration(c.WaitedMs) * time.Millisecond).String()
	how := cmp.Or(map[string]string{
		AnswerCancelled: "the agent confirmed the cancel in " + waited + " (alive, and slow)",
		AnswerLate:      "the agent answered after all in " + waited + " (alive, and too slow)",
		AnswerError:     "the agent answered with an error in " + waited + ": " + c.Error,
		AnswerNone:      "no answer in " + waited + " (the agent is hung or dead)",
		AnswerExited:    "the agent exited after " + waited,
	}[c.Answer], "answer "+c.Answer+" in "+waited)
	return fmt.Sprintf("%s cancelled at %s: %s", c.Method, c.Cause, how)
}
