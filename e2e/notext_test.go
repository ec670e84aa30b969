package e2e_test

import (
	"strings"
	"testing"
)

// --no-text: the text and thoughts of a turn that nothing reads are
// counted, not kept; a turn whose expectations read its text keeps it, so
// the verdict is the same with the flag and without.
func TestNoTextKeepsOnlyTextThatIsChecked(t *testing.T) {
	t.Parallel()
	script := `turns:
  - steps: [{thought: thinking}, {text: [hello, " there", " again"]}]
  - steps: [{text: world}]
`
	scenario := `name: quiet
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: one
  - prompt: two
    expect: {text: {contains: world}}
`
	for _, tc := range []struct {
		args            []string
		text1, thought1 string
		omitted1        bool
	}{
		{args: nil, text1: "hello there again", thought1: "thinking"},
		{args: []string{"--no-text"}, omitted1: true},
	} {
		res, out, _ := runOne(t, script, scenario, tc.args...)
		if res.code != 0 || len(out.Scenarios) != 1 || out.Scenarios[0].Status != "passed" {
			t.Fatalf("%v: exit %d, results %+v; want one passed scenario\nstderr:\n%s", tc.args, res.code, out.Scenarios, res.stderr)
		}
		turns := out.Scenarios[0].Turns
		if len(turns) != 2 {
			t.Fatalf("%v: %d turns; want 2", tc.args, len(turns))
		}
		t1, t2 := turns[0], turns[1]
		if t1.Text != tc.text1 || t1.Thoughts != tc.thought1 || t1.TextOmitted != tc.omitted1 {
			t.Errorf("%v: turn 1 text %q, thoughts %q, textOmitted %v; want %q, %q, %v", tc.args, t1.Text, t1.Thoughts, t1.TextOmitted, tc.text1, tc.thought1, tc.omitted1)
		}
		if t1.Updates["agent_message_chunk"] != 3 || t1.Updates["agent_thought_chunk"] != 1 {
			t.Errorf("%v: turn 1 updates %v; want 3 message chunks and 1 thought counted", tc.args, t1.Updates)
		}
		if t2.Text != "world" || t2.TextOmitted {
			t.Errorf("%v: turn 2 (its text is checked) text %q, textOmitted %v; want it kept", tc.args, t2.Text, t2.TextOmitted)
		}
	}
}

// --no-text keeps the judges' replies: they are their verdicts, so a
// turn's judge and the scenario's judge give the same verdict with the
// flag and without (before, every judge failed with --no-text, its reply
// dropped as a turn's that nothing reads).
func TestNoTextKeepsTheJudgesVerdicts(t *testing.T) {
	t.Parallel()
	const scenarios = `name: turn-judged
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: Fix it.
    expect:
      judge: {agent: {command: [acprun, mock-agent, JUDGE.mock.yaml]}, rubric: It is fixed.}
---
name: judged
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: Fix it.}]
expect:
  judge: {agent: {command: [acprun, mock-agent, JUDGE.mock.yaml]}, rubric: It is fixed.}
`
	for _, judge := range []string{"pass", "fail"} {
		for _, args := range [][]string{nil, {"--no-text"}} {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "default: {steps: [{text: I fixed it.}]}\n",
				"pass.mock.yaml":  "default: {steps: [{text: \"PASS\\nThe work meets the rubric.\"}]}\n",
				"fail.mock.yaml":  "default: {steps: [{text: \"FAIL\\nIt is not fixed.\"}]}\n",
				"s.yaml":          strings.ReplaceAll(scenarios, "JUDGE", judge),
			})
			res, out := runResults(t, dir, append([]string{"s.yaml", "-j", "1"}, args...)...)
			want, code := "passed", 0
			if judge == "fail" {
				want, code = "failed", 1
			}
			if res.code != code || len(out.Scenarios) != 2 {
				t.Fatalf("%s judge %v: exit %d, %d results; want exit %d, 2 results\nstderr:\n%s", judge, args, res.code, len(out.Scenarios), code, res.stderr)
			}
			for _, s := range out.Scenarios {
				jr := s.Judge
				if jr == nil && len(s.Turns) > 0 {
					jr = s.Turns[0].Judge
				}
				if string(s.Status) != want || jr == nil || !strings.HasPrefix(jr.Text, strings.ToUpper(judge)) {
					t.Errorf("%s judge %v: %s %s (failures %q), judge %+v; want %s with the judge's reply kept", judge, args, s.Name, s.Status, s.Failures, jr, want)
				}
			}
		}
	}
}
