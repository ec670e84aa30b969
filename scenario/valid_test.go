package scenario_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestLoadValidity reads what makes a measurement valid: the files the
// agent must leave alone (workspace.protect: globs, dir/ for dir/**) and
// the agent it must be (expect.agent: a string, or {matches: RE}).
func TestLoadValidity(t *testing.T) {
	src := `name: x
agent: {command: [a]}
permissions: {}
workspace: {from: testdata, protect: [tests/**, ./verify.sh, "fixtures/", "*.lock"]}
expect:
  agent: {name: claude-code-acp, version: {matches: '^0\.5\.'}}
turns: [{prompt: hi}]
---
name: one
agent: {command: [a]}
permissions: {}
workspace:
  from: testdata
  protect: verify.sh
expect: {agent: {version: 1.10}}
turns: [{prompt: hi}]
`
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }
	loc := func(line, col int, v string) scenario.Located { return scenario.Located{Pos: at(line, col), Value: v} }
	w := scs[0].Workspace
	want := []scenario.Located{loc(4, 39, "tests/**"), loc(4, 49, "verify.sh"), loc(4, 62, "fixtures/**"), loc(4, 75, "*.lock")}
	if diff := cmp.Diff(want, w.Protect); diff != "" {
		t.Errorf("protect (-want +got):\n%s", diff)
	}
	if w.ProtectPos != at(4, 38) {
		t.Errorf("protect at %v, want 4:38", w.ProtectPos)
	}
	a := scs[0].Expect.Agent
	if a == nil || a.Pos != at(6, 10) || a.Name == nil || a.Name.Exact != "claude-code-acp" || a.Name.Re != nil ||
		a.Version == nil || a.Version.Re == nil || a.Version.Pos != at(6, 43) {
		t.Fatalf("expect.agent = %+v", a)
	}
	for s, want := range map[string][2]bool{"claude-code-acp": {true, false}, "claude-code": {false, false}, "0.5.1": {false, true}, "10.5.1": {false, false}} {
		if got := [2]bool{a.Name.Match(s), a.Version.Match(s)}; got != want {
			t.Errorf("%q: name, version match %v, want %v", s, got, want)
		}
	}
	if a.Name.String() != `"claude-code-acp"` || a.Version.String() != `/^0\.5\./` {
		t.Errorf("said as %s and %s", a.Name, a.Version)
	}
	if got := scs[1].Workspace.Protect; len(got) != 1 || got[0].Value != "verify.sh" {
		t.Errorf("a single protect glob: %v", got)
	}
	if v := scs[1].Expect.Agent.Version; v.Exact != "1.10" || scs[1].Expect.Agent.Name != nil {
		t.Errorf("a version written as a number keeps its text: %+v", scs[1].Expect.Agent)
	}
}

// TestValidityErrors: each problem of workspace.protect and expect.agent is
// reported at its value.
func TestValidityErrors(t *testing.T) {
	const head = "name: x\nagent: {command: [a]}\npermissions: {}\n" // three lines
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "protect outside the workspace",
			src:  head + "workspace: {from: testdata, protect: [/etc/passwd, ../x, ., \"\"]}\nturns: [{prompt: hi}]\n",
			want: []string{
				`bad.yaml:4:39: pattern "/etc/passwd" is absolute: paths here are relative to the workspace (or the session cwd)`,
				`bad.yaml:4:52: pattern "../x" uses ..: write it relative to the workspace (or the session cwd), without ..`,
				`bad.yaml:4:58: pattern "." names the workspace itself: write ** for every path in it`,
				`bad.yaml:4:61: pattern is empty`,
			},
		},
		{
			name: "protect empty",
			src:  head + "workspace: {from: testdata, protect: []}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:38: expected at least one value, got an empty list"},
		},
		{
			name: "protect not strings",
			src:  head + "workspace: {from: testdata, protect: {a: b}}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:38: expected a string or a list of strings, got a mapping"},
		},
		{
			name: "protect without a workspace source",
			src:  head + "workspace: {protect: [tests/**]}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:12: workspace needs from (a directory to copy) or git (a repository to check out)"},
		},
		{
			name: "agent in a turn",
			src:  head + "turns:\n  - prompt: hi\n    expect: {agent: {name: x}}\n",
			want: []string{`bad.yaml:6:14: unknown key "agent" (valid keys: stopReason, cancelCause, text, denied, maxDenied, toolCalls, files, permissions, usage, judge, notices); agent belongs in the scenario's expect: it is about the agent the whole scenario runs against`},
		},
		{
			name: "misspelt agent key, empty version",
			src:  head + "expect:\n  agent: {nmae: x, version: \"\"}\nturns: [{prompt: hi}]\n",
			want: []string{
				`bad.yaml:5:11: unknown key "nmae" (did you mean "name"?)`,
				`bad.yaml:5:29: version is empty: give the agent's version, or {matches: RE}`,
			},
		},
		{
			name: "empty agent",
			src:  head + "expect: {agent: {}}\nturns: [{prompt: hi}]\n",
			want: []string{"bad.yaml:4:17: agent needs name or version"},
		},
		{
			name: "bad regexp, a list",
			src:  head + "expect: {agent: {name: {matches: '('}, version: [1]}}\nturns: [{prompt: hi}]\n",
			want: []string{
				"bad.yaml:4:34: bad regular expression: error parsing regexp: missing closing ): `(`",
				"bad.yaml:4:49: expected the agent's version (a string) or {matches: RE}, got a list",
			},
		},
		{
			name: "contains is no agent matcher",
			src:  head + "expect: {agent: {name: {contains: x}}}\nturns: [{prompt: hi}]\n",
			want: []string{
				`bad.yaml:4:24: missing required key "matches"`,
				`bad.yaml:4:25: unknown key "contains" (valid keys: matches)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := scenario.LoadBytes("bad.yaml", []byte(tt.src), opts)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValiditySchema: the JSON Schema takes workspace.protect and
// expect.agent as Load does, and refuses what Load refuses.
func TestValiditySchema(t *testing.T) {
	sch := compileSchema(t)
	good := "name: x\nagent: a\nworkspace: {from: w, protect: [tests/**, verify.sh]}\n" +
		"expect: {agent: {name: claude-code-acp, version: {matches: '^0\\.5'}}}\nturns: [{prompt: hi}]\n---\n" +
		"name: y\nagent: a\nworkspace: {git: r, protect: verify.sh}\nexpect: {agent: {version: 1.10}}\nturns: [{prompt: hi}]\n"
	for i, doc := range yamlDocs(t, []byte(good)) {
		if err := sch.Validate(doc); err != nil {
			t.Errorf("document %d: %v", i, err)
		}
	}
	for _, bad := range []string{
		"workspace: {from: w, protect: [/etc/passwd]}",
		"workspace: {from: w, protect: []}",
		"workspace: {protect: [x]}",
		"expect: {agent: {}}",
		"expect: {agent: {name: \"\"}}",
		"expect: {agent: {name: {contains: x}}}",
		"expect: {agent: {nmae: x}}",
		"turns: [{prompt: hi, expect: {agent: {name: x}}}]",
	} {
		src := "name: x\nagent: a\n" + bad + "\n"
		if !strings.HasPrefix(bad, "turns") {
			src += "turns: [{prompt: hi}]\n"
		}
		for _, doc := range yamlDocs(t, []byte(src)) {
			if err := sch.Validate(doc); err == nil {
				t.Errorf("schema accepts %q, want an error", bad)
			}
		}
	}
}
