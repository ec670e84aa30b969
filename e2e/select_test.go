package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestUnsetVariableStopsOnlyTheScenariosThatUseIt checks that a ${VAR}
// that is unset stops run and --dry-run only when they select a scenario
// that uses it: a CI job with one provider's key runs the scenarios that
// need only that one. validate, and list when it lists such a scenario,
// warn about it, and validate --strict, which checks what a run needs,
// fails on it.
func TestUnsetVariableStopsOnlyTheScenariosThatUseIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const b = "name: b\ntags: [b]\n" +
		"agent: {command: [acprun, mock-agent, ../agent.mock.yaml], env: {KEY: \"${ACPRUN_E2E_UNSET_KEY}\"}}\n" +
		"permissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"suite/a.yaml": "name: a\ntags: [a]\nagent: {command: [acprun, mock-agent, ../agent.mock.yaml]}\n" +
			"permissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"suite/b.yaml": b,
	})
	pos := lineCol(filepath.Join("suite", "b.yaml"), b, strings.Index(b, "${"))
	problem := pos + ": environment variable ACPRUN_E2E_UNSET_KEY is not set (write ${ACPRUN_E2E_UNSET_KEY:-default} to give a default)"
	for _, tt := range []struct {
		args    []string
		code    int
		stderr  string // a line stderr must hold; "" for none about the variable
		results int    // scenarios in out.json; -1 when none may be written
	}{
		{[]string{"list", "suite", "--tag", "a"}, 0, "", -1},
		{[]string{"run", "suite", "--tag", "a", "--dry-run"}, 0, "", -1},
		{[]string{"run", "suite", "--tag", "a", "-o", "out.json"}, 0, "", 1},
		{[]string{"run", "suite", "--shard", "1/2", "-o", "out.json"}, 0, "", 1},
		{[]string{"run", "suite/a.yaml", "suite/b.yaml", "--run", "^a$", "-o", "out.json"}, 0, "", 1},
		{[]string{"validate", "suite"}, 0, strings.Replace(problem, ": ", ": warning: ", 1) + `; scenario "b" needs it to run`, -1},
		{[]string{"list", "suite"}, 0, strings.Replace(problem, ": ", ": warning: ", 1) + `; scenario "b" needs it to run`, -1},

		{[]string{"validate", "--strict", "suite"}, 2, problem, -1},
		{[]string{"run", "suite", "--tag", "b", "--dry-run"}, 2, problem, -1},
		{[]string{"run", "suite", "-o", "out.json"}, 2, problem, -1},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			os.Remove(filepath.Join(dir, "out.json"))
			res := acprunUnset(t, dir, "ACPRUN_E2E_UNSET_KEY", tt.args...)
			if res.code != tt.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, tt.code, res.stderr)
			}
			if tt.stderr == "" && strings.Contains(res.stderr, "ACPRUN_E2E_UNSET_KEY") {
				t.Errorf("stderr speaks of the variable of a scenario not selected:\n%s", res.stderr)
			}
			if tt.stderr != "" && !strings.Contains(res.stderr+"\n", tt.stderr+"\n") {
				t.Errorf("stderr does not hold the line %q:\n%s", tt.stderr, res.stderr)
			}
			_, err := os.Stat(filepath.Join(dir, "out.json"))
			switch {
			case tt.results < 0 && err == nil:
				t.Errorf("results were written")
			case tt.results >= 0:
				if got := len(readResults(t, filepath.Join(dir, "out.json")).Scenarios); got != tt.results {
					t.Errorf("%d scenarios in the results, want %d", got, tt.results)
				}
			}
		})
	}
}

// TestUnsetVariableOfADefaultStopsOnlyTheScenariosThatUseIt: a ${VAR}
// that is unset in one of the config's defaults (client roots, a
// workspace, a gateway's upstream) is what it is in a scenario's own
// value: no command stops on it but run and --dry-run that select a
// scenario that uses the default, at its place in acprun.yaml; validate
// and list warn, naming that scenario. A scenario whose own key replaces
// the default (client: {roots}) does not need it.
func TestUnsetVariableOfADefaultStopsOnlyTheScenariosThatUseIt(t *testing.T) {
	t.Parallel()
	const agent = "agent: {command: [acprun, mock-agent, ../agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	for _, def := range []string{
		"client: {roots: [\"${ACPRUN_E2E_UNSET_KEY}\"]}",
		"workspace: {from: \"${ACPRUN_E2E_UNSET_KEY}\"}",
		"gateway: {mode: meter, env: ACPRUN_E2E_BASE_URL, upstream: \"${ACPRUN_E2E_UNSET_KEY}\"}",
	} {
		t.Run(def, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := "defaults:\n  " + def + "\n"
			writeFiles(t, dir, map[string]string{
				"acprun.yaml":     cfg,
				"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
				"suite/a.yaml":    "name: a\ntags: [a]\nclient: {roots: [.]}\nworkspace: null\ngateway: null\n" + agent,
				"suite/b.yaml":    "name: b\ntags: [b]\n" + agent,
			})
			problem := lineCol("acprun.yaml", cfg, strings.Index(cfg, "${")) +
				": environment variable ACPRUN_E2E_UNSET_KEY is not set (write ${ACPRUN_E2E_UNSET_KEY:-default} to give a default)"
			warning := strings.Replace(problem, ": ", ": warning: ", 1) + `; scenario "b" needs it to run`
			for _, tt := range []struct {
				args    []string
				code    int
				stderr  string // a line stderr must hold; "" for none about the variable
				results int    // scenarios in out.json; -1 when none may be written
			}{
				{[]string{"agents"}, 0, "", -1},
				{[]string{"validate", "suite/a.yaml"}, 0, "", -1},
				{[]string{"list", "suite", "--tag", "a"}, 0, "", -1},
				{[]string{"run", "suite", "--tag", "a", "--dry-run"}, 0, "", -1},
				{[]string{"run", "suite", "--tag", "a", "-o", "out.json"}, 0, "", 1},
				{[]string{"validate", "suite"}, 0, warning, -1},
				{[]string{"list", "suite"}, 0, warning, -1},

				{[]string{"validate", "--strict", "suite"}, 2, problem, -1},
				{[]string{"run", "suite", "--tag", "b", "--dry-run"}, 2, problem, -1},
				{[]string{"run", "suite", "-o", "out.json"}, 2, problem, -1},
			} {
				os.Remove(filepath.Join(dir, "out.json"))
				res := acprunUnset(t, dir, "ACPRUN_E2E_UNSET_KEY", tt.args...)
				args := strings.Join(tt.args, " ")
				if res.code != tt.code {
					t.Errorf("%s: exit %d, want %d\nstderr:\n%s", args, res.code, tt.code, res.stderr)
				}
				if tt.stderr == "" && strings.Contains(res.stderr, "ACPRUN_E2E_UNSET_KEY") {
					t.Errorf("%s: stderr speaks of the variable of a scenario not selected:\n%s", args, res.stderr)
				}
				if tt.stderr != "" && !strings.Contains(res.stderr+"\n", tt.stderr+"\n") {
					t.Errorf("%s: stderr does not hold the line %q:\n%s", args, tt.stderr, res.stderr)
				}
				_, err := os.Stat(filepath.Join(dir, "out.json"))
				switch {
				case tt.results < 0 && err == nil:
					t.Errorf("%s: results were written", args)
				case tt.results >= 0:
					if got := len(readResults(t, filepath.Join(dir, "out.json")).Scenarios); got != tt.results {
						t.Errorf("%s: %d scenarios in the results, want %d", args, got, tt.results)
					}
				}
			}
		})
	}
}

// acprunUnset is acprun with the variable name removed from the
// environment.
func acprunUnset(t *testing.T, dir, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(acprunFor(t), args...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"),
		func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	res, _ := runCommand(t, cmd)
	return res
}

// TestUnsetVariableOfAgentFlag: a ${VAR} that is unset in a config agent
// that --agent names is what it is in an agent a scenario names: a warning
// of list (text and --json), which lists the matrix, and an error of run
// and --dry-run only when they would start that agent. The agent a
// scenario names that --agent replaces (config's, or its command) never
// starts: its unset variable is no error of run or --dry-run, nor a
// warning of list, and it is validate's warning.
func TestUnsetVariableOfAgentFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const cfg = "agents:\n  m1: {command: [acprun, mock-agent, agent.mock.yaml]}\n" +
		"  m2: {command: [acprun, mock-agent, agent.mock.yaml], env: {K: \"${ACPRUN_E2E_UNSET_KEY}\"}}\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"acprun.yaml":     cfg,
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"s2.yaml":         "name: s2\nagent: m2\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"s3.yaml":         "name: s3\nagent: {command: [acprun, mock-agent, \"${ACPRUN_E2E_UNSET_KEY}agent.mock.yaml\"]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	problem := lineCol("acprun.yaml", cfg, strings.Index(cfg, "${")) +
		": environment variable ACPRUN_E2E_UNSET_KEY is not set (write ${ACPRUN_E2E_UNSET_KEY:-default} to give a default)"
	warning := strings.Replace(problem, ": ", ": warning: ", 1) + `; scenario "s" needs it to run`
	for _, tt := range []struct {
		args    []string
		code    int
		stdout  string // what stdout must hold
		stderr  string // a line stderr must hold; "" for none about the variable
		results int    // scenarios in out.json; -1 when none may be written
	}{
		{[]string{"list", "s.yaml", "--agent", "m2"}, 0, "s.yaml:1\ts\t@m2\n", warning, -1},
		{[]string{"list", "--json", "s.yaml", "--agent", "m1", "--agent", "m2"}, 0, `"agent": "m2"`, warning, -1},
		{[]string{"run", "s.yaml", "--agent", "m1", "-o", "out.json"}, 0, "", "", 1},

		{[]string{"run", "s2.yaml", "s3.yaml", "--agent", "m1", "-o", "out.json"}, 0, "", "", 2},
		{[]string{"run", "s2.yaml", "s3.yaml", "--agent", "m1", "--dry-run"}, 0, "s3  (s3.yaml:1)\n  agent:    acprun mock-agent agent.mock.yaml [m1]\n", "", -1},
		{[]string{"list", "s2.yaml", "s3.yaml", "--agent", "m1"}, 0, "s3.yaml:1\ts3\t@m1\n", "", -1},
		{[]string{"validate", "s2.yaml"}, 0, "", strings.Replace(warning, `"s"`, `"s2"`, 1), -1},

		{[]string{"run", "s.yaml", "--agent", "m2", "--dry-run"}, 2, "", problem, -1},
		{[]string{"run", "s.yaml", "--agent", "m1", "--agent", "m2", "-o", "out.json"}, 2, "", problem, -1},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			os.Remove(filepath.Join(dir, "out.json"))
			res := acprunUnset(t, dir, "ACPRUN_E2E_UNSET_KEY", tt.args...)
			if res.code != tt.code || !strings.Contains(res.stdout, tt.stdout) {
				t.Errorf("exit %d, want %d; stdout %q, want it to hold %q\nstderr:\n%s", res.code, tt.code, res.stdout, tt.stdout, res.stderr)
			}
			if tt.stderr == "" && strings.Contains(res.stderr, "ACPRUN_E2E_UNSET_KEY") {
				t.Errorf("stderr speaks of the variable of an agent not selected:\n%s", res.stderr)
			}
			if tt.stderr != "" && !strings.Contains(res.stderr+"\n", tt.stderr+"\n") {
				t.Errorf("stderr does not hold the line %q:\n%s", tt.stderr, res.stderr)
			}
			_, err := os.Stat(filepath.Join(dir, "out.json"))
			switch {
			case tt.results < 0 && err == nil:
				t.Errorf("results were written")
			case tt.results >= 0:
				if got := len(readResults(t, filepath.Join(dir, "out.json")).Scenarios); got != tt.results {
					t.Errorf("%d scenarios in the results, want %d", got, tt.results)
				}
			}
		})
	}
}

// TestEmptySelectionFlagsAreUsageErrors: a selection flag given an empty
// value (--shard "$SHARD" with the variable unset) is a usage error before
// anything runs, as an empty path is, instead of selecting every scenario:
// each shard of a CI job would run the whole suite.
func TestEmptySelectionFlagsAreUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run", "s.yaml", "--shard", ""}, `acprun: --shard "": the shard is empty (is the variable that gives it unset?): give one such as 2/4, or leave the flag out`},
		{[]string{"run", "s.yaml", "--shard=", "--dry-run"}, `acprun: --shard "": the shard is empty`},
		{[]string{"run", "s.yaml", "--tag", ""}, `acprun: --tag "": the tag is empty (is the variable that gives it unset?): give a tag, or leave the flag out`},
		{[]string{"run", "s.yaml", "--agent", ""}, `acprun: --agent "": the name is empty (is the variable that gives it unset?): give a name, or leave the flag out`},
		{[]string{"run", "--agent", "", "--prompt", "hi"}, `acprun: --agent "": the name is empty`},
		{[]string{"list", "s.yaml", "--shard", ""}, `acprun: --shard "": the shard is empty`},
		{[]string{"list", "s.yaml", "--tag="}, `acprun: --tag "": the tag is empty`},
		{[]string{"list", "s.yaml", "--agent", ""}, `acprun: --agent "": the name is empty`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
			res := acprun(t, dir, tt.args...)
			if res.code != exitUsage || !strings.Contains(res.stderr, tt.stderr) || res.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout and %q", res.code, res.stdout, res.stderr, tt.stderr)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{"s.yaml"}) {
				t.Errorf("the directory holds %q after the command; want nothing run or written", got)
			}
		})
	}
}

// twoTaggedScenarios are two scenarios of the mock agent (agent.mock.yaml,
// mockScript), tagged smoke and nightly.
const twoTaggedScenarios = `name: smoke-one
tags: [smoke]
permissions: {default: deny}
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: hi}]
---
name: nightly-one
tags: [nightly]
permissions: {default: deny}
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
turns: [{prompt: hi}]
`

// TestSelectionFlagsThatWouldSelectLess: a --tag or --agent value with a
// word no tag or agent name could equal (white space, an empty word
// between commas), --tag "," (as "$A,$B" gives it with both unset), and
// --run or --shard given twice, where only the last would count, are
// usage errors before anything runs, for run and list; they used to run
// less than was asked for, with exit 0.
func TestSelectionFlagsThatWouldSelectLess(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--tag", "smoke, nightly"}, `acprun: --tag "smoke, nightly": tag " nightly" holds a space: a tag is one word; separate tags with commas and no spaces, or repeat --tag`},
		{[]string{"--tag", ","}, `acprun: --tag ",": the tag is empty (is the variable that gives it unset?): give a tag, or leave the flag out`},
		{[]string{"--tag", ",", "--allow-empty"}, `acprun: --tag ",": the tag is empty`},
		{[]string{"--tag", "smoke,"}, `acprun: --tag "smoke,": a tag in it is empty (is a variable that gives it unset?)`},
		{[]string{"--tag", "smoke", "--tag", ""}, `acprun: --tag "": the tag is empty`},
		{[]string{"--agent", "m1, m2"}, `acprun: --agent "m1, m2": name " m2" holds a space: a name is one word; separate names with commas and no spaces, or repeat --agent`},
		{[]string{"--agent", "m1,"}, `acprun: --agent "m1,": a name in it is empty`},
		{[]string{"--run", "smoke", "--run", "nightly"}, `acprun: --run given 2 times: it takes one regular expression (RE2), and only the last would count; give it once, with | between the patterns to select several: --run 'smoke|nightly'`},
		{[]string{"--shard", "1/2", "--shard=2/2"}, `acprun: --shard given 2 times: it takes one shard such as 2/4, and only the last would count; give it once`},
	} {
		for _, cmd := range []string{"run", "list"} {
			args := append([]string{cmd, "s.yaml"}, tt.args...)
			if cmd == "run" {
				args = append(args, "-o", "r.json")
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{"s.yaml": twoTaggedScenarios, "agent.mock.yaml": mockScript})
				res := acprun(t, dir, args...)
				if res.code != exitUsage || !strings.Contains(res.stderr, tt.stderr) || res.stdout != "" {
					t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout and %q", res.code, res.stdout, res.stderr, tt.stderr)
				}
				if got := dirNames(t, dir); !slices.Equal(got, []string{"agent.mock.yaml", "s.yaml"}) {
					t.Errorf("the directory holds %q after the command; want nothing run or written", got)
				}
			})
		}
	}
}

// TestSelectionFlagsListAndRepeat: --tag and --agent take several words
// separated by commas, and repeat; --run takes several names with |;
// --timeout and --repeat given twice count the last, as a later flag
// overrides an earlier one.
func TestSelectionFlagsListAndRepeat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.mock.yaml")
	config := fmt.Sprintf("agents:\n  m: {command: [acprun, mock-agent, %q]}\n  n: {command: [acprun, mock-agent, %q]}\n", script, script)
	writeFiles(t, dir, map[string]string{"s.yaml": twoTaggedScenarios, "agent.mock.yaml": mockScript, "acprun.yaml": config})
	for _, tt := range []struct {
		args []string
		want []string // the results, name [agent] #attempt, in order
	}{
		{[]string{"--tag", "smoke,nightly"}, []string{"smoke-one [] #0", "nightly-one [] #0"}},
		{[]string{"--tag", "nightly", "--tag", "smoke"}, []string{"smoke-one [] #0", "nightly-one [] #0"}},
		{[]string{"--run", "smoke|nightly"}, []string{"smoke-one [] #0", "nightly-one [] #0"}},
		{[]string{"--run", "smoke", "--agent", "m,n"}, []string{"smoke-one [m] #0", "smoke-one [n] #0"}},
		{[]string{"--run", "smoke", "--agent", "n,m", "--agent", "m"}, []string{"smoke-one [n] #0", "smoke-one [m] #0"}},
		{[]string{"--run", "nightly", "--repeat", "3", "--repeat", "2", "--timeout", "1s", "--timeout", "1m"}, []string{"nightly-one [] #1", "nightly-one [] #2"}},
	} {
		args := append([]string{"run", "s.yaml", "-o", "r.json"}, tt.args...)
		res := acprun(t, dir, args...)
		if res.code != exitOK {
			t.Errorf("%q: exit %d, want 0\nstderr:\n%s", args, res.code, res.stderr)
			continue
		}
		var got []string
		for _, r := range readResults(t, filepath.Join(dir, "r.json")).Scenarios {
			got = append(got, fmt.Sprintf("%s [%s] #%d", r.Name, r.Agent.Name, r.Attempt))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: results %q, want %q", args, got, tt.want)
		}
	}
}

// TestSelectionUsageErrors checks that a glob that matches nothing is a
// usage error naming it, as a missing path is, and so is -j below 1: both
// before any agent starts.
func TestSelectionUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run", "sutie/*.yaml"}, "sutie/*.yaml: no file or directory matches the pattern: give a pattern that matches scenario files, or directories that hold some\n"},
		{[]string{"run", "s.yaml", "nope/**/*.yaml"}, "nope/**/*.yaml: no file or directory matches the pattern: give a pattern that matches scenario files, or directories that hold some\n"},
		{[]string{"list", "*.yml"}, "*.yml: no file or directory matches the pattern: give a pattern that matches scenario files, or directories that hold some\n"},
		{[]string{"validate", "*.yml"}, "*.yml: no file or directory matches the pattern: give a pattern that matches scenario files, or directories that hold some\n"},
		{[]string{"run", "nope.yaml"}, "nope.yaml: no such file or directory: give the path of a scenario file, or of a directory that holds some\n"},
		{[]string{"run", "{s,t}.yaml"}, "{s,t}.yaml: no such file or directory ({a,b} is the shell's, which acprun does not expand: give each path, or a glob of * ? [...] and **)"},
		{[]string{"list", "[s-.yaml"}, "[s-.yaml: bad pattern: malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal ["},
		{[]string{"run", "s.yaml", "-j", "0"}, `acprun: --jobs: "0": want how many scenarios run at once, 1 or more`},
		{[]string{"run", "s.yaml", "--jobs=-2"}, `acprun: --jobs: "-2": want how many scenarios run at once, 1 or more`},
		{[]string{"run", "s.yaml", "-j", "0", "--dry-run"}, `acprun: --jobs: "0"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "notes.txt": ""})
			res := acprun(t, dir, tt.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", res.code, res.stderr, tt.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Errorf("an agent started")
			}
		})
	}
	// A glob that matches only files that are no scenarios is an empty
	// selection, as a directory without any is: exit 5.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"notes.txt": ""})
	if res := acprun(t, dir, "run", "*.txt"); res.code != 5 {
		t.Errorf("run of a glob matching no scenario file: exit %d, want 5\n%s", res.code, res.stderr)
	}
}

// TestJobCompletionIndexWithoutShardsWarns checks that a run in a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX set) without --shards says
// that it runs the whole selection, and one with --shards (or --shard)
// shards and says nothing of it.
func TestJobCompletionIndexWithoutShardsWarns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.yaml": "name: a\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"b.yaml": "name: b\nagent: {command: [a]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	const warning = "acprun: warning: JOB_COMPLETION_INDEX=1 is set but --shards is not, so the index does not shard this run"
	for _, tt := range []struct {
		args  []string
		warns bool
		names []string // listed, for list --json
	}{
		{[]string{"list", "--json", "."}, true, []string{"a", "b"}},
		{[]string{"run", ".", "--dry-run"}, true, nil},
		{[]string{"list", "--json", ".", "--shards", "2"}, false, []string{"b"}},
		{[]string{"list", "--json", ".", "--shard", "1/2"}, false, []string{"a"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			res := acprunEnv(t, dir, []string{"JOB_COMPLETION_INDEX=1"}, tt.args...)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			if got := strings.Contains(res.stderr, warning); got != tt.warns {
				t.Errorf("warns: %v, want %v\nstderr:\n%s", got, tt.warns, res.stderr)
			}
			if tt.names == nil {
				return
			}
			var listed []struct{ Name string }
			if err := json.Unmarshal([]byte(res.stdout), &listed); err != nil {
				t.Fatalf("list --json: %v\n%s", err, res.stdout)
			}
			var names []string
			for _, l := range listed {
				names = append(names, l.Name)
			}
			if !slices.Equal(names, tt.names) {
				t.Errorf("listed %q, want %q", names, tt.names)
			}
		})
	}
}

// TestWalkRefusesWhatItCannotLoad: a directory walk names, and exits 2
// for, a scenario file it cannot load (a symbolic link leading nowhere or
// in a loop, a FIFO) rather than skip it: alone it is no "no scenario
// files" exit 5, and beside another scenario that one does not run alone.
func TestWalkRefusesWhatItCannotLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"suite/ok.yaml": ranScenario})
	for link, to := range map[string]string{"suite/nightly.yaml": "../moved-away.yaml", "suite/loop.yaml": "loop.yaml", "lone/nightly.yaml": "../moved-away.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "suite/fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	const nightly = "nightly.yaml: a symbolic link to ../moved-away.yaml, which does not exist\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "suite"}, "suite/fifo.yaml: not a regular file (a FIFO): give a file\n" +
			"suite/loop.yaml: a symbolic link to loop.yaml: too many levels of symbolic links\n" +
			"suite/" + nightly},
		{[]string{"run", "lone"}, "lone/" + nightly},
		{[]string{"run", "lone", "--allow-empty"}, "lone/" + nightly},
		{[]string{"list", "lone"}, "lone/" + nightly},
		{[]string{"validate", "lone"}, "lone/" + nightly},
	} {
		res := acprun(t, dir, tc.args...)
		if res.code != exitUsage || res.stderr != tc.want {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant %d and:\n%s", tc.args, res.code, res.stderr, exitUsage, tc.want)
		}
	}
	for _, ran := range []string{"ran", "suite/ran"} {
		if _, err := os.Stat(filepath.Join(dir, ran)); err == nil {
			t.Error("ok.yaml ran")
		}
	}
}

// TestAgentGivenTwiceRunsOnce: --agent naming an agent twice runs each
// scenario once against it, as a scenario file given twice is loaded
// once: one attempt, no pass@2 of a single agent, and --agent a --agent b
// --agent a is the matrix of a and b.
func TestAgentGivenTwiceRunsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.mock.yaml")
	config := fmt.Sprintf("agents:\n  m: {command: [acprun, mock-agent, %q]}\n  n: {command: [acprun, mock-agent, %q]}\n", script, script)
	writeFiles(t, dir, map[string]string{"s.yaml": mockScenario, "agent.mock.yaml": mockScript, "acprun.yaml": config})
	for _, tt := range []struct {
		agents []string
		want   []string // the results' agents, in order
	}{
		{[]string{"m", "m"}, []string{"m"}},
		{[]string{"m", "n", "m", "n"}, []string{"m", "n"}},
	} {
		args := []string{"run", "s.yaml", "-o", "r.json"}
		for _, a := range tt.agents {
			args = append(args, "--agent", a)
		}
		res := acprun(t, dir, args...)
		if res.code != exitOK {
			t.Errorf("--agent %v: exit %d, want 0\nstderr:\n%s", tt.agents, res.code, res.stderr)
			continue
		}
		var got []string
		for _, r := range readResults(t, filepath.Join(dir, "r.json")).Scenarios {
			got = append(got, r.Agent.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("--agent %v: results against %q, want %q", tt.agents, got, tt.want)
		}
		if n := strings.Count(res.stderr, "PASS s [m]"); n != 1 {
			t.Errorf("--agent %v: stderr has %d lines PASS s [m], want 1:\n%s", tt.agents, n, res.stderr)
		}
	}
}

// TestTagsTagCannotSelect: a tag --tag could never select (with a comma,
// where --tag splits its value, or empty) is an error of validate, at the
// tag, where it used to validate and then match nothing.
func TestTagsTagCannotSelect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tg.yaml": `name: tg
tags: ["smoke,nightly", ""]
agent: {command: [acprun, mock-agent, x.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
`})
	res := acprun(t, dir, "validate", "tg.yaml")
	for _, w := range []string{
		`tg.yaml:2:8: tag "smoke,nightly" has a comma, where --tag splits its value, so --tag could never select it: write one tag for each part, [smoke, nightly]`,
		`tg.yaml:2:25: tag is empty: --tag could never select it`,
	} {
		if res.code != 2 || !strings.Contains(res.stderr, w) {
			t.Errorf("validate: exit %d, want 2 and %q:\n%s", res.code, w, res.stderr)
		}
	}
}

// TestWalkFindsTheSuiteInsideItsWorkspace: a suite that lives in the
// repository its scenarios copy (workspace {from: ..} in a scenario, or
// {from: .} in the config's defaults) is walked as any other: its YAML
// files are its scenarios, not a fixture's files; a fixture directory's
// YAML beside them is still skipped.
func TestWalkFindsTheSuiteInsideItsWorkspace(t *testing.T) {
	t.Parallel()
	const (
		agent = "agent: {command: [acprun, mock-agent, hello.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
		mock  = "turns:\n  - steps: [{text: hello}]\n"
	)
	for name, files := range map[string]map[string]string{
		"scenario": {
			"evals/hello.mock.yaml": mock,
			"evals/fix.yaml":        "name: fix\nworkspace: {from: ..}\n" + agent,
			"evals/other.yaml":      "name: other\n" + agent,
		},
		"defaults": {
			"acprun.yaml":                   "defaults:\n  workspace: {from: .}\n",
			"evals/hello.mock.yaml":         mock,
			"evals/fix.yaml":                "name: fix\n" + agent,
			"evals/other.yaml":              "name: other\nworkspace: fixture\n" + agent,
			"evals/fixture/compose.yaml":    "services: {}\n",
			"evals/fixture/hello.mock.yaml": mock,
		},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		res := acprun(t, dir, "run", "evals", "-o", "r.json")
		if res.code != exitOK || !strings.Contains(res.stderr, "2 passed, 0 failed") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant both scenarios passed", name, res.code, res.stderr)
		}
	}
}
