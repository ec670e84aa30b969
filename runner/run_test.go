package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestLoadWarnings: a result starts with the warnings loading gave about
// its scenario, in order of position, with "no permissions" unless the
// run replaces every policy.
func TestLoadWarnings(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Pos: at(1, 1), Warnings: []scenario.Warning{{Pos: at(4, 31), Msg: "turn timeout 2m0s is longer than the scenario timeout 1m0s"}}}
	want := []string{
		"s.yaml:1:1: no permissions: every permission request and terminal command will be denied (add permissions to allow some)",
		"s.yaml:4:31: turn timeout 2m0s is longer than the scenario timeout 1m0s",
	}
	if diff := cmp.Diff(want, loadWarnings(sc, nil)); diff != "" {
		t.Errorf("no permissions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], loadWarnings(sc, approve.AllowAll())); diff != "" {
		t.Errorf("--allow-all (-want +got):\n%s", diff)
	}
	sc.Policy = &approve.Policy{}
	if diff := cmp.Diff(want[1:], loadWarnings(sc, nil)); diff != "" {
		t.Errorf("with permissions (-want +got):\n%s", diff)
	}
	if got := notRun(newJob(sc, 0), "not run: interrupted first", &Options{}).Warnings; !cmp.Equal(want[1:], got) {
		t.Errorf("not run: warnings %q, want %q", got, want[1:])
	}
}

// runFiles writes files (s.yaml and the mock agent's scripts) to a new
// directory, loads s.yaml and runs it with opts on the mock agent of this
// build.
func runFiles(t *testing.T, ctx context.Context, files map[string]string, opts Options) report.Report {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Self = agentBin(t)
	rep, err := Run(ctx, opts, scs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestSkippedTurnsFail: a turn that did not run because an earlier one
// was cancelled as expected, or ended with an expected agent_exited, has
// not met its expectations: the scenario fails, naming the turn and why.
// continueAfterCancel plays it. The cancels play in a synctest bubble: a
// turn timeout that passed before the prompt was written (a starved
// machine) would skip turn 1 instead, and give turn 2 the script's first
// turn.
func TestSkippedTurnsFail(t *testing.T) {
	t.Parallel()
	const cancelled = `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
%s
turns:
  - prompt: one
    timeout: 100ms
    expect: {stopReason: cancelled}
  - prompt: two
`
	const cancelScript = "turns: [{steps: [{waitForCancel: true}]}, {steps: [{text: two}]}]\n"
	tests := []struct {
		name, script, scenario string
		bubble                 bool // played in a synctest bubble, not by Run
		status                 report.Status
		failures               []string
		stops                  []string
	}{
		{"after a cancel", cancelScript, fmt.Sprintf(cancelled, ""), true,
			report.StatusFailed, []string{"turn 2: " + filepath.Join("DIR", "s.yaml") + ":9:5: not run: turn 1 was cancelled after turnTimeout (continueAfterCancel: true plays the turns after a cancel)"},
			[]string{"cancelled", "skipped"}},
		{"continueAfterCancel", cancelScript, fmt.Sprintf(cancelled, "continueAfterCancel: true"), true,
			report.StatusPassed, nil, []string{"cancelled", "end_turn"}},
		{"after an expected exit", "turns: [{steps: [{exit: 3}]}]\n", `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
    expect: {stopReason: agent_exited}
  - prompt: two
`, false, report.StatusFailed, []string{"turn 2: " + filepath.Join("DIR", "s.yaml") + ":7:5: not run: the agent exited during turn 1"}, []string{"agent_exited", "skipped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r report.Result
			if tt.bubble {
				synctest.Test(t, func(t *testing.T) { r = playInBubble(t, tt.script, tt.scenario) })
			} else {
				r = runFiles(t, t.Context(), map[string]string{"a.mock.yaml": tt.script, "s.yaml": tt.scenario}, Options{}).Scenarios[0]
			}
			var stops []string
			for _, tr := range r.Turns {
				stops = append(stops, tr.StopReason)
			}
			failures := slices.Clone(r.Failures)
			for i, f := range failures {
				failures[i] = strings.Replace(f, filepath.Dir(r.File), "DIR", 1)
			}
			if r.Status != tt.status || !cmp.Equal(tt.stops, stops) || !cmp.Equal(tt.failures, failures) {
				t.Errorf("status %s, stop reasons %q, failures %q (error %q); want %s, %q, %q", r.Status, stops, failures, r.Error, tt.status, tt.stops, tt.failures)
			}
		})
	}
}

// cancelOnPermission is an Observer that ends the run (cancel with cause)
// when the first permission request is answered: the agent is then inside
// its turn, waiting for the cancel.
type cancelOnPermission struct {
	cancel context.CancelCauseFunc
	cause  error
}

func (c *cancelOnPermission) ScenarioStarted(Ref)                      {}
func (c *cancelOnPermission) TurnStarted(Ref, int)                     {}
func (c *cancelOnPermission) TurnFinished(Ref, report.TurnResult)      {}
func (c *cancelOnPermission) Warning(Ref, string)                      {}
func (c *cancelOnPermission) ScenarioFinished(Ref, report.Result)      {}
func (c *cancelOnPermission) PermissionDecided(Ref, report.Permission) { c.cancel(c.cause) }

// TestInterruptedIsNeverPassed: a scenario whose turn acprun cancelled
// because the run ended (an interrupt, the run's --timeout) is
// interrupted, even when that turn expects cancelled: such a cancel meets
// no expectation, and the turns after it did not run for a reason outside
// the scenario, so they are not its failures.
func TestInterruptedIsNeverPassed(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.mock.yaml": `turns:
  - steps: [{permission: {toolCallId: c1, title: look, kind: read}}, {waitForCancel: true}]
  - steps: [{text: two}]
`,
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: allow}
turns:
  - prompt: one
    expect: {stopReason: cancelled}
  - prompt: two
`,
	}
	for _, tc := range []struct {
		name        string
		cause       error
		interrupted bool // Report.Interrupted
		cancelCause string
		err         string
	}{
		{"interrupt", errors.New("interrupted"), true, report.CauseInterrupt, "acprun was interrupted during turn 1"},
		{"run timeout", ErrRunTimeout, false, report.CauseRunTimeout, "the run's --timeout passed during turn 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			rep := runFiles(t, ctx, files, Options{Observer: &cancelOnPermission{cancel: cancel, cause: tc.cause}})
			r := rep.Scenarios[0]
			if r.Status != report.StatusInterrupted || r.Error != tc.err || rep.Interrupted != tc.interrupted {
				t.Errorf("status %s, error %q, report interrupted %v; want interrupted, %q, %v", r.Status, r.Error, rep.Interrupted, tc.err, tc.interrupted)
			}
			if tr := r.Turns[0]; tr.StopReason != "cancelled" || tr.CancelCause != tc.cancelCause {
				t.Errorf("turn 1: %s after %q, want cancelled after %s", tr.StopReason, tr.CancelCause, tc.cancelCause)
			}
			want := []string{"turn 1: " + filepath.Join("DIR", "s.yaml") + ":6:13: the turn did not finish: acprun cancelled it after " + tc.cancelCause +
				", which no expectation accepts (the agent answered cancelled)"}
			failures := slices.Clone(r.Failures)
			for i, f := range failures {
				failures[i] = strings.Replace(f, filepath.Dir(r.File), "DIR", 1)
			}
			if diff := cmp.Diff(want, failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNotRunIsInterrupted: a scenario the run's end kept from starting is
// interrupted, not an error of its own.
func TestNotRunIsInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(ErrRunTimeout)
	rep := runFiles(t, ctx, map[string]string{"a.mock.yaml": "{}\n", "s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {}\nturns: [{prompt: one}]\n"}, Options{})
	if r := rep.Scenarios[0]; r.Status != report.StatusInterrupted || !r.NotRun || r.Error != "not run: the run's --timeout passed first" {
		t.Errorf("status %s, notRun %v, error %q; want interrupted, not run", r.Status, r.NotRun, r.Error)
	}
}
