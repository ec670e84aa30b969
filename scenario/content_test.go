package scenario_test

import (
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
expect: {notices: {max: error}}
turns:
  - prompt: hi
    expect: {notices: {max: warning}}
`)
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }
	if diff := cmp.Diff(&scenario.NoticesExpect{Pos: at(3, 19), Max: "error", MaxPos: at(3, 25)}, s.Expect.Notices); diff != "" {
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
`)
	want := []string{
		`bad.yaml:3:19: notices needs max`,
		`bad.yaml:6:29: unknown notice severity "warn" (did you mean "warning"?)`,
		`bad.yaml:6:35: unknown key "level" (valid keys: max)`,
		`bad.yaml:8:23: expected a mapping, got a string`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
