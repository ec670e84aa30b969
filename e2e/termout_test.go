package e2e_test

import (
	"slices"
	"strings"
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
