package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestAgentCannotForgeAnOutcome: an agent that answers session/prompt with
// the name of one of acprun's outcomes has answered, so it did not exit nor
// hang: the attempt failed (exit 1) with the name the agent sent, and
// retries do not run it again until it passes.
func TestAgentCannotForgeAnOutcome(t *testing.T) {
	t.Parallel()
	for _, sent := range []string{report.OutcomeAgentExited, report.OutcomeUnresponsive} {
		t.Run(sent, func(t *testing.T) {
			t.Parallel()
			dir := realTempDir(t)
			files, setup := busyOnce(dir, "turns: [{steps: [{text: I failed the task}], stopReason: "+sent+"}]\n", "turns: [{steps: [{text: good}]}]\n")
			writeFiles(t, dir, files)
			writeFiles(t, dir, map[string]string{"s.yaml": `name: forged
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
retries: 1
workspace: fixture
setup: [` + setup + `]
turns:
  - prompt: one
`})
			res, out := runResults(t, dir, "s.yaml")
			if diff := cmp.Diff([]string{"forged#0:r0:failed"}, tries(out)); diff != "" || res.code != exitFailed {
				t.Errorf("exit %d, want %d: a failed attempt is not retried (-want +got):\n%s\n%s", res.code, exitFailed, diff, res.stderr)
			}
			want := `s.yaml:8:5: stopReason error, want end_turn (the agent answered session/prompt with stopReason "` + sent +
				`": not an ACP stop reason but a name acprun reserves for its own outcomes (a protocol violation))`
			if !strings.Contains(res.stderr, "FAIL forged (error, ") || !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say FAIL nor %q:\n%s", want, res.stderr)
			}
			if sc := out.Scenarios[0]; sc.Error != "" {
				t.Errorf("error %q; want none: the agent answered", sc.Error)
			}
		})
	}
}

// TestAgentSentSkippedRan: a turn the agent answered with stopReason
// skipped ran: it is listed in byStopReason, counted as run in the summary,
// and not named a skipped turn in JUnit.
func TestAgentSentSkippedRan(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, "turns:\n  - steps: [{text: I did it}]\n    stopReason: skipped\n  - steps: [{text: second}]\n", `name: sk
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
`, "--junit", "out.xml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	wantBy := map[string][]report.TurnRef{
		"error":    {{Scenario: "sk", Turn: 1}},
		"end_turn": {{Scenario: "sk", Turn: 2}},
	}
	if diff := cmp.Diff(wantBy, out.ByStopReason); diff != "" {
		t.Errorf("byStopReason (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"error": 1, "end_turn": 1}, out.Summary.Turns); diff != "" {
		t.Errorf("summary.turns (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.stderr, "turns: end_turn 1, error 1") {
		t.Errorf("the summary does not count both turns as run:\n%s", res.stderr)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "out.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(junit), "skipped turns") {
		t.Errorf("JUnit names a turn that ran skipped:\n%s", junit)
	}
}

// TestAgentsOwnStopReasonExpected: a stop reason of the agent's own (a
// vendor's, or a later ACP's) is recorded as sent and can be expected as
// written: the turn passes, and byStopReason keys it verbatim; one that
// is not expected fails as any other.
func TestAgentsOwnStopReasonExpected(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "default: {steps: [{text: paused}], stopReason: vendor_paused}\n",
		"s.yaml": "name: own\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns:\n  - prompt: one\n    expect: {stopReason: vendor_paused}\n  - prompt: two\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != exitFailed || sc.Turns[0].StopReason != "vendor_paused" || len(sc.Turns[0].Failures) != 0 ||
		!strings.Contains(strings.Join(sc.Turns[1].Failures, "\n"), "stopReason vendor_paused, want end_turn") {
		t.Errorf("exit %d, turn 1 %s %q, turn 2 %q; want exit 1, turn 1 passed with vendor_paused, turn 2 failed for it\n%s",
			res.code, sc.Turns[0].StopReason, sc.Turns[0].Failures, sc.Turns[1].Failures, res.stderr)
	}
	if refs := out.ByStopReason["vendor_paused"]; len(refs) != 2 {
		t.Errorf("byStopReason %v; want both turns under vendor_paused", out.ByStopReason)
	}
}

// TestAgentsOwnStopReasonNearACPs: the tester's case. An agent's own stop
// reason that is a near miss of ACP's (canceled) can be expected as
// written: validate and run warn that it is near cancelled, at its place,
// and the turn passes when the agent answers it; a turn answered
// cancelled does not meet it.
func TestAgentsOwnStopReasonNearACPs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - {steps: [{text: stopped}], stopReason: canceled}\n  - {steps: [{text: stopped}], stopReason: cancelled}\n",
		"s.yaml": "name: near\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns:\n  - prompt: one\n    expect: {stopReason: canceled}\n  - prompt: two\n    expect: {stopReason: canceled}\n",
	})
	const warning = `s.yaml:6:26: warning: stop reason "canceled" is not ACP's nor acprun's (did you mean "cancelled"?)`
	if res := acprun(t, dir, "validate", "s.yaml"); res.code != exitOK || !strings.Contains(res.stderr+res.stdout, warning) {
		t.Errorf("validate: exit %d, output:\n%s%s\nwant exit 0 and the warning %q", res.code, res.stdout, res.stderr, warning)
	}
	res, out := runResults(t, dir, "s.yaml")
	sc := out.Scenarios[0]
	if res.code != exitFailed || sc.Turns[0].StopReason != "canceled" || len(sc.Turns[0].Failures) != 0 ||
		!strings.Contains(strings.Join(sc.Turns[1].Failures, "\n"), "stopReason cancelled, want canceled") {
		t.Errorf("exit %d, turn 1 %s %q, turn 2 %q; want exit 1, turn 1 passed with canceled, turn 2 failed for cancelled\n%s",
			res.code, sc.Turns[0].StopReason, sc.Turns[0].Failures, sc.Turns[1].Failures, res.stderr)
	}
	if !strings.Contains(res.stderr, warning) {
		t.Errorf("run does not warn %q:\n%s", warning, res.stderr)
	}
}
