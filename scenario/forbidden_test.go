package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestLoadForbidden: text.notContains and notMatches of a turn, and
// stdout's of a verify command, are read as a string or a list, each
// value with its own position.
func TestLoadForbidden(t *testing.T) {
	src := `name: x
agent: {command: [a]}
verify:
  - {run: make, expect: {stdout: {notContains: FAIL, notMatches: ["(?i)panic", "^warning"]}}}
turns:
  - prompt: hi
    expect:
      text: {contains: done, notContains: [TODO, FIXME], notMatches: "(?i)sorry"}
`
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	sc := scs[0]
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }
	type pattern struct {
		Pos scenario.Pos
		Re  string
	}
	patterns := func(ps []scenario.Pattern) []pattern {
		var out []pattern
		for _, p := range ps {
			out = append(out, pattern{p.Pos, p.Re.String()})
		}
		return out
	}
	e := sc.Turns[0].Expect
	if diff := cmp.Diff([]scenario.Located{{Pos: at(8, 44), Value: "TODO"}, {Pos: at(8, 50), Value: "FIXME"}}, e.TextNotContains); diff != "" {
		t.Errorf("text.notContains (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pattern{{at(8, 70), "(?i)sorry"}}, patterns(e.TextNotMatches)); diff != "" {
		t.Errorf("text.notMatches (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"done"}, e.TextContains); diff != "" {
		t.Errorf("text.contains (-want +got):\n%s", diff)
	}
	v := sc.Verify[0].Expect
	if diff := cmp.Diff([]scenario.Located{{Pos: at(4, 48), Value: "FAIL"}}, v.StdoutNotContains); diff != "" {
		t.Errorf("stdout.notContains (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pattern{{at(4, 67), "(?i)panic"}, {at(4, 80), "^warning"}}, patterns(v.StdoutNotMatches)); diff != "" {
		t.Errorf("stdout.notMatches (-want +got):\n%s", diff)
	}
}
