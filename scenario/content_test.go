package scenario_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// loadOne loads the scenario src (named s.yaml) and fails the test on an
// error.
func loadOne(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	scens, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes:\n%v", err)
	}
	return scens[0]
}

// loadErrors loads src (named bad.yaml) and returns its errors, one a line.
func loadErrors(t *testing.T, src string) []string {
	t.Helper()
	_, _, err := scenario.LoadBytes("bad.yaml", []byte(src), opts)
	return errorLines(t, err)
}

// TestToolRules: a rule's tool takes a glob or a list of them, alone or
// with other matchers; an empty one is an error at its place.
func TestToolRules(t *testing.T) {
	s := loadOne(t, `name: x
agent: {command: [a]}
permissions:
  allow:
    - tool: Bash
  deny:
    - {tool: ["mcp__github__*", Write], path: "/etc/**"}
turns: [{prompt: hi}]
`)
	want := &approve.Policy{
		Allow: []approve.Rule{{Pos: "s.yaml:5", Tool: []string{"Bash"}}},
		Deny:  []approve.Rule{{Pos: "s.yaml:7", Tool: []string{"mcp__github__*", "Write"}, Path: []string{"/etc/**"}}},
	}
	if diff := cmp.Diff(want, s.Policy); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	got := loadErrors(t, `name: x
agent: {command: [a]}
permissions:
  deny:
    - tool: [Bash, ""]
    - tool: {name: Bash}
turns: [{prompt: hi}]
`)
	wantErrs := []string{
		`bad.yaml:5:20: empty pattern`,
		`bad.yaml:6:13: expected a string or a list of strings, got a mapping`,
	}
	if diff := cmp.Diff(wantErrs, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestNoticesExpect: expect.notices.max, in a turn or for the scenario,
// names a severity; anything else is an error at its place.
func TestNoticesExpect(t *testing.T) {
	s := loadOne(t, `name: x
agent: {command: [a]}
expect: {notices: {max: info}}
turns:
  - prompt: hi
    expect: {notices: {max: warning}}
`)
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }
	if diff := cmp.Diff(&scenario.NoticesExpect{Pos: at(3, 19), Max: "info", MaxPos: at(3, 25)}, s.Expect.Notices); diff != "" {
		t.Errorf("scenario notices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&scenario.NoticesExpect{Pos: at(6, 23), Max: "warning", MaxPos: at(6, 29)}, s.Turns[0].Expect.Notices); diff != "" {
		t.Errorf("turn notices (-want +got):\n%s", diff)
	}
	got := loadErrors(t, `name: x
agent: {command: [a]}
expect: {notices: {}}
turns:
  - prompt: hi
    expect: {notices: {max: warn, level: error}}
  - prompt: hi
    expect: {notices: error}
  - prompt: hi
    expect: {notices: {max: error}}
`)
	want := []string{
		`bad.yaml:3:19: notices needs max`,
		`bad.yaml:6:29: unknown notice severity "warn" (did you mean "warning"?)`,
		`bad.yaml:6:35: unknown key "level" (valid keys: max)`,
		`bad.yaml:8:23: expected a mapping, got a string`,
		`bad.yaml:10:29: notices.max error allows every notice (a severity ACP does not define counts as error), so it could never fail; give warning (no error notice) or info (no warning or error notice)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestAnswers: answers are a mapping of fields to values (for any
// question) or a list of {match, values}, in the scenario and in turns;
// values are scalars or lists of them, their variables expanded.
func TestAnswers(t *testing.T) {
	s := loadOne(t, `name: x
agent: {command: [a]}
answers: {branch: main, count: 3, force: true}
turns:
  - prompt: hi
    answers:
      - match: "(?i)deploy"
        values: {env: prod, labels: [bug, ci], token: "${ANTHROPIC_API_KEY}"}
      - values: {env: dev}
  - prompt: again
`)
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }
	want := []scenario.AnswerSet{{Pos: at(3, 10), Values: []scenario.AnswerValue{
		{Pos: at(3, 19), Field: "branch", Text: "main"},
		{Pos: at(3, 32), Field: "count", Text: "3"},
		{Pos: at(3, 42), Field: "force", Text: "true"},
	}}}
	if diff := cmp.Diff(want, s.Answers, cmpOpts); diff != "" {
		t.Errorf("scenario answers (-want +got):\n%s", diff)
	}
	want = []scenario.AnswerSet{
		{Pos: at(7, 9), Match: regexp.MustCompile("(?i)deploy"), Values: []scenario.AnswerValue{
			{Pos: at(8, 23), Field: "env", Text: "prod"},
			{Pos: at(8, 37), Field: "labels", List: []string{"bug", "ci"}, IsList: true},
			{Pos: at(8, 55), Field: "token", Text: "sk-test"},
		}},
		{Pos: at(9, 9), Values: []scenario.AnswerValue{{Pos: at(9, 23), Field: "env", Text: "dev"}}},
	}
	if diff := cmp.Diff(want, s.Turns[0].Answers, cmpOpts); diff != "" {
		t.Errorf("turn answers (-want +got):\n%s", diff)
	}
	if !s.HasAnswers() || s.Turns[1].Answers != nil {
		t.Errorf("HasAnswers() = %v, turn 2 answers %v; want true and none", s.HasAnswers(), s.Turns[1].Answers)
	}
	if loadOne(t, "name: x\nagent: {command: [a]}\nturns: [{prompt: hi}]\n").HasAnswers() {
		t.Error("HasAnswers() = true for a scenario without answers")
	}

	got := loadErrors(t, `name: x
agent: {command: [a]}
answers: {match: branch, values: {branch: main}}
turns:
  - prompt: hi
    answers:
      - {match: "(", values: {a: x}}
      - {mach: x, values: {}}
      - {values: {a: {b: c}, c: ~, d: [[x]]}}
      - {match: only}
  - prompt: hi
    answers: []
  - prompt: hi
    answers: main
`)
	wantErrs := []string{
		`bad.yaml:3:34: the answer for field "values" is a mapping: give a value or a list of values (to answer only some questions, write answers as a list: [{match: REGEX, values: {FIELD: VALUE}}])`,
		"bad.yaml:7:17: bad regular expression: error parsing regexp: missing closing ): `(`",
		`bad.yaml:8:10: unknown key "mach" (did you mean "match"?)`,
		`bad.yaml:8:27: values is empty: map form fields to their values, such as {branch: main}`,
		`bad.yaml:9:22: the answer for field "a": expected a value (a string, number or boolean), got a mapping`,
		`bad.yaml:9:33: the answer for field "c": expected a value (a string, number or boolean), got null`,
		`bad.yaml:9:40: the answer for field "d": expected a value (a string, number or boolean), got a list`,
		`bad.yaml:10:9: missing required key "values"`,
		`bad.yaml:12:14: answers is empty: list {match: REGEX, values: {FIELD: VALUE}} entries, or map fields to values`,
		`bad.yaml:14:14: expected answers (a mapping of form fields to values, or a list of {match, values} entries), got a string`,
	}
	if diff := cmp.Diff(wantErrs, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestNameControlCharacters: a scenario's name that holds a control
// character (C0, tab and line breaks among them, DEL or C1), a line or
// paragraph separator or a bidi control is an error at the name, which
// names the character escaped; other characters, wide ones, a backslash
// and the zero-width joiner of an emoji among them, are names.
func TestNameControlCharacters(t *testing.T) {
	const rest = "\nagent: {command: [a]}\nturns: [{prompt: hi}]\n"
	for _, tt := range []struct {
		name string // as written in YAML
		want string // the error, "" for none
	}{
		{`"ok\n::error file=README.md,line=1::injected"`, `bad.yaml:1:7: name holds the control character \x0a: a name is one line of printable text`},
		{`"red\e[31m"`, `bad.yaml:1:7: name holds the control character \x1b: a name is one line of printable text`},
		{`"a\tb"`, `bad.yaml:1:7: name holds the control character \x09: a name is one line of printable text`},
		{`"del\x7f"`, `bad.yaml:1:7: name holds the control character \x7f: a name is one line of printable text`},
		{`"csi\u009b2J"`, `bad.yaml:1:7: name holds the control character \x9b: a name is one line of printable text`},
		{`"a\u2028b"`, `bad.yaml:1:7: name holds the line separator \u2028: a name is one line of printable text`},
		{`"a\u2029b"`, `bad.yaml:1:7: name holds the paragraph separator \u2029: a name is one line of printable text`},
		{`"x \u202eRLO"`, `bad.yaml:1:7: name holds the bidi control character \u202e: a name is one line of printable text`},
		{`"x \u2066isolate\u2069"`, `bad.yaml:1:7: name holds the bidi control character \u2066: a name is one line of printable text`},
		{`"back\\slash 日本 ü 👨\u200d👩"`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := loadErrors(t, "name: "+tt.name+rest)
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("load name: %s: errors (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
