package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandMadeResultsWithoutStart: merge and report of results written by
// hand, with no startedAt, leave the start out (no startedAt in the merged
// results, no "started" in the page), rather than showing year 1.
func TestHandMadeResultsWithoutStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hand.json": `{"schemaVersion": 3, "scenarios": [{"name": "a", "status": "passed", "file": "s.yaml", "line": 1,
  "turns": [{"index": 1, "prompt": "hi", "stopReason": "end_turn"}]}]}`,
	})
	if res := acprun(t, dir, "merge", "hand.json", "-o", "merged.json"); res.code != exitOK {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	merged, err := os.ReadFile(filepath.Join(dir, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(merged), "startedAt") {
		t.Errorf("the merged results hold a startedAt the file did not have:\n%s", merged)
	}
	if res := acprun(t, dir, "report", "hand.json", "-o", "r.html"); res.code != exitOK {
		t.Fatalf("report: exit %d\n%s", res.code, res.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "0001-01-01") || strings.Contains(string(page), "started ") {
		t.Errorf("the report shows a start the results did not have")
	}
}

// TestHandMadeResultsWithoutStopReason: merge of results written by hand
// whose turn has no stopReason says so in its summary ("no stop reason"),
// on the scenario's line and in the totals, rather than "PASS a (, 0s)".
func TestHandMadeResultsWithoutStopReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hand.json": `{"schemaVersion": 3, "startedAt": "2026-03-14T09:26:53.589Z", "scenarios": [
  {"name": "a", "status": "failed", "file": "s.yaml", "line": 1, "failures": ["s.yaml:3:5: it failed"],
   "turns": [{"index": 1, "prompt": "hi"}]}]}`,
	})
	res := acprun(t, dir, "merge", "hand.json", "-o", "merged.json", "--color", "never")
	if res.code != exitFailed {
		t.Fatalf("merge: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	for _, want := range []string{"FAIL a (no stop reason, 0s)", "; turns: no stop reason 1"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the summary lacks %q:\n%s", want, res.stderr)
		}
	}
}
