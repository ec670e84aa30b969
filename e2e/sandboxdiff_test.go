package e2e_test

import (
	"path/filepath"
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
