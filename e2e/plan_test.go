package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/runner"
)

// TestDryRunShowsResolvedLimits: --dry-run prints each limit as the run
// applies it: the flags beat every turn's and scenario's timeout, a turn's
// own beats the scenario's, the config's defaults fill in what a scenario
// leaves out, and the built-in defaults the rest.
func TestDryRunShowsResolvedLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "defaults:\n  cancelGrace: 4s\n  idleTimeout: 8s\n",
		"s.yaml": `name: limits
agent: {command: [/nonexistent/agent]}
timeout: 1m
turnTimeout: 30s
killGrace: 2s
permissions: {default: deny}
turns:
  - prompt: own
    timeout: 9s
  - prompt: inherited
---
name: defaults
agent: {command: [/nonexistent/agent]}
idleTimeout: 3s
permissions: {default: deny}
turns:
  - prompt: only
`,
	})
	limits := func(stdout string) []string {
		var out []string
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(l, "  timeouts:") || strings.HasPrefix(l, "  turn ") {
				out = append(out, l)
			}
		}
		return out
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"as written", nil, []string{
			"  timeouts: scenario 1m0s, turn 30s, idle 8s, cancelGrace 4s, killGrace 2s",
			`  turn 1:   "own" (timeout 9s, expect end_turn)`,
			`  turn 2:   "inherited" (timeout 30s, expect end_turn)`,
			"  timeouts: scenario none, turn 10m0s, idle 3s, cancelGrace 4s, killGrace 5s",
			`  turn 1:   "only" (timeout 10m0s, expect end_turn)`,
		}},
		{"overridden", []string{"--turn-timeout", "2h", "--idle-timeout", "20s"}, []string{
			"  timeouts: scenario 1m0s, turn 2h0m0s, idle 20s, cancelGrace 4s, killGrace 2s",
			`  turn 1:   "own" (timeout 2h0m0s, expect end_turn)`,
			`  turn 2:   "inherited" (timeout 2h0m0s, expect end_turn)`,
			"  timeouts: scenario none, turn 2h0m0s, idle 20s, cancelGrace 4s, killGrace 5s",
			`  turn 1:   "only" (timeout 2h0m0s, expect end_turn)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := acprun(t, dir, append([]string{"run", "s.yaml", "--dry-run"}, tt.args...)...)
			if res.code != exitOK {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			if diff := cmp.Diff(tt.want, limits(res.stdout)); diff != "" {
				t.Errorf("limits in the plan (-want +got):\n%s\n%s", diff, res.stdout)
			}
		})
	}
}

// TestDryRunShowsBudgetAndSandbox: --dry-run prints the scenario's budget,
// each turn's, the judges (in the sandbox), and the sandbox with its
// defaults as the run would plan it (the hidden paths that exist, and
// those of the scenario's that do not, marked),
// starting nothing and asking nothing of this host's sandboxing (a plan of
// a required sandbox succeeds where the host could not enforce it).
func TestDryRunShowsBudgetAndSandbox(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `name: contained
agent: {command: [/nonexistent/agent]}
budget: {maxCost: 2.5, maxTotalTokens: 200000}
sandbox: {write: [~/cache], hide: [secrets], network: off}
permissions: {default: deny}
turns:
  - prompt: free
    expect: {judge: {agent: {command: [/nonexistent/turn-judge]}, rubric: r, timeout: 1m}}
  - prompt: bounded
    budget: {maxCost: 0.5}
expect: {judge: {agent: {command: [/nonexistent/judge, --acp]}, rubric: r}}
`,
	})
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".ssh/id_rsa": "k", ".netrc": "n"})
	res := acprunEnv(t, dir, []string{"HOME=" + home, runner.EnvTestNoPasswd + "=1"}, "run", "s.yaml", "--dry-run")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	var got []string
	for _, l := range strings.Split(res.stdout, "\n") {
		for _, p := range []string{"  budget:", "  sandbox:", "    write ", "    hide ", "  turn ", "  judge:"} {
			if strings.HasPrefix(l, p) {
				got = append(got, l)
			}
		}
	}
	want := []string{
		"  budget:   maxCost 2.5 USD, maxTotalTokens 200000 (for the whole scenario; the turn that passes it is cancelled)",
		"  sandbox:  level required, network off (whether this host can enforce it is checked when the scenario starts)",
		"    write " + dir + ", " + home + "/cache",
		"    hide  " + home + "/.ssh, " + home + "/.netrc, " + filepath.Join(dir, "secrets") + " (does not exist: nothing is hidden there)",
		`  turn 1:   "free" (timeout 10m0s, expect end_turn)`,
		`  turn 2:   "bounded" (timeout 10m0s, expect end_turn, budget maxCost 0.5 USD)`,
		"  judge:    /nonexistent/turn-judge (after turn 1, timeout 1m0s; in the sandbox, the workspace read-only)",
		"  judge:    /nonexistent/judge --acp (after the last turn, timeout 5m0s; in the sandbox, the workspace read-only)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("budget and sandbox in the plan (-want +got):\n%s\n%s", diff, res.stdout)
	}
}

// TestDryRunQuotesCommands: --dry-run shows the agent's and a judge's argv
// shell-quoted (a blank, a ; or an empty word shows as it is), and escapes
// the control characters of every argv, setup command and rule pattern,
// so that a line break or an escape sequence in one (from the file, a
// variable or a vars value) neither starts a line nor reaches the terminal.
func TestDryRunQuotesCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"q.yaml": `name: q
agent: {command: ["./my agent", "--system-prompt", "be brief; rm -rf x", "", "a\nb\e[2J"], model: "o\e[2J", mode: "m\nx"}
permissions: {allow: [{kind: read, path: "a\tb"}]}
setup: ["echo 'two words'  'x\ny'"]
turns: [{prompt: hi}]
expect: {judge: {agent: {command: [judge, "it's"]}, rubric: r}}
`})
	res := acprun(t, dir, "run", "--dry-run", "q.yaml")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		`  agent:    './my agent' --system-prompt 'be brief; rm -rf x' '' 'a\x0ab\x1b[2J'` + "\n",
		`  setup:    echo 'two words'  'x\x0ay' (timeout 10m0s)` + "\n",
		`    allow q.yaml:3 kind=read path="a\tb"` + "\n",
		`  judge:    judge 'it'\''s' (after the last turn, timeout 5m0s)` + "\n",
		`  auth:     -  mode: m\x0ax` + "\n",
		`  session:  model o\x1b[2J (`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the plan lacks %q:\n%s", want, res.stdout)
		}
	}
	if strings.ContainsAny(res.stdout, "\x1b\t") {
		t.Errorf("the plan holds a raw escape or tab:\n%q", res.stdout)
	}
}

// TestDryRunRootsStartWithTheCwd: --dry-run shows the roots the run
// serves the agent in: its cwd, always, then client.roots.
func TestDryRunRootsStartWithTheCwd(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"other/.keep": "",
		"s.yaml": `name: roots
agent: {command: [/nonexistent/agent]}
client: {roots: [./other]}
permissions: {default: deny}
turns:
  - prompt: hi
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "--dry-run")
	want := "roots=" + dir + "," + filepath.Join(dir, "other")
	if res.code != 0 || !strings.Contains(res.stdout, want) {
		t.Errorf("run --dry-run: exit %d; want 0 and %q in:\n%s%s", res.code, want, res.stdout, res.stderr)
	}
}
