package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// End-to-end tests of shards balanced by an earlier run's durations
// (--balance-from).

// earlierResults runs the suite of dir once and rewrites its results as
// prev.json with the given durations (in ms) by scenario name; a
// scenario not in ms is left out of the file.
func earlierResults(t *testing.T, dir string, ms map[string]int) {
	t.Helper()
	if res := acprun(t, dir, "run", "suite", "-o", "run.json"); res.code != exitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	var doc map[string]any
	readJSON(t, filepath.Join(dir, "run.json"), &doc)
	var kept []any
	for _, sc := range doc["scenarios"].([]any) {
		m := sc.(map[string]any)
		if d, ok := ms[m["name"].(string)]; ok {
			m["durationMs"] = d
			kept = append(kept, m)
		}
	}
	doc["scenarios"] = kept
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prev.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// listedNames is the names of list's lines.
func listedNames(out string) []string {
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(l, "\t"); len(f) > 1 {
			names = append(names, f[1])
		}
	}
	return names
}

// TestBalanceFrom: shards balanced by the durations of an earlier
// results file, longest first to the shard with the least time, a
// scenario it lacks weighing the median; the same from --shard and from
// GitLab's variables, for list and run alike.
func TestBalanceFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 6) // f0: s00 s03, f1: s01 s04, f2: s02 s05
	// s04 is not in the file: it weighs the median, 3s. By weight:
	// s00 9 → 1; s02 4 → 2; s03 3 → 2 (4); s04 3 → 2 (7); s05 2 → 1 (9);
	// s01 1 → 2 (10 < 11).
	earlierResults(t, dir, map[string]int{"s00": 9000, "s01": 1000, "s02": 4000, "s03": 3000, "s05": 2000})
	wants := [][]string{{"s00", "s05"}, {"s03", "s01", "s04", "s02"}}
	for i, want := range wants {
		shard := []string{"--shard", []string{"1/2", "2/2"}[i]}
		list := acprunEnv(t, dir, noShardEnv, append([]string{"list", "suite", "--balance-from", "prev.json"}, shard...)...)
		if got := listedNames(list.stdout); list.code != exitOK || !cmp.Equal(want, got) || list.stderr != "" {
			t.Errorf("list %v: exit %d, %v, want %v\n%s", shard, list.code, got, want, list.stderr)
		}
		gitlab := acprunEnv(t, dir, shardEnv("CI_NODE_INDEX="+[]string{"1", "2"}[i], "CI_NODE_TOTAL=2"), "list", "suite", "--balance-from", "prev.json")
		if got := listedNames(gitlab.stdout); !cmp.Equal(want, got) {
			t.Errorf("list under CI_NODE_INDEX=%d: %v, want %v\n%s", i+1, got, want, gitlab.stderr)
		}
		res, out := runResults(t, dir, append([]string{"suite", "--balance-from", "prev.json"}, shard...)...)
		var ran []string
		for _, r := range out.Scenarios {
			ran = append(ran, r.Name)
		}
		if res.code != exitOK || !cmp.Equal(want, ran) {
			t.Errorf("run %v: exit %d, ran %v, want %v\n%s", shard, res.code, ran, want, res.stderr)
		}
		if len(out.BalancedBy) != 12 {
			t.Errorf("run %v: balancedBy %q, want the fingerprint of prev.json's durations", shard, out.BalancedBy)
		}
		if err := os.Rename(filepath.Join(dir, "out.json"), filepath.Join(dir, fmt.Sprintf("shard%d.json", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	// Shards balanced from the same file merge, and keep its fingerprint.
	if res := acprun(t, dir, "merge", "shard1.json", "shard2.json", "-o", "merged.json"); res.code != exitOK ||
		readResults(t, filepath.Join(dir, "merged.json")).BalancedBy != readResults(t, filepath.Join(dir, "shard1.json")).BalancedBy {
		t.Errorf("merge of shards balanced alike: exit %d, want 0 and their balancedBy\n%s", res.code, res.stderr)
	}
	// A shard balanced from other durations, or round robin, is refused.
	earlierResults(t, dir, map[string]int{"s00": 1000, "s01": 9000})
	if res, _ := runResults(t, dir, "suite", "--balance-from", "prev.json", "--shard", "2/2"); res.code != exitOK {
		t.Fatalf("run from other durations: exit %d\n%s", res.code, res.stderr)
	}
	other := acprun(t, dir, "merge", "shard1.json", "out.json", "-o", "merged.json")
	if other.code != exitUsage || !strings.Contains(other.stderr, "merge: shard1.json was balanced from durations ") ||
		!strings.Contains(other.stderr, "but out.json from durations ") || !strings.Contains(other.stderr, "run every shard with the same --balance-from FILE") {
		t.Errorf("merge of shards balanced from different files: exit %d, want %d naming both\n%s", other.code, exitUsage, other.stderr)
	}
	if res, _ := runResults(t, dir, "suite", "--shard", "2/2"); res.code != exitOK {
		t.Fatalf("round robin run: exit %d\n%s", res.code, res.stderr)
	}
	if rr := acprun(t, dir, "merge", "shard1.json", "out.json", "-o", "merged.json"); rr.code != exitUsage ||
		!strings.Contains(rr.stderr, "but out.json round robin (no --balance-from durations)") {
		t.Errorf("merge of a balanced and a round robin shard: exit %d, want %d\n%s", rr.code, exitUsage, rr.stderr)
	}
}

// TestBalanceFromEdges: a file that does not exist leaves the shards
// round robin, with a warning (a first run has no earlier results), and
// so does one without scenarios, without a warning; a file that is not
// results is a usage error; without sharding the flag
// does nothing, and says so.
func TestBalanceFromEdges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 5)
	writeFiles(t, dir, map[string]string{"bad.json": "{not json"})
	plain := acprunEnv(t, dir, noShardEnv, "list", "suite", "--shard", "2/2")
	missing := acprunEnv(t, dir, noShardEnv, "list", "suite", "--shard", "2/2", "--balance-from", "none.json")
	if missing.code != exitOK || missing.stdout != plain.stdout ||
		!strings.Contains(missing.stderr, "acprun: warning: --balance-from none.json: no such file or directory: the shards are round robin") {
		t.Errorf("missing file: exit %d, stdout\n%s\nwant the round robin shard\n%s\nstderr: %s", missing.code, missing.stdout, plain.stdout, missing.stderr)
	}
	writeFiles(t, dir, map[string]string{"empty.json": `{"schemaVersion": 2, "scenarios": []}`}) // as the CI recipes make it
	empty := acprunEnv(t, dir, noShardEnv, "list", "suite", "--shard", "2/2", "--balance-from", "empty.json")
	if empty.code != exitOK || empty.stdout != plain.stdout || empty.stderr != "" {
		t.Errorf("results without scenarios: exit %d, stdout\n%s\nwant the round robin shard\n%s\nstderr: %s", empty.code, empty.stdout, plain.stdout, empty.stderr)
	}
	bad := acprunEnv(t, dir, noShardEnv, "run", "suite", "--shard", "1/2", "--balance-from", "bad.json", "-o", "out.json")
	if bad.code != exitUsage || !strings.Contains(bad.stderr, "--balance-from bad.json:1:2: not acprun results: invalid character 'n'") {
		t.Errorf("bad file: exit %d, want 2\n%s", bad.code, bad.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("a bad --balance-from file still ran the scenarios")
	}
	earlierResults(t, dir, map[string]int{"s00": 1})
	unsharded := acprunEnv(t, dir, noShardEnv, "list", "suite", "--balance-from", "prev.json")
	if unsharded.code != exitOK || !strings.Contains(unsharded.stderr, "--balance-from has no effect: the run is not sharded") {
		t.Errorf("without a shard: exit %d, stderr %q; want 0 and a warning", unsharded.code, unsharded.stderr)
	}
}
