package report_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestMergeExpansions: the scenarios a document with vars expands into
// share its file and line; merge tells them apart by their value set and
// puts them back in the order of the unsharded run, whichever shards they
// ran in.
func TestMergeExpansions(t *testing.T) {
	dir := t.TempDir()
	result := func(set int, attempt int) report.Result {
		return report.Result{Name: fmt.Sprintf("x[n=%d]", set), File: "s.yaml", Line: 1, VarSet: set, Vars: map[string]string{"n": fmt.Sprint(set)},
			Attempt: attempt, Status: report.StatusPassed}
	}
	shard1 := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{result(3, 1), result(3, 2), result(1, 1), result(1, 2)}}
	shard2 := report.Report{SchemaVersion: report.SchemaVersion, Scenarios: []report.Result{result(2, 1), result(2, 2)}}
	got, err := report.MergeFiles([]string{writeJSON(t, dir, "1.json", shard1), writeJSON(t, dir, "2.json", shard2)})
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	var names []string
	for _, r := range got.Scenarios {
		names = append(names, r.Label())
	}
	want := []string{"x[n=1]", "x[n=1] #2", "x[n=2]", "x[n=2] #2", "x[n=3]", "x[n=3] #2"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("merged order (-want +got):\n%s", diff)
	}
	if _, err := report.MergeFiles([]string{writeJSON(t, dir, "1.json", shard1), writeJSON(t, dir, "3.json", shard1)}); err == nil {
		t.Error("the same expansion in two shards merged; want an overlap error")
	}
}
