package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestPrintReply: --print writes the text of the last turn of the try
// that counts, newline-ended, and nothing when that turn did not run or
// said nothing.
func TestPrintReply(t *testing.T) {
	turn := func(stop, text string) report.TurnResult { return report.TurnResult{StopReason: stop, Text: text} }
	tests := []struct {
		name string
		rs   []report.Result
		want string
	}{
		{"last turn", []report.Result{{Turns: []report.TurnResult{turn("end_turn", "first"), turn("end_turn", "second\n")}}}, "second\n"},
		{"newline added", []report.Result{{Turns: []report.TurnResult{turn("end_turn", "a reply")}}}, "a reply\n"},
		{"cut short, said", []report.Result{{Turns: []report.TurnResult{turn("cancelled", "half a")}}}, "half a\n"},
		{"last turn skipped", []report.Result{{Turns: []report.TurnResult{turn("refusal", "no"), turn(report.OutcomeSkipped, "")}}}, ""},
		{"said nothing", []report.Result{{Turns: []report.TurnResult{turn("end_turn", "")}}}, ""},
		{"not run", []report.Result{{NotRun: true, Turns: []report.TurnResult{turn(report.OutcomeSkipped, "")}}}, ""},
		{"retried", []report.Result{
			{Retried: true, Turns: []report.TurnResult{turn("error", "the first try")}},
			{Retry: 1, Turns: []report.TurnResult{turn("end_turn", "the retry")}},
		}, "the retry\n"},
		{"nothing ran", nil, ""},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := printReply(&out, report.Report{Scenarios: tt.rs}, replyBytes); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%s: printed %q, want %q", tt.name, out.String(), tt.want)
		}
	}
}

// TestRunUsageErrors: flags of one-shot runs, --print and rules that
// cannot work are usage errors (exit 2) that say what to do, found before
// any agent starts or stdin is read.
func TestRunUsageErrors(t *testing.T) {
	dir := t.TempDir()
	scenarioFile := filepath.Join(dir, "s.yaml")
	config := filepath.Join(dir, "acprun.yaml") // none of the working directory's
	if err := os.WriteFile(config, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenarioFile, []byte("name: s\nagent: {command: [true]}\nturns: [{prompt: x}]\n---\nname: t\nagent: {command: [true]}\nturns: [{prompt: y}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "nothing to run: give scenario files or directories (acprun run suite/), or a prompt for an agent (acprun run --agent claude --prompt TEXT)"},
		{[]string{"run", "--prompt", "hi"}, "no agent to send the prompt to: name one with --agent NAME"},
		{[]string{"run", "--agent", "claud", "--prompt", "hi"}, `--agent claud: unknown agent "claud" (did you mean "claude"?)`},
		{[]string{"run", "--agent", "claude", "--prompt", "  "}, "--prompt '  ': the text is empty"},
		{[]string{"run", "--agent", "claude", "--prompt", ""}, `--prompt "": the prompt is empty (is the variable that gives it unset?): give its text, or - to read it from stdin`},
		{[]string{"run", scenarioFile, "--prompt", ""}, `--prompt "": the path is empty (is the variable that gives it unset?): give a file (or - for stdin), or leave the flag out`},
		{[]string{"run", "--agent", "claude", "--prompt", "-", "--prompt", "-"}, "--prompt - reads stdin, which holds one prompt: give - to one --prompt only"},
		{[]string{"run", "--agent", "claude", "--prompt", "hi", "--print", "-o", "-"}, "--print writes the agent's reply to stdout, and -o - would write there too: give -o a file"},
		{[]string{"run", "--agent", "claude", "--prompt", "hi", "--print", "--dry-run"}, "--dry-run prints the plan on stdout"},
		{[]string{"run", "--agent", "claude", "--prompt", "hi", "--print", "--no-text"}, "--print prints the reply's text, which --no-text does not keep"},
		{[]string{"run", "--agent", "claude", "--agent", "codex", "--prompt", "hi", "--print"}, "--print prints the reply of one run of one scenario, and this run has 2 scenarios (scenario × agent)"},
		{[]string{"run", "--agent", "claude", "--prompt", "hi", "--print", "--repeat", "3"}, "this run has --repeat 3"},
		{[]string{"run", scenarioFile, "--print"}, "this run has 2 scenarios"},
		{[]string{"run", scenarioFile, "-q", "-v"}, "-v (--verbose) streams what the agents do on stderr, and -q prints nothing there but the summary: leave one of them out"},
		{[]string{"run", scenarioFile, "--format", "quiet", "--verbose"}, "and --format quiet prints nothing there but the summary"},
		{[]string{"run", "--agent", "claude", "--prompt", "hi", "--allow", "exec:go test *"}, `--allow 'exec:go test *': "exec" is neither a tool kind`},
		{[]string{"run", "--agent", "claude", "--prompt", "hi", "--deny", "fetch:x"}, "--deny fetch:x: a pattern follows only execute (a command)"},
		{[]string{"run", scenarioFile, "--run", "^s$", "--prompt", "fix the tests"}, "--prompt 'fix the tests': the file does not exist (with a scenario file, --prompt takes a file holding the prompt, or - to read it from stdin; the text itself only without one: acprun run --agent NAME --prompt TEXT)"},
		{[]string{"explain", "--scenario", "s", "--kind", "read"}, "--scenario picks a scenario of the scenario file: give the file"},
		{[]string{"explain", "--allow", "exec", "--kind", "read"}, `--allow exec: "exec" is neither a tool kind`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		stdin := strings.NewReader("a prompt\n")
		code := run(append(tt.args, "--config", config), stdin, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
		if stdout.Len() > 0 || stdin.Len() == 0 {
			t.Errorf("%q: printed %q or read stdin", tt.args, stdout.String())
		}
	}
}

// TestReadPrompt: a --prompt value is text without a scenario file and a
// file with one; - is stdin either way.
func TestReadPrompt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.md")
	if err := os.WriteFile(file, []byte("from the file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	utf16File := filepath.Join(dir, "p16.md") // as PowerShell's > saves it
	if err := os.WriteFile(utf16File, []byte("\xff\xfef\x00r\x00o\x00m\x00 \x00U\x00T\x00F\x00-\x001\x006\x00\n\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	g := &globals{Stdin: strings.NewReader("from stdin\n"), Stderr: &stderr}
	oneShot, withFile := &runCmd{}, &runCmd{Paths: []string{"s.yaml"}}
	tests := []struct {
		c     *runCmd
		value string
		want  scenario.Prompt
	}{
		{oneShot, "Fix the tests", scenario.Prompt{Text: "Fix the tests", Pos: scenario.OneShotPos}},
		{oneShot, file, scenario.Prompt{Text: file, Pos: scenario.OneShotPos}},
		{withFile, file, scenario.Prompt{Text: "from the file\n", Pos: scenario.Pos{File: "--prompt " + file}}},
		{withFile, utf16File, scenario.Prompt{Text: "from UTF-16\n", Pos: scenario.Pos{File: "--prompt " + utf16File}}},
		{oneShot, "-", scenario.Prompt{Text: "from stdin\n", Pos: scenario.Pos{File: "--prompt -"}}},
	}
	for _, tt := range tests {
		got, err := tt.c.readPrompt(t.Context(), g, tt.value)
		if err != nil || got != tt.want {
			t.Errorf("paths %v, --prompt %q: %+v, %v; want %+v", tt.c.Paths, tt.value, got, err, tt.want)
		}
	}
	// The text of a one-shot run that names a file is sent as text, with a
	// warning that says how to send the file.
	if want := "acprun: warning: --prompt " + file + " is sent as the prompt's text, though a file has that name: to send the file, give --prompt - < " + file; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
