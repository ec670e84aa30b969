package report_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestReadDurations: a scenario's duration is that of all its results
// (agents, attempts, retries) added up; one that never started took
// nothing; a file that does not exist is fs.ErrNotExist.
func TestReadDurations(t *testing.T) {
	dir := t.TempDir()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	rep := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		{Name: "a", File: "s.yaml", Attempt: 1, Duration: ms(1500), Status: report.StatusPassed, Agent: report.AgentInfo{Name: "x"}},
		{Name: "a", File: "s.yaml", Attempt: 1, Duration: ms(700), Status: report.StatusPassed, Agent: report.AgentInfo{Name: "y"}},
		{Name: "a", File: "s.yaml", Attempt: 2, Duration: ms(300), Status: report.StatusFailed, Retried: true, Agent: report.AgentInfo{Name: "x"}},
		{Name: "b", File: "t.yaml", Duration: ms(20), Status: report.StatusInterrupted},
		{Name: "c", File: "t.yaml", Status: report.StatusInterrupted, NotRun: true},
	}}
	for i := range rep.Scenarios {
		rep.Scenarios[i].DurationMs = rep.Scenarios[i].Duration.Milliseconds()
	}
	got, err := report.ReadDurations(writeJSON(t, dir, "r.json", rep))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]time.Duration{"a": ms(2500), "b": ms(20)}, got); diff != "" {
		t.Errorf("durations (-want +got):\n%s", diff)
	}
	if _, err := report.ReadDurations(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
