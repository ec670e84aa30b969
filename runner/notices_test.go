package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestNoticesAndCompactionsRecorded: notices are recorded in the turn they
// came in (those before the first turn with the setup, late ones marked),
// compactions merged by id from their updates and summary chunks; a turn's
// notices.max judges its own notices, the scenario's all of them.
func TestNoticesAndCompactionsRecorded(t *testing.T) {
	t.Parallel()
	rep := runOne(t, `
updatesBeforeSessionNew:
  - notice: {severity: error, title: MCP server unavailable, description: "github: connection refused"}
turns:
  - steps:
      - notice: {severity: info, title: Indexed}
      - compaction: {compactionId: c1, status: in_progress}
      - compaction: {compactionId: c1, chunk: "We fixed "}
      - compaction: {compactionId: c1, chunk: "the build."}
      - compaction: {compactionId: c1, status: completed}
      - compaction: {compactionId: c2, status: failed, summary: partial, error: too long}
      - text: done
    after:
      - notice: {severity: warning, title: Rate limited}
  - steps:
      - notice: {severity: _debug, title: custom}
      - text: done
`, `name: notices
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
expect: {notices: {max: warning}}
turns:
  - prompt: one
    expect: {notices: {max: info}}
  - prompt: two
    expect: {notices: {max: warning}}
`)
	sc := rep.Scenarios[0]
	if diff := cmp.Diff([]report.Notice{{Severity: "error", Title: "MCP server unavailable", Description: "github: connection refused"}}, sc.SetupNotices); diff != "" {
		t.Errorf("setup notices (-want +got):\n%s", diff)
	}
	t1, t2 := sc.Turns[0], sc.Turns[1]
	wantNotices := []report.Notice{{Severity: "info", Title: "Indexed"}, {Severity: "warning", Title: "Rate limited", Late: true}}
	if diff := cmp.Diff(wantNotices, t1.Notices); diff != "" {
		t.Errorf("turn 1 notices (-want +got):\n%s", diff)
	}
	wantCompactions := []report.Compaction{
		{ID: "c1", Status: "completed", Summary: "We fixed the build."},
		{ID: "c2", Status: "failed", Summary: "partial", Error: "too long"},
	}
	if diff := cmp.Diff(wantCompactions, t1.Compactions); diff != "" {
		t.Errorf("turn 1 compactions (-want +got):\n%s", diff)
	}
	if len(t1.Failures) != 0 {
		t.Errorf("turn 1 failures = %q, want none: its own notices are info, the late warning is not its own", t1.Failures)
	}
	if want := `notices.max warning: the agent reported 1 notice above warning in the turn: "_debug" (taken as error) "custom"`; len(t2.Failures) != 1 || !strings.Contains(t2.Failures[0], want) {
		t.Errorf("turn 2 failures = %q, want %q: an unknown severity is taken as error", t2.Failures, want)
	}
	if sc.Status != report.StatusFailed || len(sc.Failures) != 2 {
		t.Fatalf("status %s, failures %q; want failed on turn 2's notices and the scenario's", sc.Status, sc.Failures)
	}
	want := `notices.max warning: the agent reported 2 notices above warning in the scenario: error "MCP server unavailable" (github: connection refused), "_debug" (taken as error) "custom"`
	if !strings.Contains(sc.Failures[1], want) || !strings.HasPrefix(sc.Failures[1], sc.File+":3:") {
		t.Errorf("failure = %q, want at %s:3 %q", sc.Failures[1], sc.File, want)
	}
}

func TestCheckNotices(t *testing.T) {
	t.Parallel()
	notices := []report.Notice{
		{Severity: "info", Title: "a"},
		{Severity: "warning", Title: "b", Description: strings.Repeat("x", 130)},
		{Severity: "error", Title: "c"},
	}
	e := &scenario.NoticesExpect{Max: "info", MaxPos: at(4, 22)}
	got := checkNotices(nil, e, notices, "the turn")
	want := []string{`s.yaml:4:22: notices.max info: the agent reported 2 notices above info in the turn: warning "b" (` + strings.Repeat("x", 120) + `…), error "c"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checkNotices (-want +got):\n%s", diff)
	}
	if got := checkNotices(nil, &scenario.NoticesExpect{Max: "error", MaxPos: at(4, 22)}, notices, "the turn"); got != nil {
		t.Errorf("max error: %q, want nothing", got)
	}
}

// TestCompactionSummaryCutRedacted: a compaction's summary cut at
// maxSummary through a secret keeps no part of it: what is left of the
// secret is [REDACTED].
func TestCompactionSummaryCutRedacted(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCdef123XYZ"
	rep := runOne(t, `
turns:
  - steps:
      - compaction: {compactionId: c1, status: in_progress}
      - compaction: {compactionId: c1, chunk: "`+strings.Repeat("x", maxSummary-12)+`"}
      - compaction: {compactionId: c1, chunk: "sum `+secret+` end"}
      - text: done
`, `name: cutsummary
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {MY_SECRET: `+secret+`}}
turns: [{prompt: one}]
`)
	cs := rep.Scenarios[0].Turns[0].Compactions
	if len(cs) != 1 {
		t.Fatalf("compactions %d, want 1", len(cs))
	}
	got := cs[0].Summary
	if !cs[0].SummaryTruncated || strings.Contains(got, "sk-live") || !strings.HasSuffix(got, "sum "+redact.Marker) {
		t.Errorf("summary ends %q (truncated %v), want it cut and ending %q", got[max(0, len(got)-40):], cs[0].SummaryTruncated, "sum "+redact.Marker)
	}
}
