package e2e_test

import (
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
