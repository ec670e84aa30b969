package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// failurePosScenario fails a turn's stopReason and denied, the scenario's
// maxDenied and a verify command's exitCode, each of which used to be
// reported at the start of its expect mapping (the text key, the
// stdout key), and a verify command without exitCode, at the command.
const failurePosScenario = `name: dn3
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
expect:
  toolCalls: {used: [execute]}
  maxDenied: 0
turns:
  - prompt: one
    expect:
      text: {contains: done}
      stopReason: max_tokens
      denied: 0
verify:
  - run: exit 1
    expect: {stdout: {notContains: x}, exitCode: 2}
  - run: exit 3
    expect: {stdout: {notContains: x}}
`

// TestFailuresAtTheirValues: each failed expectation is reported at its
// own value, in the results, on stderr and in the GitHub annotations:
// stopReason, denied and maxDenied, a verify command's exitCode; a verify
// command that gives no exitCode at the command.
func TestFailuresAtTheirValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: rm -rf build, kind: execute, status: pending}
      - permission: {toolCallId: t1, title: rm -rf build, kind: execute}
        rejected: [{text: done}]
`,
		"s3.yaml": failurePosScenario,
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="}, "run", "s3.yaml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	if len(out.Scenarios) != 1 || len(out.Scenarios[0].Turns) != 1 {
		t.Fatalf("results: %+v, want one scenario of one turn", out.Scenarios)
	}
	at := func(after, needle string) string { return posAfter(t, "s3.yaml", failurePosScenario, after, needle) }
	stop, denied := at("stopReason:", "max_tokens"), at("  denied:", "0")
	maxDenied, exitCode, run3 := at("maxDenied:", "0"), at("exitCode:", "2"), at("- run: exit 3", "run")
	for _, p := range []string{stop, denied, maxDenied, exitCode, run3} {
		if strings.HasPrefix(p, "s3.yaml:1:") || strings.HasSuffix(p, ":1") {
			t.Fatalf("position %s: the scenario moved", p)
		}
	}
	sc := out.Scenarios[0]
	turn := []string{stop + ": stopReason end_turn, want max_tokens", denied + ": 1 permission request denied, want 0"}
	if !slices.Equal(sc.Turns[0].Failures, turn) {
		t.Errorf("turn failures %q, want %q", sc.Turns[0].Failures, turn)
	}
	var got []string
	for _, f := range sc.Failures {
		got = append(got, strings.SplitN(f, "; output ends:", 2)[0])
	}
	want := []string{
		"turn 1: " + turn[0], "turn 1: " + turn[1],
		maxDenied + ": 1 permission request denied, want at most 0",
		exitCode + ": verify `exit 1` exited with code 1, want 2 (no output)",
		run3 + ": verify `exit 3` exited with code 3, want 0 (no output)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("failures\n%q\nwant\n%q", got, want)
	}
	for _, w := range []string{
		"::error " + ghPos(t, stop) + ",title=acprun%3A dn3 failed::turn 1: stopReason end_turn, want max_tokens",
		"::error " + ghPos(t, denied) + ",title=acprun%3A dn3 failed::turn 1: 1 permission request denied, want 0",
		"::error " + ghPos(t, maxDenied) + ",title=acprun%3A dn3 failed::1 permission request denied, want at most 0",
		"::error " + ghPos(t, exitCode) + ",title=acprun%3A dn3 failed::verify `exit 1` exited with code 1, want 2",
		"::error " + ghPos(t, run3) + ",title=acprun%3A dn3 failed::verify `exit 3` exited with code 3, want 0",
	} {
		if !strings.Contains(res.stdout, "\n"+w) && !strings.HasPrefix(res.stdout, w) {
			t.Errorf("no workflow command starting %q in stdout:\n%s", w, res.stdout)
		}
	}
	for _, w := range []string{stop + ": stopReason", denied + ": 1 permission", maxDenied + ": 1 permission", exitCode + ": verify", run3 + ": verify"} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, res.stderr)
		}
	}
}
