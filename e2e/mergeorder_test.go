package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
)

// TestMergeShardsFromDifferentDirectories: two shards of one suite, one
// run from the suite's parent (suite/a.yaml) and one from suite/ itself
// (b.yaml), merge into the unsharded run's order, by the files' paths
// resolved against each shard's dir, and keep each file as its shard
// recorded it.
func TestMergeShardsFromDifferentDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"suite/s.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"}
	for _, name := range []string{"a", "b", "c", "crash2", "d", "garbage", "sub/e"} {
		agent := "s.mock.yaml"
		if filepath.Dir(name) != "." {
			agent = "../s.mock.yaml"
		}
		files["suite/"+name+".yaml"] = "name: " + filepath.Base(name) + "\nagent: {command: [acprun, mock-agent, " + agent + "]}\n" +
			"permissions: {default: deny}\nturns: [{prompt: hi}]\n"
	}
	writeFiles(t, dir, files)
	suite := filepath.Join(dir, "suite")
	run := func(in string, args ...string) {
		t.Helper()
		if res := acprunEnv(t, in, noShardEnv, append([]string{"run"}, args...)...); res.code != exitOK {
			t.Fatalf("run %v in %s: exit %d\n%s", args, in, res.code, res.stderr)
		}
	}
	run(dir, "suite/", "-o", "whole.json")
	run(dir, "suite/", "--shard", "1/2", "-o", "d1.json")
	run(suite, ".", "--shard", "2/2", "-o", "../d2.json")
	if res := acprun(t, dir, "merge", "d1.json", "d2.json", "-o", "dm.json"); res.code != exitOK {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	// Each result's name, and its file resolved against its directory.
	order := func(res report.Results) (names, paths []string) {
		for _, sc := range res.Scenarios {
			names = append(names, sc.Name)
			d := sc.Dir
			if d == "" {
				d = res.Dir
			}
			paths = append(paths, filepath.Join(d, sc.File))
		}
		return names, paths
	}
	wantNames, wantPaths := order(readResults(t, filepath.Join(dir, "whole.json")))
	merged := readResults(t, filepath.Join(dir, "dm.json"))
	gotNames, gotPaths := order(merged)
	if diff := cmp.Diff(wantNames, gotNames); diff != "" {
		t.Errorf("merged shards' order (-unsharded +merged):\n%s", diff)
	}
	if diff := cmp.Diff(wantPaths, gotPaths); diff != "" {
		t.Errorf("merged shards' files (-unsharded +merged):\n%s", diff)
	}
	recorded := map[string]string{}
	for _, name := range []string{"d1.json", "d2.json"} {
		for _, sc := range readResults(t, filepath.Join(dir, name)).Scenarios {
			recorded[sc.Name] = sc.File
		}
	}
	for _, sc := range merged.Scenarios {
		if sc.File != recorded[sc.Name] {
			t.Errorf("merged %s: file %q; want %q, as its shard recorded it", sc.Name, sc.File, recorded[sc.Name])
		}
	}
}

// TestResultsInUTF16: a results file saved as UTF-16 (PowerShell's >
// writes acprun run -o - so) is said to be UTF-16 by every command that
// reads one, with what to do; they said "invalid character '\xff'".
func TestResultsInUTF16(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	utf16 := []byte{0xff, 0xfe}
	for _, c := range `{"schemaVersion": 3, "scenarios": []}` {
		utf16 = append(utf16, byte(c), 0)
	}
	if err := os.WriteFile(filepath.Join(dir, "r.json"), utf16, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"s.yaml": "name: s\nagent: {command: [a]}\nturns: [{prompt: hi}]\n"})
	const want = "r.json: the file is UTF-16 (as PowerShell's > writes it), not UTF-8: save it as UTF-8, or have acprun write it (-o FILE)\n"
	for _, args := range [][]string{
		{"merge", "r.json", "-o", "m.json"},
		{"report", "r.json", "-o", "r.html"},
		{"list", "--shard", "1/2", "--balance-from", "r.json", "s.yaml"},
		{"run", "--rerun-failed", "r.json", "s.yaml"},
	} {
		r := acprun(t, dir, args...)
		if r.code != 2 || !strings.HasSuffix(r.stderr, want) {
			t.Errorf("acprun %v: exit %d, stderr %q; want 2 and it to end with %q", args, r.code, r.stderr, want)
		}
	}
}
