package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnsetVariableStopsOnlyTheScenariosThatUseIt checks that a ${VAR}
// that is unset stops list, run and --dry-run only when they select a
// scenario that uses it: a CI job with one provider's key runs the
// scenarios that need only that one. validate warns about it, and
// validate --strict, which checks what a run needs, fails on it.
func TestUnsetVariableStopsOnlyTheScenariosThatUseIt(t *testing.T) {
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

		{[]string{"validate", "--strict", "suite"}, 2, problem, -1},
		{[]string{"list", "suite"}, 2, problem, -1},
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

// acprunUnset is acprun with the variable name removed from the
// environment.
func acprunUnset(t *testing.T, dir, name string, args ...string) result {
	t.Helper()
	t.Setenv(name, "")
	os.Unsetenv(name) // t.Setenv restores the old state at the end
	return acprun(t, dir, args...)
}
