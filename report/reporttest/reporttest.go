// Package reporttest holds sample reports for the tests of report and of
// the formats that print one: runs with every kind of outcome, of a matrix
// of agents, repeated, and retried.
package reporttest

import (
	"time"

	"github.com/acprun/acprun/report"
)

// ms is n milliseconds.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func intp(n int) *int { return &n }

// Sample is a run with every kind of outcome. Its times are fixed
// and whole milliseconds, so they survive JSON.
func Sample() report.Report {
	return report.Report{
		SchemaVersion: report.SchemaVersion,
		StartedAt:     time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC),
		Duration:      ms(12_345),
		Scenarios: []report.Result{
			Complete(report.Result{
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
			Complete(report.Result{
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
			Complete(report.Result{
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
			Complete(report.Result{
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

// Matrix is one scenario run twice (--repeat 2) against two named
// agents (--agent), plus one plain scenario: four results whose turns
// only their agent and attempt tell apart.
func Matrix() report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: Sample().StartedAt, Duration: ms(100)}
	for _, agent := range []string{"claude", "codex"} {
		for attempt := 1; attempt <= 2; attempt++ {
			rep.Scenarios = append(rep.Scenarios, Complete(report.Result{
				Name: "login", File: "login.yaml", Line: 1, Attempt: attempt,
				Agent:    report.AgentInfo{Name: agent, Command: []string{agent}},
				Status:   report.StatusPassed,
				Warnings: []string{"mode \"plan\" not offered by the agent; not set"},
				Turns:    []report.TurnResult{{Index: 1, Prompt: "log in", StopReason: "end_turn", Duration: ms(10)}},
			}))
		}
	}
	rep.Scenarios = append(rep.Scenarios, Complete(report.Result{
		Name: "plain", File: "plain.yaml", Line: 1,
		Agent:    report.AgentInfo{Command: []string{"agent"}},
		Status:   report.StatusPassed,
		Warnings: []string{"turn 1: the agent cannot take images; part 2 not sent", "protocol violation: line 3: not JSON"},
		Turns:    []report.TurnResult{{Index: 1, Prompt: "hi", StopReason: "end_turn", Duration: ms(10)}},
	}))
	return rep
}

// MatrixRefs is byStopReason of Matrix.
func MatrixRefs() map[string][]report.TurnRef {
	return map[string][]report.TurnRef{"end_turn": {
		{Scenario: "login", Agent: "claude", Attempt: 1, Turn: 1},
		{Scenario: "login", Agent: "claude", Attempt: 2, Turn: 1},
		{Scenario: "login", Agent: "codex", Attempt: 1, Turn: 1},
		{Scenario: "login", Agent: "codex", Attempt: 2, Turn: 1},
		{Scenario: "plain", Turn: 1},
	}}
}

// Repeat is a --repeat run against two named agents: login.yaml's
// "login" five times each (claude passes attempts 2 and 4, codex all),
// and another "login", in admin/login.yaml, twice against claude only,
// failing both times.
func Repeat() report.Report {
	rep := report.Report{SchemaVersion: report.SchemaVersion, StartedAt: Sample().StartedAt, Duration: ms(900)}
	add := func(file, agent string, attempt int, pass bool) {
		r := report.Result{
			Name: "login", File: file, Line: 1, Attempt: attempt,
			Agent:    report.AgentInfo{Name: agent, Command: []string{agent}},
			Status:   report.StatusPassed,
			Duration: ms(10),
			Turns:    []report.TurnResult{{Index: 1, Prompt: "log in", StopReason: "end_turn", Duration: ms(10)}},
		}
		if !pass {
			r.Status = report.StatusFailed
			r.Failures = []string{`turn 1: text does not contain "welcome"`}
			r.Turns[0].Failures = []string{`text does not contain "welcome"`}
		}
		rep.Scenarios = append(rep.Scenarios, Complete(r))
	}
	for _, agent := range []string{"claude", "codex"} {
		for attempt := 1; attempt <= 5; attempt++ {
			add("login.yaml", agent, attempt, agent == "codex" || attempt%2 == 0)
		}
	}
	for attempt := 1; attempt <= 2; attempt++ {
		add("admin/login.yaml", "claude", attempt, false)
	}
	return rep
}

// Retried is a scenario repeated twice whose first attempt passed on
// its second try, and a scenario that failed all its tries.
func Retried() report.Report {
	try := func(name string, attempt, retry int, status report.Status, retried bool) report.Result {
		r := report.Result{Name: name, File: "s.yaml", Line: 1, Attempt: attempt, Retry: retry, Status: status, Retried: retried,
			Turns: []report.TurnResult{{Index: 1, StopReason: "end_turn"}}}
		if status != report.StatusPassed {
			r.Failures = []string{"turn 1: text does not contain \"pass\""}
		}
		r.Flaky = status == report.StatusPassed && retry > 0
		return r
	}
	return report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		try("flaky", 1, 0, report.StatusFailed, true),
		try("flaky", 1, 1, report.StatusPassed, false),
		try("flaky", 2, 0, report.StatusPassed, false),
		try("broken", 0, 0, report.StatusFailed, true),
		try("broken", 0, 1, report.StatusFailed, false),
	}}
}

// Complete completes r's DurationMs from Duration, for itself and its turns,
// as the runner does.
func Complete(r report.Result) report.Result {
	r.DurationMs = r.Duration.Milliseconds()
	for i := range r.Turns {
		r.Turns[i].DurationMs = r.Turns[i].Duration.Milliseconds()
	}
	return r
}
