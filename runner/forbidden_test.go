package runner

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

func pattern(line, col int, re string) scenario.Pattern {
	return scenario.Pattern{Pos: at(line, col), Re: regexp.MustCompile(re)}
}

// TestCheckTurnForbidden: a turn fails for each notContains text and
// notMatches pattern found in its reply, at the value's own position,
// quoting the first occurrence with its line, column and context.
func TestCheckTurnForbidden(t *testing.T) {
	t.Parallel()
	reply := "Done.\nI left a TODO in main.go and another TODO in util.go.\nSorry about that."
	long := strings.Repeat("x", 50) + " SECRET " + strings.Repeat("y", 50)
	tests := []struct {
		name string
		text string
		e    scenario.Expect
		want []string
	}{
		{name: "absent", text: reply, e: scenario.Expect{
			TextNotContains: []scenario.Located{loc(9, 22, "FIXME")}, TextNotMatches: []scenario.Pattern{pattern(10, 21, `(?i)apolog`)}}},
		{name: "empty reply", text: "", e: scenario.Expect{TextNotContains: []scenario.Located{loc(9, 22, "x")}}},
		{name: "found twice", text: reply, e: scenario.Expect{TextNotContains: []scenario.Located{loc(9, 22, "TODO")}},
			want: []string{`s.yaml:9:22: text contains "TODO" 2 times, first at line 2, column 10: "I left a TODO in main.go and another TODO i…"`}},
		{name: "regexp found once", text: reply, e: scenario.Expect{TextNotMatches: []scenario.Pattern{pattern(10, 21, `(?i)sorry|apolog`)}},
			want: []string{`s.yaml:10:21: text matches /(?i)sorry|apolog/: "Sorry", at line 3, column 1: "Sorry about that."`}},
		{name: "context cut on both sides", text: long, e: scenario.Expect{TextNotContains: []scenario.Located{loc(9, 22, "SECRET")}},
			want: []string{`s.yaml:9:22: text contains "SECRET", at line 1, column 52: "…xxxxxxxxxxxxxxxxxxxxxxxxxxxxx SECRET yyyyyyyyyyyyyyyyyyyyyyyyyyyyy…"`}},
		{name: "both kinds, each at its value", text: reply, e: scenario.Expect{
			TextNotContains: []scenario.Located{loc(9, 22, "main.go")}, TextNotMatches: []scenario.Pattern{pattern(10, 21, `Done\.$`), pattern(10, 30, `(?m)^Done\.$`)}},
			want: []string{
				`s.yaml:9:22: text contains "main.go", at line 2, column 18: "I left a TODO in main.go and another TODO in util.go."`,
				`s.yaml:10:30: text matches /(?m)^Done\.$/: "Done.", at line 1, column 1: "Done."`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.e.Pos = at(8, 13)
			tt.e.StopReasons = []string{"end_turn"}
			got := checkTurn(nil, tt.e, &report.TurnResult{Index: 1, StopReason: "end_turn", Text: tt.text})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckForbiddenLostStart: in output whose start was not kept, a
// forbidden text found in the rest fails as found, with where it is; one
// found only before it (in all of the output, as it was read) fails
// saying so; one found nowhere passes, as does a pattern that matches the
// rest only at the cut (^), since all of the output does not match it.
func TestCheckForbiddenLostStart(t *testing.T) {
	t.Parallel()
	got := checkForbidden(nil, "verify `make`: stdout", "ok\nPANIC: x\n", 70000, []bool{true, true, false, true, false, false},
		[]scenario.Located{loc(4, 30, "PANIC"), loc(4, 40, "FAIL"), loc(4, 45, "ERROR")},
		[]scenario.Pattern{pattern(4, 50, `panic:`), pattern(4, 60, `warn`), pattern(4, 70, `^ok`)})
	want := []string{
		`s.yaml:4:30: verify ` + "`make`" + `: stdout contains "PANIC", at line 2, column 1: "PANIC: x"`,
		`s.yaml:4:40: verify ` + "`make`" + `: stdout contains "FAIL", not in the part kept (acprun keeps the last 12 of its 70012 bytes)`,
		`s.yaml:4:50: verify ` + "`make`" + `: stdout matches /panic:/, not in the part kept (acprun keeps the last 12 of its 70012 bytes)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestDropTextKeepsForbidden: --no-text keeps the text of a turn whose
// expectations forbid some of it, since they read it.
func TestDropTextKeepsForbidden(t *testing.T) {
	t.Parallel()
	r := &scenarioRun{opts: &Options{NoText: true}, sc: &scenario.Scenario{}}
	if !r.dropText(scenario.Expect{}) {
		t.Fatal("dropText without text expectations = false, want true")
	}
	if r.dropText(scenario.Expect{TextNotContains: []scenario.Located{loc(1, 1, "x")}}) {
		t.Error("dropText with notContains = true, want false: the expectation reads the text")
	}
	if r.dropText(scenario.Expect{TextNotMatches: []scenario.Pattern{pattern(1, 1, "x")}}) {
		t.Error("dropText with notMatches = true, want false: the expectation reads the text")
	}
}
