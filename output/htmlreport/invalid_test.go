package htmlreport_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// TestInvalidCard: an invalid result has a card of its own, its badge and
// filter, comes with the failures (before the passes), and says why it
// measured nothing, naming the protected files the agent changed.
func TestInvalidCard(t *testing.T) {
	rep := sample()
	rep.Scenarios = append(rep.Scenarios, report.Result{
		Name: "cheat", File: "c.yaml", Line: 1, Status: report.StatusInvalid,
		Invalid: &report.Invalid{Reason: report.InvalidTampered, Message: "c.yaml:3:20: workspace.protect: the agent modified verify.sh", Files: []string{"verify.sh"}},
		Turns:   []report.TurnResult{{Index: 1, Prompt: "fix", StopReason: "end_turn"}},
	})
	page := render(t, rep, htmlreport.Options{})
	for _, want := range []string{
		`<title>acprun report: 1 passed, 1 failed, 1 errored, 1 invalid</title>`,
		`<div class="count inv"><span class="n" id="count-invalid" data-count="1">1</span> invalid</div>`,
		`<option value="invalid">invalid</option>`,
		`<span class="status invalid">invalid</span>`,
		`<p class="errmsg invalid">invalid (tampered): c.yaml:3:20: workspace.protect: the agent modified verify.sh</p><ul class="files"><li class="del"><code>verify.sh</code></li></ul>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if got := strings.Join(sectionNames(page), ","); got != "failed,error,invalid,passed" {
		t.Errorf("sections in order %s, want the invalid one before the passed one", got)
	}
	if strings.Contains(render(t, sample(), htmlreport.Options{}), `count-invalid`) {
		t.Error("a run without invalid results has an invalid card")
	}
}
