package scenario_test

import (
	"regexp"
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
	if diff := cmp.Diff([]scenario.Located{{Pos: at(8, 24), Value: "done"}}, e.TextContains); diff != "" {
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

// TestLoadNotMatchesEveryText: a notMatches pattern is refused at load
// only when it certainly matches every text (it matches the empty string
// at a text's start or end, where ^ and $ hold), and every one refused
// does match the texts tried; a pattern that can fail on some reply, such
// as "the reply must not be 10 characters or fewer", is taken.
func TestLoadNotMatchesEveryText(t *testing.T) {
	texts := []string{"", " ", "\n", "acprun", "I refactored the parser and all tests pass now.\nÜnïcödé 日本語 — done.\n\n  end"}
	tests := []struct {
		pattern string
		refused bool
	}{
		{``, true},
		{`x*`, true},
		{`.*`, true},
		{`(?s).*`, true},
		{`^`, true},
		{`$`, true},
		{`^.*`, true},
		{`(?m).*$`, true},
		{`\A(?:x|)`, true},
		{`(a*)*|b`, true},
		{`(?s)^.{0,10}$`, false},
		{`^\W*\w{0,6}\W*$`, false},
		{`^$`, false},
		{`(?m)^$`, false},
		{`\A\z`, false},
		{`\b`, false},
		{`.+`, false},
		{`(?i)sorry`, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			src := "name: x\nagent: {command: [a]}\nturns:\n  - prompt: hi\n    expect: {text: {notMatches: '" + tt.pattern + "'}}\n"
			_, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
			want := ""
			if tt.refused {
				want = "s.yaml:5:33: notMatches /" + tt.pattern + "/ matches every reply (even an empty one), so it could never hold; give what must not appear"
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != want {
				t.Errorf("LoadBytes(notMatches %q) = %q; want %q", tt.pattern, got, want)
			}
			re := regexp.MustCompile(tt.pattern)
			all := true
			for _, s := range texts {
				all = all && re.MatchString(s)
			}
			if tt.refused && !all {
				t.Errorf("/%s/ refused, but it does not match every text tried", tt.pattern)
			}
			if !tt.refused && all {
				t.Errorf("/%s/ taken, but it matches every text tried: the case tests nothing", tt.pattern)
			}
		})
	}
}
