package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxDiffShowsNoHiddenFile: a sandboxed agent cannot read the
// file sandbox.hide names in its git workspace (setup wrote it), but it
// can move the directory that holds it and put a file of its own at its
// name: the diff, which acprun takes outside the sandbox, then shows the
// hidden file's content at neither name, in the results and to the
// judge. The note names what was left out, and the agent's other change
// is shown.
func TestSandboxDiffShowsNoHiddenFile(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	makeRepo(t, filepath.Join(dir, "repo"))
	const secret = "TOPSECRET-4471"
	writeFiles(t, dir, map[string]string{
		"repo/config/app.txt": "app\n",
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: 'cat config/.env; mv config moved && mkdir config && echo planted > config/.env && echo edit >> moved/app.txt && echo done'
`,
		"judge.mock.yaml": `turns:
  - match: '` + secret + `'
    steps: [{text: "FAIL: shown the secret"}]
  - match: 'sandbox hides them(.|\n)*\+edit'
    steps: [{text: PASS}]
  - steps: [{text: "FAIL: not shown the diff"}]
`,
		"s.yaml": `name: hidden
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {git: ./repo}
setup: ["echo ` + secret + ` > config/.env"]
sandbox: {hide: [./repo/config/.env], network: off}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      text: {contains: [done], notContains: ["` + secret + `"]}
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: anything}
`,
	})
	gitIn(t, filepath.Join(dir, "repo"), "add", ".")
	gitIn(t, filepath.Join(dir, "repo"), "commit", "-q", "-m", "config")
	res, out := runSandboxed(t, dir, env, "s.yaml")
	sc := scenarioNamed(t, out, "hidden")
	if res.code != exitOK || sc.Status != "passed" || sc.Judge == nil || sc.Judge.Text != "PASS" {
		t.Errorf("exit %d, status %s (%s %q), judge %+v; want 0, passed, PASS\n%s", res.code, sc.Status, sc.Error, sc.Failures, sc.Judge, res.stderr)
	}
	ws := workspaceOf(t, sc)
	if strings.Contains(ws.Diff, secret) {
		t.Errorf("the diff shows the hidden file:\n%s", ws.Diff)
	}
	first, _, _ := strings.Cut(ws.Diff, "\n")
	if want := `acprun: left out of this diff, as the sandbox hides them (the changes list them): "config/.env", "moved/.env"`; first != want {
		t.Errorf("diff:\n%s\nwant its first line %q", ws.Diff, want)
	}
}

// TestSandboxLaterHidesMoved: what runs in the scenario's sandbox after
// the agent (its judge, its verify commands with sandbox.verify) cannot
// read the file sandbox.hide names in the workspace where the agent moved
// it (it renamed the directory that holds it): the sandboxes hide it at
// its new name too, and so do the files expectations.
func TestSandboxLaterHidesMoved(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	env := needSandbox(t, true, realTempDir(t))
	const secret = "TOPSECRET-5823"
	writeFiles(t, dir, map[string]string{
		"fixture/config/app.txt": "app\n",
		"agent.mock.yaml": `turns:
  - steps:
      - spawn: 'mv config moved && printf "#!/bin/sh\ncat moved/.env\n" > check.sh && chmod +x check.sh && echo done'
`,
		"judge.mock.yaml": `turns:
  - steps:
      - spawn: 'cat moved/.env'
      - text: PASS
`,
		"s.yaml": `name: moved
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
workspace: {from: ./fixture}
setup: ["echo ` + secret + ` > config/.env"]
sandbox: {hide: [./fixture/config/.env], network: off, verify: true}
permissions: {default: deny}
turns:
  - prompt: go
    expect:
      text: {contains: [done]}
      files: {contains: {moved/.env: "` + secret + `"}}
verify:
  - run: ./check.sh
    expect: {exitCode: 1}
expect:
  judge: {agent: {command: [acprun, mock-agent, judge.mock.yaml]}, rubric: anything}
`,
	})
	res, out := runSandboxed(t, dir, env, "s.yaml")
	sc := scenarioNamed(t, out, "moved")
	b, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret+`\n`) || strings.Contains(res.stdout+res.stderr, secret+"\n") {
		t.Errorf("the hidden file was read after the agent moved it:\n%s", b)
	}
	if sc.Judge == nil || !strings.Contains(sc.Judge.Text, "Permission denied") {
		t.Errorf("judge %+v; want it refused moved/.env", sc.Judge)
	}
	if len(sc.Verify) != 1 || !strings.Contains(sc.Verify[0].Stderr, "Permission denied") {
		t.Errorf("verify %+v; want it refused moved/.env", sc.Verify)
	}
	if want := `files.contains: "moved/.env" is hidden by the sandbox`; !slices.ContainsFunc(sc.Failures, func(f string) bool { return strings.Contains(f, want) }) {
		t.Errorf("failures %q; want one saying %q", sc.Failures, want)
	}
}
