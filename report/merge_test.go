package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/google/go-cmp/cmp"
)

// writeJSON writes rep's JSON results to a file in dir and returns its path.
func writeJSON(t *testing.T, dir, name string, rep report.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decoded is the results of rep as generic JSON, to compare documents
// after decoding.
func decoded(t *testing.T, rep report.Report) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Write(&buf, rep); err != nil {
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
	full := reporttest.Sample()
	dir := t.TempDir()
	t0 := full.StartedAt
	paths := []string{
		// Out of order on purpose: merge sorts by file and line.
		writeJSON(t, dir, "b.json", shard(full, t0.Add(2*time.Second), 9*time.Second, 3, 1)),
		writeJSON(t, dir, "a.json", shard(full, t0.Add(time.Second), 20*time.Second, 2, 0)),
	}
	got, err := report.MergeFiles(paths)
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	want := full
	want.StartedAt = time.Date(2026, 3, 14, 9, 26, 54, 589_000_000, time.UTC)
	want.Duration = 20 * time.Second
	if diff := cmp.Diff(decoded(t, want), decoded(t, got)); diff != "" {
		t.Errorf("merged results (-want +got):\n%s", diff)
	}

	// Merging the merged results again changes nothing.
	merged := writeJSON(t, dir, "merged.json", got)
	again, err := report.MergeFiles([]string{merged})
	if err != nil {
		t.Fatalf("MergeFiles(merged): %v", err)
	}
	if diff := cmp.Diff(decoded(t, got), decoded(t, again)); diff != "" {
		t.Errorf("merging merged results (-first +second):\n%s", diff)
	}
}

// TestMergeFlags checks interrupted and policyOverride across shards.
func TestMergeFlags(t *testing.T) {
	full := reporttest.Sample()
	a := shard(full, full.StartedAt, time.Second, 0)
	b := shard(full, full.StartedAt, time.Second, 1)
	b.Interrupted = true
	b.PolicyOverride = "--deny-all"
	c := shard(full, full.StartedAt, time.Second, 2)
	c.PolicyOverride = "--deny-all"
	dir := t.TempDir()
	rep, err := report.MergeFiles([]string{writeJSON(t, dir, "a.json", a), writeJSON(t, dir, "b.json", b), writeJSON(t, dir, "c.json", c)})
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	got := report.NewResults(rep)
	if !got.Interrupted || got.PolicyOverride != "--deny-all" {
		t.Errorf("Merge: interrupted %v, policyOverride %q; want true, --deny-all", got.Interrupted, got.PolicyOverride)
	}
	if got.Summary.Scenarios != 3 || got.Summary.Passed != 1 || got.Summary.Failed != 1 || got.Summary.Errored != 1 {
		t.Errorf("Merge: summary %+v; want 3 scenarios, 1 passed, 1 failed, 1 errored", got.Summary)
	}
}

// TestMergeBalancedBy: shards balanced from the same durations merge and
// keep their fingerprint; shards balanced from different durations, or
// some balanced and some round robin, are refused, naming the files.
func TestMergeBalancedBy(t *testing.T) {
	full := reporttest.Sample()
	fp := report.BalanceFingerprint(map[string]time.Duration{"basic": time.Second, "slow": time.Minute})
	other := report.BalanceFingerprint(map[string]time.Duration{"basic": time.Second, "slow": time.Minute + time.Millisecond})
	if len(fp) != 12 || fp == other {
		t.Fatalf("fingerprints %q and %q: want 12 hex digits, different for different durations", fp, other)
	}
	if again := report.BalanceFingerprint(map[string]time.Duration{"slow": time.Minute, "basic": time.Second}); again != fp {
		t.Errorf("fingerprint of the same durations = %q, want %q", again, fp)
	}
	dir := t.TempDir()
	shardBy := func(name, balancedBy string, i int) string {
		s := shard(full, full.StartedAt, time.Second, i)
		s.BalancedBy = balancedBy
		return writeJSON(t, dir, name, s)
	}
	same, err := report.MergeFiles([]string{shardBy("a.json", fp, 0), shardBy("b.json", fp, 1)})
	if err != nil || same.BalancedBy != fp || report.NewResults(same).BalancedBy != fp {
		t.Errorf("MergeFiles(same durations) = balancedBy %q, %v; want %q", same.BalancedBy, err, fp)
	}
	for _, tt := range []struct {
		name   string
		a, b   string
		errMsg string
	}{
		{"different", fp, other, "a.json was balanced from durations " + fp + ", but b.json from durations " + other + ":"},
		{"some round robin", fp, "", "a.json was balanced from durations " + fp + ", but b.json round robin"},
		{"round robin first", "", fp, "a.json was balanced round robin (no --balance-from durations), but b.json from durations " + fp},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := report.MergeFiles([]string{shardBy("a.json", tt.a, 0), shardBy("b.json", tt.b, 1)})
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tt.errMsg) ||
				!strings.Contains(err.Error(), "same --balance-from FILE") {
				t.Errorf("MergeFiles = %v; want an error containing %q", err, tt.errMsg)
			}
		})
	}
}

// TestMergeErrors checks that bad input files are refused, naming the file.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeJSON(t, dir, "good.json", reporttest.Sample())
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
		{"not json", []string{write("garbage.json", "<html>")}, "garbage.json:1:1: not acprun results: invalid character '<'"},
		{"no schemaVersion", []string{write("other.json", `{"scenarios": []}`)}, "other.json: not acprun results: no schemaVersion"},
		{"future schema", []string{write("v4.json", `{"schemaVersion": 4, "scenarios": []}`)}, "v4.json:1:19: schemaVersion 4 is not supported (want 1 to 3): a newer acprun wrote it; read it with that version"},
		{"bad startedAt", []string{write("time.json", `{"schemaVersion": 1, "startedAt": "yesterday"}`)}, `time.json:1:35: not acprun results: startedAt: "yesterday" is not a time`},
		{"wrong type", []string{write("type.json", `{"schemaVersion": 1, "scenarios": {}}`)}, "type.json:1:35: not acprun results: scenarios: want a list, got object"},
		{"overlap", []string{good, writeJSON(t, dir, "copy.json", reporttest.Sample())}, `copy.json: scenario "basic" (examples/basic.yaml:3) is also in`},
		{"none", nil, "no results files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := report.MergeFiles(tt.paths)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MergeFiles = %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestMergeKeepsAgentAndAttempt merges shards of a matrix and repeated run
// (each shard holding some attempts of some agents): byStopReason still
// names the agent and attempt of every turn, and the warnings are counted.
func TestMergeKeepsAgentAndAttempt(t *testing.T) {
	full := reporttest.Matrix()
	dir := t.TempDir()
	t0 := full.StartedAt
	paths := []string{
		writeJSON(t, dir, "2.json", shard(full, t0, full.Duration, 3, 1, 4)),
		writeJSON(t, dir, "1.json", shard(full, t0, full.Duration, 2, 0)),
	}
	rep, err := report.MergeFiles(paths)
	if err != nil {
		t.Fatalf("MergeFiles: %v", err)
	}
	got := report.NewResults(rep)
	if diff := cmp.Diff(reporttest.MatrixRefs(), got.ByStopReason); diff != "" {
		t.Errorf("merged byStopReason (-want +got):\n%s", diff)
	}
	if got.Summary.Warnings != 6 {
		t.Errorf("merged summary.warnings = %d, want 6", got.Summary.Warnings)
	}
}

func TestMergeKeepsEveryTry(t *testing.T) {
	rep := reporttest.Retried()
	a, b := rep, rep
	a.Scenarios, b.Scenarios = rep.Scenarios[:3], rep.Scenarios[3:]
	dir := t.TempDir()
	res, err := report.MergeFiles([]string{writeJSON(t, dir, "b.json", b), writeJSON(t, dir, "a.json", a)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range res.Scenarios {
		got = append(got, sc.Name+string(rune('0'+sc.Attempt))+string(rune('0'+sc.Retry)))
	}
	if diff := cmp.Diff([]string{"flaky10", "flaky11", "flaky20", "broken00", "broken01"}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}

// TestMergeSaysAResultTwiceInAFile: a file that holds one result twice
// is not two shards that overlap: merge says where the two are in it. A
// result of a run without a scenario file is said by its flag.
func TestMergeSaysAResultTwiceInAFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, results ...string) string {
		path := filepath.Join(dir, name)
		doc := `{"schemaVersion": 3, "scenarios": [` + strings.Join(results, ", ") + `]}`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	twice := write("twice.json", result(""), result(""))
	oneShot := `{"name": "prompt", "file": "", "line": 0, "status": "passed", "agent": {"name": "claude"}}`
	shard := write("shard.json", oneShot)
	other := write("other.json", oneShot)
	t.Chdir(dir)
	for _, tt := range []struct {
		paths []string
		want  string
	}{
		{[]string{twice}, twice + `: scenarios.0 and scenarios.1 are the same result, of scenario "a" (a.yaml:1): acprun writes each result once`},
		{[]string{shard, other}, other + `: scenario "prompt [claude]" (--prompt) is also in ` + shard + `: the shards overlap`},
		// One file given twice is not two shards that overlap.
		{[]string{shard, "./shard.json"}, `./shard.json: the same file as ` + shard + `, given twice: give each results file once`},
		{[]string{shard, other, shard}, shard + `: the same file as ` + shard + `, given twice: give each results file once`},
	} {
		if _, err := report.MergeFiles(tt.paths); err == nil || err.Error() != tt.want {
			t.Errorf("MergeFiles = %v; want %q", err, tt.want)
		}
	}
}

// TestMergeOneFileSpeltTwoWays: the same scenario file spelt differently
// in two shards (suite/f.yaml, ./suite/f.yaml, its absolute path, its path
// through a linked directory, from another directory of the run) is one
// file, as --rerun-failed takes it: the shards overlap. Another file at
// the same line is another scenario.
func TestMergeOneFileSpeltTwoWays(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "suite"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"suite/f.yaml", "suite/g.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("name: a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "suite"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	write := func(name, runDir, file string) string {
		path := filepath.Join(dir, name)
		doc := `{"schemaVersion": 3, "dir": "` + runDir + `", "scenarios": [{"name": "a", "file": "` + file + `", "line": 1, "status": "failed"}]}`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("a.json", dir, "suite/f.yaml")
	for _, tt := range []struct{ name, runDir, file string }{
		{"dot slash", dir, "./suite/f.yaml"},
		{"absolute", dir, filepath.Join(dir, "suite/f.yaml")},
		{"linked directory", dir, "link/f.yaml"},
		{"another directory", filepath.Join(dir, "suite"), "f.yaml"},
		{"not here, absolute", "/nowhere/ci", "/nowhere/ci/suite/f.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first := a
			if strings.HasPrefix(tt.runDir, "/nowhere") {
				first = write("n.json", "/nowhere/ci", "suite/f.yaml")
			}
			b := write(strings.ReplaceAll(tt.name, " ", "-")+".json", tt.runDir, tt.file)
			want := `: scenario "a" (` + tt.file + `:1) is also in ` + first + `: the shards overlap`
			if _, err := report.MergeFiles([]string{first, b}); err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("MergeFiles = %v; want an error ending %q", err, want)
			}
		})
	}
	rep, err := report.MergeFiles([]string{a, write("g.json", dir, "suite/g.yaml")})
	if err != nil || len(rep.Scenarios) != 2 {
		t.Errorf("MergeFiles of two files = %d scenarios, %v; want 2", len(rep.Scenarios), err)
	}
}

// TestMergeAttemptOneSpeltTwoWays: a result without an attempt number (a
// run without --repeat) and one of attempt 1 are the same attempt: two
// shards holding them overlap. Attempt 2 is another result.
func TestMergeAttemptOneSpeltTwoWays(t *testing.T) {
	dir := t.TempDir()
	write := func(name, attempt string) string {
		path := filepath.Join(dir, name)
		doc := `{"schemaVersion": 3, "scenarios": [{"name": "a", "file": "a.yaml", "line": 1, "status": "passed"` + attempt + `}]}`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	once, first, second := write("once.json", ""), write("first.json", `, "attempt": 1`), write("second.json", `, "attempt": 2`)
	for _, paths := range [][]string{{once, first}, {first, once}} {
		want := paths[1] + `: scenario "a" (a.yaml:1) is also in ` + paths[0] + `: the shards overlap`
		if _, err := report.MergeFiles(paths); err == nil || err.Error() != want {
			t.Errorf("MergeFiles(%s) = %v; want %q", paths, err, want)
		}
	}
	if rep, err := report.MergeFiles([]string{once, second}); err != nil || len(rep.Scenarios) != 2 {
		t.Errorf("MergeFiles of attempts 1 and 2 = %d scenarios, %v; want 2", len(rep.Scenarios), err)
	}
}

// TestMergeOrdersByResolvedFile: shards run from different directories
// record one suite's files relative to each; merged, they are in the
// unsharded run's order, by each file's path resolved against its shard's
// dir (then position), and keep the files as recorded. Shards that do
// not all say their directory (an older acprun's) are ordered by the
// files as recorded, as before.
func TestMergeOrdersByResolvedFile(t *testing.T) {
	dir := t.TempDir()
	type entry struct {
		file string
		line int
	}
	write := func(name, runDir string, entries ...entry) string {
		t.Helper()
		doc := `{"schemaVersion": 3`
		if runDir != "" {
			doc += `, "dir": "` + runDir + `"`
		}
		doc += `, "scenarios": [`
		for i, e := range entries {
			if i > 0 {
				doc += ", "
			}
			doc += `{"name": "` + e.file + `", "file": "` + e.file + `", "line": ` + strconv.Itoa(e.line) + `, "status": "passed"}`
		}
		doc += "]}"
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	root, suite := "/ci/run", "/ci/run/suite"
	for _, tt := range []struct {
		name   string
		shards []string
		want   []string
	}{{
		name: "one shard from the root, one from suite/",
		shards: []string{
			write("root.json", root, entry{"suite/a.yaml", 1}, entry{"suite/c.yaml", 1}, entry{"suite/z/e.yaml", 1}),
			write("suite.json", suite, entry{"b.yaml", 1}, entry{"crash2.yaml", 1}, entry{"d.yaml", 1}),
		},
		want: []string{"suite/a.yaml:1", "b.yaml:1", "suite/c.yaml:1", "crash2.yaml:1", "d.yaml:1", "suite/z/e.yaml:1"},
	}, {
		name: "the same file from two directories, by line",
		shards: []string{
			write("root2.json", root, entry{"./suite/a.yaml", 9}, entry{"suite/b.yaml", 1}),
			write("suite2.json", suite, entry{"a.yaml", 3}, entry{"/ci/run/suite/b.yaml", 2}),
		},
		want: []string{"a.yaml:3", "./suite/a.yaml:9", "suite/b.yaml:1", "/ci/run/suite/b.yaml:2"},
	}, {
		name: "no directories recorded",
		shards: []string{
			write("old1.json", "", entry{"suite/a.yaml", 1}, entry{"suite/c.yaml", 1}),
			write("old2.json", "", entry{"b.yaml", 1}, entry{"crash2.yaml", 1}),
		},
		want: []string{"b.yaml:1", "crash2.yaml:1", "suite/a.yaml:1", "suite/c.yaml:1"},
	}, {
		name: "one shard without a directory",
		shards: []string{
			write("old3.json", "", entry{"suite/a.yaml", 1}, entry{"suite/c.yaml", 1}),
			write("new3.json", suite, entry{"b.yaml", 1}, entry{"crash2.yaml", 1}),
		},
		want: []string{"b.yaml:1", "crash2.yaml:1", "suite/a.yaml:1", "suite/c.yaml:1"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := report.MergeFiles(tt.shards)
			if err != nil {
				t.Fatalf("MergeFiles: %v", err)
			}
			var got []string
			for _, sc := range rep.Scenarios {
				got = append(got, sc.File+":"+strconv.Itoa(sc.Line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("merged order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeKeepsTheMatrixOrder: results of an --agent matrix are merged in
// the order of the shards' --agent (agents), as the unsharded run ordered
// them, not by the agents' names; by name when the shards do not say it
// alike.
func TestMergeKeepsTheMatrixOrder(t *testing.T) {
	dir := t.TempDir()
	result := func(name, agent string, attempt int) report.Result {
		return report.Result{Name: name, File: "s.yaml", Line: map[string]int{"a": 1, "b": 5}[name], Agent: report.AgentInfo{Name: agent, Command: []string{agent}},
			Attempt: attempt, Status: report.StatusPassed}
	}
	run := func(agents []string, scs ...report.Result) report.Report {
		return report.Report{SchemaVersion: report.SchemaVersion, Agents: agents, Dir: dir, Scenarios: scs}
	}
	order := func(rep report.Report) []string {
		var out []string
		for _, r := range rep.Scenarios {
			out = append(out, r.Name+"/"+r.Agent.Name+"#"+strconv.Itoa(r.Attempt))
		}
		return out
	}
	matrix := []string{"zed", "alpha"}
	for _, tt := range []struct {
		name         string
		first, other []string // the shards' agents
		want         []string
	}{
		{"the run's order", matrix, matrix, []string{"a/zed#1", "a/zed#2", "a/alpha#1", "a/alpha#2", "b/zed#1", "b/alpha#1"}},
		{"shards that do not say it", nil, nil, []string{"a/alpha#1", "a/alpha#2", "a/zed#1", "a/zed#2", "b/alpha#1", "b/zed#1"}},
		{"shards that differ", matrix, []string{"alpha", "zed"}, []string{"a/alpha#1", "a/alpha#2", "a/zed#1", "a/zed#2", "b/alpha#1", "b/zed#1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			paths := []string{
				writeJSON(t, t.TempDir(), "1.json", run(tt.first, result("a", "alpha", 2), result("a", "zed", 1), result("b", "alpha", 1))),
				writeJSON(t, t.TempDir(), "2.json", run(tt.other, result("a", "zed", 2), result("a", "alpha", 1), result("b", "zed", 1))),
			}
			rep, err := report.MergeFiles(paths)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, order(rep)); diff != "" {
				t.Errorf("merged order (-want +got):\n%s", diff)
			}
		})
	}
}
