package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRerunFailedFromAnotherDirectory runs a suite from its own
// directory, then --rerun-failed from its parent: the failed scenario,
// recorded as s.yaml relative to the suite's directory (which the results
// record as their dir), is found as suite/s.yaml and run again, also from
// results merged of shards that ran in the two directories.
func TestRerunFailedFromAnotherDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: hi, expect: {text: {contains: nope}}}]\n"
	}
	writeFiles(t, dir, map[string]string{
		"suite/s.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"suite/s.yaml":      scenario("s"),
		"suite/t.yaml":      scenario("t"),
	})
	suite := filepath.Join(dir, "suite")
	if res := acprun(t, suite, "run", "s.yaml", "-o", "../last.json"); res.code != exitFailed {
		t.Fatalf("run in suite/: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	rerun := func(t *testing.T, results string) []string {
		t.Helper()
		res := acprun(t, dir, "run", "suite/", "--rerun-failed", results, "-o", "again.json")
		if res.code != exitFailed {
			t.Fatalf("--rerun-failed %s from the parent: exit %d, want %d\n%s", results, res.code, exitFailed, res.stderr)
		}
		var got []string
		for _, sc := range readResults(t, filepath.Join(dir, "again.json")).Scenarios {
			got = append(got, sc.File+" "+sc.Name)
		}
		return got
	}
	if diff := cmp.Diff([]string{"suite/s.yaml s"}, rerun(t, "last.json")); diff != "" {
		t.Errorf("rerun (-want +got):\n%s", diff)
	}

	// Shards of one run, from suite/ and from its parent, merged.
	if res := acprun(t, dir, "run", "suite/t.yaml", "-o", "t.json"); res.code != exitFailed {
		t.Fatalf("run suite/t.yaml: exit %d\n%s", res.code, res.stderr)
	}
	if res := acprun(t, dir, "merge", "last.json", "t.json", "-o", "all.json"); res.code != exitFailed {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"suite/s.yaml s", "suite/t.yaml t"}, rerun(t, "all.json")); diff != "" {
		t.Errorf("rerun of the merged shards (-want +got):\n%s", diff)
	}
}
