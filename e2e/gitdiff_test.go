package e2e_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestWorkspaceGitConfigOfTheAgentRunsNothing: an agent runs `git config`
// in its git workspace to set filter (clean and process), diff (textconv,
// command), fsmonitor and hooksPath commands, and writes a .gitattributes
// that sends every file through them. In a worktree that config is the
// source repository's. acprun's diff runs none of them and still records
// the change; the worktree's attempt warns, in the results and in the
// summary, that the repository's config changed, and leaves it as the
// agent made it. A clone's config is its own: no warning there.
func TestWorkspaceGitConfigOfTheAgentRunsNothing(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	makeRepo(t, repo)
	gitIn(t, dir, "clone", "-q", "--bare", repo, "srcbare.git")
	ran := filepath.Join(dir, "ran")
	writeFiles(t, dir, map[string]string{
		"attack.sh": `set -e
printf '#!/bin/sh\necho "$0 $1" >> ` + ran + `\ncat\n' > evil.sh
chmod +x evil.sh
mkdir hooks
cp evil.sh hooks/post-index-change
git config filter.x.clean "$PWD/evil.sh clean"
git config filter.p.process "$PWD/evil.sh process"
git config diff.x.textconv "$PWD/evil.sh textconv"
git config diff.x.command "$PWD/evil.sh command"
git config core.fsmonitor "$PWD/evil.sh"
git config core.hooksPath "$PWD/hooks"
printf '* filter=x diff=x\nother.txt filter=p\n' > .gitattributes
echo "edited by the agent" > tracked.txt
echo attacked
`,
		"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: sh " + filepath.Join(dir, "attack.sh") + "\n",
		"worktree.yaml": `name: worktree
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo}
permissions: {default: deny}
turns:
  - prompt: Attack.
    expect: {text: {contains: ["spawn: exit 0: attacked"]}}
`,
		"clone.yaml": `name: clone
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
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
	config := filepath.Join(repo, ".git", "config")
	warning := "workspace: git files of the source repository changed while the agent ran: modified " + config + "; "
	for _, name := range []string{"worktree", "clone"} {
		sc := scenarioNamed(t, out, name)
		ws := workspaceOf(t, sc)
		if sc.Status != "passed" || ws.Kind != name || ws.Error != "" {
			t.Errorf("%s: %s, workspace kind %q, error %q (%s %q)", name, sc.Status, ws.Kind, ws.Error, sc.Error, sc.Failures)
		}
		if !slices.Equal(ws.Modified, []string{"tracked.txt"}) || !strings.Contains(ws.Diff, "-second version\n+edited by the agent\n") {
			t.Errorf("%s: modified %q, diff:\n%s\nwant tracked.txt's edit", name, ws.Modified, ws.Diff)
		}
		warned := slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.HasPrefix(w, warning) })
		if warned != (name == "worktree") {
			t.Errorf("%s: warnings %q; want a warning starting %q: %v", name, sc.Warnings, warning, name == "worktree")
		}
	}
	if !strings.Contains(res.stdout+res.stderr, "warning: "+warning) {
		t.Errorf("the summary does not show the warning %q:\n%s%s", warning, res.stdout, res.stderr)
	}
	if got := gitIn(t, repo, "config", "filter.x.clean"); !strings.HasSuffix(got, "/evil.sh clean") {
		t.Errorf("the repository's filter.x.clean = %q; want it left as the agent set it", got)
	}
}

// TestWorkspaceGitDiffStartsAfterSetup: setup edits a tracked file, the
// agent another. The diff in the results and the judge's prompt show the
// agent's edit only, as created/modified/deleted do; the judge (passing
// only then) passes.
func TestWorkspaceGitDiffStartsAfterSetup(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	makeRepo(t, filepath.Join(dir, "repo"))
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: setup
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo}
setup: ["echo setup-change >> tracked.txt"]
permissions: {default: deny}
turns:
  - prompt: Edit other.txt.
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: only other.txt changed}
`,
		"agent.mock.yaml": `turns:
  - steps:
      - writeFile: {path: other.txt, content: "agent-change\n"}
      - text: done
`,
		"judge.mock.yaml": `turns:
  - match: setup-change
    steps: [{text: "FAIL: shown setup's change"}]
  - match: agent-change
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not shown the agent's change"}]
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", "tr")
	sc := scenarioNamed(t, out, "setup")
	if res.code != 0 || sc.Judge == nil || sc.Judge.Text != "PASS" {
		t.Errorf("exit %d, judge %+v (%s %q); want 0, the judge shown the agent's change only\n%s", res.code, sc.Judge, sc.Error, sc.Failures, res.stderr)
	}
	ws := workspaceOf(t, sc)
	if !slices.Equal(ws.Modified, []string{"other.txt"}) || !strings.Contains(ws.Diff, "+agent-change\n") || strings.Contains(ws.Diff, "setup-change") {
		t.Errorf("modified %q, diff:\n%s\nwant the agent's edit only", ws.Modified, ws.Diff)
	}
	prompt := readFiles(t, dir, "tr/setup.judge.jsonl")["tr/setup.judge.jsonl"]
	if !bytes.Contains(prompt, []byte("+agent-change")) || bytes.Contains(prompt, []byte("setup-change")) {
		t.Errorf("the judge's transcript:\n%s\nwant the agent's edit only", prompt)
	}
}

// TestWorkspaceGitDiffCutKeepsNoSecret: the agent writes a file with a
// secret on a line so long that the 256 KiB cut of the diff goes through
// the secret. No part of it reaches the results, the judge's transcript or
// the output.
func TestWorkspaceGitDiffCutKeepsNoSecret(t *testing.T) {
	t.Parallel()
	needGit(t)
	const secret = "zqxjE2Ecutdiff0123456789"
	dir := realTempDir(t)
	makeRepo(t, filepath.Join(dir, "repo"))
	// The secret's first 8 bytes are the last ones of the diff kept.
	head := "diff --git a/x.txt b/x.txt\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+"
	before := 256<<10 - len(head) - 8
	writeFiles(t, dir, map[string]string{
		"write.sh": `head -c ` + strconv.Itoa(before) + ` /dev/zero | tr '\0' A > x.txt
printf %s "$MY_API_TOKEN" >> x.txt
head -c 1000 /dev/zero | tr '\0' B >> x.txt
echo >> x.txt
`,
		"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: sh " + filepath.Join(dir, "write.sh") + "\n      - text: done\n",
		"judge.mock.yaml": "turns:\n  - steps: [{text: PASS}]\n",
		"s.yaml": `name: cut
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo}
permissions: {default: deny}
turns:
  - prompt: Write x.txt.
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: x.txt is written}
`,
	})
	res := acprunEnv(t, dir, []string{"MY_API_TOKEN=" + secret}, "run", "s.yaml", "-o", "out.json", "--transcripts", "tr")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	ws := workspaceOf(t, scenarioNamed(t, readResults(t, filepath.Join(dir, "out.json")), "cut"))
	if !ws.DiffTruncated || !strings.HasSuffix(ws.Diff, "AAA[REDACTED]") {
		t.Errorf("diff truncated %v, ends %q; want it cut, the secret's start redacted", ws.DiffTruncated, ws.Diff[max(0, len(ws.Diff)-40):])
	}
	outputs := readFiles(t, dir, "out.json", "tr/cut.jsonl", "tr/cut.judge.jsonl")
	outputs["stdout"], outputs["stderr"] = []byte(res.stdout), []byte(res.stderr)
	for name, data := range outputs {
		if i := bytes.Index(data, []byte(secret[:4])); i >= 0 {
			t.Errorf("%s leaks the secret's start: …%s…", name, data[max(0, i-10):min(len(data), i+20)])
		}
	}
}

// TestWorkspaceGitDiffLeavesOutHugeFiles: the agent makes a new file and a
// tracked one huge (sparse: git would read them for hours) and edits
// another. The run ends at once: the diff leaves the huge files out and
// says so in its first line, in the results and in the judge's prompt;
// the changes still list them, and workspace.protect still sees the
// tracked one.
func TestWorkspaceGitDiffLeavesOutHugeFiles(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	makeRepo(t, filepath.Join(dir, "repo"))
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: 'truncate -s 1T big.bin && truncate -s 1T tracked.txt && echo agent-change > other.txt'
      - text: done
`,
		"judge.mock.yaml": `turns:
  - match: '(?m)^acprun: left out of this diff[^\n]*"big.bin" \(1099511627776 bytes\), "tracked.txt" \(1099511627776 bytes\)\n(?s:.*)\+agent-change'
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not shown the note and the edit"}]
`,
		"s.yaml": `name: judged
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo}
permissions: {default: deny}
turns:
  - prompt: Make big files.
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: other.txt is edited}
---
name: protected
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo, protect: [tracked.txt]}
permissions: {default: deny}
turns:
  - prompt: Make big files.
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != exitInvalid {
		t.Errorf("exit %d, want %d (protect was tampered with)\n%s", res.code, exitInvalid, res.stderr)
	}
	const note = `acprun: left out of this diff, as git reads at most 32 MiB of the files whose size changed, smallest first (the changes list them): ` +
		`"big.bin" (1099511627776 bytes), "tracked.txt" (1099511627776 bytes)` + "\n"
	for _, name := range []string{"judged", "protected"} {
		sc := scenarioNamed(t, out, name)
		ws := workspaceOf(t, sc)
		if !slices.Equal(ws.Created, []string{"big.bin"}) || !slices.Equal(ws.Modified, []string{"other.txt", "tracked.txt"}) || ws.Error != "" {
			t.Errorf("%s: created %q, modified %q, error %q; want big.bin, other.txt and tracked.txt", name, ws.Created, ws.Modified, ws.Error)
		}
		rest, ok := strings.CutPrefix(ws.Diff, note)
		if !ok || !strings.HasPrefix(rest, "diff --git a/other.txt b/other.txt\n") || strings.Count(rest, "diff --git") != 1 || ws.DiffBytes != len(ws.Diff) {
			t.Errorf("%s: diff (%d bytes):\n%s\nwant the note %q, then other.txt's diff alone", name, ws.DiffBytes, ws.Diff, note)
		}
	}
	if sc := scenarioNamed(t, out, "judged"); sc.Status != "passed" || sc.Judge == nil || sc.Judge.Text != "PASS" {
		t.Errorf("judged: %s, judge %+v (%s %q); want passed, the judge shown the note and the edit", sc.Status, sc.Judge, sc.Error, sc.Failures)
	}
	if sc := scenarioNamed(t, out, "protected"); sc.Status != "invalid" || sc.Invalid == nil || !slices.Equal(sc.Invalid.Files, []string{"tracked.txt"}) {
		t.Errorf("protected: status %s, invalid %+v; want invalid, the agent changed tracked.txt", sc.Status, sc.Invalid)
	}
}

// TestWorkspaceGitDiffLeavesOutUnreadableFiles: the agent edits a tracked
// file and leaves a key file no one can read (as a root-owned 0600 file of
// `docker run -v` is to acprun's user). The diff leaves the key out and
// says so, the rest of it stands, in the results and the judge's prompt;
// workspace.protect goes by the lists, where the protected files are not:
// the attempt passes.
func TestWorkspaceGitDiffLeavesOutUnreadableFiles(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	makeRepo(t, repo)
	writeFiles(t, repo, map[string]string{"tests/t.sh": "exit 0\n"})
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "tests")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: "echo agent-change >> tracked.txt; echo secret > key.pem; chmod 000 key.pem"
      - text: done
`,
		"judge.mock.yaml": `turns:
  - match: 'cannot be read \(the changes list them\): "key\.pem"\n(.|\n)*\+agent-change'
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not shown the diff"}]
`,
		"s.yaml": `name: unreadable
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo, protect: [tests/**]}
permissions: {default: allow}
turns:
  - prompt: Edit tracked.txt.
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: tracked.txt is edited}
`,
	})
	name, args := testkit.BoundCommand(t, acprunFor(t), "run", "s.yaml", "-o", "out.json", "--transcripts", "tr", "--keep-workspaces")
	res, _ := runBinary(t, name, dir, nil, args...)
	sc := scenarioNamed(t, readResults(t, filepath.Join(dir, "out.json")), "unreadable")
	if res.code != exitOK || sc.Status != "passed" || sc.Judge == nil || sc.Judge.Text != "PASS" {
		t.Errorf("exit %d, status %s (%s %q %+v), judge %+v; want 0, passed, the judge shown the diff\n%s", res.code, sc.Status, sc.Error, sc.Failures, sc.Invalid, sc.Judge, res.stderr)
	}
	ws := workspaceOf(t, sc)
	t.Cleanup(func() { os.Chmod(filepath.Join(ws.Path, "key.pem"), 0o600) })
	if !slices.Equal(ws.Created, []string{"key.pem"}) || !slices.Equal(ws.Modified, []string{"tracked.txt"}) || ws.Error != "" {
		t.Errorf("created %q, modified %q, error %q; want key.pem, tracked.txt, none", ws.Created, ws.Modified, ws.Error)
	}
	first, rest, _ := strings.Cut(ws.Diff, "\n")
	if want := `acprun: left out of this diff, as they cannot be read (the changes list them): "key.pem"`; first != want || !strings.Contains(rest, "+agent-change\n") {
		t.Errorf("diff:\n%s\nwant its first line %q, then tracked.txt's change", ws.Diff, want)
	}
}

// TestWorkspaceGitJudgeSeesIgnoredFiles: the judge is told of a file the
// agent created that git ignores (dist/index.html) when a tracked file
// changed too, after the diff, as when it is the only change.
func TestWorkspaceGitJudgeSeesIgnoredFiles(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	makeRepo(t, repo)
	writeFiles(t, repo, map[string]string{".gitignore": "dist/\n"})
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "ignore dist")
	writeFiles(t, dir, map[string]string{
		"alone.mock.yaml": `turns:
  - steps:
      - spawn: "mkdir -p dist; echo '<html>' > dist/index.html"
      - text: done
`,
		"both.mock.yaml": `turns:
  - steps:
      - spawn: "mkdir -p dist; echo '<html>' > dist/index.html; echo built >> tracked.txt"
      - text: done
`,
		"judge.mock.yaml": `turns:
  - match: '\+built\n\nThe diff above does not show these changes:\ncreated: dist/index\.html\n'
    steps: [{text: PASS}]
  - match: 'What it changed:\ncreated: dist/index\.html\n\n'
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not told of the site"}]
`,
		"s.yaml": `name: alone
agent: {command: [acprun, mock-agent, alone.mock.yaml]}
workspace: {git: ./repo}
permissions: {default: allow}
turns:
  - prompt: Build the site.
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: the site is built}
---
name: both
agent: {command: [acprun, mock-agent, both.mock.yaml]}
workspace: {git: ./repo}
permissions: {default: allow}
turns:
  - prompt: Build the site.
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: the site is built}
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	for _, name := range []string{"alone", "both"} {
		if sc := scenarioNamed(t, out, name); sc.Judge == nil || sc.Judge.Text != "PASS" {
			t.Errorf("%s: judge %+v (%s %q); want it told of dist/index.html", name, sc.Judge, sc.Error, sc.Failures)
		}
	}
	if res.code != exitOK {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
}

// TestWorkspaceGitDirectoryReplacedByAFile: an agent that replaces a
// tracked directory by a file deleted the directory's files: the diff
// shows them deleted and says nothing of files it cannot read.
func TestWorkspaceGitDirectoryReplacedByAFile(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	repo := filepath.Join(dir, "repo")
	makeRepo(t, repo)
	writeFiles(t, repo, map[string]string{"docs/a.md": "one\n", "docs/b.md": "two\n"})
	gitIn(t, repo, "add", "docs")
	gitIn(t, repo, "commit", "-q", "-m", "docs")
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps:\n      - spawn: \"rm -rf docs && echo see > docs\"\n",
		"s.yaml":          "name: dirfile\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\nworkspace: {git: ./repo}\npermissions: {default: deny}\nturns:\n  - prompt: go\n",
	})
	res, out := runResults(t, dir, "s.yaml", "--workspace-dir", "ws")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	ws := workspaceOf(t, scenarioNamed(t, out, "dirfile"))
	if strings.Contains(ws.Diff, "cannot be read") || strings.Count(ws.Diff, "deleted file mode") != 2 {
		t.Errorf("diff = %q; want docs/a.md and docs/b.md deleted, no note of files it cannot read", ws.Diff)
	}
	if !slices.Equal(ws.Deleted, []string{"docs/a.md", "docs/b.md"}) || !slices.Equal(ws.Created, []string{"docs"}) {
		t.Errorf("deleted %q, created %q; want docs/a.md docs/b.md, docs", ws.Deleted, ws.Created)
	}
}
