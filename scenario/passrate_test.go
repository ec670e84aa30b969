package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestLoadPassRate: expect.passRate is the scenario's, a fraction above
// 0 and at most 1; a turn has none.
func TestLoadPassRate(t *testing.T) {
	src := "name: x\nagent: {command: [a]}\nexpect: {passRate: 0.8}\nturns: [{prompt: hi}]\n"
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	if e := scs[0].Expect; e.PassRate != 0.8 || e.PassRatePos != (scenario.Pos{File: "s.yaml", Line: 3, Col: 20}) {
		t.Errorf("passRate %g at %v, want 0.8 at s.yaml:3:20", e.PassRate, e.PassRatePos)
	}

	bad := `name: x
agent: {command: [a]}
expect: {passRate: 80}
turns:
  - prompt: hi
    expect: {passRate: 0.5}
---
name: y
agent: {command: [a]}
expect: {passRate: 0}
turns: [{prompt: hi}]
---
name: z
agent: {command: [a]}
expect: {passRate: "80%"}
turns: [{prompt: hi}]
`
	_, _, err = scenario.LoadBytes("bad.yaml", []byte(bad), opts)
	want := []string{
		`bad.yaml:3:20: expected a pass rate above 0 and at most 1, got 80 (write 0.8 for 80% of the attempts)`,
		`bad.yaml:6:14: unknown key "passRate" (valid keys: stopReason, cancelCause, text, denied, maxDenied, toolCalls, files, permissions, usage, judge, notices); passRate belongs in the scenario's expect (the share of its attempts that must pass)`,
		`bad.yaml:10:20: expected a pass rate above 0 and at most 1 (0.8 for 80% of the attempts), got 0`,
		`bad.yaml:15:20: expected a pass rate, a number above 0 and at most 1 (0.8 for 80% of the attempts), got a string`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
