package output_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/acprun/acprun/report"
	"github.com/fatih/color"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ms is n milliseconds.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func intp(n int) *int { return &n }

// result completes r's DurationMs from Duration, for itself and its turns,
// as the runner does.
func result(r report.Result) report.Result {
	r.DurationMs = r.Duration.Milliseconds()
	for i := range r.Turns {
		r.Turns[i].DurationMs = r.Turns[i].Duration.Milliseconds()
	}
	return r
}

// sampleReport is a run with every kind of outcome. Its times are fixed
// and whole milliseconds, so they survive JSON.
func sampleReport() report.Report {
	return report.Report{
		SchemaVersion: report.SchemaVersion,
		StartedAt:     time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC),
		Duration:      ms(12_345),
		Scenarios: []report.Result{
			result(report.Result{
				Name:     "basic",
				File:     "examples/basic.yaml",
				Line:     3,
				Tags:     []string{"smoke"},
				Agent:    report.AgentInfo{Command: []string{"acprun", "mock-agent", "agents/basic.mock.yaml"}, InfoName: "basic-mock", InfoVersion: "1.0.0", ProtocolVersion: 1},
				Status:   report.StatusPassed,
				Duration: ms(1_234),
				Allowed:  1,
				Turns: []report.TurnResult{{
					Index: 1, Prompt: "What does main.go do?", StopReason: "end_turn", Duration: ms(1_100),
					Text:        "main.go prints hello.",
					ToolCalls:   []report.ToolCall{{ID: "toolu_01", Title: "Read main.go", Kind: "read", Status: "completed", Announced: true}},
					Permissions: []report.Permission{{ToolCallID: "toolu_01", Title: "Read main.go", Kind: "read", Decision: "allow", Rule: "allow[0]", OptionID: "allow", Outcome: "selected"}},
				}},
				Transcript: "transcripts/basic.jsonl",
				Workspace: &report.WorkspaceResult{
					Path: "/tmp/acprun-basic-456", Source: "/src/fixture", Kind: "copy",
					Created: []string{"done.txt"}, Modified: []string{}, Deleted: []string{},
				},
			}),
			result(report.Result{
				Name:     "refuses <politely>",
				File:     "examples/basic.yaml",
				Line:     20,
				Agent:    report.AgentInfo{Name: "claude", Command: []string{"claude-code-acp"}},
				Attempt:  2,
				Status:   report.StatusFailed,
				Duration: ms(65_432),
				Denied:   1,
				Failures: []string{
					`turn 1: text does not contain "hello" | "bye"`,
					"turn 2: stopReason is cancelled, want end_turn",
				},
				Warnings: []string{"mode \"plan\" not offered by the agent; not set"},
				Turns: []report.TurnResult{
					{Index: 1, Prompt: "say hello", StopReason: "end_turn", Duration: ms(2_000), Text: "goodbye", Failures: []string{`text does not contain "hello" | "bye"`}},
					{Index: 2, Prompt: "run the tests", StopReason: "cancelled", CancelCause: report.CauseTurnTimeout, Duration: ms(60_000), Failures: []string{"stopReason is cancelled, want end_turn"}},
					{Index: 3, Prompt: "and then?", StopReason: report.OutcomeSkipped},
				},
				StderrTail: "warn: \x1b[33mslow model\x1b[0m & <retrying>\n",
				Transcript: "transcripts/refuses.jsonl",
				Workspace: &report.WorkspaceResult{
					Path: "/tmp/acprun-refuses-politely-claude-2-123", Kept: true, Source: "/src/fixture", Kind: "copy",
					Created: []string{}, Modified: []string{"greeting.txt"}, Deleted: []string{},
				},
			}),
			result(report.Result{
				Name:       "crash",
				File:       "examples/stops.yaml",
				Line:       1,
				Agent:      report.AgentInfo{Command: []string{"acprun", "mock-agent", "agents/stops.mock.yaml"}},
				Status:     report.StatusError,
				Duration:   ms(321),
				Error:      "turn 1: the agent exited with code 2",
				ExitCode:   intp(2),
				StderrTail: "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n",
				Violations: []string{`line 3: not JSON: "Loading…"`},
				Turns: []report.TurnResult{
					{Index: 1, Prompt: "crash now", StopReason: report.OutcomeAgentExited, Duration: ms(300), Error: "the agent exited with code 2"},
					{Index: 2, Prompt: "still there?", StopReason: report.OutcomeSkipped},
				},
			}),
			result(report.Result{
				Name:        "no agent, 100% broken",
				File:        "examples/stops.yaml",
				Line:        14,
				Agent:       report.AgentInfo{Command: []string{"/nonexistent/agent"}},
				Status:      report.StatusError,
				StartFailed: true,
				Duration:    ms(5),
				Error:       "start agent: fork/exec /nonexistent/agent: no such file or directory",
				Turns: []report.TurnResult{
					{Index: 1, Prompt: "hi", StopReason: report.OutcomeSkipped},
				},
			}),
		},
	}
}

// noColor turns colour off for the test.
func noColor(t *testing.T) {
	t.Helper()
	old := color.NoColor
	color.NoColor = true
	t.Cleanup(func() { color.NoColor = old })
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, cmp.Diff(string(want), string(got)))
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
