package e2e_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// End-to-end tests of the negative text expectations: text.notContains
// and notMatches on a turn's reply, stdout.notContains and notMatches on
// a verify command's output.

// forbiddenScenario forbids TODO and any apology in the reply, and FAIL
// or a panic in verify's output.
const forbiddenScenario = `name: tidy
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
verify:
  - run: cat report.txt
    expect: {stdout: {contains: tests, notContains: FAIL, notMatches: "(?i)panic:"}}
turns:
  - prompt: tidy up
    expect:
      text: {contains: Done, notContains: [TODO, FIXME], notMatches: "(?i)\\b(sorry|apologi[sz]e)\\b"}
`

// TestForbiddenTextPasses: a reply and an output that hold none of the
// forbidden texts pass.
func TestForbiddenTextPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: \"Done. Every file is tidy, the apologetic comment is gone.\"}]\n",
		"s.yaml":          forbiddenScenario,
		"report.txt":      "all tests passed\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK || out.Scenarios[0].Status != "passed" {
		t.Fatalf("exit %d, status %s, want 0 and passed\n%s", res.code, out.Scenarios[0].Status, res.stderr)
	}
}

// TestForbiddenTextFails: each forbidden text found fails the scenario at
// the position of that value in the file, saying what was found, how
// often, and where the first is with the text around it; the summary
// shows the same.
func TestForbiddenTextFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: \"Done.\\nI left a TODO in a.go and a TODO in b.go.\\nSorry about that.\"}]\n",
		"s.yaml":          forbiddenScenario,
		"report.txt":      "ok   a 0.1s\nFAIL b 0.2s\nall tests ran\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	at := func(value string) string { // where value is in the file
		return lineCol("s.yaml", forbiddenScenario, strings.Index(forbiddenScenario, value))
	}
	want := []string{
		`turn 1: ` + at("TODO") + `: text contains "TODO" 2 times, first at line 2, column 10: "I left a TODO in a.go and a TODO in b.go."`,
		`turn 1: ` + at(`"(?i)\\b`) + `: text matches /(?i)\b(sorry|apologi[sz]e)\b/: "Sorry", at line 3, column 1: "Sorry about that."`,
		at("FAIL") + ": verify `cat report.txt`: stdout contains \"FAIL\", at line 2, column 1: \"FAIL b 0.2s\"; output ends:\nok   a 0.1s\nFAIL b 0.2s\nall tests ran",
	}
	if sc.Status != "failed" || !cmp.Equal(want, sc.Failures) {
		t.Errorf("status %s, failures (-want +got):\n%s", sc.Status, cmp.Diff(want, sc.Failures))
	}
	for _, f := range want[:2] {
		if msg := strings.TrimPrefix(f, "turn 1: "); !strings.Contains(res.stderr, msg) {
			t.Errorf("the summary lacks %q:\n%s", msg, res.stderr)
		}
	}
}

// TestForbiddenTextBadValues: a forbidden text that could never be met is
// an error at its value, before anything runs.
func TestForbiddenTextBadValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: bad
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: hi
    expect: {text: {contains: "all done", notContains: done, notMatches: ".*"}}
`,
	})
	res := acprun(t, dir, "validate", "s.yaml")
	for _, w := range []string{
		`s.yaml:5:56: contains requires "all done" (line 5), which holds "done": no reply can meet both`,
		`s.yaml:5:74: notMatches /.*/ matches every reply (even an empty one), so it could never hold`,
	} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("validate lacks %q:\n%s", w, res.stderr)
		}
	}
	if res.code != exitUsage {
		t.Errorf("validate: exit %d, want 2", res.code)
	}
}

// TestForbiddenShortReply: a notMatches that only some replies match (one
// of 10 characters or fewer) is taken, not refused as matching every
// reply: a long reply passes, a short one fails at the pattern.
func TestForbiddenShortReply(t *testing.T) {
	t.Parallel()
	const scenario = `name: not-too-short
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: Refactor the parser.
    expect:
      text: {notMatches: '(?s)^.{0,10}$'}
`
	for _, tt := range []struct{ reply, failure string }{
		{"I refactored the parser and all tests pass now.", ""},
		{"Done.", `turn 1: s.yaml:7:26: text matches /(?s)^.{0,10}$/: "Done.", at line 1, column 1: "Done."`},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"agent.mock.yaml": "turns:\n  - steps: [{text: \"" + tt.reply + "\"}]\n",
			"s.yaml":          scenario,
		})
		res, out := runResults(t, dir, "s.yaml")
		want, wantCode := []string(nil), exitOK
		if tt.failure != "" {
			want, wantCode = []string{tt.failure}, exitFailed
		}
		if res.code != wantCode || !cmp.Equal(want, out.Scenarios[0].Failures) {
			t.Errorf("reply %q: exit %d, failures %q; want exit %d, failures %q\n%s", tt.reply, res.code, out.Scenarios[0].Failures, wantCode, want, res.stderr)
		}
	}
}

// TestForbiddenInLongOutput: a verify command's stdout notContains and
// notMatches look at all it printed, as contains and matches do, not
// only at the last 64 KiB the results keep: a long output (go test -v)
// that holds none of what they forbid passes (it failed, "cannot check
// notContains"), and one that printed it before the part kept fails,
// saying so at the check.
func TestForbiddenInLongOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const long = `head -c 100000 /dev/zero | tr '\\0' o; echo; echo ok`
	scenarios := `name: clean
agent: {command: [acprun, mock-agent, n.mock.yaml]}
permissions: {default: deny}
verify:
  - run: "` + long + `"
    expect: {stdout: {contains: ok, notContains: FAIL, notMatches: "(?i)panic:"}}
turns:
  - prompt: hi
---
name: failed-early
agent: {command: [acprun, mock-agent, n.mock.yaml]}
permissions: {default: deny}
verify:
  - run: "echo FAIL a; echo 'panic: b'; ` + long + `"
    expect: {stdout: {notContains: FAIL, notMatches: "(?i)panic:"}}
turns:
  - prompt: hi
`
	writeFiles(t, dir, map[string]string{"n.mock.yaml": "turns:\n  - steps: [{text: done}]\n", "s.yaml": scenarios})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitFailed {
		t.Errorf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	if clean := scenarioNamed(t, out, "clean"); clean.Status != "passed" {
		t.Errorf("clean: %s %q, want passed", clean.Status, clean.Failures)
	}
	early := scenarioNamed(t, out, "failed-early")
	run := "verify `echo FAIL a; echo 'panic: b'; " + strings.ReplaceAll(long, `\\`, `\`) + "`: stdout "
	kept := " not in the part kept (acprun keeps the last 65536 of its 100020 bytes); output ends:\n"
	wants := []string{
		posAfter(t, "s.yaml", scenarios, "name: failed-early", "FAIL,") + ": " + run + `contains "FAIL",` + kept,
		posAfter(t, "s.yaml", scenarios, "name: failed-early", `"(?i)`) + ": " + run + "matches /(?i)panic:/," + kept,
	}
	if len(early.Failures) != len(wants) {
		t.Fatalf("failed-early: failures %q, want %d", early.Failures, len(wants))
	}
	for i, want := range wants {
		if !strings.HasPrefix(early.Failures[i], want) {
			t.Errorf("failed-early: failure %d = %q, want it to begin %q", i, early.Failures[i], want)
		}
	}
}
