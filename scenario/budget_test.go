package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestBudgetAndRootsPos: budget is read per scenario, per turn and from
// the config's defaults (which a scenario's own replaces), with the
// positions of its bounds; client.roots keeps where it was given.
func TestBudgetAndRootsPos(t *testing.T) {
	cfg := loadConfigAt(t, "/cfg/acprun.yaml", "defaults:\n  budget: {maxCost: 5}\n")
	scens := loadAt(t, cfg, "/s/x.yaml", `name: x
agent: {command: [a]}
budget: {maxCost: 0.25, maxTotalTokens: 1000}
client: {roots: [/s, /data]}
turns:
  - prompt: one
    budget: {maxTotalTokens: 10}
  - prompt: two
---
name: y
agent: {command: [a]}
turns: [{prompt: hi}]
`)
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "/s/x.yaml", Line: line, Col: col} }
	want := &scenario.UsageExpect{Pos: at(3, 9), MaxCost: float64p(0.25), MaxCostPos: at(3, 19),
		MaxTotalTokens: int64p(1000), MaxTokensPos: at(3, 41)}
	if diff := cmp.Diff(want, scens[0].Budget); diff != "" {
		t.Errorf("scenario budget (-want +got):\n%s", diff)
	}
	wantTurn := &scenario.UsageExpect{Pos: at(7, 13), MaxTotalTokens: int64p(10), MaxTokensPos: at(7, 30)}
	if diff := cmp.Diff(wantTurn, scens[0].Turns[0].Budget); diff != "" {
		t.Errorf("turn 1 budget (-want +got):\n%s", diff)
	}
	if b := scens[0].Turns[1].Budget; b != nil {
		t.Errorf("turn 2 budget = %+v, want none", b)
	}
	if got := scens[0].Client.RootsPos; got != at(4, 17) {
		t.Errorf("roots at %s, want %s", got, at(4, 17))
	}
	cfgAt := scenario.Pos{File: "/cfg/acprun.yaml", Line: 2, Col: 21}
	if b := scens[1].Budget; b == nil || b.MaxCost == nil || *b.MaxCost != 5 || b.MaxCostPos != cfgAt || b.MaxTotalTokens != nil {
		t.Errorf("default budget = %+v, want the config's maxCost 5 at %s", b, cfgAt)
	}
}

func TestBudgetErrors(t *testing.T) {
	for _, tc := range []struct {
		budget string
		want   string
	}{
		{"{}", "x.yaml:3:9: budget needs maxTotalTokens, maxCost or maxRequests"},
		{"{maxCost: -1}", "x.yaml:3:19: expected a number from 0 up, got -1"},
		{"{maxTotalTokens: lots}", "x.yaml:3:26: expected a whole number, got a string"},
		{"{maxTokens: 5}", `x.yaml:3:10: unknown key "maxTokens" (valid keys: maxTotalTokens, maxCost, maxRequests)`},
	} {
		src := "name: x\nagent: {command: [a]}\nbudget: " + tc.budget + "\nturns: [{prompt: hi}]\n"
		_, _, err := scenario.LoadBytes("x.yaml", []byte(src), opts)
		if got := errorLines(t, err); len(got) != 1 || got[0] != tc.want {
			t.Errorf("budget: %s: errors %q, want %q", tc.budget, got, tc.want)
		}
	}
}
