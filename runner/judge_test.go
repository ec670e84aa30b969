package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestJudgeVerdictDefaultPass: with the default pass pattern the verdict
// is the reply's first word, as the judge's prompt asks for it on the
// first line: blank lines and markup before it are skipped, and a reply
// that starts with FAIL (or with anything but PASS) fails, whatever its
// later lines say.
func TestJudgeVerdictDefaultPass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply string
		pass        bool
	}{
		{"pass", "PASS\nthe fix is minimal", true},
		{"pass alone", "PASS", true},
		{"pass with a full stop", "PASS. The fix is minimal.", true},
		{"pass in bold", "**PASS**\nthe fix is minimal", true},
		{"pass in bold with underscores", "__PASS__\nthe fix is minimal", true},
		{"pass in italics with underscores", "_PASS_", true},
		{"pass in italics", "*PASS*", true},
		{"pass as code", "`PASS`: the fix is minimal", true},
		{"pass in bold italics with underscores", "___PASS___.", true},
		{"pass as a heading", "## PASS\n", true},
		{"pass after blank lines", "\n\n  PASS\n", true},
		{"fail", "FAIL\nthe API changed", false},
		{"fail then per-criterion passes", "FAIL\n- PASS: the fix is minimal\n- FAIL: the API changed", false},
		{"fail then a pass line", "FAIL\nPASS would need the API kept", false},
		{"fail in bold then a bold pass", "**FAIL**\n**PASS**: the fix is minimal", false},
		{"fail in underscores then a pass", "__FAIL__\n__PASS__", false},
		{"fail that mentions pass", "FAIL: this does not PASS", false},
		{"words before the verdict", "Let me look at the changes.\nPASS", false},
		{"passed is not pass", "PASSED", false},
		{"passed in underscores is not pass", "__PASSED__", false},
		{"a longer word is not pass", "PASS2", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &scenario.Judge{Agent: scenario.Agent{Name: "judge"}, Pass: regexp.MustCompile(scenario.DefaultJudgePass)}
			jr := &report.JudgeResult{Agent: "judge"}
			res := report.Result{Turns: []report.TurnResult{{StopReason: "end_turn", Text: tt.reply}}}
			failure, _ := judgeVerdict(nil, j, jr, res)
			if jr.Passed != tt.pass || (failure == "") != tt.pass {
				t.Errorf("judgeVerdict(nil, %q) = passed %v, failure %q; want passed %v", tt.reply, jr.Passed, failure, tt.pass)
			}
		})
	}
}

// TestJudgeVerdictBroken: a judge that could not run to its answer (it
// did not start, crashed, timed out) gave no verdict and broke, so the
// attempt is an error; one that answered gave a verdict or refused one,
// which fails the work.
func TestJudgeVerdictBroken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		res                  report.Result
		broken, passed, fail bool
	}{
		{"did not start", report.Result{Status: report.StatusError, Error: "agent command /nonexistent/judge: no such file"}, true, false, true},
		{"crashed", report.Result{Turns: []report.TurnResult{{StopReason: report.OutcomeAgentExited, Error: "the agent exited with status 1"}}}, true, false, true},
		{"timed out", report.Result{Turns: []report.TurnResult{{StopReason: "cancelled", CancelCause: report.CauseTurnTimeout}}}, true, false, true},
		{"refused", report.Result{Turns: []report.TurnResult{{StopReason: "refusal", Text: "I cannot judge this"}}}, false, false, true},
		{"failed the work", report.Result{Turns: []report.TurnResult{{StopReason: "end_turn", Text: "FAIL: the work is wrong"}}}, false, false, true},
		{"passed the work", report.Result{Turns: []report.TurnResult{{StopReason: "end_turn", Text: "PASS"}}}, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &scenario.Judge{Agent: scenario.Agent{Name: "judge"}, Pass: regexp.MustCompile(scenario.DefaultJudgePass), Timeout: time.Second}
			jr := &report.JudgeResult{Agent: "judge"}
			failure, broken := judgeVerdict(nil, j, jr, tt.res)
			if broken != tt.broken || jr.Passed != tt.passed || (failure != "") != tt.fail {
				t.Errorf("judgeVerdict = failure %q, broken %v, passed %v; want broken %v, passed %v, a failure %v", failure, broken, jr.Passed, tt.broken, tt.passed, tt.fail)
			}
		})
	}
}

// TestJudgeStopsAsTheScenario: a judge that hangs is cancelled at the
// scenario's timeout or the run's --timeout and stopped with the
// scenario's cancelGrace and killGrace, and what it left says it was the
// judge, not the scenario's turn 1. It gave no verdict: that is the
// attempt's error (after what cut the run short, if it did), no failure.
func TestJudgeStopsAsTheScenario(t *testing.T) {
	t.Parallel()
	const (
		hung = "onCancel: ignore\nignoreSigterm: true\nignoreEOF: true\nturns: [{steps: [{text: working}, {hang: true}]}]\n"
		slow = "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n"
	)
	tests := []struct {
		name, judge, limits string
		run                 time.Duration // the run's --timeout
		judgeErr, err       string        // err: what the attempt's error starts with
		status              report.Status
		noVerdict           string // the end of the attempt's error
	}{
		{"scenario timeout", hung, "timeout: 5s\n", 0,
			"no answer to session/cancel within 1s; the agent was stopped", "", report.StatusError,
			"gave no verdict: acprun cancelled it after scenarioTimeout; no answer to session/cancel within 1s; the agent was stopped"},
		{"run timeout", hung, "", 5 * time.Second,
			"no answer to session/cancel within 1s; the agent was stopped", "the run's --timeout passed while its judge was asked", report.StatusInterrupted,
			"gave no verdict: acprun cancelled it after runTimeout; no answer to session/cancel within 1s; the agent was stopped"},
		{"run timeout, answered", slow, "", 5 * time.Second,
			"the run's --timeout passed while the judge was asked", "the run's --timeout passed while its judge was asked", report.StatusInterrupted,
			"gave no verdict: acprun cancelled it after runTimeout; the run's --timeout passed while the judge was asked"},
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
				"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
				"j.mock.yaml": tt.judge,
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n" + tt.limits +
					"cancelGrace: 1s\nkillGrace: 1s\nturns: [{prompt: hi}]\n" +
					"expect: {judge: {agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: good}}\n",
			}, Options{})
			res := rep.Scenarios[0]
			if res.Judge == nil || res.Judge.Error != tt.judgeErr {
				t.Errorf("judge %+v, want error %q", res.Judge, tt.judgeErr)
			}
			if res.Status != tt.status || !strings.HasPrefix(res.Error, tt.err) || !strings.HasSuffix(strings.TrimSuffix(res.Error, ")"), tt.noVerdict) {
				t.Errorf("status %s, error %q; want %s, an error starting %q and ending %q", res.Status, res.Error, tt.status, tt.err, tt.noVerdict)
			}
			if len(res.Failures) != 0 {
				t.Errorf("failures %q, want none", res.Failures)
			}
		})
	}
}

// TestTurnJudgeErrorEndsTheAttempt: a turn's judge that gives no verdict
// makes the attempt an error, which ends it as an agent that crashed does:
// the agent gets no later prompt, those turns are skipped without a
// failure of their own (the error says why), and teardown still runs.
func TestTurnJudgeErrorEndsTheAttempt(t *testing.T) {
	t.Parallel()
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: one}]}, {steps: [{text: two}]}, {steps: [{text: three}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n" +
			"teardown: [echo cleaned]\nturns:\n" +
			"  - {prompt: one, expect: {judge: {agent: {command: [/nonexistent/judge]}, rubric: x}}}\n" +
			"  - prompt: two\n  - prompt: three\n",
	}, Options{})
	res := rep.Scenarios[0]
	if res.Status != report.StatusError || !strings.Contains(res.Error, "judge /nonexistent/judge gave no verdict") {
		t.Errorf("status %s, error %q; want an error, the judge's", res.Status, res.Error)
	}
	var got []string
	for _, tr := range res.Turns {
		got = append(got, fmt.Sprintf("%d:%s:%d", tr.Index, tr.StopReason, len(tr.Failures)))
	}
	if want := []string{"1:end_turn:0", "2:skipped:0", "3:skipped:0"}; !slices.Equal(got, want) {
		t.Errorf("turns %q, want %q", got, want)
	}
	if len(res.Teardown) != 1 || res.Teardown[0].Stdout != "cleaned\n" {
		t.Errorf("teardown %+v, want it run", res.Teardown)
	}
}

// TestErroredAttemptAsksNoJudge: once an attempt is an error (a turn's
// judge gave no verdict, the agent crashed), the scenario's judge and the
// crashed turn's are not asked, each failing with why; verify and teardown
// still run. An attempt that only failed (the agent answered) still has
// its judge asked.
func TestErroredAttemptAsksNoJudge(t *testing.T) {
	t.Parallel()
	const judge = "{agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: good}"
	tests := []struct {
		name, agent, turns string
		status             report.Status
		asked              bool
		notAsked           []string // the failures of the judges not asked
	}{
		{"turn judge without verdict", "turns: [{steps: [{text: one}]}, {steps: [{text: two}]}]\n",
			"  - {prompt: one, expect: {judge: {agent: {command: [/nonexistent/judge]}, rubric: x}}}\n  - prompt: two\n",
			report.StatusError, false, []string{"s.yaml:10:10: judge not asked: the attempt is an error"}},
		{"agent crashed", "turns: [{steps: [{text: one}, {exit: 3}]}]\n",
			"  - {prompt: one, expect: {judge: " + judge + "}}\n",
			report.StatusError, false, []string{"turn 1: s.yaml:7:35: judge not asked: the attempt is an error", "s.yaml:9:10: judge not asked: the attempt is an error"}},
		{"agent crashed as expected", "turns: [{steps: [{text: one}, {exit: 3}]}]\n",
			"  - {prompt: one, expect: {stopReason: agent_exited, judge: " + judge + "}}\n",
			report.StatusPassed, true, nil},
		{"failed", "turns: [{steps: [{text: one}]}]\n",
			"  - {prompt: one, expect: {text: {contains: two}}}\n",
			report.StatusFailed, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := runFiles(t, context.Background(), map[string]string{
				"a.mock.yaml": tt.agent,
				"j.mock.yaml": "turns: [{steps: [{text: PASS}]}]\n",
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n" +
					"verify: [echo verified]\nteardown: [echo cleaned]\nturns:\n" + tt.turns +
					"expect:\n  judge: " + judge + "\n",
			}, Options{})
			res := rep.Scenarios[0]
			if res.Status != tt.status || (res.Judge != nil) != tt.asked {
				t.Errorf("status %s (error %q), judge %+v; want %s, the judge asked %v", res.Status, res.Error, res.Judge, tt.status, tt.asked)
			}
			var notAsked []string
			for _, f := range res.Failures {
				if strings.Contains(f, "judge not asked") {
					notAsked = append(notAsked, regexp.MustCompile(`/\S*/`).ReplaceAllString(f, "")) // the positions' files relative
				}
			}
			if !slices.Equal(notAsked, tt.notAsked) {
				t.Errorf("failures %q, want the judges not asked %q", res.Failures, tt.notAsked)
			}
			if len(res.Verify) != 1 || res.Verify[0].Stdout != "verified\n" || len(res.Teardown) != 1 || res.Teardown[0].Stdout != "cleaned\n" {
				t.Errorf("verify %+v, teardown %+v; want both run", res.Verify, res.Teardown)
			}
		})
	}
}

// TestScenarioChecksBeforeVerify: the scenario's files checks and its
// judge see the workspace the agent left, as its change set does; verify,
// which may write (a coverage profile, a rewritten file), runs after them.
func TestScenarioChecksBeforeVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"j.mock.yaml": "turns: [{steps: [{text: \"PASS \"}, {readFile: a.txt}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n" +
			"workspace: {from: " + filepath.Join(dir, "proj") + "}\n" +
			"setup: [\"echo left > a.txt\"]\n" +
			"verify: [\"echo changed-by-verify > a.txt; echo cov > coverage.out\"]\n" +
			"turns: [{prompt: go}]\n" +
			"expect:\n  files: {unchanged: [a.txt], absent: [coverage.out]}\n  judge: {agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: good}\n",
	}, Options{})
	res := rep.Scenarios[0]
	if res.Status != report.StatusPassed || res.Judge == nil || !strings.Contains(res.Judge.Text, "left") || strings.Contains(res.Judge.Text, "changed-by-verify") {
		t.Errorf("status %s, failures %q, judge %+v; want passed, the judge reading what the agent left", res.Status, res.Failures, res.Judge)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q; want none (the judge only read)", res.Warnings)
	}
}

// TestJudgeThatWritesIsWarnedAbout: a judge without a sandbox that writes
// in the workspace with its own tools (not through acprun's read-only
// client) is warned about, as the judge's, saying what it changed: the
// change set takes it for the agent's.
func TestJudgeThatWritesIsWarnedAbout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: one}]}, {steps: [{text: two}]}]\n",
		"j.mock.yaml": "turns: [{steps: [{writeFile: {path: notes.txt, content: mine}}, {text: PASS}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n" +
			"workspace: {from: " + filepath.Join(dir, "proj") + "}\n" +
			"turns:\n  - prompt: one\n    expect: {judge: {agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: good}}\n  - prompt: two\n",
	}, Options{})
	res := rep.Scenarios[0]
	want := "turn 1: judge: the workspace changed while it ran (created notes.txt): a judge without a sandbox writes with its own tools, " +
		"and what it writes counts as the agent's; give the scenario a sandbox: to keep its judges read-only"
	if !slices.Contains(res.Warnings, want) {
		t.Errorf("warnings %q; want %q", res.Warnings, want)
	}
}

// TestJudgeVerdictWithNoText: Options.NoText keeps no text of turns that
// nothing reads, but a judge's reply is its verdict: the verdicts of a
// turn's judge and of the scenario's are the same with it and without,
// and the judges' replies are kept in the results, as the turns' texts
// the scenario's judge reads.
func TestJudgeVerdictWithNoText(t *testing.T) {
	t.Parallel()
	const judge = "{agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: fixed}"
	for _, noText := range []bool{false, true} {
		t.Run(fmt.Sprint("noText=", noText), func(t *testing.T) {
			t.Parallel()
			rep := runFiles(t, context.Background(), map[string]string{
				"a.mock.yaml": "default: {steps: [{text: I fixed it.}]}\n",
				"j.mock.yaml": "default: {steps: [{text: \"PASS\\nThe work meets the rubric.\"}]}\n",
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns:\n" +
					"  - {prompt: one, expect: {judge: " + judge + "}}\n  - prompt: two\n" +
					"expect: {judge: " + judge + "}\n",
			}, Options{NoText: noText})
			res := rep.Scenarios[0]
			if res.Status != report.StatusPassed {
				t.Fatalf("status %s, error %q, failures %q; want passed", res.Status, res.Error, res.Failures)
			}
			for _, jr := range []*report.JudgeResult{res.Turns[0].Judge, res.Judge} {
				if jr == nil || !jr.Passed || !strings.HasPrefix(jr.Text, "PASS") {
					t.Errorf("judge %+v; want it passed with its reply kept", jr)
				}
			}
			for _, tr := range res.Turns {
				if tr.TextOmitted || tr.Text != "I fixed it." {
					t.Errorf("turn %d (the scenario's judge reads it) text %q, textOmitted %v; want it kept", tr.Index, tr.Text, tr.TextOmitted)
				}
			}
		})
	}
}

// TestJudgeAuthHint: a judge whose agent requires authentication says to
// set the judge's agent.auth, which alone chooses its method: --auth does
// not reach judges.
func TestJudgeAuthHint(t *testing.T) {
	t.Parallel()
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"j.mock.yaml": "authMethods: [{id: key, name: Key}]\nauthRequired: true\ndefault: {steps: [{text: PASS}]}\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n" +
			"expect: {judge: {agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: good}}\n",
	}, Options{})
	res := rep.Scenarios[0]
	want := "session/new: the agent requires authentication (set the judge's agent.auth to one of: key)"
	if res.Status != report.StatusError || !strings.Contains(res.Error, want) || strings.Contains(res.Error, "--auth") {
		t.Errorf("status %s, error %q; want an error saying %q, and no --auth", res.Status, res.Error, want)
	}
}

// judgeMisbehaves is a judge's mock script that breaks the protocol four
// times (two lines that are not JSON, an update for a session it does not
// have, a tool_call_update without a toolCallId: the lines first, which
// the connection's reader reports as it reads them, before the updates
// are handled), reads a file and edits one without asking, then answers
// PASS.
const judgeMisbehaves = `default:
  steps:
    - garbage: "not json"
    - garbage: "still not json"
    - garbage: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"nope","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}'
    - update: {sessionUpdate: tool_call_update, status: completed}
    - tool_call: {toolCallId: r1, title: Read main.go, kind: read, status: completed}
    - tool_call: {toolCallId: e1, title: Edit main.go, kind: edit, status: completed}
    - text: "PASS\nok"
`

// TestJudgeWarnings: what a judge did wrong (protocol violations, a tool
// call it ran unasked that is no read) is among the scenario's warnings,
// each said to be the judge's (the scenario's, or turn N's), and the
// judge's protocol violations are in its record; a read it made unasked
// is not warned about (a judge is asked to read the workspace). The
// warnings change no verdict, under permissions.enforce: strict too: the
// judge is not the agent measured, and strict holds the scenario's own
// turns.
func TestJudgeWarnings(t *testing.T) {
	t.Parallel()
	const judge = "{agent: {command: [acprun, mock-agent, j.mock.yaml]}, rubric: good}"
	own := []string{
		`judge: tool call e1 ("Edit main.go") ran without a permission request; acprun denies a judge every permission: the denial had no effect on it`,
		`judge: protocol violation: invalid JSON-RPC message: not a JSON object: "not json" (8 bytes)`,
		`judge: protocol violation: invalid JSON-RPC message: not a JSON object: "still not json" (14 bytes)`,
		`judge: protocol violation: session/update for unknown session "nope"`,
		`judge: 1 more protocol violation (see the judge's violations)`,
	}
	var want []string
	for _, w := range own {
		want = append(want, "turn 1: "+w)
	}
	want = append(want, own...)
	for _, enforce := range []string{"", ", enforce: strict"} {
		t.Run("enforce="+enforce, func(t *testing.T) {
			t.Parallel()
			rep := runFiles(t, context.Background(), map[string]string{
				"a.mock.yaml": "default: {steps: [{text: done}]}\n",
				"j.mock.yaml": judgeMisbehaves,
				"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny" + enforce + "}\nturns:\n" +
					"  - {prompt: one, expect: {judge: " + judge + "}}\n  - prompt: two\n" +
					"expect: {judge: " + judge + "}\n",
			}, Options{})
			res := rep.Scenarios[0]
			if res.Status != report.StatusPassed || len(res.Failures) != 0 {
				t.Errorf("status %s, error %q, failures %q; want passed: a judge's warnings change no verdict", res.Status, res.Error, res.Failures)
			}
			if !slices.Equal(res.Warnings, want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(res.Warnings, "\n"), strings.Join(want, "\n"))
			}
			if len(res.Violations) != 0 {
				t.Errorf("violations %q, want none: the scenario's agent broke nothing", res.Violations)
			}
			for _, jr := range []*report.JudgeResult{res.Turns[0].Judge, res.Judge} {
				if jr == nil || !jr.Passed || len(jr.Violations) != 4 {
					t.Errorf("judge %+v; want it passed, with its 4 protocol violations", jr)
				}
			}
		})
	}
}
