package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/hook"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// TestCommandTailLinesCut: a failed setup, verify or teardown quotes the
// last lines of its output with each line cut at tailWidth characters, as
// the excerpts of the agent's text and stderr are, while the results keep
// the output whole.
func TestCommandTailLinesCut(t *testing.T) {
	t.Parallel()
	const (
		long  = "head -c 5000 /dev/zero | tr '\\\\0' y; echo; "
		agent = "agent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	)
	want := strings.Repeat("y", tailWidth) + "…"
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": "name: setup\n" + agent + `setup: ["` + long + `echo short; exit 1"]` + "\n" +
			"---\nname: verify\n" + agent + `verify: ["` + long + `echo short >&2; exit 1"]` + "\n" +
			`teardown: ["` + long + `exit 1"]` + "\n",
	}, Options{})
	if len(rep.Scenarios) != 2 {
		t.Fatalf("%d scenarios, want 2", len(rep.Scenarios))
	}
	setup, verify := rep.Scenarios[0], rep.Scenarios[1]
	if len(verify.Failures) != 1 || len(verify.Warnings) == 0 {
		t.Fatalf("verify: failures %q, warnings %q; want a failure and a teardown warning", verify.Failures, verify.Warnings)
	}
	for what, msg := range map[string]string{
		"setup error":      setup.Error,
		"verify failure":   verify.Failures[0],
		"teardown warning": verify.Warnings[len(verify.Warnings)-1],
	} {
		_, tail, ok := strings.Cut(msg, "; output ends:\n")
		if !ok {
			t.Errorf("%s = %q, want the output's last lines", what, msg)
			continue
		}
		lines := strings.Split(tail, "\n")
		if lines[0] != want {
			t.Errorf("%s: long line = %q (%d characters), want %d y then …", what, lines[0], utf8.RuneCountInString(lines[0]), tailWidth)
		}
		if what != "teardown warning" && (len(lines) != 2 || lines[1] != "short") {
			t.Errorf("%s: lines after the long one = %q, want short", what, lines[1:])
		}
	}
	if len(setup.Setup) != 1 || len(verify.Verify) != 1 {
		t.Fatalf("setup %+v, verify %+v: want one command each", setup.Setup, verify.Verify)
	}
	if n := len(setup.Setup[0].Stdout); n != 5000+len("\nshort\n") {
		t.Errorf("setup's stdout in the results: %d bytes, want the whole output", n)
	}
	if n := len(verify.Verify[0].Stdout); n != 5001 {
		t.Errorf("verify's stdout in the results: %d bytes, want the whole output", n)
	}
}

// TestVerifyStdoutChecksSeeAllOfIt: a verify command's stdout contains and
// matches look at all it printed, not only at the last 64 KiB the results
// keep: a text at its start is found and a pattern anchored there
// matches, however much follows; what it never printed still fails, at
// the check that failed.
func TestVerifyStdoutChecksSeeAllOfIt(t *testing.T) {
	t.Parallel()
	const (
		agent = "agent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
		long  = `echo MARKER-START; head -c 100000 /dev/zero | tr '\\0' a; echo`
	)
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": "name: found\n" + agent + "verify:\n  - run: \"" + long + "\"\n    expect: {stdout: {contains: MARKER-START, matches: \"^MARKER\"}}\n" +
			"---\nname: absent\n" + agent + "verify:\n  - run: \"" + long + "\"\n    expect: {stdout: {contains: MARKER-END, matches: \"^a\"}}\n",
	}, Options{})
	if len(rep.Scenarios) != 2 {
		t.Fatalf("%d scenarios, want 2", len(rep.Scenarios))
	}
	found, absent := rep.Scenarios[0], rep.Scenarios[1]
	if found.Status != report.StatusPassed {
		t.Errorf("found: %s %q, want passed", found.Status, found.Failures)
	}
	if len(found.Verify) != 1 || found.Verify[0].StdoutBytes <= int64(len(found.Verify[0].Stdout)) {
		t.Errorf("found: verify %+v, want an output longer than the part kept", found.Verify)
	}
	var got []string
	for _, f := range absent.Failures {
		got = append(got, strings.SplitN(f, "; output ends:", 2)[0])
	}
	// Each at the check that failed: the value of contains, of matches.
	want := [][2]string{{"/s.yaml:15:33: verify `", "stdout does not contain \"MARKER-END\""}, {"/s.yaml:15:54: verify `", "stdout does not match /^a/"}}
	if absent.Status != report.StatusFailed || len(got) != len(want) {
		t.Fatalf("absent: %s %q, want failed: %q", absent.Status, got, want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w[0]) || !strings.HasSuffix(got[i], w[1]) {
			t.Errorf("absent: failure %d = %q, want it at %q, ending %q", i, got[i], w[0], w[1])
		}
	}
}

// TestTeardownEndsAtDeadline: the scenario's timeout and the run's
// --timeout stop a teardown command still running (a warning), but a
// teardown that starts after the deadline still runs, for cancelGrace.
func TestTeardownEndsAtDeadline(t *testing.T) {
	t.Parallel()
	const agent = "agent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n"
	tests := []struct {
		name     string
		scenario string
		run      time.Duration // the run's --timeout
		want     []string      // each teardown command's error
		warning  string
	}{
		{"scenario timeout", "timeout: 1s\ncancelGrace: 1s\nteardown: [sleep 60]\nturns: [{prompt: hi}]\n", 0,
			[]string{"stopped: the scenario's timeout passed"}, "s.yaml:6:12: teardown `sleep 60` was stopped: the scenario's timeout passed (no output)"},
		{"run timeout", "cancelGrace: 1s\nteardown: [sleep 60]\nturns: [{prompt: hi}]\n", time.Second,
			[]string{"stopped: the run's --timeout passed"}, "s.yaml:5:12: teardown `sleep 60` was stopped: the run's --timeout passed (no output)"},
		{"after the deadline", "timeout: 1s\ncancelGrace: 3s\nteardown: [\"true\", sleep 60]\nturns: [{prompt: hi, expect: {stopReason: cancelled}}]\n", 0,
			[]string{"", "stopped: the scenario's timeout passed"}, "s.yaml:6:20: teardown `sleep 60` was stopped: the scenario's timeout passed (no output)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if tt.run > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeoutCause(ctx, tt.run, ErrRunTimeout)
				defer cancel()
			}
			rep := runFiles(t, ctx, map[string]string{
				"a.mock.yaml": "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n",
				"s.yaml":      "name: s\n" + agent + tt.scenario,
			}, Options{})
			res := rep.Scenarios[0]
			var got []string
			for _, c := range res.Teardown {
				got = append(got, c.Error)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("teardown errors (-want +got):\n%s", diff)
			}
			if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasSuffix(w, "/"+tt.warning) }) {
				t.Errorf("warnings %q, want %q among them", res.Warnings, tt.warning)
			}
		})
	}
}

// TestCommandOutputWrappedSecret: a long secret that a setup, verify or
// teardown command prints wrapped over lines, on stdout or stderr, is
// redacted in the results' outputs and in the error, failures and
// warnings that quote them: no 8 bytes of it are left.
func TestCommandOutputWrappedSecret(t *testing.T) {
	t.Parallel()
	const (
		secret = "ghp_WrappedHook1234567890abcdefXYZ"
		agent  = "agent: {command: [acprun, mock-agent, a.mock.yaml], env: {HOOK_KEY: " + secret + "}}\n" +
			"permissions: {default: deny}\nturns: [{prompt: hi}]\n"
		wrap = `echo \"key $HOOK_KEY\" | fold -w 10`
	)
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": "name: setup\n" + agent + `setup: ["` + wrap + `; ` + wrap + ` >&2; exit 1"]` + "\n" +
			"---\nname: verify\n" + agent +
			`verify: ["` + wrap + `; exit 1", {run: "` + wrap + ` >&2", expect: {stdout: {contains: nope}}}]` + "\n" +
			`teardown: ["` + wrap + ` >&2; exit 1"]` + "\n",
	}, Options{})
	if len(rep.Scenarios) != 2 {
		t.Fatalf("%d scenarios, want 2", len(rep.Scenarios))
	}
	setup, verify := rep.Scenarios[0], rep.Scenarios[1]
	if setup.Error == "" || len(verify.Failures) != 2 || len(verify.Warnings) == 0 {
		t.Fatalf("setup error %q, verify failures %q, warnings %q; want an error, two failures and a teardown warning", setup.Error, verify.Failures, verify.Warnings)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if piece := partOf(secret, string(data)); piece != "" {
		t.Errorf("the results hold %q of the secret:\n%s", piece, data)
	}
	if got := setup.Setup[0].Stdout; got != "key [REDACTED]\n" {
		t.Errorf("setup stdout = %q, want the wrapped secret redacted", got)
	}
}

// TestCommandOutputKilledMidSecret: a command stopped at its timeout or
// by the run's end, or killed by a signal, may have been writing a secret:
// the end of its output that may begin one is redacted, on a line of its
// own too; that of a command that exited is not a cut.
func TestCommandOutputKilledMidSecret(t *testing.T) {
	t.Parallel()
	const secret = "ghp_KilledHook1234567890abcdefXYZ"
	r := &scenarioRun{red: redact.New(secret)}
	for _, tt := range []struct {
		name string
		hr   hook.Result
		want string
	}{
		{"timed out", hook.Result{TimedOut: true, Stdout: "key " + secret[:14]}, "key [REDACTED]"},
		{"killed", hook.Result{Signal: "SIGKILL", Stderr: "key " + secret[:10] + "\n"}, "key [REDACTED]\n"},
		{"interrupted", hook.Result{Err: context.Canceled, Stdout: "key\n" + secret[:8]}, "key\n[REDACTED]"},
		{"exited", hook.Result{ExitCode: new(1), Stdout: "ghp_Kill"}, "ghp_Kill"},
	} {
		hr := r.shown(tt.hr)
		if got := hr.Stdout + hr.Stderr; got != tt.want {
			t.Errorf("%s: output shown %q, want %q", tt.name, got, tt.want)
		}
	}
	// Through a real command that kills itself in the middle of the secret.
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": "name: killed\nagent: {command: [acprun, mock-agent, a.mock.yaml], env: {HOOK_KEY: " + secret + "}}\n" +
			`setup: ["printf 'key %.14s' \"$HOOK_KEY\"; kill -KILL $$"]` + "\nturns: [{prompt: hi}]\n",
	}, Options{})
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if piece := partOf(secret, string(data)); piece != "" {
		t.Errorf("the results hold %q of the secret:\n%s", piece, data)
	}
	if got := rep.Scenarios[0].Setup; len(got) != 1 || got[0].Signal != "SIGKILL" || got[0].Stdout != "key [REDACTED]" {
		t.Errorf("setup %+v, want killed by SIGKILL, its stdout %q", got, "key [REDACTED]")
	}
}

// partOf returns the first 8 bytes in a row of secret that s holds; ""
// when it holds none.
func partOf(secret, s string) string {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(s, secret[i:i+8]) {
			return secret[i : i+8]
		}
	}
	return ""
}

// TestTeardownRunsAfterASecondInterrupt: a second interrupt (Abort) skips
// the waits, the agent's cancel grace here, but not the teardown: its
// commands run to their end, whenever the abort came, and are recorded
// as they ran.
func TestTeardownRunsAfterASecondInterrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, interrupt := context.WithCancelCause(context.Background())
	defer interrupt(nil)
	abort := make(chan struct{})
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0) // once the agent's turn waits on it
		if err == nil {
			f.Close()
		}
		interrupt(errors.New("interrupted"))
		close(abort)
	}()
	rep := runFiles(t, ctx, map[string]string{
		// The agent ignores the cancel: it would have its whole cancelGrace.
		"a.mock.yaml": fmt.Sprintf("onCancel: ignore\nignoreSigterm: true\nturns: [{steps: [{waitFor: %q}, {hang: true}]}]\n", gate),
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
cancelGrace: 10m
killGrace: 10m
teardown: ["echo cleaning up", "echo done"]
turns: [{prompt: hi}]
`,
	}, Options{Abort: abort})
	res := rep.Scenarios[0]
	if res.Status != report.StatusInterrupted {
		t.Errorf("status %s, want interrupted", res.Status)
	}
	var got []string
	for _, c := range res.Teardown {
		code := -1
		if c.ExitCode != nil {
			code = *c.ExitCode
		}
		got = append(got, fmt.Sprintf("%d %q %q", code, c.Stdout, c.Error))
	}
	want := []string{`0 "cleaning up\n" ""`, `0 "done\n" ""`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("teardown (-want +got):\n%s", diff)
	}
}

// TestVerifyNotRunAfterTheScenarioTimeout: verify does not run once the
// scenario's timeout has passed, even when a turn expected it: the command
// is recorded and reported as not run, not as stopped, and a check that
// did not run has not passed.
func TestVerifyNotRunAfterTheScenarioTimeout(t *testing.T) {
	t.Parallel()
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n",
		"s.yaml": `name: s
agent: {command: [acprun, mock-agent, a.mock.yaml]}
permissions: {default: deny}
timeout: 1s
verify: ["true"]
turns: [{prompt: hi, expect: {stopReason: cancelled, cancelCause: scenarioTimeout}}]
`,
	}, Options{})
	res := rep.Scenarios[0]
	if len(res.Verify) != 1 || res.Verify[0].Error != "not run: the scenario's timeout passed" || res.Verify[0].DurationMs != 0 {
		t.Fatalf("verify %+v, want it not run", res.Verify)
	}
	want := "s.yaml:5:10: verify `true` not run: the scenario's timeout passed"
	if res.Status != report.StatusFailed || !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.HasSuffix(f, "/"+want) }) {
		t.Errorf("status %s, failures %q; want failed with %q", res.Status, res.Failures, want)
	}
}
