package e2e_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// globFiles is a workspace with a vendored file, an agent that leaves a
// main.go.orig behind and rewrites the vendored file, and a scenario that
// expects files (the YAML of expect's files).
func globFiles(files string) map[string]string {
	return map[string]string{
		"proj/vendor/lib.txt": "orig\n",
		"proj/main.go":        "x\n",
		"agent.mock.yaml": `turns:
  - steps:
      - writeFile: {path: main.go.orig, content: "leftover\n"}
      - writeFile: {path: vendor/lib.txt, content: "changed\n"}
      - text: done
`,
		"s.yaml": `name: globs
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: proj}
permissions: {default: deny}
turns: [{prompt: hi}]
expect: {files: ` + files + `}
`,
	}
}

// TestFilesExistsAbsentGlobs: files.exists and absent take globs, as
// unchanged does: absent fails naming what its glob matches, exists passes
// when its glob matches a path and fails when it matches none.
func TestFilesExistsAbsentGlobs(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, globFiles(`{absent: ["*.orig", "*.bak"], exists: ["**/*.txt", "*.md"]}`))
	res, out := runResults(t, dir, "s.yaml")
	want := []string{
		`s.yaml:6:68: files.exists: "*.md" matches no path of the workspace (a glob is relative to its root: ** for any directories)`,
		`s.yaml:6:27: files.absent: "*.orig" matches 1 path: main.go.orig`,
	}
	if res.code != exitFailed || !cmp.Equal(want, out.Scenarios[0].Failures) {
		t.Errorf("exit %d, failures %q; want %d and\n%q", res.code, out.Scenarios[0].Failures, exitFailed, want)
	}
}

// TestUnchangedDirectoryAndTypo: an unchanged glob that names a directory
// covers what is under it, and one that matches no file is warned about at
// its position.
func TestUnchangedDirectoryAndTypo(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, globFiles(`{unchanged: [vendor, vendr/**]}`))
	res, out := runResults(t, dir, "s.yaml")
	r := out.Scenarios[0]
	wantFails := []string{`s.yaml:6:30: files.unchanged: 1 path matching "vendor" was changed: vendor/lib.txt`}
	wantWarnings := []string{`s.yaml:6:38: files.unchanged: "vendr/**" matches no file of the workspace before the run, nor one created by it ` +
		"(check it for a typo: a glob is relative to the workspace's root)"}
	if res.code != exitFailed || !cmp.Equal(wantFails, r.Failures) || !cmp.Equal(wantWarnings, r.Warnings) {
		t.Errorf("exit %d, failures %q, warnings %q; want %d,\n%q and\n%q", res.code, r.Failures, r.Warnings, exitFailed, wantFails, wantWarnings)
	}
}

// TestProtectDirectoryName: a protect glob that names a directory covers
// what is under it: it is not warned about, and an agent that rewrites a
// file under it tampered.
func TestProtectDirectoryName(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	files := protectFiles("      - writeFile: {path: tests/a_test.go, content: \"package a // passes\\n\"}\n      - text: done\n")
	files["s.yaml"] = strings.Replace(files["s.yaml"], "protect: [tests/**, verify.sh]", "protect: [tests, verify.sh]", 1)
	writeFiles(t, dir, files)
	res, out := runResults(t, dir, "s.yaml")
	r := out.Scenarios[0]
	if res.code != exitInvalid || r.Invalid == nil || !cmp.Equal([]string{"tests/a_test.go"}, r.Invalid.Files) || r.Warnings != nil {
		t.Errorf("exit %d, invalid %+v, warnings %q; want %d, tests/a_test.go tampered, no warnings", res.code, r.Invalid, r.Warnings, exitInvalid)
	}
}

// TestFilesAbsentWithBracesRefused: files.absent of the shell's {a,b},
// which acprun would take as one path with braces and a comma, and so pass
// whatever the agent left, is an error at the path before anything runs.
func TestFilesAbsentWithBracesRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(ranScenario, "turns: [{prompt: hi}]", `turns: [{prompt: hi, expect: {files: {absent: ["{tmp,cache}"]}}}]`, 1)})
	res := acprun(t, dir, "run", "s.yaml", "-o", "out.json")
	want := `s.yaml:4:48: bad pattern "{tmp,cache}": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)`
	if first, _, _ := strings.Cut(res.stderr, "\n"); res.code != exitUsage || first != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %q", res.code, res.stderr, exitUsage, want)
	}
	if got := dirNames(t, dir); len(got) != 1 {
		t.Errorf("the directory holds %q: want nothing run or written", got)
	}
}

// TestFilesAbsentGlobInGitRefused: a files.absent glob in the .git at the
// root, which the files checks' globs never match, and which so passed
// whatever the agent left there, is an error at the glob before anything
// runs, saying how to check such a path.
func TestFilesAbsentGlobInGitRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": strings.Replace(ranScenario, "turns: [{prompt: hi}]", `turns: [{prompt: hi, expect: {files: {absent: [".git/*"]}}}]`, 1)})
	want := `s.yaml:4:48: pattern ".git/*" is in .git, which the files checks' globs never match, so files.absent of it could never fail: ` +
		`name a path without glob characters (such as .git/MERGE_HEAD), or check the repository in a verify command`
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if first, _, _ := strings.Cut(res.stderr, "\n"); res.code != exitUsage || first != want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %d and %q", args[0], res.code, res.stderr, exitUsage, want)
		}
	}
	if got := dirNames(t, dir); len(got) != 1 {
		t.Errorf("the directory holds %q: want nothing run or written", got)
	}
}
