package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// noticeAgent reports a notice of the severity %s and compacts its
// context.
const noticeAgent = `turns:
  - steps:
      - notice: {severity: %s, title: MCP server unavailable, description: "github: connection refused"}
      - compaction: {compactionId: c1, status: in_progress}
      - compaction: {compactionId: c1, chunk: "Fixed the build."}
      - compaction: {compactionId: c1, status: completed}
      - text: done
`

const noticeScenario = `name: notices
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns:
  - prompt: go
    expect: {notices: {max: warning}}
`

// TestNoticesRecorded: acprun advertises session.notices and
// session.compaction, and records the agent's notices and compactions in
// the turn; a warning meets notices.max warning. Every message acprun sends
// validates against the ACP schema.
func TestNoticesRecorded(t *testing.T) {
	t.Parallel()
	res, out, dir := runOne(t, strings.Replace(noticeAgent, "%s", "warning", 1), noticeScenario, "--transcripts", "tr")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	turn := out.Scenarios[0].Turns[0]
	if len(turn.Notices) != 1 || turn.Notices[0].Severity != "warning" || turn.Notices[0].Title != "MCP server unavailable" ||
		turn.Notices[0].Description != "github: connection refused" {
		t.Errorf("notices = %+v, want the warning", turn.Notices)
	}
	if len(turn.Compactions) != 1 || turn.Compactions[0].ID != "c1" || turn.Compactions[0].Status != "completed" || turn.Compactions[0].Summary != "Fixed the build." {
		t.Errorf("compactions = %+v, want c1 completed with its summary", turn.Compactions)
	}
	if turn.Text != "done" {
		t.Errorf("text = %q, want only the agent's reply (no notice told in text)", turn.Text)
	}
	tr := filepath.Join(dir, out.Scenarios[0].Transcript)
	if init := findTranscriptLine(t, tr, `"method":"initialize"`, "c2a"); !strings.Contains(init, `"session":{"configOptions":{"boolean":{}},"notices":{},"compaction":{}}`) {
		t.Errorf("initialize = %s, want session.notices and session.compaction advertised", init)
	}
	validateTranscript(t, tr)
}

// TestNoticeAboveMaxFails: an error notice fails a turn whose notices.max
// is warning, naming the notice; a severity that is not one is an error at
// its place.
func TestNoticeAboveMaxFails(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, strings.Replace(noticeAgent, "%s", "error", 1), noticeScenario)
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	want := `s.yaml:5:29: notices.max warning: the agent reported 1 notice above warning in the turn: error "MCP server unavailable" (github: connection refused)`
	if fails := out.Scenarios[0].Turns[0].Failures; len(fails) != 1 || fails[0] != want {
		t.Errorf("failures = %q, want %q", fails, want)
	}
	if !strings.Contains(res.stderr, "MCP server unavailable") {
		t.Errorf("stderr does not name the notice:\n%s", res.stderr)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(noticeScenario, "max: warning", "max: critical", 1)})
	res = acprun(t, dir, "validate", "s.yaml")
	if want := `s.yaml:5:29: unknown notice severity "critical" (valid severities: info, warning, error)`; res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("validate: exit %d, want %d with %q\n%s", res.code, exitUsage, want, res.stderr)
	}
}
