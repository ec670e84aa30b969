package output

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
)

// numbered is n lines "line 1"…"line n", joined by line breaks.
func numbered(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	return lines
}

// TestHeadTail: a text of up to head+tail+1 lines is kept whole (a marker
// would stand for one line only); a longer one keeps its first and last
// lines around a count of the others.
func TestHeadTail(t *testing.T) {
	if got := headTail(numbered(9), 4, 4); !cmp.Equal(got, numbered(9)) {
		t.Errorf("9 lines: %q, want all of them", got)
	}
	want := []string{"line 1", "line 2", "line 3", "line 4", "… 4 more lines …", "line 9", "line 10", "line 11", "line 12"}
	if diff := cmp.Diff(want, headTail(numbered(12), 4, 4)); diff != "" {
		t.Errorf("12 lines (-want +got):\n%s", diff)
	}
}

// TestExcerptLine: what the agent wrote cannot move the cursor or colour
// the terminal, and a long line is cut.
func TestExcerptLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttabbed", "plain\ttabbed"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bell\a and \x7f and \u009b", `bell\x07 and \x7f and \x9b`},
		{"bad \xff byte, kept \uFFFD", `bad \xff byte, kept ` + "\uFFFD"},
		{strings.Repeat("é", excerptWidth+50), strings.Repeat("é", excerptWidth) + "…"},
		{strings.Repeat("x", excerptWidth), strings.Repeat("x", excerptWidth)},
	}
	for _, tt := range tests {
		if got := excerptLine(tt.in); got != tt.want {
			t.Errorf("excerptLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestReasons: a turn's excerpt follows the last of its failures, not
// each; failures of the scenario as a whole have none; the stderr tail
// follows an error or a turn the agent ended badly, capped to its last
// lines, and never a plain failed expectation.
func TestReasons(t *testing.T) {
	stderr := strings.Join(numbered(15), "\n") + "\n"
	tests := []struct {
		name string
		r    report.Result
		want []string
	}{
		{
			name: "two failures of one turn, one of the scenario",
			r: report.Result{
				Status:     report.StatusFailed,
				StderrTail: stderr, // not shown: the agent did nothing wrong
				Failures:   []string{"turn 1: a", "turn 1: b", "turn 2: c", "tool calls: d"},
				Turns: []report.TurnResult{
					{Index: 1, Text: "one\ntwo\n", Failures: []string{"a", "b"}},
					{Index: 2, TextOmitted: true, Failures: []string{"c"}},
				},
			},
			want: []string{"turn 1: a", "turn 1: b", "  turn 1 text (2 lines):", "  | one", "  | two",
				"turn 2: c", "  turn 2 text: not kept (--no-text)", "tool calls: d"},
		},
		{
			name: "error with a long stderr",
			r: report.Result{
				Status: report.StatusError, Error: "turn 1: the agent exited with code 2", StderrTail: stderr,
				Turns: []report.TurnResult{{Index: 1, StopReason: report.OutcomeAgentExited}},
			},
			want: append([]string{"turn 1: the agent exited with code 2", "agent stderr (last 10 lines):", "| … 5 earlier lines …"},
				quote(numbered(15)[5:])...),
		},
		{
			name: "failed with a turn answered by an error",
			r: report.Result{
				Status: report.StatusFailed, StderrTail: "boom\n", Failures: []string{"turn 1: stopReason error, want end_turn"},
				Turns: []report.TurnResult{{Index: 1, StopReason: report.OutcomeError, Failures: []string{"stopReason error, want end_turn"}}},
			},
			want: []string{"turn 1: stopReason error, want end_turn", "  turn 1 text: none", "agent stderr (last 1 line):", "| boom"},
		},
		{name: "passed", r: report.Result{Status: report.StatusPassed, StderrTail: stderr}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, reasonLines(reasons(tt.r))); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPassRateColumns: a named agent's column is its name; with one, each
// command gets its own column, labelled by its program when that is
// unique, else by the command with the program's base name, else the
// whole command. Without named agents there is one "pass rate" column.
func TestPassRateColumns(t *testing.T) {
	rep := report.Report{}
	add := func(name, agent string, command ...string) {
		for attempt := 1; attempt <= 2; attempt++ {
			rep.Scenarios = append(rep.Scenarios, report.Result{Name: name, File: "s.yaml", Attempt: attempt,
				Agent: report.AgentInfo{Name: agent, Command: command}, Status: report.StatusPassed})
		}
	}
	add("a", "claude", "claude-code-acp")
	add("b", "", "/usr/bin/claude")                // its base name is the named agent's
	add("c", "", "/opt/claude")                    // …and so is this one's
	add("d", "", "acprun", "mock-agent", "x.yaml") // two acprun commands
	add("e", "", "acprun", "mock-agent", "y.yaml")
	add("f", "", "goose", "acp")
	add("g", "", "goose", "acp") // the same command: the same column
	rates := report.PassRates(rep)
	commands := map[passRateKey][]string{}
	for _, r := range rep.Scenarios {
		commands[passRateKey{r.File, r.Name, r.Agent.Name}] = r.Agent.Command
	}
	cols, _ := passRateColumns(rates, commands)
	var labels []string
	for _, c := range cols {
		labels = append(labels, c.label)
	}
	want := []string{"claude", "/usr/bin/claude", "/opt/claude", "acprun mock-agent x.yaml", "acprun mock-agent y.yaml", "goose"}
	if diff := cmp.Diff(want, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}

	commandsOnly := report.Report{Scenarios: rep.Scenarios[2:]}
	cols, _ = passRateColumns(report.PassRates(commandsOnly), commands)
	if len(cols) != 1 || cols[0].label != "pass rate" {
		t.Errorf("commands only: columns %+v, want one, \"pass rate\"", cols)
	}
}
