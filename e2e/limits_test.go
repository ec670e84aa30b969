package e2e_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The tests of this file check that the limits a user sets hold for every
// part of a scenario (teardown, judge), and that what acprun says of them
// is about the limits that applied.

// hungAgent never answers its prompt and ignores session/cancel, SIGTERM
// and the end of its stdin.
const hungAgent = `onCancel: ignore
ignoreSigterm: true
ignoreEOF: true
turns:
  - steps:
      - text: working
      - hang: true
`

// TestTeardownEndsAtTimeout: the scenario's timeout and the run's
// --timeout stop a hung teardown command (a warning) instead of letting it
// run its own limit out.
func TestTeardownEndsAtTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, timeout string
		args          []string
		says          string
	}{
		{"scenario", "timeout: 1s\n", nil, "the scenario's timeout passed"},
		{"run", "", []string{"--timeout", "1s"}, "the run's --timeout passed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, out, dir := runOne(t, "turns: [{steps: [{text: done}]}]\n", "name: td\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n"+
				tc.timeout+"cancelGrace: 1s\nteardown: [sleep 60]\nturns: [{prompt: one}]\n", tc.args...)
			assertNoProcessesIn(t, dir)
			sc := out.Scenarios[0]
			if len(sc.Teardown) != 1 || sc.Teardown[0].Error != "stopped: "+tc.says {
				t.Fatalf("teardown %+v, want one command stopped: %s\nstderr:\n%s", sc.Teardown, tc.says, res.stderr)
			}
			warning := "teardown `sleep 60` was stopped: " + tc.says + " (no output)"
			if !slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.HasSuffix(w, warning) }) || !strings.Contains(res.stderr, warning) {
				t.Errorf("warnings %q, stderr:\n%s\nwant %q", sc.Warnings, res.stderr, warning)
			}
		})
	}
}

// TestJudgeTakesTheScenarioGraces: a judge that hangs at the scenario's
// timeout gets the scenario's cancelGrace, and the error it makes of the
// attempt (it gave no verdict) names the judge, not a turn of the
// scenario's.
func TestJudgeTakesTheScenarioGraces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, timeout string
		args          []string
		pos           string // the judge's
		cause, err    string
	}{
		{"scenario", "timeout: 2s\n", nil, "s.yaml:9:10", "scenarioTimeout", ""},
		{"run", "", []string{"--timeout", "2s"}, "s.yaml:8:10", "runTimeout", "the run's --timeout passed while its judge was asked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
				"judge.mock.yaml": hungAgent,
				"s.yaml": "name: jd\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n" + tc.timeout +
					"cancelGrace: 1s\nkillGrace: 1s\nturns: [{prompt: one}]\n" +
					"expect:\n  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: good}\n",
			})
			res, out := runResults(t, dir, append([]string{"s.yaml"}, tc.args...)...)
			assertNoProcessesIn(t, dir)
			sc := out.Scenarios[0]
			want := tc.pos + ": judge acprun mock-agent judge.mock.yaml gave no verdict: acprun cancelled it after " + tc.cause +
				"; no answer to session/cancel within 1s; the agent was stopped"
			if tc.err != "" {
				want = tc.err + " (" + want + ")"
			}
			if sc.Error != want || len(sc.Failures) != 0 {
				t.Errorf("error %q, want %q; failures %q, want none\nstderr:\n%s", sc.Error, want, sc.Failures, res.stderr)
			}
		})
	}
}

// TestUnansweredCancelIsNoAnswer: a turn the run's --timeout cut short,
// whose agent never answered, fails with the outcome and why, not as if
// the agent had answered it.
func TestUnansweredCancelIsNoAnswer(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, hungAgent, "name: un\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\n"+
		"cancelGrace: 1s\nkillGrace: 1s\nturns: [{prompt: one}]\n", "--timeout", "1s")
	assertNoProcessesIn(t, dir)
	want := []string{"turn 1: s.yaml:6:9: the turn did not finish: acprun cancelled it after runTimeout, which no expectation accepts " +
		"(unresponsive: no answer to session/cancel within 1s; the agent was stopped)"}
	if diff := cmp.Diff(want, out.Scenarios[0].Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s\nstderr:\n%s", diff, res.stderr)
	}
}

// TestTurnTimeoutFlagWarning: --turn-timeout replaces a turn's own
// timeout, so the warning about a turn timeout longer than the scenario's
// is about the flag's value: none when it is shorter, one at the
// scenario's timeout when it is longer.
func TestTurnTimeoutFlagWarning(t *testing.T) {
	t.Parallel()
	const scenario = `name: tt
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
timeout: 3s
permissions: {default: deny}
turns:
  - prompt: one
    timeout: 5m
    expect: {stopReason: cancelled, cancelCause: turnTimeout}
`
	const slow = "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n"
	res, out, _ := runOne(t, slow, scenario, "--turn-timeout", "1s")
	if sc := out.Scenarios[0]; res.code != 0 || len(sc.Warnings) != 0 || strings.Contains(res.stderr, "warning") {
		t.Errorf("exit %d, warnings %q; want 0 and none\nstderr:\n%s", res.code, sc.Warnings, res.stderr)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": slow, "s.yaml": scenario})
	dry := acprun(t, dir, "run", "s.yaml", "--turn-timeout", "5s", "--dry-run")
	if want := "s.yaml:3:10: warning: --turn-timeout 5s is longer than the scenario timeout 3s\n"; !strings.HasPrefix(dry.stderr, want) || strings.Contains(dry.stderr, "5m0s") {
		t.Errorf("--turn-timeout 5s --dry-run: stderr\n%s\nwant it to start %q, and no word of the turn's 5m", dry.stderr, want)
	}
}
