package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/vt"
)

// evilReplyMock replies with what would drive a terminal that printed it:
// an OSC that retitles it, a CSI that clears it, an OSC 52 that writes
// its clipboard, a bidi override; and a tab and a second line.
const evilReplyMock = `turns: [{steps: [{text: "reply \e]0;PWNED\a \e[2J\e]52;c;ZXZpbA==\a \u202eRTL\n\tsecond line"}]}]` + "\n"

// TestPrintEscapedOnATerminal: run --print writes the agent's reply to a
// stdout that is a terminal with its control characters escaped (\x1b,
// \x07, \u202e), its lines and tab kept, so that the reply neither
// retitles nor clears the terminal nor writes its clipboard; to a pipe or
// a file (> review.md) it writes the reply's bytes as they are.
func TestPrintEscapedOnATerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  evil: {command: [acprun, mock-agent, e.mock.yaml]}\n",
		"e.mock.yaml": evilReplyMock,
	})
	args := []string{"run", "--agent", "evil", "--prompt", "hi", "--print", "-q", "-o", "r.json"}
	r := startOn(t, dir, vt.New(200, 30), true, args...)
	if code := r.wait(); code != exitOK {
		t.Fatalf("exit %d; screen:\n%s", code, strings.Join(r.scr.Lines(), "\n"))
	}
	lines := r.scr.Lines()
	want := []string{`reply \x1b]0;PWNED\x07 \x1b[2J\x1b]52;c;ZXZpbA==\x07 \u202eRTL`, "\tsecond line"}
	if i := slices.Index(lines, want[0]); i < 0 || i+1 >= len(lines) || strings.TrimLeft(lines[i+1], " ") != "second line" {
		t.Errorf("the terminal does not show the reply escaped, %q; it shows:\n%s", want, strings.Join(lines, "\n"))
	}
	// A tab is the terminal's own (the emulator lists it, as it moves no cursor).
	if u := slices.DeleteFunc(r.scr.Unknown(), func(s string) bool { return s == `"\t"` }); len(u) > 0 {
		t.Errorf("the reply reached the terminal as control sequences: %q", u)
	}
	if strings.Contains(strings.Join(lines, "\n"), "\u202e") {
		t.Errorf("the terminal shows a raw bidi override:\n%s", strings.Join(lines, "\n"))
	}

	res := acprun(t, dir, args...) // stdout a pipe
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if want := "reply \x1b]0;PWNED\a \x1b[2J\x1b]52;c;ZXZpbA==\a \u202eRTL\n\tsecond line\n"; res.stdout != want {
		t.Errorf("stdout, a pipe: %q; want the reply's bytes as they are, %q", res.stdout, want)
	}
}

// TestAgentsEscaped: acprun agents shows a config agent's command and
// description, which hold an OSC that would retitle the terminal, a CSI
// that would clear it and a right-to-left override, with those escaped
// (\x1b, \x07, \u202e), as run --dry-run shows the command: no raw
// control or bidi character reaches stdout.
func TestAgentsEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": `agents:
  evil:
    command: [sh, -c, "exec acprun mock-agent x.mock.yaml # \e]0;T\a"]
    description: "an agent \e]0;D\a \e[2J \u202eRTL"
`,
	})
	res := acprun(t, dir, "agents")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if strings.ContainsAny(res.stdout, "\x1b\a\u202e") {
		t.Errorf("stdout holds a raw control or bidi character:\n%q", res.stdout)
	}
	want := `evil sh -c 'exec acprun mock-agent x.mock.yaml # \x1b]0;T\x07' - - acprun.yaml an agent \x1b]0;D\x07 \x1b[2J \u202eRTL`
	if !slices.Contains(squashLines(res.stdout), want) {
		t.Errorf("stdout lacks the line %q:\n%s", want, res.stdout)
	}
}

// TestStepSummaryShowsAgentTextAsText: an error message an agent sent,
// with URLs, an email address, emphasis, strikethrough and a code span,
// is written in the GitHub step summary so that it renders as the text
// itself: the ':' of "://" and the '.' of "www." as character references,
// an empty comment after '@' (no autolink of GitHub Flavored Markdown),
// the emphasis and code marks escaped with a backslash.
func TestStepSummaryShowsAgentTextAsText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": `turns: [{error: {code: -32000, message: "log in at https://evil.example/x or www.evil.example, mail a@evil.example *now*, ~~not~~ ` + "`later`" + `"}}]` + "\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	summary := filepath.Join(dir, "summary.md")
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_WORKSPACE="}, "run", "s.yaml", "-o", "out.json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, exitFailed, res.stderr)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	want := "log in at https&#58;//evil.example/x or www&#46;evil.example, mail a@<!---->evil.example \\*now\\*, \\~\\~not\\~\\~ \\`later\\`"
	if !strings.Contains(string(md), want) {
		t.Errorf("the step summary lacks %s:\n%s", want, md)
	}
	for _, raw := range []string{"://", "www.", "a@evil", "*now*", "~~not~~", "`later`"} {
		if strings.Contains(string(md), raw) {
			t.Errorf("the step summary holds %q as the agent sent it:\n%s", raw, md)
		}
	}
}

// TestTTYThirdInterruptClearsTheLiveArea: a third interrupt, while a
// teardown command holds the run up (it still runs after the second),
// exits at once with 130 and says so on a line of its own, after the
// live area has been erased from the terminal: no running scenario nor
// bar is left on it, and the notes of the first two interrupts stay.
func TestTTYThirdInterruptClearsTheLiveArea(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n",
		"s.yaml": `name: held
agent: {command: [acprun, mock-agent, m.mock.yaml]}
permissions: {default: deny}
teardown: ["cat gate"]
turns: [{prompt: hi}]
`,
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "gate"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := startTTY(t, dir, 200, 20, "run", "s.yaml", "-o", "out.json")
	r.waitScreen("the scenario in its turn", `^  held  turn 1/1  \d+s\n\[ +\] 0/1  1 running  \d+s\z`)
	for n, note := range []string{`^acprun: interrupted: cancelling`, `^acprun: interrupted again: stopping the agents at once; the teardown commands still run`} {
		sig := []os.Signal{os.Interrupt, syscall.SIGTERM}[n]
		if err := r.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		r.waitScreen("the note of interrupt "+string(rune('1'+n))+" above the live area", note, `\[ +\] 0/1  1 running  \d+s\z`)
	}
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(); code != exitInterrupted {
		t.Errorf("exit %d; want %d", code, exitInterrupted)
	}
	lines := r.scr.Lines()
	screen := strings.Join(lines, "\n")
	if re := regexp.MustCompile(`(?m)running  \d+s|turn \d/\d  \d+s|^\[[ =>]*\]`); re.MatchString(screen) {
		t.Errorf("the live area was left on the terminal (%q):\n%s", re.FindString(screen), screen)
	}
	const last = "acprun: interrupted a third time: exiting at once; the outputs not written yet are lost"
	if !slices.Contains(lines, last) {
		t.Errorf("no line %q on the terminal:\n%s", last, screen)
	}
	if !strings.HasPrefix(screen, "acprun: interrupted: cancelling") {
		t.Errorf("the terminal does not start with the first interrupt's note:\n%s", screen)
	}
}
