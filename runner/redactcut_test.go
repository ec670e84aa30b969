package runner

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// cutSecret is a secret longer than every cut of a message.
const cutSecret = "sk-proj-Q3vZp9LmT2xWc8RkY6nBh4JdF1sGa7UeXo5MiPq0Vt3LzKw9NbCyHs2Dg6Rf8Tj1Yu4Ie7Oa0Pl5Mk9"

// leaksCutSecret reports whether msg, redacted as every output is, still
// shows 8 bytes or more of cutSecret.
func leaksCutSecret(red *redact.Redactor, msg string) bool {
	msg = red.String(msg)
	for i := 0; i+8 <= len(cutSecret); i++ {
		if strings.Contains(msg, cutSecret[i:i+8]) {
			return true
		}
	}
	return false
}

// TestCutsAreRedacted: a message that shows only a part of an agent's
// text (a failure's quote of what was found, its context, a notice's
// description, an error's data) shows no part of a secret that the cut
// goes through: the part is redacted with the whole text known.
func TestCutsAreRedacted(t *testing.T) {
	t.Parallel()
	red := redact.New(cutSecret)
	text := "Here is the key: " + cutSecret + " and more text after it."
	turn := &report.TurnResult{Index: 1, StopReason: "end_turn", Text: text}
	check := func(name string, msgs []string) {
		t.Helper()
		if len(msgs) == 0 {
			t.Errorf("%s: no failure", name)
		}
		for _, m := range msgs {
			if leaksCutSecret(red, m) {
				t.Errorf("%s: %q shows a part of the secret", name, red.String(m))
			}
			if !strings.Contains(red.String(m), redact.Marker) {
				t.Errorf("%s: %q has no %s", name, red.String(m), redact.Marker)
			}
		}
	}
	e := scenario.Expect{Pos: at(8, 13), StopReasons: []string{"end_turn"}}
	e.TextNotMatches = []scenario.Pattern{pattern(10, 21, `sk-[A-Za-z0-9-]+`)}
	check("notMatches", checkTurn(red, e, turn))
	e.TextNotMatches = nil
	e.TextNotContains = []scenario.Located{loc(9, 22, "key:")}
	check("notContains context", checkTurn(red, e, turn))
	e.TextNotContains = []scenario.Located{loc(9, 22, "9NbCy")}
	check("notContains in the secret's middle", checkTurn(red, e, turn))
	e.TextNotContains = nil
	e.TextNotMatches = []scenario.Pattern{pattern(10, 21, `[A-Za-z0-9]{70}`)}
	check("notMatches inside the secret, cut", checkTurn(red, e, turn))

	notices := []report.Notice{{Severity: "error", Title: "leak " + cutSecret, Description: "the key " + cutSecret + " leaked"}}
	check("notices.max", checkNotices(red, &scenario.NoticesExpect{Max: "info", MaxPos: at(4, 22)}, notices, "the turn"))

	data := []byte(`{"details":"` + strings.Repeat("x", 260) + ` bad key ` + cutSecret + `"}`)
	check("session/new data", []string{withData(red, &acp.Error{Code: -32603, Message: "Internal error", Data: data}).Error()})
}
