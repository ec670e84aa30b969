package output_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
	"github.com/google/go-cmp/cmp"
)

// TestGitHubAnnotations checks the ::error commands: one per scenario that
// did not pass, with GitHub's escaping of properties and messages.
func TestGitHubAnnotations(t *testing.T) {
	tests := []struct {
		name string
		rep  runner.Report
		want []string
	}{
		{
			name: "sample",
			rep:  sampleReport(),
			want: []string{
				"::error file=examples/basic.yaml,line=20,title=acprun%3A refuses <politely> [claude] #2 failed::" +
					"stop reasons: end_turn, cancelled after turnTimeout, skipped%0Aturn 1: text does not contain \"hello\" | \"bye\"%0A" +
					"  turn 1 text (1 line):%0A  | goodbye%0Aturn 2: stopReason is cancelled, want end_turn%0A  turn 2 text: none",
				"::error file=examples/stops.yaml,line=1,title=acprun%3A crash errored::" +
					"turn 1: the agent exited with code 2%0Astop reasons: agent_exited, skipped" +
					"%0Aagent stderr (last 4 lines):%0A| panic: boom%0A| %0A| goroutine 1 [running]:%0A| main.main()",
				"::error file=examples/stops.yaml,line=14,title=acprun%3A no agent%2C 100%25 broken errored::" +
					"start agent: fork/exec /nonexistent/agent: no such file or directory%0Astop reasons: skipped",
			},
		},
		{
			name: "escaping",
			rep: runner.Report{Scenarios: []runner.Result{result(runner.Result{
				Name: "a,b:c%d", File: "dir,x/y:z.yaml", Line: 7, Status: runner.StatusFailed,
				Failures: []string{"50% done\r\nnext: line", "::warning::injected"},
				Turns:    []runner.TurnResult{{Index: 1, StopReason: "end_turn"}},
			})}},
			want: []string{
				"::error file=dir%2Cx/y%3Az.yaml,line=7,title=acprun%3A a%2Cb%3Ac%25d failed::" +
					"stop reasons: end_turn%0A50%25 done%0D%0Anext: line%0A::warning::injected",
			},
		},
		{
			name: "all passed",
			rep:  runner.Report{Scenarios: sampleReport().Scenarios[:1]},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := output.GitHub(&buf, "", tt.rep); err != nil {
				t.Fatalf("GitHub: %v", err)
			}
			var got []string
			if s := strings.TrimSuffix(buf.String(), "\n"); s != "" {
				got = strings.Split(s, "\n")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGitHubStepSummary checks that the Markdown table is appended to the
// step summary file, keeping what earlier steps wrote, and compares it with
// testdata/github-summary-*.golden.
func TestGitHubStepSummary(t *testing.T) {
	for name, rep := range reports() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "step_summary.md")
			const earlier = "# Earlier step\n\n"
			if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			if err := output.GitHub(&stdout, path, rep); err != nil {
				t.Fatalf("GitHub: %v", err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := strings.CutPrefix(string(data), earlier)
			if !ok {
				t.Fatalf("step summary lost what was there before:\n%s", data)
			}
			golden(t, "github-summary-"+name+".golden", []byte(got))
		})
	}
}

// TestMarkdownCells checks that a cell cannot break the table: pipes,
// newlines and HTML are escaped, and long text is cut.
func TestMarkdownCells(t *testing.T) {
	rep := runner.Report{Scenarios: []runner.Result{result(runner.Result{
		Name: "pipe | name", File: "a`b.yaml", Line: 1, Status: runner.StatusFailed,
		Failures: []string{"first <b>bold</b>\nsecond & third", strings.Repeat("x", 600)},
	})}}
	md := output.Markdown(rep)
	var row string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ❌") {
			row = l
		}
	}
	if row == "" {
		t.Fatalf("no row for the failed scenario in:\n%s", md)
	}
	for _, part := range []string{"| pipe \\| name |", "`a'b.yaml:1`", "first &lt;b&gt;bold&lt;/b&gt;<br>second &amp; third<br>xxx", "x…"} {
		if !strings.Contains(row, part) {
			t.Errorf("row %q does not contain %q", row, part)
		}
	}
	if n := strings.Count(row, "x"); n > 500 {
		t.Errorf("row has %d x's; want the cell cut at 500 characters", n)
	}
	if cells := strings.Count(strings.ReplaceAll(row, "\\|", ""), "|"); cells != 7 {
		t.Errorf("row has %d unescaped pipes; want 7 (6 cells): %q", cells, row)
	}
}
