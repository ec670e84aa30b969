package e2e_test

import (
	"path/filepath"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// evalParseGood uses every key of workspaces, setup/verify/teardown and the
// expectations on what the agent did.
const evalParseGood = `name: every-eval-key
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: allow}
workspace: ./fixtures/repo
setup:
  - npm ci
  - {run: "make build", timeout: 5m}
expect:
  files: {unchanged: ["vendor/**", go.mod]}
  usage: {maxCost: 1}
  judge: {agent: {command: [judge-agent]}, rubric: "Is it minimal?"}
turns:
  - prompt: Fix the bug.
    expect:
      toolCalls:
        used: [edit, "Write *"]
        notUsed: [delete]
        count: {execute: "<=2", edit: 1, "Read *": ">= 1"}
        status: completed
        sequence: [read, edit, execute]
      files:
        exists: [done.txt]
        absent: [tmp.txt]
        contains: {README.md: hello}
        matches: {main.go: "func main"}
        golden: {out.txt: ./golden/out.txt}
      permissions: {requested: [edit], notRequested: execute}
      usage: {maxTotalTokens: 50000, maxCost: 0.5}
      judge:
        agent: judge
        rubric: Answer PASS when the fix is right.
        pass: "^PASS"
        timeout: 2m
verify:
  - test -f done.txt
  - run: go test ./...
    timeout: 10m
    expect: {exitCode: 0, stdout: {contains: [ok], matches: "PASS"}}
teardown: ["rm -rf /tmp/x"]
---
name: git-workspace
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: allow}
workspace: {git: ./fixtures/repo, ref: HEAD~3}
turns: [{prompt: hi}]
`

// TestEvalParseValidate: acprun validate accepts a file with every new
// key (a named judge from the config included), and reports bad ones as
// file:line:col with exit code 2.
func TestEvalParseValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":             "agents:\n  judge: {command: [judge-agent, --strict]}\n",
		"agent.mock.yaml":         "turns:\n  - steps: [{text: ok}]\n",
		"fixtures/repo/README.md": "hello\n",
		"golden/out.txt":          "out\n",
		"evals.yaml":              evalParseGood,
		"defaults/acprun.yaml":    "defaults:\n  workspace: ../fixtures/repo\n  verify: [make check]\n",
		"defaults/uses.yaml":      "name: from-config\nagent: {command: [a]}\npermissions: {}\nexpect: {files: {unchanged: '**'}}\nturns: [{prompt: hi}]\n",
		"bad/evals.yaml":          evalParseBad,
		"bad/fixtures/file.txt":   "not a directory\n",
	})

	res := acprun(t, dir, "validate", "evals.yaml")
	if res.code != 0 || res.stdout != "OK: 2 scenarios, 2 turns in 1 file\n" {
		t.Errorf("validate evals.yaml: exit %d, stdout %q, want 0 and OK\n%s", res.code, res.stdout, res.stderr)
	}
	if res.stderr != "" {
		t.Errorf("validate evals.yaml: stderr %q, want nothing (no warnings)", res.stderr)
	}

	// The config's workspace (relative to the config file) is what
	// files.unchanged compares with.
	res = acprun(t, filepath.Join(dir, "defaults"), "validate", "uses.yaml")
	if res.code != 0 {
		t.Errorf("validate with the config's workspace: exit %d, want 0\n%s", res.code, res.stderr)
	}

	res = acprun(t, filepath.Join(dir, "bad"), "validate", "evals.yaml")
	if res.code != 2 {
		t.Errorf("validate bad/evals.yaml: exit %d, want 2\n%s", res.code, res.stderr)
	}
	bad := filepath.Join(dir, "bad")
	want := []string{
		"evals.yaml:4:12: workspace " + bad + "/fixtures/file.txt is not a directory: workspace names the directory to copy for each attempt",
		`evals.yaml:6:17: unknown key "expect" (valid keys: run, timeout); only verify commands have an expect ` +
			"(a setup command must exit 0; a teardown command's outcome is only recorded)",
		"evals.yaml:10:18: toolCalls needs used, notUsed, count, status or sequence",
		"evals.yaml:11:24: expected a number from 0 up, got -1",
		`evals.yaml:12:24: path "../up" uses ..: write it relative to the workspace (or the session cwd), without ..`,
		`evals.yaml:12:50: golden file "golden/missing.txt" does not exist`,
		`evals.yaml:13:22: unknown agent "cluade" (did you mean "claude"?)`,
		`evals.yaml:14:1: unknown key "verfy" (did you mean "verify"?)`,
		`evals.yaml:20:11: files.unchanged compares with the workspace's starting copy, and the scenario has no workspace: ` +
			"add workspace: DIR (or workspace: {git: REPO}) to the scenario or to the config's defaults",
	}
	got := errorLines(res.stderr)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("validate bad/evals.yaml: stderr (-want +got):\n%s", diff)
	}

	// acprun schema describes the new keys.
	res = acprun(t, dir, "schema")
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &schema); err != nil {
		t.Fatalf("acprun schema: %v", err)
	}
	for _, k := range []string{"workspace", "setup", "verify", "teardown"} {
		if schema.Properties[k] == nil {
			t.Errorf("acprun schema has no property %q", k)
		}
	}
	for _, k := range []string{"toolCallsExpect", "filesExpect", "permissionsExpect", "usageExpect", "judge"} {
		if schema.Defs[k] == nil {
			t.Errorf("acprun schema has no $defs %q", k)
		}
	}
}

const evalParseBad = `name: bad-evals
agent: {command: [a]}
permissions: {}
workspace: fixtures/file.txt
setup:
  - {run: make, expect: {exitCode: 0}}
turns:
  - prompt: hi
    expect:
      toolCalls: {}
      usage: {maxCost: -1}
      files: {exists: [../up], golden: {out.txt: golden/missing.txt}}
      judge: {agent: cluade, rubric: r}
verfy: [true]
---
name: no-workspace
agent: {command: [a]}
permissions: {}
expect:
  files: {unchanged: [go.mod]}
turns: [{prompt: hi}]
`
