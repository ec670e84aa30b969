package runner

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
	"github.com/google/go-cmp/cmp"
)

// at is a position in the scenario file s.yaml.
func at(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }

func loc(line, col int, v string) scenario.Located {
	return scenario.Located{Pos: at(line, col), Value: v}
}

func ptr[T any](v T) *T { return &v }

// turnCalls are a turn's tool calls in arrival order; the last one came
// after the prompt's answer.
var turnCalls = []report.ToolCall{
	{ID: "1", Kind: "read", Title: "Read a.txt", Status: "completed"},
	{ID: "2", Kind: "edit", Title: "Edit a.txt", Status: "completed"},
	{ID: "3", Kind: "execute", Title: "Run tests", Status: "failed"},
	{ID: "4", Kind: "read", Title: "Read b.txt", Status: "completed"},
	{ID: "5", Kind: "execute", Title: "Run lint", Status: "completed"},
	{ID: "6", Kind: "delete", Title: "Delete tmp", Status: "completed", Late: true},
}

const turnCallList = `the turn's tool calls: read "Read a.txt", edit "Edit a.txt", execute "Run tests", read "Read b.txt", execute "Run lint"`

func TestCheckTurnToolCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		e     scenario.ToolCallsExpect
		calls []report.ToolCall
		want  []string
	}{
		{name: "used by kind and title glob", e: scenario.ToolCallsExpect{Used: []scenario.Located{loc(3, 9, "edit"), loc(4, 9, "Run *"), loc(4, 20, "run TESTS")}}},
		{name: "used missing", e: scenario.ToolCallsExpect{Used: []scenario.Located{loc(12, 15, "move")}},
			want: []string{`s.yaml:12:15: toolCalls.used: no tool call matches "move" (` + turnCallList + `)`}},
		{name: "used by a late call only", e: scenario.ToolCallsExpect{Used: []scenario.Located{loc(12, 15, "delete")}},
			want: []string{`s.yaml:12:15: toolCalls.used: no tool call matches "delete" (` + turnCallList + `)`}},
		{name: "used in a turn without tool calls", e: scenario.ToolCallsExpect{Used: []scenario.Located{loc(12, 15, "read")}}, calls: []report.ToolCall{},
			want: []string{`s.yaml:12:15: toolCalls.used: no tool call matches "read" (the turn made no tool calls)`}},
		{name: "used lists five calls at most", e: scenario.ToolCallsExpect{Used: []scenario.Located{loc(12, 15, "fetch")}},
			calls: []report.ToolCall{{Kind: "read", Title: "a"}, {Kind: "read", Title: "b"}, {Kind: "read", Title: "c"}, {Kind: "read", Title: "d"}, {Kind: "read", Title: "e"}, {Kind: "read", Title: "f"}, {Title: "g"}},
			want:  []string{`s.yaml:12:15: toolCalls.used: no tool call matches "fetch" (the turn's tool calls: read "a", read "b", read "c", read "d", read "e" … and 2 more)`}},
		{name: "a call without kind is other", e: scenario.ToolCallsExpect{Used: []scenario.Located{loc(3, 9, "other")}}, calls: []report.ToolCall{{Title: "Something"}}},
		{name: "notUsed, late call excluded", e: scenario.ToolCallsExpect{NotUsed: []scenario.Located{loc(5, 11, "delete"), loc(5, 20, "Fetch*")}}},
		{name: "notUsed matched", e: scenario.ToolCallsExpect{NotUsed: []scenario.Located{loc(5, 11, "execute"), loc(6, 11, "Read a*")}},
			want: []string{
				`s.yaml:5:11: toolCalls.notUsed: 2 tool calls match "execute": execute "Run tests", execute "Run lint"`,
				`s.yaml:6:11: toolCalls.notUsed: 1 tool call matches "Read a*": read "Read a.txt"`,
			}},
		{name: "count within bounds", e: scenario.ToolCallsExpect{Count: []scenario.CountExpect{
			{Pos: at(14, 17), Pattern: "execute", N: 2, Op: "=="},
			{Pos: at(15, 17), Pattern: "read", N: 2, Op: "<="},
			{Pos: at(16, 17), Pattern: "Read *", N: 2, Op: ">="},
			{Pos: at(17, 17), Pattern: "delete", N: 0, Op: "=="}, // the late one does not count
		}}},
		{name: "count out of bounds", e: scenario.ToolCallsExpect{Count: []scenario.CountExpect{
			{Pos: at(14, 17), Pattern: "execute", N: 1, Op: "<="},
			{Pos: at(15, 17), Pattern: "read", N: 3, Op: ">="},
			{Pos: at(16, 17), Pattern: "edit", N: 0, Op: "=="},
			{Pos: at(17, 17), Pattern: "edit", N: 1, Op: "~"},
		}}, want: []string{
			`s.yaml:14:17: toolCalls.count: 2 tool calls match "execute", want at most 1 (execute "Run tests", execute "Run lint")`,
			`s.yaml:15:17: toolCalls.count: 2 tool calls match "read", want at least 3 (` + turnCallList + `)`,
			`s.yaml:16:17: toolCalls.count: 1 tool call matches "edit", want 0 (edit "Edit a.txt")`,
			`s.yaml:17:17: toolCalls.count: unknown comparison "~" for "edit"`,
		}},
		{name: "status met", e: scenario.ToolCallsExpect{Status: loc(7, 13, "completed")},
			calls: []report.ToolCall{{Kind: "read", Title: "Read a.txt", Status: "completed"}, {Kind: "edit", Title: "Edit a.txt", Status: "completed", LateStatus: "failed"}}},
		{name: "status without tool calls", e: scenario.ToolCallsExpect{Status: loc(7, 13, "completed")}, calls: []report.ToolCall{}},
		{name: "status not met, late status ignored", e: scenario.ToolCallsExpect{Status: loc(7, 13, "completed")},
			calls: append(slicesClone(turnCalls), report.ToolCall{Kind: "edit", Title: "Edit c.txt", Status: "in_progress", LateStatus: "completed"}),
			want:  []string{`s.yaml:7:13: toolCalls.status: 2 tool calls of 6 did not end completed: execute "Run tests" (failed), edit "Edit c.txt" (in_progress)`}},
		{name: "sequence with calls between", e: scenario.ToolCallsExpect{Sequence: []scenario.Located{loc(8, 7, "read"), loc(9, 7, "execute"), loc(10, 7, "execute")}}},
		{name: "sequence out of order", e: scenario.ToolCallsExpect{Sequence: []scenario.Located{loc(8, 7, "execute"), loc(9, 7, "edit")}},
			want: []string{`s.yaml:9:7: toolCalls.sequence: matched execute; no later tool call matches "edit" (` + turnCallList + `)`}},
		{name: "sequence partly matched", e: scenario.ToolCallsExpect{Sequence: []scenario.Located{loc(8, 7, "read"), loc(9, 7, "edit"), loc(10, 7, "Read *"), loc(11, 7, "edit"), loc(12, 7, "read")}},
			want: []string{`s.yaml:11:7: toolCalls.sequence: matched read, edit, Read *; no later tool call matches "edit" (` + turnCallList + `)`}},
		{name: "sequence not started", e: scenario.ToolCallsExpect{Sequence: []scenario.Located{loc(8, 7, "fetch"), loc(9, 7, "read")}},
			want: []string{`s.yaml:8:7: toolCalls.sequence: no tool call matches "fetch" (` + turnCallList + `)`}},
		{name: "names: a glob on the name, any case; a kind word is a kind", e: scenario.ToolCallsExpect{
			Used: []scenario.Located{loc(3, 9, "bash"), loc(3, 15, "mcp__*")}, NotUsed: []scenario.Located{loc(4, 9, "fetch")},
			Count: []scenario.CountExpect{{Pos: at(5, 9), Pattern: "mcp__github__*", N: 1, Op: "=="}}},
			calls: []report.ToolCall{{Kind: "execute", Title: "ls", Name: "Bash"}, {Kind: "other", Title: "Create issue", Name: "mcp__github__create_issue"}, {Kind: "other", Title: "x", Name: "fetch"}}},
		{name: "names in messages", e: scenario.ToolCallsExpect{NotUsed: []scenario.Located{loc(4, 9, "Bash")}, Used: []scenario.Located{loc(3, 9, "Write")}},
			calls: []report.ToolCall{{Kind: "execute", Title: "ls", Name: "Bash"}, {Title: "Read"}},
			want: []string{
				`s.yaml:3:9: toolCalls.used: no tool call matches "Write" (the turn's tool calls: execute "ls" (tool Bash), "Read")`,
				`s.yaml:4:9: toolCalls.notUsed: 1 tool call matches "Bash": execute "ls" (tool Bash)`,
			}},
		{name: "sequence ends with the late call", e: scenario.ToolCallsExpect{Sequence: []scenario.Located{loc(8, 7, "execute"), loc(9, 7, "delete")}},
			want: []string{`s.yaml:9:7: toolCalls.sequence: matched execute; no later tool call matches "delete" (` + turnCallList + `)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := tt.calls
			if calls == nil {
				calls = turnCalls
			}
			e := tt.e
			turn := &report.TurnResult{StopReason: "end_turn", ToolCalls: calls}
			got := checkTurn(nil, scenario.Expect{Pos: at(2, 5), StopReasons: []string{"end_turn"}, ToolCalls: &e}, turn)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

func slicesClone[T any](s []T) []T { return append([]T(nil), s...) }

var turnPerms = []report.Permission{
	{ToolCallID: "3", Kind: "execute", Title: "rm -rf build", Decision: "deny"},
	{ToolCallID: "2", Kind: "edit", Title: "Edit a.txt", Decision: "allow"},
	{ToolCallID: "7", Kind: "fetch", Title: "Fetch https://example.com", Decision: "allow", Late: true},
}

func TestCheckTurnPermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		e     scenario.PermissionsExpect
		perms []report.Permission
		want  []string
	}{
		{name: "requested", e: scenario.PermissionsExpect{Requested: []scenario.Located{loc(9, 7, "execute"), loc(9, 18, "edit *")}}},
		{name: "requested only late", e: scenario.PermissionsExpect{Requested: []scenario.Located{loc(9, 7, "fetch")}},
			want: []string{`s.yaml:9:7: permissions.requested: no permission request matches "fetch" (the turn's permission requests: execute "rm -rf build", edit "Edit a.txt")`}},
		{name: "requested without requests", e: scenario.PermissionsExpect{Requested: []scenario.Located{loc(9, 7, "execute")}}, perms: []report.Permission{},
			want: []string{`s.yaml:9:7: permissions.requested: no permission request matches "execute" (the turn made no permission requests)`}},
		{name: "notRequested, late request excluded", e: scenario.PermissionsExpect{NotRequested: []scenario.Located{loc(10, 7, "fetch"), loc(10, 15, "delete")}}},
		{name: "by name", e: scenario.PermissionsExpect{Requested: []scenario.Located{loc(9, 7, "Bash")}, NotRequested: []scenario.Located{loc(10, 7, "Edit")}},
			perms: []report.Permission{{Kind: "execute", Title: "rm -rf build", Name: "Bash", Decision: "deny"}, {Kind: "edit", Title: "Edit a.txt", Name: "Edit", Decision: "allow"}},
			want:  []string{`s.yaml:10:7: permissions.notRequested: 1 permission request matches "Edit": edit "Edit a.txt" (tool Edit) (allow)`}},
		{name: "notRequested matched", e: scenario.PermissionsExpect{NotRequested: []scenario.Located{loc(10, 7, "rm *")}},
			want: []string{`s.yaml:10:7: permissions.notRequested: 1 permission request matches "rm *": execute "rm -rf build" (deny)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms := tt.perms
			if perms == nil {
				perms = turnPerms
			}
			e := tt.e
			turn := &report.TurnResult{StopReason: "end_turn", Permissions: perms}
			got := checkTurn(nil, scenario.Expect{Pos: at(2, 5), StopReasons: []string{"end_turn"}, Permissions: &e}, turn)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckTurnCancel: a cancel of the scenario's own meets stopReason
// cancelled, and cancelCause when it names its cause; a cancel for a cause
// outside the scenario (interrupt, runTimeout, failFast) meets nothing.
func TestCheckTurnCancel(t *testing.T) {
	t.Parallel()
	cancelled := scenario.Expect{Pos: at(6, 13), StopReasons: []string{"cancelled"}, StopReasonSet: true}
	byTurnTimeout := cancelled
	byTurnTimeout.CancelCauses, byTurnTimeout.CancelCausePos = []string{report.CauseTurnTimeout}, at(6, 47)
	either := byTurnTimeout
	either.StopReasons = []string{"end_turn", "cancelled"}
	tests := []struct {
		name string
		e    scenario.Expect
		t    report.TurnResult
		want []string
	}{
		{"own cancel", cancelled, report.TurnResult{StopReason: "cancelled", CancelCause: report.CauseIdleTimeout}, nil},
		{"named cause", byTurnTimeout, report.TurnResult{StopReason: "cancelled", CancelCause: report.CauseTurnTimeout}, nil},
		{"another cause", byTurnTimeout, report.TurnResult{StopReason: "cancelled", CancelCause: report.CauseScenarioTimeout},
			[]string{"s.yaml:6:47: cancelCause: acprun cancelled the turn after scenarioTimeout, want turnTimeout"}},
		{"not cancelled", either, report.TurnResult{StopReason: "end_turn"},
			[]string{"s.yaml:6:47: cancelCause: the turn was not cancelled, want turnTimeout"}},
		{"not the scenario's own", cancelled, report.TurnResult{StopReason: "cancelled", CancelCause: report.CauseInterrupt},
			[]string{"s.yaml:6:13: the turn did not finish: acprun cancelled it after interrupt, which no expectation accepts (the agent answered cancelled)"}},
		{"run timeout, cause named", byTurnTimeout, report.TurnResult{StopReason: "cancelled", CancelCause: report.CauseRunTimeout},
			[]string{"s.yaml:6:13: the turn did not finish: acprun cancelled it after runTimeout, which no expectation accepts (the agent answered cancelled)"}},
		{"fail-fast, skipped", cancelled, report.TurnResult{StopReason: report.OutcomeSkipped, CancelCause: report.CauseFailFast, Error: "the prompt was not sent"},
			[]string{"s.yaml:6:13: the turn did not finish: acprun cancelled it after failFast, which no expectation accepts (skipped: the prompt was not sent)"}},
		{"interrupt, no answer", cancelled, report.TurnResult{StopReason: report.OutcomeUnresponsive, CancelCause: report.CauseInterrupt,
			Error: "no answer to session/cancel within 2s; the agent was stopped"},
			[]string{"s.yaml:6:13: the turn did not finish: acprun cancelled it after interrupt, which no expectation accepts (unresponsive: no answer to session/cancel within 2s; the agent was stopped)"}},
		{"run timeout, no error", cancelled, report.TurnResult{StopReason: report.OutcomeAgentExited, CancelCause: report.CauseRunTimeout},
			[]string{"s.yaml:6:13: the turn did not finish: acprun cancelled it after runTimeout, which no expectation accepts (agent_exited: the agent gave no stop reason)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkTurn(nil, tt.e, &tt.t)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCancelCausesAreTheScenarios: the causes an expectation may name
// are runner causes of the scenario's own, none from outside it.
func TestCancelCausesAreTheScenarios(t *testing.T) {
	t.Parallel()
	for _, c := range scenario.CancelCauses {
		if c != report.CauseTurnTimeout && c != report.CauseIdleTimeout && c != report.CauseScenarioTimeout || report.ExternalCause(c) {
			t.Errorf("scenario.CancelCauses has %q, not a cause of the scenario's own", c)
		}
	}
}

// TestCheckTurnTextPositions: each text check that fails points at its
// own value, not at the text key or the expect.
func TestCheckTurnTextPositions(t *testing.T) {
	t.Parallel()
	e := scenario.Expect{
		Pos:          at(6, 5),
		TextContains: []scenario.Located{loc(7, 18, "ok"), loc(7, 22, "missing1"), loc(7, 32, "missing2")},
		TextMatches:  &scenario.Pattern{Pos: at(8, 18), Re: regexp.MustCompile(`^done`)},
	}
	got := checkTurn(nil, e, &report.TurnResult{StopReason: "end_turn", Text: "ok, not finished"})
	want := []string{
		`s.yaml:7:22: text does not contain "missing1"`,
		`s.yaml:7:32: text does not contain "missing2"`,
		`s.yaml:8:18: text does not match /^done/`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestCheckStopAndDeniedPositions: a failed stopReason, denied or
// maxDenied points at its own value, not at the expect (the first key of
// its mapping); an expectation the file does not give (the default
// stopReason end_turn) fails at the expect.
// TestCheckStopQuotesALongStopReasonCut: a failure quotes a stop reason
// of 100 KB, which the agent chose, cut at 200 characters on one line;
// the turn's stopReason keeps it whole.
func TestCheckStopQuotesALongStopReasonCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100_000) + "\n"
	cut := strings.Repeat("x", 200) + "…"
	tr := &report.TurnResult{StopReason: long}
	want := []string{`s.yaml:6:5: stopReason ` + cut + `, want end_turn`}
	if diff := cmp.Diff(want, checkStop(scenario.Expect{Pos: at(6, 5), StopReasons: []string{"end_turn"}}, tr)); diff != "" {
		t.Errorf("unwanted stop reason (-want +got):\n%.2000s", diff)
	}
	tr.CancelCause = report.CauseTurnTimeout
	want = []string{`s.yaml:6:5: the turn did not finish by itself: acprun cancelled it after turnTimeout and the agent answered ` + cut + ` (list ` + cut + ` in expect.stopReason to allow that)`}
	if diff := cmp.Diff(want, checkStop(scenario.Expect{Pos: at(6, 5)}, tr)); diff != "" {
		t.Errorf("cancelled (-want +got):\n%.2000s", diff)
	}
	if tr.StopReason != long {
		t.Error("the turn's stop reason was changed")
	}
}

func TestCheckStopAndDeniedPositions(t *testing.T) {
	t.Parallel()
	tr := &report.TurnResult{StopReason: "end_turn", Text: "done", Permissions: []report.Permission{{Decision: "deny"}}}
	e := scenario.Expect{
		Pos:          at(7, 7),
		TextContains: []scenario.Located{loc(7, 21, "done")},
		StopReasons:  []string{"max_tokens"}, StopReasonSet: true, StopReasonPos: at(8, 19),
		Denied: ptr(0), DeniedPos: at(9, 15),
	}
	want := []string{
		`s.yaml:8:19: stopReason end_turn, want max_tokens`,
		`s.yaml:9:15: 1 permission request denied, want 0`,
	}
	if diff := cmp.Diff(want, checkTurn(nil, e, tr)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
	e = scenario.Expect{Pos: at(6, 5), StopReasons: []string{"end_turn"}, MaxDenied: ptr(0), MaxDeniedPos: at(7, 16)}
	tr.StopReason = "refusal"
	want = []string{
		`s.yaml:6:5: stopReason refusal, want end_turn`,
		`s.yaml:7:16: 1 permission request denied, want at most 0`,
	}
	if diff := cmp.Diff(want, checkTurn(nil, e, tr)); diff != "" {
		t.Errorf("turn with the default stopReason (-want +got):\n%s", diff)
	}
	r := &report.Result{Denied: 1, Turns: []report.TurnResult{*tr}}
	want = []string{`s.yaml:4:14: 1 permission request denied, want at most 0`}
	if diff := cmp.Diff(want, checkScenario(nil, scenario.Expect{Pos: at(4, 3), MaxDenied: ptr(0), MaxDeniedPos: at(4, 14)}, r, costValue{}, "USD")); diff != "" {
		t.Errorf("scenario (-want +got):\n%s", diff)
	}
}

// TestCheckTurnDeniedSkipsLate: a late denied request is not the turn's.
func TestCheckTurnDeniedSkipsLate(t *testing.T) {
	t.Parallel()
	perms := []report.Permission{{Decision: "deny"}, {Decision: "deny", Late: true}}
	got := checkTurn(nil, scenario.Expect{Pos: at(2, 5), Denied: ptr(1)}, &report.TurnResult{Permissions: perms})
	if len(got) != 0 {
		t.Errorf("failures: %q", got)
	}
}

// TestCheckDeniedCountsCommands: a terminal command the policy denied
// counts in denied like a denied permission request (a late one not in
// the turn's), and the failure says which were which; a request refused
// for another reason (outside the roots, bad params) is not the policy's.
func TestCheckDeniedCountsCommands(t *testing.T) {
	t.Parallel()
	tr := &report.TurnResult{
		Permissions: []report.Permission{{Decision: "deny"}, {Decision: "allow"}},
		ClientRequests: []report.ClientRequest{
			{Method: "terminal/create", Command: "rm -rf /", Decision: "deny", Refused: "command denied"},
			{Method: "terminal/create", Command: "curl x", Decision: "deny", Late: true},
			{Method: "terminal/create", Command: "go test", Decision: "allow"},
			{Method: "fs/read_text_file", Path: "/etc/passwd", Refused: "outside the allowed roots"},
		},
	}
	if got := checkTurn(nil, scenario.Expect{Pos: at(2, 5), Denied: ptr(2)}, tr); len(got) != 0 {
		t.Errorf("denied: 2: %q", got)
	}
	want := []string{`s.yaml:2:5: 1 permission request and 1 terminal command denied, want 0`}
	if diff := cmp.Diff(want, checkTurn(nil, scenario.Expect{Pos: at(2, 5), Denied: ptr(0)}, tr)); diff != "" {
		t.Errorf("denied: 0 (-want +got):\n%s", diff)
	}
	r := &report.Result{Denied: 3, Turns: []report.TurnResult{*tr}}
	want = []string{`s.yaml:1:1: 1 permission request and 2 terminal commands denied, want at most 1`}
	if diff := cmp.Diff(want, checkScenario(nil, scenario.Expect{Pos: at(1, 1), MaxDenied: ptr(1)}, r, costValue{}, "USD")); diff != "" {
		t.Errorf("scenario maxDenied: 1 (-want +got):\n%s", diff)
	}
}

func TestCheckScenarioIncludesLateAndSetup(t *testing.T) {
	t.Parallel()
	r := &report.Result{
		Denied:           1,
		SetupPermissions: []report.Permission{{Kind: "read", Title: "Read ~/.ssh/id_rsa", Decision: "deny"}},
		Turns: []report.TurnResult{
			{Index: 1, StopReason: "end_turn", ToolCalls: []report.ToolCall{
				{Kind: "read", Title: "Read a.txt", Status: "completed"},
				{Kind: "execute", Title: "Run tests", Status: "in_progress", LateStatus: "completed"},
				{Kind: "delete", Title: "Delete tmp", Status: "completed", Late: true},
			}, Permissions: []report.Permission{{Kind: "fetch", Title: "Fetch x", Decision: "allow", Late: true}}},
			{Index: 2, StopReason: "end_turn", ToolCalls: []report.ToolCall{
				{Kind: "edit", Title: "Edit a.txt", Status: "failed"},
			}},
		},
	}
	const calls = `the scenario's tool calls: read "Read a.txt", execute "Run tests", delete "Delete tmp", edit "Edit a.txt"`
	tests := []struct {
		name string
		e    scenario.Expect
		want []string
	}{
		{name: "late and setup included", e: scenario.Expect{
			ToolCalls: &scenario.ToolCallsExpect{
				Used:     []scenario.Located{loc(3, 9, "delete")},
				Count:    []scenario.CountExpect{{Pos: at(4, 9), Pattern: "*", N: 4, Op: "=="}},
				Sequence: []scenario.Located{loc(5, 9, "execute"), loc(6, 9, "delete"), loc(7, 9, "edit")},
			},
			Permissions: &scenario.PermissionsExpect{Requested: []scenario.Located{loc(8, 9, "Read ~/*"), loc(9, 9, "fetch")}},
		}},
		{name: "failures name the scenario", e: scenario.Expect{
			ToolCalls: &scenario.ToolCallsExpect{
				NotUsed:  []scenario.Located{loc(3, 9, "delete")},
				Status:   loc(4, 9, "completed"), // Run tests ended completed after the answer
				Sequence: []scenario.Located{loc(5, 9, "edit"), loc(6, 9, "read")},
			},
			Permissions: &scenario.PermissionsExpect{
				Requested:    []scenario.Located{loc(8, 9, "execute")},
				NotRequested: []scenario.Located{loc(9, 9, "read")},
			},
		}, want: []string{
			`s.yaml:3:9: toolCalls.notUsed: 1 tool call matches "delete": delete "Delete tmp"`,
			`s.yaml:4:9: toolCalls.status: 1 tool call of 4 did not end completed: edit "Edit a.txt" (failed)`,
			`s.yaml:6:9: toolCalls.sequence: matched edit; no later tool call matches "read" (` + calls + `)`,
			`s.yaml:8:9: permissions.requested: no permission request matches "execute" (the scenario's permission requests: read "Read ~/.ssh/id_rsa", fetch "Fetch x")`,
			`s.yaml:9:9: permissions.notRequested: 1 permission request matches "read": read "Read ~/.ssh/id_rsa" (deny)`,
		}},
		{name: "denied still checked", e: scenario.Expect{Pos: at(2, 3), Denied: ptr(2)},
			want: []string{`s.yaml:2:3: 1 permission request denied, want 2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkScenario(nil, tt.e, r, costValue{}, "USD")); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
	// The same calls at the turn level: the late one and the late status
	// do not count.
	e := scenario.Expect{ToolCalls: &scenario.ToolCallsExpect{Status: loc(4, 9, "completed"), NotUsed: []scenario.Located{loc(3, 9, "delete")}}}
	want := []string{`s.yaml:4:9: toolCalls.status: 1 tool call of 2 did not end completed: execute "Run tests" (in_progress)`}
	if diff := cmp.Diff(want, checkTurn(nil, e, &r.Turns[0])); diff != "" {
		t.Errorf("turn failures (-want +got):\n%s", diff)
	}
}

func TestCheckTurnUsage(t *testing.T) {
	t.Parallel()
	tokens := &scenario.UsageExpect{Pos: at(19, 5), MaxTotalTokens: ptr[int64](50000), MaxTokensPos: at(20, 9)}
	cost := func(max float64) *scenario.UsageExpect {
		return &scenario.UsageExpect{Pos: at(19, 5), MaxCost: ptr(max), MaxCostPos: at(21, 10)}
	}
	tests := []struct {
		name  string
		e     *scenario.UsageExpect
		usage *report.Usage
		prev  float64 // the agent's cumulative cost reported before the turn
		// metered: the usage's cost is the gateway's price of the turn's
		// model requests, not the agent's cumulative cost.
		metered bool
		// prevCurrency is the previous cost's currency ("": USD), and
		// currency maxCost's ("": USD).
		prevCurrency, currency string
		want                   []string
	}{
		{name: "unset", e: nil},
		{name: "tokens under", e: tokens, usage: &report.Usage{TotalTokens: 40000}},
		{name: "tokens at the bound", e: tokens, usage: &report.Usage{TotalTokens: 50000}},
		{name: "tokens over", e: tokens, usage: &report.Usage{TotalTokens: 61234},
			want: []string{`s.yaml:20:9: usage.maxTotalTokens: 61234 tokens, want at most 50000`}},
		{name: "no usage", e: tokens,
			want: []string{`s.yaml:20:9: usage.maxTotalTokens: the agent reported no token usage; a gateway (gateway: meter) counts the tokens of its model requests`}},
		{name: "usage without tokens", e: tokens, usage: &report.Usage{Cost: 0.1, Currency: "USD"},
			want: []string{`s.yaml:20:9: usage.maxTotalTokens: the agent reported no token usage; a gateway (gateway: meter) counts the tokens of its model requests`}},
		{name: "a total of 0 beside other counts", e: tokens, usage: &report.Usage{InputTokens: 1000, OutputTokens: 1000},
			want: []string{`s.yaml:20:9: usage.maxTotalTokens: the agent reported a totalTokens of 0 (inputTokens 1000, outputTokens 1000): no total to check`}},
		{name: "position falls back to usage", e: &scenario.UsageExpect{Pos: at(19, 5), MaxTotalTokens: ptr[int64](1)}, usage: &report.Usage{TotalTokens: 2},
			want: []string{`s.yaml:19:5: usage.maxTotalTokens: 2 tokens, want at most 1`}},
		{name: "cost delta under", e: cost(0.5), usage: &report.Usage{Cost: 1.02, Currency: "USD"}, prev: 0.6},
		{name: "cost delta at the bound despite float noise", e: cost(0.42), usage: &report.Usage{Cost: 1.02, Currency: "USD"}, prev: 0.6},
		{name: "cost delta over", e: cost(0.4), usage: &report.Usage{Cost: 1.02, Currency: "USD"}, prev: 0.6,
			want: []string{`s.yaml:21:10: usage.maxCost: the turn cost 0.42 USD, want at most 0.4 USD (the session's cost went from 0.6 USD to 1.02 USD)`}},
		{name: "first turn's cost", e: cost(0.25), usage: &report.Usage{Cost: 0.3, Currency: "USD"},
			want: []string{`s.yaml:21:10: usage.maxCost: the turn cost 0.3 USD, want at most 0.25 USD`}},
		{name: "cost below the previous is the turn's own", e: cost(0.2), usage: &report.Usage{Cost: 0.3, Currency: "USD"}, prev: 2,
			want: []string{`s.yaml:21:10: usage.maxCost: the turn cost 0.3 USD, want at most 0.2 USD`}},
		// acprun converts no currencies: a cost in another than maxCost's
		// is not compared with it, and the bound fails saying so.
		{name: "cost in another currency", e: cost(1), usage: &report.Usage{Cost: 0.3, Currency: "EUR"},
			want: []string{`s.yaml:21:10: usage.maxCost: the turn's cost came in EUR, and maxCost is in USD (the config file's currency:, USD when it names none); ` +
				`acprun converts no currencies, so it did not compare them: set currency: EUR in the config file to count costs in EUR`}},
		{name: "growth from a cost in another currency", e: cost(1), usage: &report.Usage{Cost: 1.2, Currency: "USD"}, prev: 1, prevCurrency: "EUR",
			want: []string{`s.yaml:21:10: usage.maxCost: the turn's cost came in EUR, and maxCost is in USD (the config file's currency:, USD when it names none); ` +
				`acprun converts no currencies, so it did not compare them: set currency: EUR in the config file to count costs in EUR`}},
		{name: "cost in the config's currency", e: cost(0.2), usage: &report.Usage{Cost: 0.3, Currency: "EUR"}, currency: "EUR",
			want: []string{`s.yaml:21:10: usage.maxCost: the turn cost 0.3 EUR, want at most 0.2 EUR`}},
		{name: "currency in another case", e: cost(0.5), usage: &report.Usage{Cost: 0.3, Currency: "usd"}},
		{name: "free turn", e: cost(0), usage: &report.Usage{Cost: 0, Currency: "USD"}},
		{name: "metered cost is the turn's own", e: cost(0.0002), usage: &report.Usage{Cost: 0.0003, Currency: "USD"}, prev: 0.0003, metered: true,
			want: []string{`s.yaml:21:10: usage.maxCost: the turn cost 0.0003 USD, want at most 0.0002 USD`}},
		{name: "metered cost under", e: cost(0.0003), usage: &report.Usage{Cost: 0.0003, Currency: "USD"}, prev: 0.0009, metered: true},
		{name: "no cost", e: cost(1), usage: &report.Usage{TotalTokens: 10},
			want: []string{`s.yaml:21:10: usage.maxCost: the agent reported no cost; a gateway (gateway: meter, with the config file's prices) counts what its model requests cost`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var costs []turnCost
			if tt.prev != 0 {
				costs = append(costs, turnCost{index: 1, agent: costValue{tt.prev, (&scenario.Scenario{Currency: tt.prevCurrency}).CostCurrency(), true}})
			}
			turn := turnCost{index: 2, agent: costIn(tt.usage)}
			if tt.metered {
				turn.metered, turn.agent = turn.agent, costValue{}
			}
			currency := (&scenario.Scenario{Currency: tt.currency}).CostCurrency()
			spent := tallyCosts(append(costs, turn), currency).turns[len(costs)]
			got := checkTurnUsage(tt.e, &report.TurnResult{StopReason: "end_turn", Usage: tt.usage}, spent, currency)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTallyCosts: each cost is taken in its own meaning, the gateway's as
// the turn's own, the agent's as the session's cumulative one, and the
// session's total adds up the turns' own costs and what the agent's grew
// by after their answers.
func TestTallyCosts(t *testing.T) {
	t.Parallel()
	usd := func(x float64) costValue { return costValue{x, "USD", true} }
	eur := func(x float64) costValue { return costValue{x, "EUR", true} }
	tests := []struct {
		name      string
		turns     []turnCost
		own       []costValue
		total     costValue
		agent     costValue // the agent's last cumulative cost
		agentLate bool
	}{
		{name: "none"},
		{name: "no cost reported", turns: []turnCost{{index: 1}}, own: []costValue{{}}},
		{name: "agent cumulative", turns: []turnCost{{index: 1, agent: usd(0.5)}, {index: 2}, {index: 3, agent: usd(1.25)}},
			own: []costValue{usd(0.5), {}, usd(0.75)}, total: usd(1.25), agent: usd(1.25)},
		{name: "agent reports each turn's own", turns: []turnCost{{index: 1, agent: usd(0.5)}, {index: 2, agent: usd(0.25)}},
			own: []costValue{usd(0.5), usd(0.25)}, total: usd(0.75), agent: usd(0.25)},
		{name: "agent late", turns: []turnCost{{index: 1, agent: usd(0.5), late: usd(0.75)}, {index: 2, agent: usd(1)}},
			own: []costValue{usd(0.5), usd(0.25)}, total: usd(1), agent: usd(1)},
		{name: "metered turns add up", turns: []turnCost{{index: 1, metered: usd(0.25)}, {index: 2, metered: usd(0.25)}, {index: 3, metered: usd(0.25)}},
			own: []costValue{usd(0.25), usd(0.25), usd(0.25)}, total: usd(0.75)},
		{name: "metered and the agent's own reports", turns: []turnCost{
			{index: 1, metered: usd(0.25), agent: usd(0.5)},
			{index: 2, metered: usd(0.25), agent: usd(1), late: usd(1.5)},
			{index: 3, agent: usd(2)}, // no priced request: the agent's
		}, own: []costValue{usd(0.25), usd(0.25), usd(0.5)}, total: usd(1.5), agent: usd(2)},
		{name: "late last", turns: []turnCost{{index: 1, agent: usd(0.5)}, {index: 2, late: usd(2)}},
			own: []costValue{usd(0.5), {}}, total: usd(2), agent: usd(2), agentLate: true},
		// Counted in USD: a cost in another currency is no amount in it,
		// and a total it is in keeps that currency, so that no check
		// compares it with a maxCost in USD.
		{name: "metered, then the agent's in another currency", turns: []turnCost{
			{index: 1, metered: usd(0.25)},
			{index: 2, agent: eur(1)},
		}, own: []costValue{usd(0.25), eur(1)}, total: costValue{1.25, "EUR", true}, agent: eur(1)},
		{name: "another currency, then the tally's", turns: []turnCost{{index: 1, agent: eur(0.5)}, {index: 2, agent: usd(0.75)}, {index: 3, agent: usd(1)}},
			own: []costValue{eur(0.5), {0.25, "EUR", true}, usd(0.25)}, total: costValue{1, "EUR", true}, agent: usd(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tallyCosts(tt.turns, "USD")
			var own []costValue
			for _, s := range c.turns {
				own = append(own, s.costValue)
			}
			if diff := cmp.Diff(tt.own, own, cmp.AllowUnexported(costValue{})); diff != "" {
				t.Errorf("turns' own costs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{tt.total, tt.agent, tt.agentLate}, []any{c.total, c.agent, c.agentLate}, cmp.AllowUnexported(costValue{})); diff != "" {
				t.Errorf("total, agent's, late (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckScenarioUsage(t *testing.T) {
	t.Parallel()
	e := scenario.Expect{Usage: &scenario.UsageExpect{
		Pos:            at(19, 5),
		MaxTotalTokens: ptr[int64](50000), MaxTokensPos: at(20, 9),
		MaxCost: ptr(1.0), MaxCostPos: at(21, 10),
	}}
	turn := func(stop string, u *report.Usage) report.TurnResult {
		return report.TurnResult{StopReason: stop, Usage: u}
	}
	tests := []struct {
		name     string
		turns    []report.TurnResult
		spent    costValue // the session's cost (costTally)
		currency string    // maxCost's; "" for USD
		want     []string
	}{
		{name: "under", spent: costValue{0.9, "USD", true}, turns: []report.TurnResult{
			turn("end_turn", &report.Usage{TotalTokens: 20000, Cost: 0.4, Currency: "USD"}),
			turn("end_turn", &report.Usage{TotalTokens: 20000, Cost: 0.9, Currency: "USD"}),
			turn(report.OutcomeSkipped, nil), // a skipped turn reports nothing
		}},
		{name: "over", spent: costValue{1.2, "USD", true}, turns: []report.TurnResult{
			turn("end_turn", &report.Usage{TotalTokens: 30000, Cost: 0.5, Currency: "USD"}),
			turn("end_turn", &report.Usage{TotalTokens: 31234, Cost: 1.2, Currency: "USD"}),
			turn("end_turn", &report.Usage{TotalTokens: 0}),
		}, want: []string{
			`s.yaml:20:9: usage.maxTotalTokens: 61234 tokens in all turns, want at most 50000`,
			`s.yaml:21:10: usage.maxCost: the session cost 1.2 USD, want at most 1 USD`,
		}},
		{name: "nothing reported", turns: []report.TurnResult{turn("end_turn", nil)}, want: []string{
			`s.yaml:20:9: usage.maxTotalTokens: the agent reported no token usage; a gateway (gateway: meter) counts the tokens of its model requests`,
			`s.yaml:21:10: usage.maxCost: the agent reported no cost; a gateway (gateway: meter, with the config file's prices) counts what its model requests cost`,
		}},
		{name: "a turn without tokens", spent: costValue{0.1, "USD", true}, turns: []report.TurnResult{
			{Index: 1, StopReason: "end_turn", Usage: &report.Usage{TotalTokens: 30000, Cost: 0.1, Currency: "USD"}},
			{Index: 2, StopReason: "end_turn"},
			{Index: 3, StopReason: report.OutcomeSkipped}, // never ran: spent nothing
		}, want: []string{
			`s.yaml:20:9: usage.maxTotalTokens: the agent reported no token usage for turn 2, so the total is unknown (the other turns: 30000 tokens)`,
		}},
		// A turn that ran and was cancelled, or ended in an error, spent
		// what it did before: unknown, unless it was reported.
		{name: "a cancelled turn without tokens", spent: costValue{0.1, "USD", true}, turns: []report.TurnResult{
			{Index: 1, StopReason: "cancelled"},
			{Index: 2, StopReason: "end_turn", Usage: &report.Usage{TotalTokens: 100, Cost: 0.1, Currency: "USD"}},
			{Index: 3, StopReason: report.OutcomeError},
			{Index: 4, StopReason: report.OutcomeAgentExited},
			{Index: 5, StopReason: report.OutcomeSkipped},
		}, want: []string{
			`s.yaml:20:9: usage.maxTotalTokens: the agent reported no token usage for turns 1 (cancelled), 3 (error), 4 (agent_exited), so the total is unknown (the other turns: 100 tokens)`,
		}},
		{name: "a cost in another currency", spent: costValue{0.5, "EUR", true}, turns: []report.TurnResult{
			turn("end_turn", &report.Usage{TotalTokens: 100, Cost: 0.5, Currency: "EUR"}),
		}, want: []string{
			`s.yaml:21:10: usage.maxCost: the session's cost came in EUR, and maxCost is in USD (the config file's currency:, USD when it names none); ` +
				`acprun converts no currencies, so it did not compare them: set currency: EUR in the config file to count costs in EUR`,
		}},
		{name: "over in the config's currency", spent: costValue{1.5, "EUR", true}, currency: "EUR", turns: []report.TurnResult{
			turn("end_turn", &report.Usage{TotalTokens: 100, Cost: 1.5, Currency: "EUR"}),
		}, want: []string{`s.yaml:21:10: usage.maxCost: the session cost 1.5 EUR, want at most 1 EUR`}},
		{name: "a cancelled turn with tokens", spent: costValue{0.1, "USD", true}, turns: []report.TurnResult{
			{Index: 1, StopReason: "cancelled", Usage: &report.Usage{TotalTokens: 40}},
			{Index: 2, StopReason: "end_turn", Usage: &report.Usage{TotalTokens: 100, Cost: 0.1, Currency: "USD"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkScenario(nil, e, &report.Result{Turns: tt.turns}, tt.spent, (&scenario.Scenario{Currency: tt.currency}).CostCurrency())); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// workspaceForFiles makes a workspace holding files, symlinks (some
// planted to lead outside, to a secret) and a FIFO.
func workspaceForFiles(t *testing.T) (root, outside string) {
	root, outside = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "TOPSECRET\n")
	writeFile(t, filepath.Join(root, "a.txt"), "hello world\nsecond line\n")
	writeFile(t, filepath.Join(root, "dir", "b.txt"), "package b\n")
	writeFile(t, filepath.Join(root, "empty.txt"), "")
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out"))
	symlink(t, "../"+filepath.Base(outside)+"/secret.txt", filepath.Join(root, "rel-out"))
	symlink(t, outside, filepath.Join(root, "dir-out"))
	symlink(t, filepath.Join(root, "a.txt"), filepath.Join(root, "abs-in")) // absolute, but inside
	symlink(t, "dir/b.txt", filepath.Join(root, "rel-in"))
	symlink(t, "nowhere", filepath.Join(root, "dangling"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func TestCheckFiles(t *testing.T) {
	t.Parallel()
	root, outside := workspaceForFiles(t)
	goldens := t.TempDir()
	golden := func(name, content string) string {
		p := filepath.Join(goldens, name)
		writeFile(t, p, content)
		return p
	}
	same := golden("same.golden", "hello world\nsecond line\n")
	other := golden("other.golden", "hello world\nsecond LINE, much longer than the line of the file, so long that it is shortened\n")
	noNewline := golden("nonl.golden", "hello world\nsecond line")
	longer := golden("longer.golden", "hello world\nsecond line\nthird line\n")
	missing := filepath.Join(goldens, "missing.golden")

	tests := []struct {
		name    string
		e       scenario.FilesExpect
		changed []string
		unknown bool // the changes could not be listed
		want    []string
	}{
		{name: "exists", e: scenario.FilesExpect{Exists: []scenario.Located{loc(30, 5, "a.txt"), loc(31, 5, "dir"), loc(32, 5, "abs-in"), loc(33, 5, "rel-in"), loc(34, 5, "./dir//b.txt")}}},
		{name: "exists fails", e: scenario.FilesExpect{Exists: []scenario.Located{
			loc(30, 5, "nope.txt"), loc(31, 5, "link-out"), loc(32, 5, "rel-out"), loc(33, 5, "dir-out/secret.txt"),
			loc(34, 5, "dangling"), loc(35, 5, "../x"), loc(36, 5, "/etc/passwd"), loc(37, 5, "a.txt/x"),
		}}, want: []string{
			`s.yaml:30:5: files.exists: "nope.txt" does not exist`,
			`s.yaml:31:5: files.exists: "link-out" is a symlink that leads outside the workspace`,
			`s.yaml:32:5: files.exists: "rel-out" is a symlink that leads outside the workspace`,
			`s.yaml:33:5: files.exists: "dir-out/secret.txt" leads outside the workspace: dir-out is a symlink to outside it`,
			`s.yaml:34:5: files.exists: "dangling" does not exist (it is a dangling symlink)`,
			`s.yaml:35:5: files.exists: "../x" leads outside the workspace`,
			`s.yaml:36:5: files.exists: "/etc/passwd" is not a relative path`,
			`s.yaml:37:5: files.exists: "a.txt/x" does not exist`,
		}},
		{name: "absent", e: scenario.FilesExpect{Absent: []scenario.Located{loc(40, 5, "nope.txt"), loc(41, 5, "nodir/x"), loc(42, 5, "a.txt/x")}}},
		{name: "absent fails", e: scenario.FilesExpect{Absent: []scenario.Located{loc(40, 5, "a.txt"), loc(41, 5, "dir"), loc(42, 5, "dangling"), loc(43, 5, "dir-out/secret.txt")}},
			want: []string{
				`s.yaml:40:5: files.absent: "a.txt" exists (a file of 24 bytes)`,
				`s.yaml:41:5: files.absent: "dir" exists (a directory)`,
				`s.yaml:42:5: files.absent: "dangling" exists (a symlink)`,
				`s.yaml:43:5: files.absent: "dir-out/secret.txt" leads outside the workspace: dir-out is a symlink to outside it`,
			}},
		{name: "exists globs", e: scenario.FilesExpect{Exists: []scenario.Located{loc(30, 5, "*.txt"), loc(31, 5, "d?r/*.txt"), loc(32, 5, "**/b.txt"), loc(33, 5, "rel-*")}}},
		{name: "exists globs fail", e: scenario.FilesExpect{Exists: []scenario.Located{loc(30, 5, "*.go"), loc(31, 5, "dang*"), loc(32, 5, "dir-out/*")}},
			want: []string{
				`s.yaml:30:5: files.exists: "*.go" matches no path of the workspace (a glob is relative to its root: ** for any directories)`,
				`s.yaml:31:5: files.exists: "dang*" matches no path that exists: dangling does not exist (it is a dangling symlink)`,
				`s.yaml:32:5: files.exists: "dir-out/*" matches no path of the workspace (a glob is relative to its root: ** for any directories)`,
			}},
		{name: "absent globs", e: scenario.FilesExpect{Absent: []scenario.Located{loc(40, 5, "*.go"), loc(41, 5, "nodir/*"), loc(42, 5, "dir-out/*")}}},
		{name: "absent globs fail", e: scenario.FilesExpect{Absent: []scenario.Located{loc(40, 5, "*.txt"), loc(41, 5, "d*"), loc(42, 5, "**")}},
			want: []string{
				`s.yaml:40:5: files.absent: "*.txt" matches 2 paths: a.txt, empty.txt`,
				`s.yaml:41:5: files.absent: "d*" matches 3 paths: dangling, dir, dir-out`,
				`s.yaml:42:5: files.absent: "**" matches 10 paths: a.txt, abs-in, dangling, dir, dir-out … and 5 more`,
			}},
		{name: "contains", e: scenario.FilesExpect{Contains: []scenario.FileText{
			{Pos: at(50, 7), Path: "a.txt", Text: "second"}, {Pos: at(51, 7), Path: "abs-in", Text: "hello"}, {Pos: at(52, 7), Path: "rel-in", Text: "package b"},
		}}},
		{name: "contains fails", e: scenario.FilesExpect{Contains: []scenario.FileText{
			{Pos: at(50, 7), Path: "a.txt", Text: "bye"},
			{Pos: at(51, 7), Path: "empty.txt", Text: "x"},
			{Pos: at(52, 7), Path: "nope.txt", Text: "x"},
			{Pos: at(53, 7), Path: "link-out", Text: "TOPSECRET"}, // would pass if the target were read
			{Pos: at(54, 7), Path: "dir-out/secret.txt", Text: "TOPSECRET"},
			{Pos: at(55, 7), Path: "dir", Text: "x"},
			{Pos: at(56, 7), Path: "fifo", Text: "x"},
		}}, want: []string{
			`s.yaml:50:7: files.contains: "a.txt" does not contain "bye" (24 bytes, first line "hello world")`,
			`s.yaml:51:7: files.contains: "empty.txt" does not contain "x" (the file is empty)`,
			`s.yaml:52:7: files.contains: "nope.txt" does not exist`,
			`s.yaml:53:7: files.contains: "link-out" is a symlink that leads outside the workspace`,
			`s.yaml:54:7: files.contains: "dir-out/secret.txt" leads outside the workspace: dir-out is a symlink to outside it`,
			`s.yaml:55:7: files.contains: "dir" is a directory`,
			`s.yaml:56:7: files.contains: "fifo" is not a regular file`,
		}},
		{name: "matches", e: scenario.FilesExpect{Matches: []scenario.FileRegexp{{Pos: at(60, 7), Path: "a.txt", Re: regexp.MustCompile(`(?m)^second`)}}}},
		{name: "matches fails", e: scenario.FilesExpect{Matches: []scenario.FileRegexp{
			{Pos: at(60, 7), Path: "a.txt", Re: regexp.MustCompile(`^second`)},
			{Pos: at(61, 7), Path: "rel-out", Re: regexp.MustCompile(`TOP`)},
		}}, want: []string{
			`s.yaml:60:7: files.matches: "a.txt" does not match /^second/ (24 bytes, first line "hello world")`,
			`s.yaml:61:7: files.matches: "rel-out" is a symlink that leads outside the workspace`,
		}},
		{name: "unchanged", e: scenario.FilesExpect{Unchanged: []scenario.Located{loc(70, 7, "tests/**"), loc(71, 7, "*.md")}}, changed: []string{"src/a.go", "docs/x.md"}},
		{name: "unchanged with no changes", e: scenario.FilesExpect{Unchanged: []scenario.Located{loc(70, 7, "**")}}},
		{name: "unchanged fails", e: scenario.FilesExpect{Unchanged: []scenario.Located{loc(70, 7, "src/**"), loc(71, 7, "**/*.md"), loc(72, 7, "src"), loc(73, 7, "*/sub")}},
			changed: []string{"src/a.go", "docs/x.md", "src/sub/b.go", "README.md"},
			want: []string{
				`s.yaml:70:7: files.unchanged: 2 paths matching "src/**" were changed: src/a.go, src/sub/b.go`,
				`s.yaml:71:7: files.unchanged: 2 paths matching "**/*.md" were changed: docs/x.md, README.md`,
				`s.yaml:72:7: files.unchanged: 2 paths matching "src" were changed: src/a.go, src/sub/b.go`,
				`s.yaml:73:7: files.unchanged: 1 path matching "*/sub" was changed: src/sub/b.go`,
			}},
		{name: "unchanged without known changes", e: scenario.FilesExpect{Unchanged: []scenario.Located{loc(70, 7, "src/**")}}, unknown: true,
			want: []string{`s.yaml:70:7: files.unchanged: the changes to the files are unknown (unchanged needs a workspace whose changes could be listed)`}},
		{name: "golden", e: scenario.FilesExpect{Golden: []scenario.FileGolden{{Pos: at(80, 7), Path: "a.txt", Golden: same}, {Pos: at(81, 7), Path: "abs-in", Golden: same}}}},
		{name: "golden fails", e: scenario.FilesExpect{Golden: []scenario.FileGolden{
			{Pos: at(80, 7), Path: "a.txt", Golden: other},
			{Pos: at(81, 7), Path: "a.txt", Golden: noNewline},
			{Pos: at(82, 7), Path: "a.txt", Golden: longer},
			{Pos: at(83, 7), Path: "a.txt", Golden: missing},
			{Pos: at(84, 7), Path: "link-out", Golden: same},
		}}, want: []string{
			`s.yaml:80:7: files.golden: "a.txt" differs from ` + other + `: 24 bytes, golden 93 bytes; first difference at byte 20, line 2: "second line", golden "second LINE, much longer than the line of the file, so long …"`,
			`s.yaml:81:7: files.golden: "a.txt" differs from ` + noNewline + `: 24 bytes, golden 23 bytes; the file ends with a newline, the golden file does not`,
			`s.yaml:82:7: files.golden: "a.txt" differs from ` + longer + `: 24 bytes, golden 35 bytes; the file ends after line 2, the golden file goes on with "third line"`,
			`s.yaml:83:7: files.golden: cannot read the golden file: ` + missing + `: no such file or directory`,
			`s.yaml:84:7: files.golden: "link-out" is a symlink that leads outside the workspace`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			got := checkFiles(t.Context(), nil, &e, root, nil, nil, tt.changed, !tt.unknown, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			for _, f := range got {
				if strings.Contains(f, outside) || strings.Contains(f, "TOPSECRET") {
					t.Errorf("failure shows what lies outside the workspace: %s", f)
				}
			}
		})
	}
}

// TestFileGlobsLeaveHiddenOut: the globs of files.exists and absent match
// neither what the sandbox hides nor the .git entry at the root.
func TestFileGlobsLeaveHiddenOut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "secrets", "key.pem"), "TOPSECRET\n")
	writeFile(t, filepath.Join(root, "src", "HEAD"), "x\n")
	e := &scenario.FilesExpect{
		Exists: []scenario.Located{loc(30, 5, "secrets/*")},
		Absent: []scenario.Located{loc(40, 5, "**/*.pem"), loc(41, 5, "**/HEAD")},
	}
	want := []string{
		`s.yaml:30:5: files.exists: "secrets/*" matches no path of the workspace (a glob is relative to its root: ** for any directories)`,
		`s.yaml:41:5: files.absent: "**/HEAD" matches 1 path: src/HEAD`,
	}
	if diff := cmp.Diff(want, checkFiles(t.Context(), nil, e, root, []string{filepath.Join(root, "secrets")}, nil, nil, true, nil)); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestFilesLeftOutOfTheCopy: a path of files.exists that the workspace's
// copy left out (a FIFO, a socket or a device of its source) fails saying
// so, by its name or by a glob that matches it, rather than only that it
// does not exist; another missing path fails as before.
func TestFilesLeftOutOfTheCopy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "a\n")
	leftOut := []workspace.LeftOut{{Path: "run/fifo", Type: fs.ModeNamedPipe}, {Path: "agent.sock", Type: fs.ModeSocket}}
	e := &scenario.FilesExpect{
		Exists:   []scenario.Located{loc(30, 5, "run/fifo"), loc(31, 5, "*.sock"), loc(32, 5, "gone.txt"), loc(33, 5, "a.txt")},
		Contains: []scenario.FileText{{Pos: at(34, 5), Path: "./run/fifo", Text: "x"}},
	}
	want := []string{
		`s.yaml:30:5: files.exists: "run/fifo" does not exist: the workspace's source has it, but as a FIFO, which a copy leaves out`,
		`s.yaml:31:5: files.exists: "*.sock" matches no path of the workspace: the workspace's source has agent.sock, but as a socket, which a copy leaves out`,
		`s.yaml:32:5: files.exists: "gone.txt" does not exist`,
	}
	got := checkFiles(t.Context(), nil, e, root, nil, leftOut, nil, true, nil)
	if diff := cmp.Diff(want, got[:min(len(got), len(want))]); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if len(got) != 4 || !strings.Contains(got[3], "run/fifo") || !strings.HasSuffix(got[3], "does not exist: the workspace's source has it, but as a FIFO, which a copy leaves out") {
		t.Errorf("failures = %q; want a fourth, for files.contains, that says the copy left the FIFO out", got)
	}
}

// TestCheckFilesWithoutWorkspace: a directory that cannot be opened fails
// the checks that need it, and unchanged is still checked.
func TestCheckFilesWithoutWorkspace(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	e := &scenario.FilesExpect{Pos: at(29, 3), Exists: []scenario.Located{loc(30, 5, "a.txt")}, Unchanged: []scenario.Located{loc(31, 5, "src/**")}}
	got := checkFiles(t.Context(), nil, e, dir, nil, nil, []string{"src/a.go"}, true, nil)
	if len(got) != 2 || !strings.HasPrefix(got[0], "s.yaml:29:3: files: cannot check the files: ") || !strings.Contains(got[0], "gone") ||
		got[1] != `s.yaml:31:5: files.unchanged: 1 path matching "src/**" was changed: src/a.go` {
		t.Errorf("failures: %q", got)
	}
	if got := checkFiles(t.Context(), nil, nil, dir, nil, nil, nil, false, nil); got != nil {
		t.Errorf("nil expectation: %q", got)
	}
}

// TestUnchangedWorkspace: files.unchanged on a workspace the agent left
// as it was passes (no changes is a known answer), and fails on one it
// changed.
func TestUnchangedWorkspace(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Create(t.Context(), workspace.Spec{From: src}, t.TempDir(), "unchanged")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	r := &scenarioRun{opts: &Options{}, ws: ws, sc: &scenario.Scenario{}}
	e := &scenario.FilesExpect{Pos: at(20, 3), Unchanged: []scenario.Located{loc(21, 5, "**")}}
	if got := r.checkFiles(e); got != nil {
		t.Errorf("untouched workspace: %q, want no failures", got)
	}
	if err := os.WriteFile(filepath.Join(ws.Dir, "a.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{`s.yaml:21:5: files.unchanged: 1 path matching "**" was changed: a.txt`}
	if diff := cmp.Diff(want, r.checkFiles(e)); diff != "" {
		t.Errorf("changed workspace (-want +got):\n%s", diff)
	}
}

// TestFailuresAtTheirValues: loaded from a file and run, each failed
// expectation points at its own value: stopReason, denied and maxDenied
// (where they used to point at the expect, the first key of its mapping),
// a verify command's exitCode (where it used to point at its expect), a
// verify command that gives none at the command.
func TestFailuresAtTheirValues(t *testing.T) {
	t.Parallel()
	const agent = "agent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\n"
	rep := runFiles(t, context.Background(), map[string]string{
		"a.mock.yaml": `turns:
  - steps:
      - permission: {toolCallId: t1, title: rm -rf build, kind: execute}
        rejected: [{text: done}]
`,
		"s.yaml": "name: values\n" + agent + `expect:
  maxDenied: 0
turns:
  - prompt: one
    expect:
      text: {contains: done}
      stopReason: max_tokens
      denied: 0
verify:
  - run: exit 1
    expect: {stdout: {notContains: x}, exitCode: 2}
  - run: exit 3
    expect: {stdout: {notContains: x}}
`,
	}, Options{})
	if len(rep.Scenarios) != 1 {
		t.Fatalf("%d scenarios, want 1", len(rep.Scenarios))
	}
	values := rep.Scenarios[0]
	at := func(s string) string { return strings.ReplaceAll(s, values.File+":", "") }
	var got []string
	for _, f := range values.Turns[0].Failures {
		got = append(got, at(f))
	}
	for _, f := range values.Failures {
		got = append(got, at(strings.SplitN(f, "; output ends:", 2)[0]))
	}
	want := []string{
		"10:19: stopReason end_turn, want max_tokens",
		"11:15: 1 permission request denied, want 0",
		"turn 1: 10:19: stopReason end_turn, want max_tokens",
		"turn 1: 11:15: 1 permission request denied, want 0",
		"5:14: 1 permission request denied, want at most 0",
		"14:50: verify `exit 1` exited with code 1, want 2 (no output)",
		"15:5: verify `exit 3` exited with code 3, want 0 (no output)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestAgentChosenOnOneLine: what the agent chose and a failure names (a
// path it created, a stop reason, a tool call's kind, tool name and
// status) stays on the failure's line, its line breaks written \x0a as
// docs/results.md says, so that no line of the message is the agent's.
func TestAgentChosenOnOneLine(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const name = "bad\n::error::forged.txt"
	writeFile(t, filepath.Join(root, name), "x")
	e := &scenario.FilesExpect{
		Exists:    []scenario.Located{loc(30, 5, "*.txt")},
		Absent:    []scenario.Located{loc(31, 5, "*.txt")},
		Unchanged: []scenario.Located{loc(32, 5, "*.txt")},
	}
	want := []string{
		`s.yaml:31:5: files.absent: "*.txt" matches 1 path: bad\x0a::error::forged.txt`,
		`s.yaml:32:5: files.unchanged: 1 path matching "*.txt" was changed: bad\x0a::error::forged.txt`,
	}
	if diff := cmp.Diff(want, checkFiles(t.Context(), nil, e, root, nil, nil, []string{name}, true, nil)); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	turn := &report.TurnResult{StopReason: "end\nL2"}
	stop := checkStop(scenario.Expect{Pos: at(40, 5), StopReasons: []string{"end_turn"}}, turn)
	if want := []string{`s.yaml:40:5: stopReason end\x0aL2, want end_turn`}; !slices.Equal(stop, want) {
		t.Errorf("stop reason: %q, want %q", stop, want)
	}
	calls := []observedCall{{Kind: "exe\nL3", Title: "Run", Name: "Ba\nsh", Status: "done\nL4"}}
	status := checkToolCalls(redact.New(), &scenario.ToolCallsExpect{Status: scenario.Located{Pos: at(50, 5), Value: "completed"}}, calls, "the turn")
	if want := []string{`s.yaml:50:5: toolCalls.status: 1 tool call of 1 did not end completed: exe\x0aL3 "Run" (tool Ba\x0ash) (done\x0aL4)`}; !slices.Equal(status, want) {
		t.Errorf("tool calls: %q, want %q", status, want)
	}
}

// TestCheckFilesLarge: contains, matches and golden read a file of any
// size as a stream (here 17 MiB, over the 16 MiB they once refused):
// what they look for is found at its very end and across the chunks it is
// read in, an identical golden file passes, and a failure says where the
// file differs, quoting a little of its line there (redacted knowing what
// is around it), never the file.
func TestCheckFilesLarge(t *testing.T) {
	t.Parallel()
	root, goldens := t.TempDir(), t.TempDir()
	line := strings.Repeat("x", 1023) + "\n"
	body := strings.Repeat(line, 17<<10) // 17 MiB of lines of 1 KiB
	content := body + "the end"
	writeFile(t, filepath.Join(root, "big.txt"), content)
	long := strings.Repeat("a", 17<<20) // one line
	writeFile(t, filepath.Join(root, "long.txt"), long)
	// A secret the quote of long-secret.txt's difference cuts through.
	const secret = "hunter2-hunter2-hunter2"
	withSecret := long[:len(long)-40] + secret + long[len(long)-40+len(secret):]
	writeFile(t, filepath.Join(root, "long-secret.txt"), withSecret)
	golden := func(name, content string) string {
		p := filepath.Join(goldens, name)
		writeFile(t, p, content)
		return p
	}
	same := golden("same", content)
	changed := []byte(content)
	changed[9999*1024+500] = 'y' // line 10000, column 501
	differs := golden("differs", string(changed))
	shorter := golden("shorter", body)
	lastByte := golden("last", long[:len(long)-1]+"b")
	lastSecret := golden("last-secret", withSecret[:len(withSecret)-1]+"b")

	e := &scenario.FilesExpect{
		Contains: []scenario.FileText{
			{Pos: at(50, 7), Path: "big.txt", Text: "x\nthe end"},
			{Pos: at(51, 7), Path: "big.txt", Text: "nowhere"},
		},
		Matches: []scenario.FileRegexp{{Pos: at(60, 7), Path: "big.txt", Re: regexp.MustCompile(`^x+\n`)}},
		Golden: []scenario.FileGolden{
			{Pos: at(80, 7), Path: "big.txt", Golden: same},
			{Pos: at(81, 7), Path: "big.txt", Golden: differs},
			{Pos: at(82, 7), Path: "big.txt", Golden: shorter},
			{Pos: at(83, 7), Path: "long.txt", Golden: lastByte},
			{Pos: at(84, 7), Path: "long-secret.txt", Golden: lastSecret},
		},
	}
	x, a := strings.Repeat("x", 30), strings.Repeat("a", 30)
	want := []string{
		`s.yaml:51:7: files.contains: "big.txt" does not contain "nowhere" (17825799 bytes, first line "` + x + x + `…")`,
		`s.yaml:81:7: files.golden: "big.txt" differs from ` + differs + `: 17825799 bytes, golden 17825799 bytes; first difference at byte 10239477, line 10000: "…` + x + x + `…", golden "…` + x + "y" + x[1:] + `…"`,
		`s.yaml:82:7: files.golden: "big.txt" differs from ` + shorter + `: 17825799 bytes, golden 17825792 bytes; the golden file ends after line 17408, the file goes on with "the end"`,
		`s.yaml:83:7: files.golden: "long.txt" differs from ` + lastByte + `: 17825792 bytes, golden 17825792 bytes; first difference at byte 17825792, line 1: "…` + a + `a", golden "…` + a + `b"`,
		`s.yaml:84:7: files.golden: "long-secret.txt" differs from ` + lastSecret + `: 17825792 bytes, golden 17825792 bytes; first difference at byte 17825792, line 1: "…[REDACTED]` + a[:16] + `a", golden "…[REDACTED]` + a[:16] + `b"`,
	}
	got := checkFiles(t.Context(), redact.New(secret), e, root, nil, nil, nil, true, nil)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestGoldenCompare: what a golden comparison says does not depend on how
// the file is cut into the writes it is read in, and is, for every pair of
// short texts, what comparing their lines whole says (goldenLines), but
// for the byte where they first differ, which it adds; a line quoted is
// shown around that byte, redacted knowing the line.
func TestGoldenCompare(t *testing.T) {
	t.Parallel()
	compare := func(red *redact.Redactor, got, want string, write int) string {
		t.Helper()
		g := &goldenCompare{path: "golden", want: io.NopCloser(strings.NewReader(want)), size: int64(len(want))}
		defer g.close()
		for p := got; len(p) > 0; {
			n := min(write, len(p))
			g.Write([]byte(p[:n]))
			p = p[n:]
		}
		g.finish()
		if g.err != nil {
			t.Fatalf("read: %v", g.err)
		}
		return g.diff(red, int64(len(got)))
	}
	texts := []string{""} // and every text of "a", "b" and "\n" up to 4 bytes long
	for i := 0; i < len(texts); i++ {
		if len(texts[i]) < 4 {
			for _, c := range []string{"a", "b", "\n"} {
				texts = append(texts, texts[i]+c)
			}
		}
	}
	byteAt := regexp.MustCompile(`first difference at byte \d+, `)
	for _, got := range texts {
		for _, want := range texts {
			whole := compare(nil, got, want, len(got)+1)
			if lines := goldenLines(got, want); byteAt.ReplaceAllString(whole, "first difference at ") != lines {
				t.Errorf("%q, golden %q: %s; by lines: %s", got, want, whole, lines)
			}
			if bytes := compare(nil, got, want, 1); bytes != whole {
				t.Errorf("%q, golden %q: read a byte at a time: %s; read whole: %s", got, want, bytes, whole)
			}
		}
	}

	x := strings.Repeat("x", 30)
	for _, tt := range []struct{ got, want, secret, diff string }{
		{"héllo\n", "hèllo\n", "", `7 bytes, golden 7 bytes; first difference at byte 3, line 1: "héllo", golden "hèllo"`},
		{"a\n" + x + "xxx1\n", "a\n" + x + "xxx2\n", "", `37 bytes, golden 37 bytes; first difference at byte 36, line 2: "…` + x + `1", golden "…` + x + `2"`},
		{x[:25] + "s3cr3t-value" + "A", x[:25] + "s3cr3t-value" + "B", "s3cr3t-value", `38 bytes, golden 38 bytes; first difference at byte 38, line 1: "…` + x[:18] + `[REDACTED]A", golden "…` + x[:18] + `[REDACTED]B"`},
	} {
		if got := compare(redact.New(tt.secret), tt.got, tt.want, 5); got != tt.diff {
			t.Errorf("%q, golden %q:\n got %s\nwant %s", tt.got, tt.want, got, tt.diff)
		}
	}
}

// goldenLines is how a golden comparison said the files differed when it
// compared their lines whole, read all at once: the sizes and the first
// line that differs.
func goldenLines(got, want string) string {
	if got == want {
		return ""
	}
	split := func(s string) ([]string, bool) {
		if s == "" {
			return nil, false
		}
		body, nl := strings.CutSuffix(s, "\n")
		return strings.Split(body, "\n"), nl
	}
	msg := fmt.Sprintf("%s, golden %s; ", plural(len(got), "byte", "bytes"), plural(len(want), "byte", "bytes"))
	gl, gotNL := split(got)
	wl, _ := split(want)
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return msg + fmt.Sprintf("first difference at line %d: %q, golden %q", i+1, gl[i], wl[i])
		}
	}
	switch {
	case len(gl) == 0:
		return msg + "the file is empty"
	case len(wl) == 0:
		return msg + "the golden file is empty"
	case len(gl) < len(wl):
		return msg + fmt.Sprintf("the file ends after line %d, the golden file goes on with %q", len(gl), wl[len(gl)])
	case len(gl) > len(wl):
		return msg + fmt.Sprintf("the golden file ends after line %d, the file goes on with %q", len(wl), gl[len(wl)])
	case gotNL:
		return msg + "the file ends with a newline, the golden file does not"
	}
	return msg + "the golden file ends with a newline, the file does not"
}

// TestCheckFilesStopsWhenDone: a file's contents are read until ctx ends
// (a second interrupt): the check then fails saying so, rather than
// reading on (a sparse file of terabytes takes hours).
func TestCheckFilesStopsWhenDone(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	e := &scenario.FilesExpect{Pos: at(5, 3), Contains: []scenario.FileText{{Pos: at(6, 5), Path: "big.txt", Text: "needle"}}}
	want := []string{`s.yaml:6:5: files.contains: "big.txt" cannot be read: acprun was stopped at once (second interrupt) before it was read to its end`}
	if diff := cmp.Diff(want, checkFiles(ctx, nil, e, root, nil, nil, nil, true, nil)); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if got := checkFiles(t.Context(), nil, e, root, nil, nil, nil, true, nil); got != nil {
		t.Errorf("failures %q; want none before ctx ends", got)
	}
}
