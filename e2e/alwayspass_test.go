package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChecksThatCouldNeverFail: a judge's pass, a text's matches or
// contains, or a verify's stdout check that every text meets (also once
// vars are expanded) is refused where it is written, as a negative check
// that could never hold is: run exits 2 and runs nothing.
func TestChecksThatCouldNeverFail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"j.mock.yaml": "default: {steps: [{text: \"FAIL: the work is wrong\"}]}\n",
		"s.yaml": `name: s
vars: {want: [""]}
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {text: {contains: "{{.want}}", matches: "x*"}}
verify:
  - run: "true"
    expect: {stdout: {contains: []}}
expect:
  judge: {agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: be good, pass: ".*"}
`,
	})
	for _, args := range [][]string{{"validate", "--strict", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		for _, w := range []string{
			`s.yaml:7:31: empty text: every reply contains it, so contains could never fail; give the text that must appear`,
			`s.yaml:7:53: matches /x*/ matches every reply (even an empty one), so it could never fail; give what must appear`,
			`s.yaml:10:33: expected at least one value, got an empty list`,
			`s.yaml:12:87: pass /.*/ matches every reply (even an empty one), so every reply would pass: give a regular expression such as ^PASS`,
		} {
			if res.code != 2 || !strings.Contains(res.stderr, w) {
				t.Errorf("%s: exit %d, want 2 and %q:\n%s", args[0], res.code, w, res.stderr)
			}
		}
	}
}

// TestCountsAndNoticesThatCouldNeverFail: a toolCalls.count of ">=0"
// (also once vars are expanded) and notices.max error, which every run
// meets, are refused where they are written, saying what to write
// instead: run exits 2 and runs nothing.
func TestCountsAndNoticesThatCouldNeverFail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": `name: s
vars: {least: [">= 0"]}
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
expect: {notices: {max: error}}
turns:
  - prompt: hi
    expect: {toolCalls: {count: {edit: ">=0", execute: "{{.least}}", read: 0}}}
`,
	})
	for _, args := range [][]string{{"validate", "--strict", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		for _, w := range []string{
			`s.yaml:5:25: notices.max error allows every notice (a severity ACP does not define counts as error), so it could never fail; give warning (no error notice) or info (no warning or error notice)`,
			`s.yaml:8:40: count ">=0" for "edit": at least 0 calls is any number of calls, so it could never fail; give ">=1" (at least one call) or 0 (none)`,
			`s.yaml:8:56: count ">= 0" for "execute": at least 0 calls is any number of calls, so it could never fail; give ">=1" (at least one call) or 0 (none)`,
		} {
			if res.code != exitUsage || !strings.Contains(res.stderr, w) {
				t.Errorf("%s: exit %d, want %d and %q:\n%s", args[0], res.code, exitUsage, w, res.stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
			t.Errorf("%s: results written; want nothing run", args[0])
		}
	}
}

// TestTextFailuresPointAtTheirValues: each text check that fails names
// the position of its own value.
func TestTextFailuresPointAtTheirValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: ok}]}]\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect:
      text: {contains: [ok, missing1, missing2], matches: "^done"}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 1 || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	want := []string{
		`turn 1: s.yaml:7:29: text does not contain "missing1"`,
		`turn 1: s.yaml:7:39: text does not contain "missing2"`,
		`turn 1: s.yaml:7:59: text does not match /^done/`,
	}
	if got := out.Scenarios[0].Failures; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestJudgeOutsideExpect: a judge written at the top of a scenario or in
// a turn is said to belong in an expect, not taken for a typo of budget.
func TestJudgeOutsideExpect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
judge: {agent: {command: [j]}, rubric: r}
turns:
  - prompt: hi
    judge: {agent: {command: [j]}, rubric: r}
`,
	})
	res := acprun(t, dir, "validate", "s.yaml")
	for _, w := range []string{`s.yaml:4:1: unknown key "judge" (valid keys: `, `); judge belongs in the scenario's expect`,
		`s.yaml:7:5: unknown key "judge" (valid keys: prompt, timeout, budget, answers, expect); judge belongs in the turn's expect`} {
		if res.code != 2 || !strings.Contains(res.stderr, w) || strings.Contains(res.stderr, "did you mean") {
			t.Errorf("exit %d, want 2 and %q, and no did you mean:\n%s", res.code, w, res.stderr)
		}
	}
}
