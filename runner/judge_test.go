package runner

import (
	"regexp"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestJudgeVerdictDefaultPass: with the default pass pattern the verdict
// is the reply's first word, as the judge's prompt asks for it on the
// first line: blank lines and markup before it are skipped, and a reply
// that starts with FAIL (or with anything but PASS) fails, whatever its
// later lines say.
func TestJudgeVerdictDefaultPass(t *testing.T) {
	tests := []struct {
		name, reply string
		pass        bool
	}{
		{"pass", "PASS\nthe fix is minimal", true},
		{"pass alone", "PASS", true},
		{"pass with a full stop", "PASS. The fix is minimal.", true},
		{"pass in bold", "**PASS**\nthe fix is minimal", true},
		{"pass as a heading", "## PASS\n", true},
		{"pass after blank lines", "\n\n  PASS\n", true},
		{"fail", "FAIL\nthe API changed", false},
		{"fail then per-criterion passes", "FAIL\n- PASS: the fix is minimal\n- FAIL: the API changed", false},
		{"fail then a pass line", "FAIL\nPASS would need the API kept", false},
		{"fail in bold then a bold pass", "**FAIL**\n**PASS**: the fix is minimal", false},
		{"fail that mentions pass", "FAIL: this does not PASS", false},
		{"words before the verdict", "Let me look at the changes.\nPASS", false},
		{"passed is not pass", "PASSED", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &scenario.Judge{Agent: scenario.Agent{Name: "judge"}, Pass: regexp.MustCompile(scenario.DefaultJudgePass)}
			jr := &report.JudgeResult{Agent: "judge"}
			res := report.Result{Turns: []report.TurnResult{{StopReason: "end_turn", Text: tt.reply}}}
			failure := judgeVerdict(j, jr, res)
			if jr.Passed != tt.pass || (failure == "") != tt.pass {
				t.Errorf("judgeVerdict(%q) = passed %v, failure %q; want passed %v", tt.reply, jr.Passed, failure, tt.pass)
			}
		})
	}
}
