package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// invalidRun is a scenario repeated four times against one agent: two
// passes, one failure and one attempt that measured nothing (rate
// limited), plus a scenario whose only try was invalid after an errored
// one that was retried.
func invalidRun() report.Report {
	upstream := &report.Invalid{Reason: report.InvalidUpstream, Message: "turn 1: session/prompt: rate limit exceeded (code -32603)"}
	tampered := &report.Invalid{Reason: report.InvalidTampered, Message: "s.yaml:7:14: workspace.protect: the agent modified verify.sh", Files: []string{"verify.sh"}}
	return report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{
		{Name: "fix", File: "s.yaml", Line: 1, Attempt: 1, Status: report.StatusPassed},
		{Name: "fix", File: "s.yaml", Line: 1, Attempt: 2, Status: report.StatusInvalid, Invalid: upstream},
		{Name: "fix", File: "s.yaml", Line: 1, Attempt: 3, Status: report.StatusFailed},
		{Name: "fix", File: "s.yaml", Line: 1, Attempt: 4, Status: report.StatusPassed},
		{Name: "cheat", File: "s.yaml", Line: 5, Status: report.StatusError, Error: "the agent exited", Retried: true},
		{Name: "cheat", File: "s.yaml", Line: 5, Retry: 1, Status: report.StatusInvalid, Invalid: tampered},
	}}
}

// TestSummaryCountsInvalidApart: an invalid result is neither failed nor
// errored; a retried try of it is not counted.
func TestSummaryCountsInvalidApart(t *testing.T) {
	s := report.Summarize(invalidRun())
	got := []int{s.Scenarios, s.Passed, s.Failed, s.Errored, s.Interrupted, s.Invalid, s.Retried}
	if diff := cmp.Diff([]int{5, 2, 1, 0, 0, 2, 1}, got); diff != "" {
		t.Errorf("scenarios, passed, failed, errored, interrupted, invalid, retried (-want +got):\n%s", diff)
	}
}

// TestPassRatesLeaveInvalidOut: an invalid attempt is no sample: the rate
// is 2 of 3, not 2 of 4, and the attempt is counted as invalid. A
// scenario whose only attempt was invalid (its retried try not counted)
// keeps its row, without attempts.
func TestPassRatesLeaveInvalidOut(t *testing.T) {
	rates := report.PassRates(invalidRun())
	if len(rates) != 2 {
		t.Fatalf("pass rates %+v: want fix's and cheat's", rates)
	}
	p := rates[0]
	if p.Attempts != 3 || p.Passed != 2 || p.Invalid != 1 || report.FormatRate(p.Rate) != "0.6667" || len(p.PassAtK) != 3 {
		t.Errorf("fix: %d attempts, %d passed, %d invalid, rate %v, %d pass@k; want 3, 2, 1, 0.6667, 3", p.Attempts, p.Passed, p.Invalid, p.Rate, len(p.PassAtK))
	}
	if p := rates[1]; p.Scenario != "cheat" || p.Attempts != 0 || p.Invalid != 1 || len(p.PassAtK) != 0 {
		t.Errorf("cheat: %+v; want no attempts, 1 invalid", p)
	}
	// An attempt that is invalid alone is no comparison either, and a
	// scenario whose attempts were all invalid has no rate, but a row.
	rep := report.Report{Scenarios: []report.Result{
		{Name: "a", File: "s.yaml", Attempt: 1, Status: report.StatusInvalid},
		{Name: "a", File: "s.yaml", Attempt: 2, Status: report.StatusInvalid},
		{Name: "b", File: "s.yaml", Attempt: 1, Status: report.StatusPassed},
		{Name: "b", File: "s.yaml", Attempt: 2, Status: report.StatusPassed},
	}}
	if rates := report.PassRates(rep); len(rates) != 2 || rates[0].Scenario != "a" || rates[0].Attempts != 0 || rates[0].Invalid != 2 || rates[1].Scenario != "b" {
		t.Errorf("pass rates %+v: want a's without attempts, 2 invalid, and b's", rates)
	}
}

// TestInvalidRoundTrips: the invalid status and its reason are written,
// read back, merged and picked by --rerun-failed.
func TestInvalidRoundTrips(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	var buf bytes.Buffer
	if err := report.Write(&buf, invalidRun()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schemaVersion": 3`, `"invalid": 2`, `"status": "invalid"`,
		"\"invalid\": {\n        \"reason\": \"tampered\",\n        \"message\": \"s.yaml:7:14: workspace.protect: the agent modified verify.sh\",\n        \"files\": [\n          \"verify.sh\"\n        ]\n      }"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the results lack %s:\n%s", want, buf.String())
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	merged, err := report.MergeFiles([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(invalidRun().Scenarios, merged.Scenarios); diff != "" {
		t.Errorf("merged results (-want +got):\n%s", diff)
	}
	t.Chdir(dir) // the results name s.yaml relative to the run's directory
	set, err := report.ReadRerun(path)
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "s.yaml")
	var got []string
	for _, sc := range set.Filter([]*scenario.Scenario{{Name: "fix", File: abs}, {Name: "cheat", File: abs}}) {
		got = append(got, sc.Name)
	}
	if diff := cmp.Diff([]string{"fix", "cheat"}, got); diff != "" {
		t.Errorf("rerun (-want +got):\n%s", diff)
	}
}

// TestReadVersion2: results of schemaVersion 2 are read as version 3 says
// them (nothing in them is invalid); a later version is refused.
func TestReadVersion2(t *testing.T) {
	doc := `{"schemaVersion": 2, "summary": {"scenarios": 1, "errored": 1}, "scenarios": [
		{"name": "crash", "file": "s.yaml", "line": 1, "status": "error", "error": "the agent exited", "turns": []}]}`
	res, err := report.Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != report.SchemaVersion || res.Scenarios[0].Status != report.StatusError || res.Scenarios[0].Invalid != nil {
		t.Errorf("read as version %d, status %s, invalid %v", res.SchemaVersion, res.Scenarios[0].Status, res.Scenarios[0].Invalid)
	}
	_, err = report.Read(strings.NewReader(`{"schemaVersion": 4, "scenarios": []}`))
	if err == nil || err.Error() != "schemaVersion 4 is not supported (want 1 to 3): a newer acprun wrote it; read it with that version" {
		t.Errorf("version 4: %v", err)
	}
}
