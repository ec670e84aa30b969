package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acprun/acprun/scenario"
)

// checkTurn returns one message per expectation the turn did not meet. It
// reads only what the turn itself produced (text, permissions and tool calls
// before the prompt's answer), which no late update changes.
func checkTurn(e scenario.Expect, t *TurnResult) []string {
	var fails []string
	switch {
	case len(e.StopReasons) > 0 && !slices.Contains(e.StopReasons, t.StopReason):
		msg := fmt.Sprintf("%s: stopReason %s, want %s", e.Pos, t.StopReason, strings.Join(e.StopReasons, " or "))
		if t.CancelCause != "" {
			msg += " (cancelled by acprun after " + t.CancelCause + ")"
		}
		if t.Error != "" {
			msg += " (" + t.Error + ")"
		}
		fails = append(fails, msg)
	case t.CancelCause != "" && !e.StopReasonSet:
		// A turn acprun had to cancel did not finish by itself, whatever
		// the agent answered; only an explicit expect.stopReason allows it.
		fails = append(fails, fmt.Sprintf("%s: the turn did not finish by itself: acprun cancelled it after %s and the agent answered %s (list %s in expect.stopReason to allow that)",
			e.Pos, t.CancelCause, t.StopReason, t.StopReason))
	}
	for _, s := range e.TextContains {
		if !strings.Contains(t.Text, s) {
			fails = append(fails, fmt.Sprintf("%s: text does not contain %q", e.Pos, s))
		}
	}
	if e.TextMatches != nil && !e.TextMatches.MatchString(t.Text) {
		fails = append(fails, fmt.Sprintf("%s: text does not match /%s/", e.Pos, e.TextMatches))
	}
	denied := 0
	for _, p := range t.Permissions {
		if p.Decision == "deny" && !p.Late {
			denied++
		}
	}
	fails = append(fails, checkDenied(e, denied)...)
	return fails
}

// checkScenario checks the scenario-level expectations.
func checkScenario(e scenario.Expect, r *Result) []string {
	return checkDenied(e, r.Denied)
}

func checkDenied(e scenario.Expect, denied int) []string {
	var fails []string
	if e.Denied != nil && denied != *e.Denied {
		fails = append(fails, fmt.Sprintf("%s: %d permission requests denied, want %d", e.Pos, denied, *e.Denied))
	}
	if e.MaxDenied != nil && denied > *e.MaxDenied {
		fails = append(fails, fmt.Sprintf("%s: %d permission requests denied, want at most %d", e.Pos, denied, *e.MaxDenied))
	}
	return fails
}
