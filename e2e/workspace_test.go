package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/report"
)

// exitOf is a command's exit code for messages: "none" when it has none.
func exitOf(c report.CommandResult) string {
	if c.ExitCode == nil {
		return "none"
	}
	return strconv.Itoa(*c.ExitCode)
}

// scenarioNamed returns the only result of the scenario name.
func scenarioNamed(t *testing.T, out report.Results, name string) report.Result {
	t.Helper()
	var found []report.Result
	for _, sc := range out.Scenarios {
		if sc.Name == name {
			found = append(found, sc)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d results for scenario %s, want 1: %+v", len(found), name, out.Scenarios)
	}
	return found[0]
}

// workspaceOf returns the scenario's workspace record, failing without one.
func workspaceOf(t *testing.T, sc report.Result) report.WorkspaceResult {
	t.Helper()
	if sc.Workspace == nil {
		t.Fatalf("%s #%d has no workspace in the results: %+v", sc.Name, sc.Attempt, sc)
	}
	return *sc.Workspace
}

// posAfter is "file:line:col" of the first needle after the first after in
// text (a scenario file), as acprun's messages name it.
func posAfter(t *testing.T, file, text, after, needle string) string {
	t.Helper()
	start := strings.Index(text, after)
	if start < 0 {
		t.Fatalf("%q not in the scenario", after)
	}
	i := strings.Index(text[start:], needle)
	if i < 0 {
		t.Fatalf("%q not after %q in the scenario", needle, after)
	}
	return lineCol(file, text, start+i)
}

// treeOf describes every entry under root: a file's mode and content, a
// symlink's target, a directory's mode.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			tree[rel] = "symlink " + target
		case d.IsDir():
			tree[rel] = info.Mode().String()
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree[rel] = info.Mode().String() + " " + info.ModTime().String() + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// assertGone fails unless path does not exist.
func assertGone(t *testing.T, what, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s %s: still there (Lstat: %v), want it removed", what, path, err)
	}
}

// assertFile fails unless the file at path holds content.
func assertFile(t *testing.T, path, content string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	if string(data) != content {
		t.Errorf("%s = %q, want %q", path, data, content)
	}
}

// assertUnder fails unless path is a workspace made in dir: a direct
// child of the shared directory that acprun makes workspaces in there.
func assertUnder(t *testing.T, path, dir string) {
	t.Helper()
	if want := filepath.Join(dir, "acprun-workspaces-"+strconv.Itoa(os.Getuid())); filepath.Dir(path) != want {
		t.Errorf("workspace %s is not in %s", path, want)
	}
}

// needGit skips the test when git is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// gitIn runs git in dir, away from the user's and the system's config,
// and returns its output without the final newline.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	argv := append([]string{"-c", "user.name=acprun test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)
	cmd := exec.Command("git", argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimRight(stdout.String(), "\n")
}

// makeRepo makes a repository at dir with two commits of tracked.txt
// (first version, then second version) and an unchanging other.txt, and
// returns the two commits' hashes.
func makeRepo(t *testing.T, dir string) (first, second string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q")
	writeFiles(t, dir, map[string]string{"tracked.txt": "first version\n", "other.txt": "same in both\n"})
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	first = gitIn(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{"tracked.txt": "second version\n"})
	gitIn(t, dir, "commit", "-q", "-a", "-m", "second")
	second = gitIn(t, dir, "rev-parse", "HEAD")
	return first, second
}

// TestWorkspaceParallelAttemptsSeePristineCopies: two attempts running at
// the same time each get their own fresh copy of the fixture: each reads
// the original content, edits only its own copy, records only its own
// changes, and the fixture itself is left as it was, byte for byte.
func TestWorkspaceParallelAttemptsSeePristineCopies(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	rendezvous := filepath.Join(dir, "rendezvous")
	if err := os.Mkdir(rendezvous, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(rendezvous, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":        "original content\n",
		"fixture/sub/keep.txt": "keep me\n",
		"agent.mock.yaml": `turns:
  - steps:
      - read: {path: a.txt}
      - write: {path: a.txt, content: "changed by the agent\n"}
      - write: {path: new.txt, content: "created by the agent\n"}
`,
		// The setup of each attempt waits for the other's: the first to
		// come opens the FIFO to read, the other to write, and neither
		// goes on alone. So the two attempts run at the same time.
		"s.yaml": fmt.Sprintf(`name: pristine
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {RENDEZVOUS: %q}
workspace: {from: fixture}
permissions: {default: deny}
setup:
  - run: 'if mkdir "$RENDEZVOUS/first" 2>/dev/null; then cat "$RENDEZVOUS/fifo" >/dev/null; else echo here >"$RENDEZVOUS/fifo"; fi'
    timeout: 2m
turns:
  - prompt: Change a.txt and add new.txt.
`, rendezvous),
	})
	fixture := filepath.Join(dir, "fixture")
	before := treeOf(t, fixture)

	res, out := runResults(t, dir, "s.yaml", "--repeat", "2", "-j", "2", "--keep-workspaces", "--workspace-dir", "ws")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 2 {
		t.Fatalf("%d results, want 2 attempts\n%s", len(out.Scenarios), res.stderr)
	}
	paths := map[string]bool{}
	for _, sc := range out.Scenarios {
		ws := workspaceOf(t, sc)
		if sc.Status != "passed" {
			t.Errorf("attempt %d: %s (%s %v), want passed", sc.Attempt, sc.Status, sc.Error, sc.Failures)
		}
		if len(sc.Turns) != 1 || !strings.Contains(sc.Turns[0].Text, "read: original content\n") {
			t.Errorf("attempt %d read %+v, want the original content of a.txt", sc.Attempt, sc.Turns)
		}
		if !slices.Equal(ws.Modified, []string{"a.txt"}) || !slices.Equal(ws.Created, []string{"new.txt"}) || len(ws.Deleted) != 0 {
			t.Errorf("attempt %d recorded modified %q created %q deleted %q, want modified [a.txt] created [new.txt]",
				sc.Attempt, ws.Modified, ws.Created, ws.Deleted)
		}
		if ws.Kind != "copy" || ws.Source != fixture || !ws.Kept {
			t.Errorf("attempt %d workspace = %+v, want a kept copy of %s", sc.Attempt, ws, fixture)
		}
		assertUnder(t, ws.Path, filepath.Join(dir, "ws"))
		paths[ws.Path] = true
		// Each copy holds its own attempt's edits and the untouched rest.
		assertFile(t, filepath.Join(ws.Path, "a.txt"), "changed by the agent\n")
		assertFile(t, filepath.Join(ws.Path, "new.txt"), "created by the agent\n")
		assertFile(t, filepath.Join(ws.Path, "sub", "keep.txt"), "keep me\n")
	}
	if len(paths) != 2 {
		t.Errorf("the attempts shared a workspace: %v", paths)
	}
	after := treeOf(t, fixture)
	for name, was := range before {
		if after[name] != was {
			t.Errorf("fixture %s changed: %q, was %q", name, after[name], was)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("fixture gained %s", name)
		}
	}
}

// TestWorkspaceCwdOutsideIsWarned: an agent.cwd outside the workspace's
// source is not moved into the copy; validate and run say so at the
// value, and the run's results carry the warning.
func TestWorkspaceCwdOutsideIsWarned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"fx/f.txt":    "x\n",
		"sub/g.txt":   "y\n",
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml":      "name: c\nagent: {name: mock, args: [a.mock.yaml], cwd: ./sub}\nworkspace: {from: fx}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	want := "s.yaml:2:47: warning: agent.cwd " + filepath.Join(dir, "sub") + " is outside the workspace (" + filepath.Join(dir, "fx") + "): the agent works there"
	if res := acprun(t, dir, "validate", "s.yaml"); res.code != exitOK || !strings.Contains(res.stderr, want) {
		t.Errorf("validate: exit %d, stderr:\n%s\nwant 0 and %q", res.code, res.stderr, want)
	}
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK || !strings.Contains(strings.Join(out.Scenarios[0].Warnings, "\n"), "is outside the workspace") {
		t.Errorf("run: exit %d, warnings %q; want 0 and the warning\n%s", res.code, out.Scenarios[0].Warnings, res.stderr)
	}
}

// TestWorkspaceCwdThroughSymlink: an agent.cwd that names a directory of
// the workspace's source through a symlink (or a source named through
// one) is inside the workspace: no warning, and the agent works and writes
// in its copy, never in the source.
func TestWorkspaceCwdThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"my proj ü/a b.txt": "hi\n",
		"my proj ü/sub/k":   "k\n",
		"a.mock.yaml":       "turns:\n  - steps:\n      - spawn: \"echo agentwrote > agent.txt\"\n      - text: done\n",
		"s.yaml": "name: cwd-link\nagent: {name: mock, args: [" + filepath.Join(dir, "a.mock.yaml") + "], cwd: linkproj/sub}\n" +
			"workspace: {from: \"my proj ü\"}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n" +
			"---\nname: source-link\nagent: {name: mock, args: [" + filepath.Join(dir, "a.mock.yaml") + "], cwd: \"my proj ü/sub\"}\n" +
			"workspace: {from: linkproj}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	if err := os.Symlink("my proj ü", filepath.Join(dir, "linkproj")); err != nil {
		t.Fatal(err)
	}
	if res := acprun(t, dir, "validate", "s.yaml"); res.code != exitOK || strings.Contains(res.stderr, "warning") {
		t.Errorf("validate: exit %d, stderr:\n%s\nwant 0 and no warning", res.code, res.stderr)
	}
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK || strings.Contains(res.stderr, "outside the workspace") {
		t.Errorf("run: exit %d, want 0 and no warning\n%s", res.code, res.stderr)
	}
	for _, sc := range out.Scenarios {
		if ws := workspaceOf(t, sc); !slices.Equal(ws.Created, []string{"sub/agent.txt"}) || len(sc.Warnings) != 0 {
			t.Errorf("%s: created %q, warnings %q; want [sub/agent.txt] and no warning", sc.Name, ws.Created, sc.Warnings)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "my proj ü", "sub", "agent.txt")); err == nil {
		t.Errorf("the agent wrote agent.txt in the workspace's source")
	}
}

// TestWorkspaceDirInsideSource: a --workspace-dir inside a selected
// scenario's workspace source is a usage error at the flag: exit 2 before
// anything runs, and nothing is made in the source or written.
func TestWorkspaceDirInsideSource(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"proj/a.txt":  "hi\n",
		"n.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		"s.yaml":      "name: intr\nagent: {name: mock, args: [n.mock.yaml]}\nworkspace: {from: proj}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "--workspace-dir", "proj/.ws", "--repeat", "3", "-o", "out/r.json")
	want := "acprun: --workspace-dir proj/.ws: it lies inside " + filepath.Join(dir, "proj") + `, the workspace source of scenario "intr" (s.yaml:3:12), ` +
		"so each workspace would be made inside its own source; give a directory outside it\n"
	if res.code != exitUsage || res.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and\n%s", res.code, res.stderr, exitUsage, want)
	}
	for _, made := range []string{"proj/.ws", "out"} {
		if _, err := os.Lstat(filepath.Join(dir, made)); err == nil {
			t.Errorf("%s was made", made)
		}
	}
}

// TestWorkspaceKeptOnlyWhenNotPassed: a passing attempt's workspace is
// removed, a failing one's is kept with the agent's edit and named in the
// summary; --keep-workspaces keeps passing ones too; --workspace-dir puts
// them in a directory it creates.
func TestWorkspaceKeptOnlyWhenNotPassed(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt": "original\n",
		"agent.mock.yaml": `turns:
  - steps:
      - write: {path: edit.txt, content: "the agent's edit\n"}
      - text: hello
`,
		// The failing agent's TMPDIR is where the workspaces go: values of
		// agent.env are redacted from the results, but the workspace's
		// path is acprun's own and must stay usable.
		"s.yaml": fmt.Sprintf(`name: passes
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: Write edit.txt.
    expect: {text: {contains: hello}}
---
name: fails
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {TMPDIR: %q}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: Write edit.txt.
    expect: {text: {contains: goodbye}}
`, filepath.Join(dir, "work", "spaces")),
	})
	wsParent := filepath.Join(dir, "work", "spaces") // missing, two levels

	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "work/spaces")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (one scenario fails)\n%s", res.code, res.stderr)
	}
	passed, failed := scenarioNamed(t, out, "passes"), scenarioNamed(t, out, "fails")
	if passed.Status != "passed" || failed.Status != "failed" {
		t.Fatalf("statuses %s and %s, want passed and failed\n%s", passed.Status, failed.Status, res.stderr)
	}
	pw, fw := workspaceOf(t, passed), workspaceOf(t, failed)
	assertUnder(t, pw.Path, wsParent)
	assertUnder(t, fw.Path, wsParent)
	if pw.Kept {
		t.Errorf("the passing attempt's workspace is marked kept")
	}
	assertGone(t, "the passing attempt's workspace", pw.Path)
	if !fw.Kept {
		t.Errorf("the failing attempt's workspace is not marked kept")
	}
	assertFile(t, filepath.Join(fw.Path, "edit.txt"), "the agent's edit\n")
	if !strings.HasPrefix(filepath.Base(fw.Path), "acprun-fails-") {
		t.Errorf("kept workspace %s is not named after its scenario", fw.Path)
	}
	if want := "\n    workspace kept: " + fw.Path + "\n"; !strings.Contains(res.stderr, want) {
		t.Errorf("the summary does not name the kept workspace (%q)\n%s", want, res.stderr)
	}
	if strings.Contains(res.stderr, pw.Path) {
		t.Errorf("the summary names the removed workspace %s\n%s", pw.Path, res.stderr)
	}

	res, out = runResults(t, dir, "s.yaml", "--workspace-dir", "work/spaces", "--keep-workspaces")
	if res.code != 1 {
		t.Errorf("--keep-workspaces: exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, name := range []string{"passes", "fails"} {
		ws := workspaceOf(t, scenarioNamed(t, out, name))
		if !ws.Kept {
			t.Errorf("--keep-workspaces: %s's workspace is not kept", name)
		}
		assertUnder(t, ws.Path, wsParent)
		assertFile(t, filepath.Join(ws.Path, "edit.txt"), "the agent's edit\n")
	}
}

// TestVerifyChecksTheWorkspace: verify commands run in the attempt's copy
// after the last turn, and each is an expectation: its exit code and
// stdout decide, and a failure says where, how and what it printed last.
func TestVerifyChecksTheWorkspace(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	scenarios := `name: makes-done
agent: {command: [acprun, mock-agent, writes.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
verify:
  - test -f done.txt
  - run: cat done.txt
    expect: {stdout: {contains: [fixed, it], matches: "^fix"}}
  - run: exit 4
    expect: {exitCode: 4}
turns:
  - prompt: Fix it and write done.txt.
---
name: no-done
agent: {command: [acprun, mock-agent, idle.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
verify:
  - test -f done.txt
  - run: echo hello; echo oops >&2
    expect: {stdout: {contains: bye}}
  - run: echo hello
    expect: {stdout: {matches: "^bye"}}
turns:
  - prompt: Fix it and write done.txt.
`
	writeFiles(t, dir, map[string]string{
		"fixture/README.md": "a fixture\n",
		"writes.mock.yaml":  "turns:\n  - steps:\n      - write: {path: done.txt, content: \"fixed it\\n\"}\n      - text: done\n",
		"idle.mock.yaml":    "turns:\n  - steps: [{text: \"I did nothing\"}]\n",
		"s.yaml":            scenarios,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}

	a := scenarioNamed(t, out, "makes-done")
	if a.Status != "passed" || len(a.Failures) != 0 {
		t.Errorf("makes-done: %s %q, want passed", a.Status, a.Failures)
	}
	if len(a.Verify) != 3 {
		t.Fatalf("makes-done: %d verify results, want 3: %+v", len(a.Verify), a.Verify)
	}
	for i, want := range []string{"0", "0", "4"} {
		v := a.Verify[i]
		if exitOf(v) != want || v.Passed == nil || !*v.Passed {
			t.Errorf("makes-done verify %d = %+v (exit %s), want exit %s and passed", i, v, exitOf(v), want)
		}
	}
	if a.Verify[1].Stdout != "fixed it\n" {
		t.Errorf("makes-done: verify stdout %q, want the file the agent wrote in the copy", a.Verify[1].Stdout)
	}

	b := scenarioNamed(t, out, "no-done")
	if b.Status != "failed" {
		t.Errorf("no-done: %s, want failed", b.Status)
	}
	if len(b.Verify) != 3 {
		t.Fatalf("no-done: %d verify results, want 3: %+v", len(b.Verify), b.Verify)
	}
	for i, want := range []string{"1", "0", "0"} {
		v := b.Verify[i]
		if exitOf(v) != want || v.Passed == nil || *v.Passed {
			t.Errorf("no-done verify %d = %+v (exit %s), want exit %s and not passed", i, v, exitOf(v), want)
		}
	}
	if b.Verify[1].Stdout != "hello\n" || b.Verify[1].Stderr != "oops\n" {
		t.Errorf("no-done verify 2 kept stdout %q and stderr %q, want hello and oops", b.Verify[1].Stdout, b.Verify[1].Stderr)
	}
	wants := []string{
		posAfter(t, "s.yaml", scenarios, "name: no-done", "test -f done.txt") + ": verify `test -f done.txt` exited with code 1, want 0",
		posAfter(t, "s.yaml", scenarios, "name: no-done", "bye}}") + ": verify `echo hello; echo oops >&2`: stdout does not contain \"bye\"; output ends:\nhello\noops",
		posAfter(t, "s.yaml", scenarios, "echo oops", `"^bye"`) + ": verify `echo hello`: stdout does not match /^bye/; output ends:\nhello",
	}
	if len(b.Failures) != len(wants) {
		t.Fatalf("no-done failures = %q, want %d", b.Failures, len(wants))
	}
	for i, want := range wants {
		if !strings.HasPrefix(b.Failures[i], want) {
			t.Errorf("no-done failure %d = %q, want it to begin %q", i, b.Failures[i], want)
		}
	}
}

// TestSetupFailureIsAnError: a setup command that fails ends the attempt
// as an error that says which command, its exit code and its last output;
// the later setup commands, the agent and the turns never run, but
// teardown does, in the workspace, with the agent's environment.
func TestSetupFailureIsAnError(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	marks := filepath.Join(dir, "marks")
	if err := os.Mkdir(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	scenario := fmt.Sprintf(`name: broken-setup
agent:
  command: [sh, -c, 'touch "$MARKS/agent-started"; exec "$ACPRUN_BIN" mock-agent "$SCRIPT"']
  env: {MARKS: %q, ACPRUN_BIN: %q, SCRIPT: %q}
workspace: {from: fixture}
permissions: {default: deny}
setup:
  - echo first is fine
  - 'echo "installing deps"; echo "npm ERR! missing package" >&2; exit 3'
  - touch "$MARKS/later-setup"
teardown:
  - touch "$MARKS/teardown"
  - echo "$ACPRUN_WORKSPACE" >"$MARKS/teardown-workspace"; pwd >"$MARKS/teardown-pwd"
turns:
  - prompt: one
  - prompt: two
`, marks, acprunBin, filepath.Join(dir, "agent.mock.yaml"))
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml":          scenario,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (an error that is not the agent's start)\n%s", res.code, res.stderr)
	}
	sc := scenarioNamed(t, out, "broken-setup")
	if sc.Status != "error" || sc.StartFailed {
		t.Errorf("status %s (startFailed %t), want error, not a start failure", sc.Status, sc.StartFailed)
	}
	wantErr := posAfter(t, "s.yaml", scenario, "setup:", `'echo "installing deps"`) +
		": setup `echo \"installing deps\"; echo \"npm ERR! missing package\" >&2; exit 3` exited with code 3, want 0; output ends:\ninstalling deps\nnpm ERR! missing package"
	if sc.Error != wantErr {
		t.Errorf("error = %q\nwant    %q", sc.Error, wantErr)
	}
	if len(sc.Turns) != 2 || sc.Turns[0].StopReason != "skipped" || sc.Turns[1].StopReason != "skipped" {
		t.Errorf("turns = %+v, want both skipped", sc.Turns)
	}
	if len(sc.Setup) != 2 || exitOf(sc.Setup[0]) != "0" || exitOf(sc.Setup[1]) != "3" {
		t.Errorf("setup results = %+v, want the first two commands, exiting 0 and 3", sc.Setup)
	}
	assertGone(t, "the agent's start marker", filepath.Join(marks, "agent-started"))
	assertGone(t, "the later setup's marker", filepath.Join(marks, "later-setup"))
	if len(sc.Teardown) != 2 || exitOf(sc.Teardown[0]) != "0" || exitOf(sc.Teardown[1]) != "0" {
		t.Errorf("teardown results = %+v, want both run, exiting 0", sc.Teardown)
	}
	ws := workspaceOf(t, sc)
	if !ws.Kept {
		t.Errorf("the workspace of an attempt in error is not kept")
	}
	assertFile(t, filepath.Join(marks, "teardown"), "")
	assertFile(t, filepath.Join(marks, "teardown-workspace"), ws.Path+"\n")
	assertFile(t, filepath.Join(marks, "teardown-pwd"), ws.Path+"\n")
	if !strings.Contains(res.stderr, "exited with code 3, want 0; output ends:\n      | installing deps\n") {
		t.Errorf("the summary does not show the setup's output quoted under the scenario\n%s", res.stderr)
	}
}

// TestWorkspaceThatCannotBeMadeIsAnError: a git source that is not a
// repository, or a ref it does not have, makes that attempt an error that
// says so, at the value it is about (git or ref), without starting its
// agent; the other scenarios of the run still run, and nothing is left in
// the workspaces' directory.
func TestWorkspaceThatCannotBeMadeIsAnError(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	marks := filepath.Join(dir, "marks")
	if err := os.Mkdir(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	makeRepo(t, filepath.Join(dir, "repo"))
	agent := func(name string) string {
		return fmt.Sprintf(`agent:
  command: [sh, -c, 'touch "$MARKS/started-%s"; exec "$ACPRUN_BIN" mock-agent "$SCRIPT"']
  env: {MARKS: %q, ACPRUN_BIN: %q, SCRIPT: %q}
permissions: {default: deny}
setup: ['touch "$MARKS/setup-%s"']
turns:
  - prompt: hi
`, name, marks, acprunBin, filepath.Join(dir, "agent.mock.yaml"), name)
	}
	scenarios := "name: not-a-repo\nworkspace: {git: plain}\n" + agent("not-a-repo") +
		"---\nname: bad-ref\nworkspace: {git: repo, ref: no-such-branch}\n" + agent("bad-ref") +
		"---\nname: fine\nworkspace: {from: plain}\n" + agent("fine")
	writeFiles(t, dir, map[string]string{
		"plain/file.txt":  "not in git\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml":          scenarios,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws", "-j", "1")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, bad := range []string{"panic", "goroutine "} {
		if strings.Contains(res.stderr, bad) {
			t.Errorf("stderr shows %q:\n%s", bad, res.stderr)
		}
	}
	for _, c := range []struct{ name, at, want string }{
		{"not-a-repo", "plain}", ": workspace: git " + filepath.Join(dir, "plain") + ": not a git repository"},
		{"bad-ref", "no-such-branch}", ": workspace: ref no-such-branch: unknown revision in " + filepath.Join(dir, "repo")},
	} {
		sc := scenarioNamed(t, out, c.name)
		want := posAfter(t, "s.yaml", scenarios, "name: "+c.name, c.at) + c.want
		if sc.Status != "error" || !strings.HasPrefix(sc.Error, want) {
			t.Errorf("%s: %s %q, want an error beginning %q", c.name, sc.Status, sc.Error, want)
		}
		if sc.Workspace != nil {
			t.Errorf("%s: a workspace is recorded: %+v", c.name, sc.Workspace)
		}
		if len(sc.Turns) != 1 || sc.Turns[0].StopReason != "skipped" {
			t.Errorf("%s: turns %+v, want skipped", c.name, sc.Turns)
		}
		assertGone(t, c.name+"'s setup marker", filepath.Join(marks, "setup-"+c.name))
		assertGone(t, c.name+"'s agent marker", filepath.Join(marks, "started-"+c.name))
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the summary does not give %s's error %q\n%s", c.name, want, res.stderr)
		}
	}
	if sc := scenarioNamed(t, out, "fine"); sc.Status != "passed" {
		t.Errorf("fine: %s (%s %q), want passed: a bad workspace must not stop the others", sc.Status, sc.Error, sc.Failures)
	}
	assertFile(t, filepath.Join(marks, "started-fine"), "")
	entries, err := os.ReadDir(filepath.Join(dir, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the workspaces' directory: %s", e.Name())
	}
}

// TestWorkspaceGitWorktree: a git workspace is a worktree of the ref; the
// agent sees that commit's files; the results give the commit and the diff
// of its edits (untracked files included); and the source repository's
// HEAD, branch, status and worktrees are as they were once the passing
// attempts' worktrees are removed. Two attempts add and remove their
// worktrees at the same time.
func TestWorkspaceGitWorktree(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	first, second := makeRepo(t, repo)
	branch := gitIn(t, repo, "symbolic-ref", "HEAD")
	worktrees := gitIn(t, repo, "worktree", "list", "--porcelain")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - read: {path: tracked.txt}
      - write: {path: tracked.txt, content: "edited by the agent\n"}
      - write: {path: untracked.txt, content: "brand new\n"}
`,
		"s.yaml": `name: old-commit
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo, ref: HEAD~1}
permissions: {default: deny}
turns:
  - prompt: Edit tracked.txt and add untracked.txt.
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws", "--repeat", "2", "-j", "2")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if len(out.Scenarios) != 2 {
		t.Fatalf("%d results, want 2\n%s", len(out.Scenarios), res.stderr)
	}
	for _, sc := range out.Scenarios {
		ws := workspaceOf(t, sc)
		if sc.Status != "passed" {
			t.Errorf("attempt %d: %s (%s %q)", sc.Attempt, sc.Status, sc.Error, sc.Failures)
		}
		if len(sc.Turns) != 1 || !strings.Contains(sc.Turns[0].Text, "read: first version\n") {
			t.Errorf("attempt %d: turns %+v, want the agent to read HEAD~1's tracked.txt", sc.Attempt, sc.Turns)
		}
		if ws.Kind != "worktree" || ws.Ref != "HEAD~1" || ws.Commit != first || ws.Source != repo {
			t.Errorf("attempt %d: workspace %+v, want a worktree of %s at HEAD~1 = %s", sc.Attempt, ws, repo, first)
		}
		if !slices.Equal(ws.Modified, []string{"tracked.txt"}) || !slices.Equal(ws.Created, []string{"untracked.txt"}) || len(ws.Deleted) != 0 {
			t.Errorf("attempt %d: modified %q created %q deleted %q", sc.Attempt, ws.Modified, ws.Created, ws.Deleted)
		}
		for _, want := range []string{
			"--- a/tracked.txt\n+++ b/tracked.txt\n", "-first version\n+edited by the agent\n",
			"+++ b/untracked.txt\n", "+brand new\n",
		} {
			if !strings.Contains(ws.Diff, want) {
				t.Errorf("attempt %d: diff lacks %q:\n%s", sc.Attempt, want, ws.Diff)
			}
		}
		if strings.Contains(ws.Diff, "other.txt") {
			t.Errorf("attempt %d: diff shows the unchanged other.txt:\n%s", sc.Attempt, ws.Diff)
		}
		if ws.DiffBytes != len(ws.Diff) || ws.DiffBytes == 0 || ws.DiffTruncated || ws.Error != "" {
			t.Errorf("attempt %d: diffBytes %d for %d bytes of diff, truncated %t, error %q", sc.Attempt, ws.DiffBytes, len(ws.Diff), ws.DiffTruncated, ws.Error)
		}
		if ws.Kept {
			t.Errorf("attempt %d: a passing attempt's worktree is kept", sc.Attempt)
		}
		assertGone(t, "passing worktree", ws.Path)
	}
	if got := gitIn(t, repo, "rev-parse", "HEAD"); got != second {
		t.Errorf("the source's HEAD is %s, was %s", got, second)
	}
	if got := gitIn(t, repo, "symbolic-ref", "HEAD"); got != branch {
		t.Errorf("the source's branch is %s, was %s", got, branch)
	}
	if got := gitIn(t, repo, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("the source's status is not clean:\n%s", got)
	}
	assertFile(t, filepath.Join(repo, "tracked.txt"), "second version\n")
	if got := gitIn(t, repo, "worktree", "list", "--porcelain"); got != worktrees {
		t.Errorf("git worktree list:\n%s\nwant as before the run:\n%s", got, worktrees)
	}
}

// TestWorkspaceGitRunsNothingTheAgentConfigured: an agent that writes only
// in its workspace (as a sandboxed one can) gives git a config whose
// filter and textconv drivers would run its script as acprun's user: in
// the git directory of the workspace (a clone's .git, or one of its own
// that it points .git at) and in a repository of its own in the workspace,
// in which git would run `git status`. acprun still records the change
// set and the diff, runs none of them, and removes the passing attempts'
// workspaces, a clone's git directory beside it included.
func TestWorkspaceGitRunsNothingTheAgentConfigured(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	makeRepo(t, repo)
	gitIn(t, dir, "clone", "-q", "--bare", repo, "srcbare.git")
	ran := filepath.Join(dir, "ran")
	writeFiles(t, dir, map[string]string{
		// attack.sh SOURCE, run by the agent in its workspace.
		"attack.sh": `set -e
g() { git -c user.name=agent -c user.email=agent@example.com -c init.defaultBranch=main "$@"; }
printf '#!/bin/sh\necho "$1" >> ` + ran + `\ncat\n' > evil.sh
config="[filter \"x\"]
	clean = sh $PWD/evil.sh clean
[diff \"x\"]
	textconv = sh $PWD/evil.sh textconv"
if [ -d .git ]; then
	gitdir=.git
else # .git names a git directory the agent cannot write: point it at one of its own
	gitdir=$PWD/agent.git
	g clone -q --bare --no-hardlinks "$1" "$gitdir"
	echo "gitdir: $gitdir" > .git
fi
printf '%s\n' "$config" >> "$gitdir/config"
echo '* filter=x diff=x' > .gitattributes
g init -q nested
cd nested
echo same > f.txt
g add f.txt
g commit -q -m nested
printf '%s\n' "$config" >> .git/config
echo '* filter=x diff=x' > .git/info/attributes
echo diff > f.txt
touch -t 200101010000 f.txt
cd ..
echo "edited by the agent" > tracked.txt
echo attacked
`,
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: sh ` + filepath.Join(dir, "attack.sh") + ` "$SOURCE"
`,
		"worktree.yaml": `name: worktree
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {SOURCE: ` + repo + `}}
workspace: {git: ./repo}
permissions: {default: deny}
turns:
  - prompt: Attack.
    expect: {text: {contains: ["spawn: exit 0: attacked"]}}
`,
		"clone.yaml": `name: clone
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {SOURCE: ` + filepath.Join(dir, "srcbare.git") + `}}
workspace: {git: ./srcbare.git}
permissions: {default: deny}
turns:
  - prompt: Attack.
    expect: {text: {contains: ["spawn: exit 0: attacked"]}}
`,
	})
	res, out := runResults(t, dir, "worktree.yaml", "clone.yaml", "--workspace-dir", "ws")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if b, err := os.ReadFile(ran); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("acprun's git ran the agent's commands (%v): %q", err, b)
	}
	for _, name := range []string{"worktree", "clone"} {
		sc := scenarioNamed(t, out, name)
		ws := workspaceOf(t, sc)
		if sc.Status != "passed" {
			t.Errorf("%s: %s (%s %q) %q", name, sc.Status, sc.Error, sc.Failures, sc.Warnings)
		}
		if ws.Kind != name || ws.Error != "" {
			t.Errorf("%s: workspace kind %q, error %q", name, ws.Kind, ws.Error)
		}
		if !slices.Equal(ws.Modified, []string{"tracked.txt"}) || !slices.Contains(ws.Created, "evil.sh") || !slices.Contains(ws.Created, ".gitattributes") {
			t.Errorf("%s: modified %q created %q", name, ws.Modified, ws.Created)
		}
		for _, want := range []string{"-second version\n+edited by the agent\n", "+++ b/evil.sh\n", "+++ b/nested\n@@ -0,0 +1 @@\n+Subproject commit "} {
			if !strings.Contains(ws.Diff, want) {
				t.Errorf("%s: diff lacks %q:\n%s", name, want, ws.Diff)
			}
		}
		assertGone(t, name+" workspace", ws.Path)
		assertGone(t, name+" workspace's git directory", ws.Path+".git")
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "ws")); err != nil || len(entries) != 0 {
		t.Errorf("the workspaces' directory holds %v (%v), want nothing", entries, err)
	}
}

// TestVerifyTimeoutKillsItsProcessGroup: a verify command that outlives
// its timeout is killed with everything it started in the background, and
// the attempt fails saying so.
func TestVerifyTimeoutKillsItsProcessGroup(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	scenario := `name: slow-verify
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
verify:
  - run: 'sleep 1000 & echo $! >"$ACPRUN_WORKSPACE/background.pid"; sleep 1000'
    timeout: 1s
turns:
  - prompt: hi
`
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml":          scenario,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	sc := scenarioNamed(t, out, "slow-verify")
	if sc.Status != "failed" || len(sc.Verify) != 1 {
		t.Fatalf("%s with verify %+v, want failed with one verify result", sc.Status, sc.Verify)
	}
	v := sc.Verify[0]
	if !v.TimedOut || v.Passed == nil || *v.Passed || v.ExitCode != nil {
		t.Errorf("verify = %+v, want timed out, not passed, no exit code", v)
	}
	want := posAfter(t, "s.yaml", scenario, "verify:", "run: 'sleep") + ": verify `sleep 1000 & "
	if len(sc.Failures) != 1 || !strings.HasPrefix(sc.Failures[0], want) || !strings.Contains(sc.Failures[0], "timed out after 1s and was killed") {
		t.Errorf("failures = %q, want one beginning %q that says it timed out after 1s", sc.Failures, want)
	}
	ws := workspaceOf(t, sc)
	data, err := os.ReadFile(filepath.Join(ws.Path, "background.pid"))
	if err != nil {
		t.Fatalf("the background sleep never started: %v", err)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err != nil || !testkit.Dying(pid) {
		t.Errorf("the background sleep %s survived its command's timeout", data)
	}
	if live := testkit.Leftovers(t, testkit.InDir(ws.Path)); len(live) > 0 {
		t.Errorf("left running in the workspace: %v", live)
	}
}

// TestHookSecretsNeverLeave: what setup, verify and teardown print, quoted
// in errors, failures and warnings too, never shows a value of agent.env
// or a secret-looking variable of acprun's environment in any output, and
// every output stays valid.
func TestHookSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const (
		fileSecret    = "hks_E2Ehookfile1234567890abcdef"
		environSecret = "tok_E2Ehookenviron9876543210zyx"
	)
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml": `name: setup-leaks
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {SECRET_TOKEN: "` + fileSecret + `"}
workspace: {from: fixture}
permissions: {default: deny}
setup:
  - 'echo "setup $SECRET_TOKEN $MY_API_TOKEN"; echo "setup err $SECRET_TOKEN" >&2; exit 3'
teardown:
  - 'echo "teardown $SECRET_TOKEN"; echo "$MY_API_TOKEN" >&2; exit 1'
turns:
  - prompt: hi
---
name: verify-leaks
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {SECRET_TOKEN: "` + fileSecret + `"}
workspace: {from: fixture}
permissions: {default: deny}
setup: ['echo "$SECRET_TOKEN" "$MY_API_TOKEN"']
verify:
  - 'echo "verify $SECRET_TOKEN"; echo "$MY_API_TOKEN" >&2; exit 1'
  - run: echo "$MY_API_TOKEN $SECRET_TOKEN"
    expect: {stdout: {contains: nope}}
teardown:
  - 'echo "teardown $SECRET_TOKEN $MY_API_TOKEN"; exit 1'
turns:
  - prompt: hi
`,
	})
	stepSummary := filepath.Join(dir, "step-summary.md")
	res := acprunEnv(t, dir, []string{"MY_API_TOKEN=" + environSecret, "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + stepSummary},
		"run", "s.yaml", "-v", "-o", "out.json", "--junit", "junit.xml",
		"--events", "events.jsonl", "--transcripts", "tr", "--workspace-dir", "ws")
	if res.code != 1 {
		t.Errorf("acprun: exit %d, want 1\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "out.json", "junit.xml", "events.jsonl", "step-summary.md", "tr/setup-leaks.jsonl", "tr/verify-leaks.jsonl")
	outputs["stdout (annotations)"], outputs["stderr"] = []byte(res.stdout), []byte(res.stderr)
	for name, data := range outputs {
		if i := bytes.Index(data, []byte("E2Ehook")); i >= 0 {
			t.Errorf("%s leaks a secret: …%s…", name, excerpt(data, i))
		}
	}
	for _, name := range []string{"stderr", "out.json", "junit.xml", "events.jsonl"} {
		if !bytes.Contains(outputs[name], []byte("[REDACTED]")) {
			t.Errorf("%s shows no [REDACTED]: the commands' output no longer reaches it, and the test checks nothing", name)
		}
	}

	out, err := report.Read(bytes.NewReader(outputs["out.json"]))
	if err != nil {
		t.Fatalf("results are not JSON results: %v", err)
	}
	setupLeaks, verifyLeaks := scenarioNamed(t, out, "setup-leaks"), scenarioNamed(t, out, "verify-leaks")
	if len(setupLeaks.Setup) != 1 || setupLeaks.Setup[0].Stdout != "setup [REDACTED] [REDACTED]\n" {
		t.Errorf("setup stdout = %+v, want the secrets redacted", setupLeaks.Setup)
	}
	if !strings.Contains(setupLeaks.Error, "output ends:\nsetup [REDACTED] [REDACTED]\nsetup err [REDACTED]") {
		t.Errorf("setup error = %q, want the output quoted, redacted", setupLeaks.Error)
	}
	if len(verifyLeaks.Failures) != 2 || len(verifyLeaks.Teardown) != 1 || len(verifyLeaks.Warnings) == 0 {
		t.Errorf("verify-leaks: failures %q, teardown %+v, warnings %q: want two failures and a teardown warning",
			verifyLeaks.Failures, verifyLeaks.Teardown, verifyLeaks.Warnings)
	}
	for name, data := range map[string][]byte{"events.jsonl": outputs["events.jsonl"]} {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			if !json.Valid(sc.Bytes()) {
				t.Errorf("%s:%d is not JSON: %s", name, n, sc.Text())
			}
		}
	}
	dec := xml.NewDecoder(bytes.NewReader(outputs["junit.xml"]))
	for {
		if _, err := dec.Token(); err != nil {
			if err != io.EOF {
				t.Errorf("junit.xml is not well-formed XML: %v", err)
			}
			break
		}
	}
}

// TestWorkspaceInterrupt: on Ctrl-C, the attempt that had passed has its
// workspace removed; the interrupted one keeps its workspace, with the
// agent's edit and its diff recorded, and its teardown runs.
func TestWorkspaceInterrupt(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	marks := filepath.Join(dir, "marks")
	if err := os.Mkdir(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	makeRepo(t, filepath.Join(dir, "repo"))
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"first.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"second.mock.yaml": `turns:
  - steps:
      - write: {path: tracked.txt, content: "half done\n"}
      - text: working
      - waitForCancel: true
`,
		"s.yaml": fmt.Sprintf(`name: first
agent: {command: [acprun, mock-agent, first.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
turns:
  - prompt: hi
---
name: second
agent:
  command: [acprun, mock-agent, second.mock.yaml]
  env: {MARKS: %q}
workspace: {git: repo}
permissions: {default: deny}
teardown: ['pwd >"$MARKS/teardown-second"']
turns:
  - prompt: work until cancelled
`, marks),
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run := runFollowingTranscript(t, ctx, dir, "second", "-j", "1", "--workspace-dir", "ws")
	run.waitFor("the second scenario's agent was working", `"dir":"a2c"`, `"text":"working"`)
	run.interrupt()
	out := run.waitInterrupted()
	if !out.Interrupted {
		t.Errorf("the results do not say they were interrupted")
	}
	first, second := scenarioNamed(t, out, "first"), scenarioNamed(t, out, "second")
	fw, sw := workspaceOf(t, first), workspaceOf(t, second)
	if first.Status != "passed" || fw.Kept {
		t.Errorf("first: %s, kept %t; want passed and removed", first.Status, fw.Kept)
	}
	assertGone(t, "the passing attempt's workspace", fw.Path)
	if second.Status == "passed" || len(second.Turns) != 1 || second.Turns[0].CancelCause != "interrupt" {
		t.Errorf("second: %s, turns %+v; want its turn cancelled by the interrupt", second.Status, second.Turns)
	}
	if !sw.Kept {
		t.Errorf("the interrupted attempt's workspace is not kept")
	}
	assertFile(t, filepath.Join(sw.Path, "tracked.txt"), "half done\n")
	if !slices.Equal(sw.Modified, []string{"tracked.txt"}) || !strings.Contains(sw.Diff, "+half done\n") || sw.Error != "" {
		t.Errorf("the interrupted attempt's changes: modified %q, diff %q, error %q; want tracked.txt and its diff",
			sw.Modified, sw.Diff, sw.Error)
	}
	assertFile(t, filepath.Join(marks, "teardown-second"), sw.Path+"\n")
	if list := gitIn(t, filepath.Join(dir, "repo"), "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+sw.Path+"\n") {
		t.Errorf("git worktree list does not show the kept worktree %s:\n%s", sw.Path, list)
	}
	if live := testkit.Leftovers(t, testkit.InDir(dir)); len(live) > 0 {
		t.Errorf("left running: %v", live)
	}
}

// TestWorkspaceDryRunShowsCommands: --dry-run shows each scenario's
// workspace and its setup, verify and teardown commands with their
// timeouts, and runs none of them.
func TestWorkspaceDryRunShowsCommands(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"fixture/a.txt":   "a\n",
		"repo/README":     "not even a repository: a dry run does not look\n",
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml": `name: copy
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: fixture}
permissions: {default: deny}
setup:
  - run: touch ran-setup
    timeout: 2m
verify: [test -f done.txt]
teardown: [touch ran-teardown]
turns:
  - prompt: hi
---
name: checkout
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: repo, ref: HEAD~1}
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "--dry-run", "--workspace-dir", "ws")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"  workspace: copy of " + filepath.Join(dir, "fixture") + " per attempt",
		"  setup:    touch ran-setup (timeout 2m0s)\n",
		"  verify:   test -f done.txt (timeout 10m0s)\n",
		"  teardown: touch ran-teardown (timeout 10m0s)\n",
		"  workspace: git " + filepath.Join(dir, "repo") + " at HEAD~1",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("--dry-run does not show %q:\n%s", want, res.stdout)
		}
	}
	for _, path := range []string{"ws", "fixture/ran-setup", "fixture/ran-teardown", "ran-setup", "ran-teardown"} {
		assertGone(t, "--dry-run made", filepath.Join(dir, path))
	}
}

// TestVerifyLongOutputLineCut: a failed verify quotes its output's last
// lines each cut at 200 characters, as the agent's text and stderr are,
// in the results' failures, the summary, JUnit and the GitHub annotation;
// the results keep the output itself whole.
func TestVerifyLongOutputLineCut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"fx/.keep":        "",
		"agent.mock.yaml": "turns: [{steps: [{text: done}]}]\n",
		"s.yaml": `name: long
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: deny}
workspace: {from: fx}
verify: [{run: "head -c 5000 /dev/zero | tr '\\0' y; exit 1"}]
turns: [{prompt: hi}]
`,
	})
	res := acprunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_WORKSPACE="},
		"run", "s.yaml", "-o", "out.json", "--junit", "junit.xml")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%.3000s", res.code, res.stderr)
	}
	out := readResults(t, filepath.Join(dir, "out.json"))
	sc := out.Scenarios[0]
	cut := strings.Repeat("y", 200) + "…"
	if len(sc.Failures) != 1 || !strings.HasSuffix(sc.Failures[0], "exited with code 1, want 0; output ends:\n"+cut) {
		t.Fatalf("failures %.400q, want the verify's with its line cut at 200 characters", sc.Failures)
	}
	if len(sc.Verify) != 1 || sc.Verify[0].Stdout != strings.Repeat("y", 5000) {
		t.Errorf("verify = %.300v, want its whole stdout kept", sc.Verify)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "junit": string(junit)} {
		if strings.Contains(s, strings.Repeat("y", 201)) {
			t.Errorf("%s quotes more than 200 characters of the line:\n%.1000s", what, s)
		}
		if !strings.Contains(s, cut) {
			t.Errorf("%s lacks the cut line:\n%.1000s", what, s)
		}
	}
	if !strings.Contains(res.stdout, "::error ") {
		t.Errorf("stdout has no annotation:\n%.1000s", res.stdout)
	}
}

// TestValidateStrictWorkspaceGit: validate --strict reads each workspace's
// git repository where it is, as a run would before it makes the
// workspace, and reports a directory that is not a repository at git and
// a ref that names no commit at ref, without making a worktree or
// changing the repository; without --strict the same file is valid, and a
// good repository and ref pass both.
func TestValidateStrictWorkspaceGit(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	makeRepo(t, repo)
	gitIn(t, repo, "tag", "v1", "HEAD~1")
	state := func() string {
		return gitIn(t, repo, "worktree", "list", "--porcelain") + "\n" + gitIn(t, repo, "status", "--porcelain") + "\n" + gitIn(t, repo, "rev-parse", "HEAD")
	}
	before := state()
	rules := "agent: {command: [acprun, mock-agent, ok.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	scenarios := "name: not-a-repo\nworkspace: {git: plain}\n" + rules +
		"---\nname: bad-ref\nworkspace:\n  git: repo\n  ref: no-such-branch\n" + rules +
		"---\nname: good\nworkspace: {git: repo, ref: v1}\n" + rules
	writeFiles(t, dir, map[string]string{
		"plain/file.txt": "not in git\n",
		"ok.mock.yaml":   "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml":         scenarios,
		"good.yaml":      "name: head\nworkspace: {git: ./repo}\n" + rules + "---\nname: tag\nworkspace: {git: repo, ref: v1}\n" + rules,
	})
	if res := acprun(t, dir, "validate", "s.yaml"); res.code != 0 {
		t.Errorf("validate without --strict: exit %d, want 0\n%s", res.code, res.stderr)
	}
	res := acprun(t, dir, "validate", "--strict", "s.yaml")
	var got []string
	for _, line := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(line, "s.yaml:") {
			got = append(got, line)
		}
	}
	want := []string{
		posAfter(t, "s.yaml", scenarios, "name: not-a-repo", "plain}") + ": workspace: git " + filepath.Join(dir, "plain") +
			": not a git repository (git rev-parse: fatal: not a git repository", // then as git words it
		posAfter(t, "s.yaml", scenarios, "name: bad-ref", "no-such-branch") + ": workspace: ref no-such-branch: unknown revision in " + repo + ": give a branch, tag or commit of it",
	}
	if res.code != 2 || res.stdout != "" {
		t.Errorf("validate --strict: exit %d, stdout %q; want 2 and nothing", res.code, res.stdout)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], want[0]) || !strings.HasSuffix(got[0], ": give a repository's top directory, or copy the directory with from") || got[1] != want[1] {
		t.Errorf("validate --strict errors:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), res.stderr)
	}
	if !strings.Contains(res.stderr, "    10 |   ref: no-such-branch\n       |        ^\n") {
		t.Errorf("validate --strict: no source line with a caret under the ref:\n%s", res.stderr)
	}
	res = acprun(t, dir, "validate", "--strict", "good.yaml")
	if res.code != 0 || res.stdout != "OK: 2 scenarios, 2 turns in 1 file\n" {
		t.Errorf("validate --strict good.yaml: exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
	}
	if after := state(); after != before {
		t.Errorf("validate changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestWorkspaceFullDisk: a workspace that does not fit where workspaces
// go (--workspace-dir on a tmpfs of 200K, a file of 400K) errors its
// attempt with a message that names that directory and says what to do,
// not at the scenario's workspace key: a copy, a git worktree (which
// falls back to a clone when its checkout fails, and that fails too) and
// a clone of a bare repository alike. Nothing is left on that disk.
func TestWorkspaceFullDisk(t *testing.T) {
	t.Parallel()
	needGit(t)
	small := testkit.SmallDisk(t, "200k")
	dir := realTempDir(t)
	big := make([]byte, 400<<10)
	rand.NewChaCha8([32]byte{}).Read(big) // does not compress
	writeFiles(t, dir, map[string]string{
		"src/big.bin":     string(big),
		"agent.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "repo"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, filepath.Join(dir, "repo"), "init", "-q")
	writeFiles(t, filepath.Join(dir, "repo"), map[string]string{"big.bin": string(big)})
	gitIn(t, filepath.Join(dir, "repo"), "add", ".")
	gitIn(t, filepath.Join(dir, "repo"), "commit", "-q", "-m", "big")
	gitIn(t, dir, "clone", "-q", "--bare", "repo", "bare.git")
	for _, ws := range []string{"{from: src}", "{git: repo}", "{git: bare.git}"} {
		writeFiles(t, dir, map[string]string{"s.yaml": "name: full\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {}\n" +
			"workspace: " + ws + "\nturns: [{prompt: hi}]\n"})
		res, out := runResults(t, dir, "s.yaml", "--workspace-dir", small)
		tail := "; acprun could not make the attempt's workspace in " + small + ", where workspaces go: make it writable (or free space there), or give another directory (--workspace-dir, or TMPDIR)"
		if res.code != exitFailed || len(out.Scenarios) != 1 {
			t.Fatalf("workspace %s: exit %d, %d results; want %d, 1\n%s", ws, res.code, len(out.Scenarios), exitFailed, res.stderr)
		}
		if sc := out.Scenarios[0]; sc.Status != report.StatusError || !strings.HasPrefix(sc.Error, "workspace: ") || !strings.HasSuffix(sc.Error, tail) || strings.Contains(sc.Error, "no such file") {
			t.Errorf("workspace %s: %s %q; want an error beginning %q (no position), ending %q", ws, sc.Status, sc.Error, "workspace: ", tail)
		}
		if left, _ := os.ReadDir(small); len(left) != 0 {
			t.Errorf("workspace %s: %s holds %v after the run; want nothing", ws, small, left)
		}
	}
}
