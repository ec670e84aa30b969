package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
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

// TestLinkedSuiteDirectory: a suite directory given as a symbolic link
// (nl -> suites/nightly) is walked as the directory it leads to, by list,
// validate and run, with or without a trailing slash, and its files keep
// the link's name in the results, which --rerun-failed then reruns; it
// found no scenarios ("holds no scenario files", exit 5, and exit 0 with
// --allow-empty). The link a suite holds (inner -> ../../other) is still
// not followed.
func TestLinkedSuiteDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := func(name, want string) string {
		return "name: " + name + "\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: hi, expect: {text: {contains: " + want + "}}}]\n"
	}
	writeFiles(t, dir, map[string]string{
		"suites/nightly/s.mock.yaml":  "turns: [{steps: [{text: hi}]}]\n",
		"suites/nightly/pass.yaml":    scenario("pass", "hi"),
		"suites/nightly/fail.yaml":    scenario("fail", "nope"),
		"other/s.mock.yaml":           "turns: [{steps: [{text: hi}]}]\n",
		"other/not-in-the-suite.yaml": scenario("outside", "hi"),
	})
	for link, to := range map[string]string{"nl": "suites/nightly", "suites/nightly/inner": "../../other"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"nl", "nl/"} {
		if res := acprun(t, dir, "list", path); res.code != exitOK || !strings.Contains(res.stdout, "nl/fail.yaml:1") || strings.Contains(res.stdout, "outside") {
			t.Errorf("list %s: exit %d, want 0 and nl's two scenarios\n%s%s", path, res.code, res.stdout, res.stderr)
		}
		if res := acprun(t, dir, "validate", path); res.code != exitOK || res.stdout != "OK: 2 scenarios, 2 turns in 2 files\n" {
			t.Errorf("validate %s: exit %d, stdout %q\n%s", path, res.code, res.stdout, res.stderr)
		}
	}
	res := acprun(t, dir, "run", "nl", "--allow-empty", "-o", "last.json")
	if res.code != exitFailed {
		t.Fatalf("run nl: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	files := func(results string) []string {
		var got []string
		for _, sc := range readResults(t, filepath.Join(dir, results)).Scenarios {
			got = append(got, sc.File+" "+string(sc.Status))
		}
		return got
	}
	if diff := cmp.Diff([]string{"nl/fail.yaml failed", "nl/pass.yaml passed"}, files("last.json")); diff != "" {
		t.Errorf("run nl: results (-want +got):\n%s", diff)
	}
	if res := acprun(t, dir, "run", "nl", "--rerun-failed", "last.json", "-o", "again.json"); res.code != exitFailed {
		t.Fatalf("run nl --rerun-failed: exit %d, want %d\n%s", res.code, exitFailed, res.stderr)
	}
	if diff := cmp.Diff([]string{"nl/fail.yaml failed"}, files("again.json")); diff != "" {
		t.Errorf("rerun: results (-want +got):\n%s", diff)
	}
}

// TestMergeOneFileSpeltTwoWays: the same scenario run as suite/s.yaml,
// as ./suite/s.yaml, by its absolute path and from suite/ as s.yaml is one
// scenario, as --rerun-failed takes it: merging two of these results is
// refused (the shards overlap, exit 2) rather than counting it twice.
func TestMergeOneFileSpeltTwoWays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"suite/s.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"suite/s.yaml": "name: s\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: hi, expect: {text: {contains: nope}}}]\n",
	})
	run := func(in, file, out string) {
		t.Helper()
		if res := acprun(t, in, "run", file, "-o", filepath.Join(dir, out)); res.code != exitFailed {
			t.Fatalf("run %s: exit %d, want %d\n%s", file, res.code, exitFailed, res.stderr)
		}
	}
	run(dir, "suite/s.yaml", "a.json")
	run(dir, "./suite/s.yaml", "dot.json")
	run(dir, filepath.Join(dir, "suite/s.yaml"), "abs.json")
	run(filepath.Join(dir, "suite"), "s.yaml", "in.json")
	for _, other := range []string{"dot.json", "abs.json", "in.json"} {
		res := acprun(t, dir, "merge", "a.json", other, "-o", "m.json")
		if res.code != exitUsage || !strings.Contains(res.stderr, "is also in a.json: the shards overlap") {
			t.Errorf("merge a.json %s: exit %d, want %d and the shards overlap\n%s", other, res.code, exitUsage, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
			t.Errorf("merge a.json %s wrote m.json", other)
		}
	}
}

// TestMergeAttemptOneSpeltTwoWays: a run without --repeat (its result has
// no attempt number) and a run with --repeat 2 (attempts 1 and 2) both
// hold attempt 1: merging them is refused (the shards overlap, exit 2)
// rather than counting it twice.
func TestMergeAttemptOneSpeltTwoWays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	for out, args := range map[string][]string{"once.json": nil, "twice.json": {"--repeat", "2"}} {
		if res := acprun(t, dir, append([]string{"run", "s.yaml", "-q", "-o", out}, args...)...); res.code != 0 {
			t.Fatalf("run %v: exit %d\n%s", args, res.code, res.stderr)
		}
	}
	res := acprun(t, dir, "merge", "once.json", "twice.json", "-o", "m.json")
	if want := `acprun: merge: twice.json: scenario "s" (s.yaml:1) is also in once.json: the shards overlap`; res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("merge: exit %d, want %d and %q\n%s", res.code, exitUsage, want, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Errorf("merge wrote m.json")
	}
}
