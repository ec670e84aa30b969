package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acprun/acprun/report"
)

// batchFiles writes n scenarios, spread over three files, on a mock agent
// whose turn length varies so that they finish out of order under -j.
func batchFiles(t *testing.T, dir string, n int) {
	t.Helper()
	files := map[string]string{
		"agent.mock.yaml": `turns:
  - match: 'slow'
    steps: [{sleep: 30ms}, {text: slow}]
  - match: 'refuse'
    steps: [{text: "no"}]
    stopReason: refusal
default:
  steps: [{text: fast}]
`,
	}
	var docs [3][]string
	for i := range n {
		prompt := "fast"
		switch i % 3 {
		case 0:
			prompt = "slow"
		case 1:
			prompt = "refuse"
		}
		docs[i%3] = append(docs[i%3], fmt.Sprintf(`name: s%02d
tags: [t%d]
agent: {command: [acprun, mock-agent, ../agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: %s
    expect: {stopReason: [end_turn, refusal]}
`, i, i%2, prompt))
	}
	for f, d := range docs {
		if len(d) > 0 {
			files[fmt.Sprintf("suite/f%d.yaml", f)] = strings.Join(d, "---\n")
		}
	}
	writeFiles(t, dir, files)
}

func scenarioNames(out report.Results) []string {
	var names []string
	for _, sc := range out.Scenarios {
		names = append(names, sc.Name+":"+string(sc.Status))
	}
	return names
}

func TestParallelRunIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 50)
	res, out := runResults(t, dir, "suite", "-j", "8")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	// File order, then position in the file.
	var want []string
	for f := range 3 {
		for i := f; i < 50; i += 3 {
			want = append(want, fmt.Sprintf("s%02d:passed", i))
		}
	}
	if diff := cmp.Diff(want, scenarioNames(out)); diff != "" {
		t.Errorf("scenario order (-want +got):\n%s", diff)
	}
	if got := len(out.ByStopReason["refusal"]); got != 17 {
		t.Errorf("refusal turns = %d, want 17", got)
	}

	list := acprun(t, dir, "list", "suite", "--tag", "t1", "--run", "^s0")
	if got := strings.Count(list.stdout, "\n"); list.code != 0 || got != 5 {
		t.Errorf("list --tag t1 --run ^s0: exit %d, %d lines, want 5:\n%s", list.code, got, list.stdout)
	}
}

// TestShardsMergeToTheWholeRun: the shards of a run, round robin or
// balanced by the whole run's durations (--balance-from), merge into the
// whole run's results; the suite has a parametrised scenario, whose
// expansions share their file and line.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 12)
	writeFiles(t, dir, map[string]string{"suite/v.yaml": `name: v
vars: {n: [1, 2, 3, 4]}
agent: {command: [acprun, mock-agent, ../agent.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: "fast {{.n}}"}]
`})
	whole := acprun(t, dir, "run", "suite", "-o", "whole.json")
	if whole.code != 0 {
		t.Fatalf("whole run: exit %d\n%s", whole.code, whole.stderr)
	}
	a := readResults(t, filepath.Join(dir, "whole.json"))
	for _, balance := range [][]string{nil, {"--balance-from", "whole.json"}} {
		var shardFiles []string
		for i := 1; i <= 3; i++ {
			f := fmt.Sprintf("shard%d.json", i)
			res := acprun(t, dir, append([]string{"run", "suite", "--shard", fmt.Sprintf("%d/3", i), "-o", f}, balance...)...)
			if res.code != 0 || strings.Contains(res.stderr, "warning") {
				t.Fatalf("shard %d %v: exit %d\n%s", i, balance, res.code, res.stderr)
			}
			shardFiles = append(shardFiles, f)
		}
		merged := acprun(t, dir, append([]string{"merge", "-o", "merged.json"}, shardFiles...)...)
		if merged.code != 0 {
			t.Fatalf("merge %v: exit %d\n%s", balance, merged.code, merged.stderr)
		}
		b := readResults(t, filepath.Join(dir, "merged.json"))
		if diff := cmp.Diff(scenarioNames(a), scenarioNames(b)); diff != "" {
			t.Errorf("%v: scenarios (-whole +merged):\n%s", balance, diff)
		}
		if diff := cmp.Diff(a.ByStopReason, b.ByStopReason); diff != "" {
			t.Errorf("%v: byStopReason (-whole +merged):\n%s", balance, diff)
		}
		// The counts of scenarios and turns; not durationMs, nor what the
		// batch does not exercise.
		counts := cmpopts.IgnoreFields(report.Summary{}, "Allowed", "Denied", "Warnings", "DurationMs", "PassRates")
		if diff := cmp.Diff(a.Summary, b.Summary, counts); diff != "" {
			t.Errorf("%v: summary (-whole +merged):\n%s", balance, diff)
		}
	}
}

// TestShardsOfAMatrixMergeInTheRunsOrder: the shards of an --agent matrix
// run, repeated, merge into the whole run's order: scenario by scenario,
// the agents in the order --agent gave them (not by name), then attempts.
func TestShardsOfAMatrixMergeInTheRunsOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":  "agents:\n  zed: {command: [acprun, mock-agent, ok.mock.yaml]}\n  alpha: {command: [acprun, mock-agent, ok.mock.yaml]}\n",
		"ok.mock.yaml": "default: {steps: [{text: ok}]}\n",
		"a.yaml":       "name: a\nagent: {command: [unused]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"b.yaml":       "name: b\nagent: {command: [unused]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	args := []string{"run", "a.yaml", "b.yaml", "--agent", "zed,alpha", "--repeat", "2", "-q"}
	if res := acprun(t, dir, append(args, "-o", "whole.json")...); res.code != exitOK {
		t.Fatalf("whole run: exit %d\n%s", res.code, res.stderr)
	}
	var shards []string
	for i := 1; i <= 2; i++ {
		f := fmt.Sprintf("shard%d.json", i)
		if res := acprun(t, dir, append(args, "--shard", fmt.Sprintf("%d/2", i), "-o", f)...); res.code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, res.code, res.stderr)
		}
		shards = append(shards, f)
	}
	if res := acprun(t, dir, append([]string{"merge", "-o", "merged.json"}, shards...)...); res.code != exitOK {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	order := func(r report.Results) []string {
		var out []string
		for _, sc := range r.Scenarios {
			out = append(out, fmt.Sprintf("%s/%s#%d", sc.Name, sc.Agent.Name, sc.Attempt))
		}
		return out
	}
	whole, merged := readResults(t, filepath.Join(dir, "whole.json")), readResults(t, filepath.Join(dir, "merged.json"))
	want := []string{"a/zed#1", "a/zed#2", "a/alpha#1", "a/alpha#2", "b/zed#1", "b/zed#2", "b/alpha#1", "b/alpha#2"}
	if diff := cmp.Diff(want, order(whole)); diff != "" {
		t.Errorf("the whole run's order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, order(merged)); diff != "" {
		t.Errorf("the merged order (-want +got):\n%s", diff)
	}
}

func TestRepeatRecordsAttempts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 2)
	res, out := runResults(t, dir, "suite", "--repeat", "3")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	var got []string
	for _, s := range out.Scenarios {
		got = append(got, fmt.Sprintf("%s#%d", s.Name, s.Attempt))
	}
	want := []string{"s00#1", "s00#2", "s00#3", "s01#1", "s01#2", "s01#3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

func TestAgentMatrixLabelsResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "agentInfo: {name: agent-a, version: '1'}\nturns:\n  - steps: [{text: from a}]\n",
		"b.mock.yaml": "agentInfo: {name: agent-b, version: '1'}\nturns:\n  - steps: [{text: from b}]\n    stopReason: refusal\n",
		"acprun.yaml": `agents:
  alpha: {command: [acprun, mock-agent, a.mock.yaml]}
  beta: {command: [acprun, mock-agent, b.mock.yaml]}
`,
		"s.yaml": `name: greet
agent: alpha
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	res, out := runResults(t, dir, "s.yaml", "--agent", "alpha", "--agent", "beta", "--transcripts", "tr")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (beta refuses)\n%s", res.code, res.stderr)
	}
	var got []string
	for _, s := range out.Scenarios {
		got = append(got, fmt.Sprintf("%s@%s=%s:%s %s", s.Name, s.Agent.Name, s.Agent.InfoName, s.Status, filepath.Base(s.Transcript)))
	}
	want := []string{"greet@alpha=agent-a:passed greet@alpha.jsonl", "greet@beta=agent-b:failed greet@beta.jsonl"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matrix results (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.stderr, "alpha") || !strings.Contains(res.stderr, "beta") {
		t.Errorf("summary lacks the agents side by side:\n%s", res.stderr)
	}
}

// TestAgentMatrixKeepsEachAgentsEnv checks that --agent runs a scenario
// against another agent without the env of the agent it names (that
// agent's credentials), with the variables the scenario gives itself.
func TestAgentMatrixKeepsEachAgentsEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"env.mock.yaml": "turns:\n  - steps: [{spawn: 'printf \"%s|%s\" \"${ALPHA_KEY-unset}\" \"${MINE-unset}\" > seen-$AGENT_NAME'}, {text: ok}]\n",
		"acprun.yaml": `agents:
  alpha: {command: [acprun, mock-agent, env.mock.yaml], env: {ALPHA_KEY: alpha-secret, AGENT_NAME: alpha}}
  beta: {command: [acprun, mock-agent, env.mock.yaml], env: {AGENT_NAME: beta}}
`,
		"s.yaml": `name: env
agent: {name: alpha, env: {MINE: mine}}
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	if res := acprun(t, dir, "run", "s.yaml", "--agent", "alpha", "--agent", "beta"); res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	for agent, want := range map[string]string{"alpha": "alpha-secret|mine", "beta": "unset|mine"} {
		got, err := os.ReadFile(filepath.Join(dir, "seen-"+agent))
		if err != nil || string(got) != want {
			t.Errorf("%s saw %q (%v), want %q", agent, got, err, want)
		}
	}
}

func TestShardFromJobCompletionIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batchFiles(t, dir, 6)
	flag := acprun(t, dir, "list", "suite", "--shard", "2/3")
	env := acprunEnv(t, dir, []string{"JOB_COMPLETION_INDEX=1"}, "list", "suite", "--shards", "3")
	if env.code != 0 {
		t.Fatalf("list with JOB_COMPLETION_INDEX: exit %d\n%s", env.code, env.stderr)
	}
	if flag.code != 0 || flag.stdout == "" || flag.stdout != env.stdout {
		t.Errorf("--shard 2/3 listed\n%s\nJOB_COMPLETION_INDEX=1 --shards 3 listed\n%s", flag.stdout, env.stdout)
	}
	bad := acprun(t, dir, "list", "suite", "--shard", "4/3")
	if bad.code != 2 || !strings.Contains(bad.stderr, "1 ≤ I ≤ N") {
		t.Errorf("--shard 4/3: exit %d, stderr %q; want 2 with a hint", bad.code, bad.stderr)
	}
}

func TestDryRunStartsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: plan
agent: {command: [/nonexistent/agent, --flag], env: {TOKEN: "${DRY_TOKEN:-hidden-value}"}}
turnTimeout: 3m
permissions:
  allow: [{kind: edit, path: "src/**"}]
  deny: [{command: "rm *"}]
turns:
  - prompt: hello
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "--dry-run", "--idle-timeout", "20s")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"/nonexistent/agent --flag", "cwd:      " + dir, "turn 3m0s", "idle 20s", "deny  s.yaml:6", "allow s.yaml:5", "TOKEN (values hidden)"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("plan lacks %q:\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout, "hidden-value") {
		t.Errorf("plan shows an env value:\n%s", res.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "acprun-results.json")); err == nil {
		t.Errorf("a dry run wrote results")
	}
}
