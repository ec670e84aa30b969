package e2e_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyAgentValues: an empty agent model, mode, auth or cwd (with no
// named agent's value to drop) is an error at the value, and so is an
// empty --model, --mode or --auth (exit 2), where each used to act as if
// it were left out.
func TestEmptyAgentValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"ok.yaml":     "name: ok\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"em.yaml": `name: em
agent: {command: [acprun, mock-agent, s.mock.yaml], model: "", mode: "", auth: "", cwd: "${EMPTY_HERE:-}"}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	res := acprun(t, dir, "validate", "em.yaml")
	for _, w := range []string{
		`em.yaml:2:60: model is empty: give the id of a model the agent offers, or leave model out for the agent's default`,
		`em.yaml:2:70: mode is empty: give the id of a session mode the agent offers`,
		`em.yaml:2:80: auth is empty: give the id of an auth method the agent offers, or leave auth out to skip authenticate`,
		`em.yaml:2:89: cwd is empty (is the variable that gives it unset?): give a directory, or leave cwd out for the scenario file's directory`,
	} {
		if res.code != 2 || !strings.Contains(res.stderr, w) {
			t.Errorf("validate: exit %d, want 2 and %q:\n%s", res.code, w, res.stderr)
		}
	}
	for _, flag := range []string{"--model", "--mode", "--auth"} {
		res := acprun(t, dir, "run", "ok.yaml", flag, "")
		if want := "acprun: " + flag + ` "": the `; res.code != 2 || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "is empty (is the variable that gives it unset?)") {
			t.Errorf("run %s '': exit %d, want 2 and %q:\n%s", flag, res.code, want, res.stderr)
		}
	}
}

// TestBlankPrompt: a prompt of only white space is an error at its
// value (exit 2, nothing runs), as an empty one and a blank prompt file
// are, where it used to be sent.
func TestBlankPrompt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"p.yaml":      "name: p\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: \"   \"}]\n",
	})
	want := "p.yaml:4:18: prompt is only white space: give the text to send"
	for _, cmd := range []string{"validate", "run"} {
		res := acprun(t, dir, cmd, "p.yaml")
		if res.code != 2 || !strings.Contains(res.stderr, want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s%s", cmd, res.code, want, res.stdout, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "acprun-results.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("acprun-results.json: %v; want nothing run", err)
	}
}

// TestEmptySelectors: --run and --tag given an empty value (--run "$ONLY"
// with ONLY unset), in either form, make run and list exit 2 before
// anything runs or is listed, where an empty --run used to select every
// scenario.
func TestEmptySelectors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"ok.yaml":     "name: ok\ntags: [smoke]\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--run", ""}, `acprun: --run "": the pattern is empty (is the variable that gives it unset?): give a regular expression (RE2) such as ^smoke, or leave the flag out`},
		{[]string{"--run="}, `acprun: --run "": the pattern is empty`},
		{[]string{"--tag", ""}, `acprun: --tag "": the tag is empty (is the variable that gives it unset?): give a tag, or leave the flag out`},
		{[]string{"--tag="}, `acprun: --tag "": the tag is empty`},
	} {
		for _, cmd := range []string{"run", "list"} {
			args := []string{cmd, "ok.yaml"}
			if cmd == "run" {
				args = append(args, "-o", "run.json")
			}
			args = append(args, tc.args...)
			res := acprun(t, dir, args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) || res.stdout != "" {
				t.Errorf("%q: exit %d, stdout %q, want 2, nothing and %q:\n%s", args, res.code, res.stdout, tc.want, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("run.json: %v; want no results written", err)
	}
}

// TestListKeyNotEmpty: a mapping whose only key is a list (vars, a files
// map, toolCalls.count, text, a mock script's step) is one error, at the
// key, where each was also said to be empty.
func TestListKeyNotEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{[a]: hi}]\n",
		"v.yaml":      "name: v\nvars: {[a]: 1}\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\nturns: [{prompt: hi}]\n",
		"e.yaml": `name: e
agent: {command: [acprun, mock-agent, s.mock.yaml]}
turns:
  - prompt: hi
    expect: {files: {contains: {[a]: x}}, toolCalls: {count: {[a]: 1}}, text: {[a]: x}}
`,
	})
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"v.yaml", []string{"v.yaml:2:8: expected a key name, got a list"}},
		{"e.yaml", []string{
			"e.yaml:2:39: mock script s.mock.yaml does not parse: s.mock.yaml:2:14: steps step: want a string key, got a list",
			"e.yaml:5:33: expected a key name, got a list",
			"e.yaml:5:63: expected a key name, got a list",
			"e.yaml:5:80: expected a key name, got a list",
		}},
	} {
		res := acprun(t, dir, "validate", tc.file)
		var got []string
		for _, l := range strings.Split(res.stderr, "\n") {
			if strings.HasPrefix(l, tc.file+":") {
				got = append(got, l)
			}
		}
		if res.code != 2 || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("validate %s: exit %d, want 2 and only the keys' errors\n%s\nwant:\n%s", tc.file, res.code, res.stderr, strings.Join(tc.want, "\n"))
		}
	}
}

// TestEmptyChoiceFlags: --format, --gateway and --fail-fast= given an
// empty value (--format "$FMT" with FMT unset) exit 2 before anything
// runs, saying the value is empty and what to give, as the other empty
// flags do, where kong's error said only which values it wants.
func TestEmptyChoiceFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"ok.yaml":     "name: ok\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	for flag, want := range map[string]string{
		"--format=":    `acprun: --format "": the value is empty (is the variable that gives it unset?): give one of lines, dots or quiet, or leave the flag out`,
		"--gateway=":   `acprun: --gateway "": the value is empty (is the variable that gives it unset?): give a mode (record, replay or meter), or leave the flag out`,
		"--fail-fast=": `acprun: --fail-fast=: the value is empty (is the variable that gives it unset?): give finish or cancel`,
	} {
		res := acprun(t, dir, "run", "ok.yaml", "-o", "run.json", flag)
		if res.code != 2 || !strings.HasPrefix(res.stderr, want) {
			t.Errorf("run %s: exit %d, want 2 and %q:\n%s", flag, res.code, want, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("run.json: %v; want nothing run", err)
	}
}
