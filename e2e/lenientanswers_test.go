package e2e_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// End-to-end tests of answers to acprun's calls that are lenient where the
// schema is: a malformed optional part is dropped with a protocol
// violation, and a whole float is an integer, as JSON Schema says.

// TestPromptAnswerMalformedUsage: a session/prompt answer whose optional
// usage is malformed keeps its stop reason: the turn passes, the usage is
// dropped (or the malformed count of it), and a protocol violation says
// what was dropped. Whole floats (5.0) are integers.
func TestPromptAnswerMalformedUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, answer string
		usage        *report.Usage
		violation    string
	}{
		{"whole floats", `{"stopReason":"end_turn","usage":{"totalTokens":5.0,"inputTokens":3,"outputTokens":2}}`,
			&report.Usage{TotalTokens: 5, InputTokens: 3, OutputTokens: 2}, ""},
		{"usage a string", `{"stopReason":"end_turn","usage":"n/a"}`,
			nil, `session/prompt: usage: want an object, got string "n/a"`},
		{"thoughtTokens a string", `{"stopReason":"end_turn","usage":{"totalTokens":5,"inputTokens":3,"outputTokens":2,"thoughtTokens":"x"}}`,
			&report.Usage{TotalTokens: 5, InputTokens: 3, OutputTokens: 2}, `session/prompt: usage.thoughtTokens: want a non-negative integer, got string "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"agent.sh": shHandshake + "read -r line\n" + chunk("hello") + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":` + tt.answer + `}'` +
					"\nwhile read -r line; do :; done\n",
				"s.yaml": `name: usage
agent: {command: [sh, agent.sh]}
permissions: {default: deny}
turns:
  - prompt: hi
    expect: {stopReason: end_turn, text: {contains: hello}}
`})
			res, out := runResults(t, dir, "s.yaml")
			if res.code != exitOK {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
			}
			sc := out.Scenarios[0]
			if diff := cmp.Diff(tt.usage, sc.Turns[0].Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			got := strings.Join(sc.Violations, "\n")
			if tt.violation == "" && got != "" || !strings.Contains(got, tt.violation) {
				t.Errorf("violations %q, want one with %q", sc.Violations, tt.violation)
			}
		})
	}
}

// TestInitializeWholeFloatVersion: an initialize answer with
// protocolVersion 1.0 is version 1; one with 1.5 is refused as other
// version errors are, at the scenario's agent and with the results'
// errorCause protocolVersion.
func TestInitializeWholeFloatVersion(t *testing.T) {
	t.Parallel()
	initialize := func(version string) string {
		return `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":` + version + `}}'` + "\n"
	}
	const scenario = `name: init
agent: {command: [sh, agent.sh]}
permissions: {default: deny}
turns:
  - prompt: hi
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.sh": initialize("1.0") + `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'` + "\n" + shAgentTail, "s.yaml": scenario})
	res, _ := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Errorf("protocolVersion 1.0: exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}

	dir = t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.sh": initialize("1.5") + "while read -r line; do :; done\n", "s.yaml": scenario})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	const want = "s.yaml:2:8: agent: initialize: invalid answer: protocolVersion: want an integer, got number 1.5 (acprun speaks version 1); acprun sent it nothing more"
	if res.code != exitAgent || sc.Error != want || sc.ErrorCause != report.ErrorProtocolVersion {
		t.Errorf("protocolVersion 1.5: exit %d, error %q (cause %q); want %d, %q (cause %q)\nstderr:\n%s",
			res.code, sc.Error, sc.ErrorCause, exitAgent, want, report.ErrorProtocolVersion, res.stderr)
	}
}
