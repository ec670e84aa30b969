package output_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/google/go-cmp/cmp"
)

// writeJSON writes rep's JSON results to a file in dir and returns its path.
func writeJSON(t *testing.T, dir, name string, rep report.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := output.JSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decoded is results as generic JSON, to compare documents after decoding.
func decoded(t *testing.T, res output.Results) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := output.WriteResults(&buf, res); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// shard returns a copy of rep with the scenarios at the given indexes and
// its own times.
func shard(rep report.Report, start time.Time, d time.Duration, idx ...int) report.Report {
	s := rep
	s.StartedAt, s.Duration = start, d
	s.Scenarios = nil
	for _, i := range idx {
		s.Scenarios = append(s.Scenarios, rep.Scenarios[i])
	}
	return s
}

// TestMergeShards merges shards of the sample run and checks the result is
// the unsharded run's results, apart from the run's times, which are the
// earliest start and the longest duration.
func TestMergeShards(t *testing.T) {
	full := sampleReport()
	dir := t.TempDir()
	t0 := full.StartedAt
	paths := []string{
		// Out of order on purpose: merge sorts by file and line.
		writeJSON(t, dir, "b.json", shard(full, t0.Add(2*time.Second), 9*time.Second, 3, 1)),
		writeJSON(t, dir, "a.json", shard(full, t0.Add(time.Second), 20*time.Second, 2, 0)),
	}
	got, err := output.MergeFiles(paths)
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	want := output.NewResults(full)
	want.StartedAt = "2026-03-14T09:26:54.589Z"
	want.DurationMs = 20_000
	want.Summary.DurationMs = 20_000
	if diff := cmp.Diff(decoded(t, want), decoded(t, got)); diff != "" {
		t.Errorf("merged results (-want +got):\n%s", diff)
	}

	// Merging the merged results again changes nothing.
	merged := writeJSON(t, dir, "merged.json", got.Report())
	again, err := output.MergeFiles([]string{merged})
	if err != nil {
		t.Fatalf("MergeFiles(merged): %v", err)
	}
	if diff := cmp.Diff(decoded(t, got), decoded(t, again)); diff != "" {
		t.Errorf("merging merged results (-first +second):\n%s", diff)
	}
}

// TestMergeFlags checks interrupted and policyOverride across shards.
func TestMergeFlags(t *testing.T) {
	full := sampleReport()
	a := shard(full, full.StartedAt, time.Second, 0)
	b := shard(full, full.StartedAt, time.Second, 1)
	b.Interrupted = true
	b.PolicyOverride = "--deny-all"
	c := shard(full, full.StartedAt, time.Second, 2)
	c.PolicyOverride = "--deny-all"
	var shards []output.Results
	for _, r := range []report.Report{a, b, c} {
		shards = append(shards, output.NewResults(r))
	}
	got, err := output.Merge(shards...)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if !got.Interrupted || got.PolicyOverride != "--deny-all" {
		t.Errorf("Merge: interrupted %v, policyOverride %q; want true, --deny-all", got.Interrupted, got.PolicyOverride)
	}
	if got.Summary.Scenarios != 3 || got.Summary.Passed != 1 || got.Summary.Failed != 1 || got.Summary.Errored != 1 {
		t.Errorf("Merge: summary %+v; want 3 scenarios, 1 passed, 1 failed, 1 errored", got.Summary)
	}
}

// TestResultsRoundTrip checks that results read back print the same text
// summary and JUnit as the report they came from.
func TestResultsRoundTrip(t *testing.T) {
	noColor(t)
	rep := sampleReport()
	var js bytes.Buffer
	if err := output.JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	res, err := output.ReadResults(&js)
	if err != nil {
		t.Fatalf("ReadResults: %v", err)
	}
	for name, format := range map[string]func(*bytes.Buffer, report.Report) error{
		"text":  func(b *bytes.Buffer, r report.Report) error { return output.Text(b, r) },
		"junit": func(b *bytes.Buffer, r report.Report) error { return output.JUnit(b, r) },
	} {
		var want, got bytes.Buffer
		if err := format(&want, rep); err != nil {
			t.Fatal(err)
		}
		if err := format(&got, res.Report()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%s of the results read back (-want +got):\n%s", name, diff)
		}
	}
}

// TestMergeErrors checks that bad input files are refused, naming the file.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeJSON(t, dir, "good.json", sampleReport())
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name  string
		paths []string
		want  string // the error contains this
	}{
		{"missing", []string{good, filepath.Join(dir, "nope.json")}, "nope.json: no such file"},
		{"empty", []string{write("empty.json", " \n")}, "empty.json: empty file"},
		{"not json", []string{write("garbage.json", "<html>")}, "garbage.json: not acprun results"},
		{"no schemaVersion", []string{write("other.json", `{"scenarios": []}`)}, "other.json: not acprun results: no schemaVersion"},
		{"future schema", []string{write("v3.json", `{"schemaVersion": 3, "scenarios": []}`)}, "v3.json: schemaVersion 3 is not supported (want 1 to 2)"},
		{"bad startedAt", []string{write("time.json", `{"schemaVersion": 1, "startedAt": "yesterday"}`)}, "time.json: startedAt"},
		{"wrong type", []string{write("type.json", `{"schemaVersion": 1, "scenarios": {}}`)}, "type.json: not acprun results"},
		{"overlap", []string{good, good}, `good.json: scenario "basic" (examples/basic.yaml:3) is also in`},
		{"none", nil, "no results files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := output.MergeFiles(tt.paths)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MergeFiles = %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestReadResultsVersion1: results of schemaVersion 1 are read as the
// current version writes them: a scenario not run, or cut short by a
// cancel for an interrupt, the run's --timeout or --fail-fast (even one
// version 1 called passed), is interrupted, and the summary counts it so.
func TestReadResultsVersion1(t *testing.T) {
	doc := `{"schemaVersion": 1, "summary": {"scenarios": 4, "passed": 2, "errored": 2, "notRun": 1}, "scenarios": [
		{"name": "cut", "file": "s.yaml", "line": 1, "status": "passed", "turns": [
			{"index": 1, "stopReason": "cancelled", "cancelCause": "runTimeout"}, {"index": 2, "stopReason": "skipped"}]},
		{"name": "timed", "file": "s.yaml", "line": 5, "status": "passed", "turns": [
			{"index": 1, "stopReason": "cancelled", "cancelCause": "turnTimeout"}]},
		{"name": "start", "file": "s.yaml", "line": 9, "status": "error", "startFailed": true, "error": "initialize: context canceled", "turns": [
			{"index": 1, "stopReason": "skipped", "cancelCause": "failFast"}]},
		{"name": "never", "file": "s.yaml", "line": 13, "status": "error", "notRun": true, "error": "not run: interrupted first", "turns": [
			{"index": 1, "stopReason": "skipped"}]}]}`
	res, err := output.ReadResults(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Status      report.Status
		Error       string
		StartFailed bool
	}
	var gots []got
	for _, sc := range res.Scenarios {
		gots = append(gots, got{sc.Status, sc.Error, sc.StartFailed})
	}
	want := []got{
		{report.StatusInterrupted, "acprun cancelled turn 1 after runTimeout", false},
		{report.StatusPassed, "", false},
		{report.StatusInterrupted, "acprun cancelled turn 1 after failFast (initialize: context canceled)", false},
		{report.StatusInterrupted, "not run: interrupted first", false},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("scenarios read (-want +got):\n%s", diff)
	}
	s := res.Summary
	if res.SchemaVersion != report.SchemaVersion || s.Passed != 1 || s.Errored != 0 || s.Interrupted != 3 || s.NotRun != 1 {
		t.Errorf("schemaVersion %d, summary %+v; want %d, 1 passed, 3 interrupted (1 not run)", res.SchemaVersion, s, report.SchemaVersion)
	}
}

// TestMergeKeepsAgentAndAttempt merges shards of a matrix and repeated run
// (each shard holding some attempts of some agents): byStopReason still
// names the agent and attempt of every turn, and the warnings are counted.
func TestMergeKeepsAgentAndAttempt(t *testing.T) {
	full := matrixReport()
	dir := t.TempDir()
	t0 := full.StartedAt
	paths := []string{
		writeJSON(t, dir, "2.json", shard(full, t0, full.Duration, 3, 1, 4)),
		writeJSON(t, dir, "1.json", shard(full, t0, full.Duration, 2, 0)),
	}
	got, err := output.MergeFiles(paths)
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	if diff := cmp.Diff(wantMatrixRefs, got.ByStopReason); diff != "" {
		t.Errorf("merged byStopReason (-want +got):\n%s", diff)
	}
	if got.Summary.Warnings != 6 {
		t.Errorf("merged summary.warnings = %d, want 6", got.Summary.Warnings)
	}
}
