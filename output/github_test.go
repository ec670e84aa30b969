package output_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/google/go-cmp/cmp"
)

// TestGitHubAnnotations checks the workflow commands: an ::error per failed
// expectation at its own file:line:col (the scenario's file:line when it
// has none), one per scenario error, a ::warning per warning, and GitHub's
// escaping of properties and messages.
func TestGitHubAnnotations(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "") // the files as they are, even when the tests run in GitHub Actions
	tests := []struct {
		name string
		rep  report.Report
		want []string
	}{
		{
			name: "sample",
			rep:  reporttest.Sample(),
			want: []string{
				"::error file=examples/basic.yaml,line=20,title=acprun%3A refuses <politely> [claude] #2 failed::" +
					"turn 1: text does not contain \"hello\" | \"bye\"%0A  turn 1 text (1 line):%0A  | goodbye",
				"::error file=examples/basic.yaml,line=20,title=acprun%3A refuses <politely> [claude] #2 failed::" +
					"turn 2: stopReason is cancelled, want end_turn%0A  turn 2 text: none",
				"::error file=examples/stops.yaml,line=1,title=acprun%3A crash errored::" +
					"turn 1: the agent exited with code 2%0Astop reasons: agent_exited, skipped" +
					"%0Aagent stderr (last 4 lines):%0A| panic: boom%0A| %0A| goroutine 1 [running]:%0A| main.main()",
				"::error file=examples/stops.yaml,line=14,title=acprun%3A no agent%2C 100%25 broken errored::" +
					"start agent: fork/exec /nonexistent/agent: no such file or directory%0Astop reasons: no turn ran",
				"::warning file=examples/basic.yaml,line=20,title=acprun%3A refuses <politely> [claude] #2::" +
					"mode \"plan\" not offered by the agent; not set",
			},
		},
		{
			name: "positions",
			rep: report.Report{Scenarios: []report.Result{reporttest.Complete(report.Result{
				Name: "pos", File: "s.yaml", Line: 3, Status: report.StatusFailed,
				Failures: []string{
					`turn 2: s.yaml:9:7: text does not contain "banana"`,
					"s.yaml:14:5: toolCalls.used: no tool call matches \"edit\" (none)",
					"acprun.yaml:4:3: 2 permission requests denied, want 0",
					"--prompt p.txt: something without a line",
				},
				Warnings: []string{"turn 1: s.yaml:8:5: teardown `x` exited with code 1, want 0", "client roots: none"},
				Turns:    []report.TurnResult{{Index: 1, StopReason: "end_turn"}, {Index: 2, StopReason: "end_turn"}},
			})}},
			want: []string{
				`::error file=s.yaml,line=9,col=7,title=acprun%3A pos failed::turn 2: text does not contain "banana"%0A  turn 2 text: none`,
				`::error file=s.yaml,line=14,col=5,title=acprun%3A pos failed::toolCalls.used: no tool call matches "edit" (none)`,
				`::error file=acprun.yaml,line=4,col=3,title=acprun%3A pos failed::2 permission requests denied, want 0`,
				`::error file=s.yaml,line=3,title=acprun%3A pos failed::--prompt p.txt: something without a line`,
				"::warning file=s.yaml,line=8,col=5,title=acprun%3A pos::turn 1: teardown `x` exited with code 1, want 0",
				`::warning file=s.yaml,line=3,title=acprun%3A pos::client roots: none`,
			},
		},
		{
			name: "escaping",
			rep: report.Report{Scenarios: []report.Result{reporttest.Complete(report.Result{
				Name: "a,b:c%d", File: "dir,x/y:z.yaml", Line: 7, Status: report.StatusFailed,
				Failures: []string{"50% done\r\nnext: line", "::warning::injected", "dir,x/y:z.yaml:8:2: 100% wrong"},
				Turns:    []report.TurnResult{{Index: 1, StopReason: "end_turn"}},
			})}},
			want: []string{
				"::error file=dir%2Cx/y%3Az.yaml,line=7,title=acprun%3A a%2Cb%3Ac%25d failed::50%25 done%0A  | next: line",
				"::error file=dir%2Cx/y%3Az.yaml,line=7,title=acprun%3A a%2Cb%3Ac%25d failed::::warning::injected",
				"::error file=dir%2Cx/y%3Az.yaml,line=8,col=2,title=acprun%3A a%2Cb%3Ac%25d failed::100%25 wrong",
			},
		},
		{
			// Cut short: no verdict, so a warning at the scenario saying
			// what cut it, and no error for its failures; not run: nothing.
			name: "interrupted",
			rep:  notRunReport(),
			want: []string{
				"::warning file=s.yaml,line=6,title=acprun%3A second interrupted::acprun was interrupted during turn 1%0Astop reasons: cancelled after interrupt",
			},
		},
		{
			name: "all passed",
			rep:  report.Report{Scenarios: reporttest.Sample().Scenarios[:1]},
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

// TestGitHubAnnotationsInWorkspace: under $GITHUB_WORKSPACE, files are
// named relative to it (acprun may run in a subdirectory of the checkout);
// files outside it are left as they are.
func TestGitHubAnnotationsInWorkspace(t *testing.T) {
	ws := t.TempDir()
	sub := filepath.Join(ws, "tests", "suite")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(ws, "tests"))
	t.Setenv("GITHUB_WORKSPACE", ws)
	rep := report.Report{Scenarios: []report.Result{reporttest.Complete(report.Result{
		Name: "w", File: "suite/a.yaml", Line: 2, Status: report.StatusFailed,
		Failures: []string{"turn 1: suite/a.yaml:6:9: text does not contain \"x\"", "/elsewhere/acprun.yaml:3:1: 1 permission request denied, want 0"},
	})}}
	var buf bytes.Buffer
	if err := output.GitHub(&buf, "", rep); err != nil {
		t.Fatalf("GitHub: %v", err)
	}
	want := "::error file=tests/suite/a.yaml,line=6,col=9,title=acprun%3A w failed::turn 1: text does not contain \"x\"\n" +
		"::error file=/elsewhere/acprun.yaml,line=3,col=1,title=acprun%3A w failed::1 permission request denied, want 0\n"
	if got := buf.String(); got != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", got, want)
	}
}

// TestGitHubAnnotationCap checks that no more annotations are written than
// GitHub shows for one step (10 of each level), and that a notice says how
// many were left out.
func TestGitHubAnnotationCap(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "")
	var fails, warns []string
	for i := range 12 {
		fails = append(fails, fmt.Sprintf("s.yaml:%d:3: failure %d", i+10, i))
		warns = append(warns, fmt.Sprintf("warning %d", i))
	}
	rep := report.Report{Scenarios: []report.Result{reporttest.Complete(report.Result{
		Name: "many", File: "s.yaml", Line: 1, Status: report.StatusFailed, Failures: fails, Warnings: warns[:11],
	})}}
	var buf bytes.Buffer
	if err := output.GitHub(&buf, "", rep); err != nil {
		t.Fatalf("GitHub: %v", err)
	}
	got := buf.String()
	for level, want := range map[string]int{"::error ": 10, "::warning ": 10, "::notice ": 2} {
		if n := strings.Count(got, "\n"+level) + boolInt(strings.HasPrefix(got, level)); n != want {
			t.Errorf("%d %s commands, want %d:\n%s", n, level, want, got)
		}
	}
	for _, part := range []string{
		"line=19,col=3,title=acprun%3A many failed::failure 9\n::notice ",
		"::notice title=acprun%3A more failures and errors::2 more failures and errors not annotated (GitHub shows 10 error annotations per step)",
		"::notice title=acprun%3A more warnings::1 more warning not annotated",
	} {
		if !strings.Contains(got, part) {
			t.Errorf("annotations lack %q:\n%s", part, got)
		}
	}
	if strings.Contains(got, "failure 10") || strings.Contains(got, "warning 10") {
		t.Errorf("annotations past the cap:\n%s", got)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
			testkit.Golden(t, filepath.Join("testdata", "github-summary-"+name+".golden"), []byte(got))
		})
	}
}

// TestMarkdownCells checks that a cell cannot break the table: pipes,
// newlines and HTML are escaped, and long text is cut.
func TestMarkdownCells(t *testing.T) {
	rep := report.Report{Scenarios: []report.Result{reporttest.Complete(report.Result{
		Name: "pipe | name", File: "a`b.yaml", Line: 1, Status: report.StatusFailed,
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

// TestMarkdownCellsShowNoMarkup: an agent's text in a cell renders as
// the text itself (GitHub Flavored Markdown): it makes no image fetched
// from a URL it chose and no link, escaped or not, nor an autolink of
// the GFM extension (http://, https://, ftp://, www., an email address),
// nor emphasis, strikethrough, a code span or math; a backslash of its
// own stays one. "_" between letters or digits, which emphasizes
// nothing, is left as it is.
func TestMarkdownCellsShowNoMarkup(t *testing.T) {
	rep := report.Report{Scenarios: []report.Result{reporttest.Complete(report.Result{
		Name: "s", File: "a.yaml", Line: 1, Status: report.StatusFailed,
		Failures: []string{
			"![✅ passed](https://example.com/b.svg) see [the fix](https://example.com/p) or \\[x\\](https://example.com/q)",
			"go to http://evil.example/x, ftp://e.example, www.evil.example, WWW.Evil.example or mailto:a.b@evil.example",
			"*em* **strong** _u_ __v__ snake_case ~~s~~ ~t~ `code` $x^2$ \\x \\* \\| a\\",
		},
	})}}
	md := output.Markdown(rep)
	for _, want := range []string{
		`!&#91;✅ passed&#93;(https&#58;//example.com/b.svg) see &#91;the fix&#93;(https&#58;//example.com/p) or \\&#91;x\\&#93;(https&#58;//example.com/q)<br>`,
		`go to http&#58;//evil.example/x, ftp&#58;//e.example, www&#46;evil.example, WWW&#46;Evil.example or mailto:a.b@<!---->evil.example<br>`,
		"\\*em\\* \\*\\*strong\\*\\* \\_u\\_ \\_\\_v\\_\\_ snake_case \\~\\~s\\~\\~ \\~t\\~ \\`code\\` \\$x^2\\$ \\x \\\\\\* \\\\\\| a\\\\ |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the step summary does not hold %s:\n%s", want, md)
		}
	}
}
