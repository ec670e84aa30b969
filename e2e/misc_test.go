package e2e_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/google/go-cmp/cmp"
)

// miscListEntry is one element of acprun list --json, as a user's script
// reads it.
type miscListEntry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Column      int      `json:"column"`
	Agent       string   `json:"agent"`
	Tags        []string `json:"tags"`
	Turns       int      `json:"turns"`
}

// TestListJSONSelection: list --json prints the selection (after --tag
// and per --agent) as one JSON array with every key, and [] for an empty
// selection accepted by --allow-empty.
func TestListJSONSelection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  other: {command: [acprun, mock-agent, agent.mock.yaml]}\n  another: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
		"s.yaml": `name: first
description: The first one.
tags: [fast, net]
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
  - prompt: two
---
name: second
agent: {name: mock, args: [agent.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: one
`,
	})
	res := acprun(t, dir, "list", "--json", "s.yaml")
	if res.code != 0 {
		t.Fatalf("list --json: exit %d\n%s", res.code, res.stderr)
	}
	var got []miscListEntry
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("list --json stdout is not a JSON array: %v\n%s", err, res.stdout)
	}
	want := []miscListEntry{
		{Name: "first", Description: "The first one.", File: "s.yaml", Line: 1, Column: 1, Tags: []string{"fast", "net"}, Turns: 2},
		{Name: "second", File: "s.yaml", Line: 10, Column: 1, Agent: "mock", Tags: []string{}, Turns: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list --json (-want +got):\n%s", diff)
	}
	for _, key := range []string{`"agent": ""`, `"tags": []`, `"description": ""`} {
		if !strings.Contains(res.stdout, key) {
			t.Errorf("list --json: no %s in\n%s", key, res.stdout)
		}
	}

	res = acprun(t, dir, "list", "--json", "--tag", "fast", "--agent", "other", "--agent", "another", "s.yaml")
	got = nil
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || res.code != 0 {
		t.Fatalf("list --json --agent: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	var agents []string
	for _, e := range got {
		agents = append(agents, e.Name+"@"+e.Agent)
	}
	if diff := cmp.Diff([]string{"first@other", "first@another"}, agents); diff != "" {
		t.Errorf("list --json --tag fast --agent other --agent another (-want +got):\n%s", diff)
	}

	res = acprun(t, dir, "list", "--json", "--run", "^none$", "--allow-empty", "s.yaml")
	if res.code != 0 || res.stdout != "[]\n" {
		t.Errorf("list --json of an empty selection: exit %d, stdout %q; want 0 and []", res.code, res.stdout)
	}
}

// miscNoPermissions is the warning for a scenario without permissions.
const miscNoPermissions = "warning: no permissions: every permission request and terminal command will be denied"

// TestMiscNoPermissionsWarning: run warns about the scenarios without
// permissions that it will run, only those, once every flag has been
// checked, and not under --allow-all or --deny-all; validate warns about
// every one.
func TestMiscNoPermissionsWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	one := "agent: {command: [acprun, mock-agent, agent.mock.yaml]}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"acprun.yaml":     "agents:\n  x: {command: [acprun, mock-agent, agent.mock.yaml]}\n  y: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
		"s.yaml":          "name: a\n" + one + "---\nname: b\n" + one + "---\nname: c\npermissions: {default: deny}\n" + one,
	})
	warned := func(stderr string) []string {
		var at []string
		for _, line := range strings.Split(stderr, "\n") {
			if pos, ok := strings.CutSuffix(line, ": "+miscNoPermissions+" (add permissions to allow some)"); ok {
				at = append(at, pos)
			} else if strings.Contains(line, "no permissions") && !strings.HasPrefix(line, "    warning: ") { // the summary's copy of a result's warning
				t.Errorf("unexpected line %q", line)
			}
		}
		return at
	}
	tests := []struct {
		args []string
		code int
		want []string // where the warnings are
	}{
		{[]string{"run", "s.yaml", "-o", "out.json"}, 0, []string{"s.yaml:1:1", "s.yaml:5:1"}},
		{[]string{"run", "s.yaml", "--run", "^b$", "-o", "out.json"}, 0, []string{"s.yaml:5:1"}},
		{[]string{"run", "s.yaml", "--run", "^c$", "-o", "out.json"}, 0, nil},
		{[]string{"run", "s.yaml", "--run", "^b$", "--agent", "x", "--agent", "y", "--dry-run"}, 0, []string{"s.yaml:5:1"}},
		{[]string{"run", "s.yaml", "--allow-all", "-o", "out.json"}, 0, nil},
		{[]string{"run", "s.yaml", "--deny-all", "-o", "out.json"}, 0, nil},
		{[]string{"run", "s.yaml", "--deny-all", "--dry-run"}, 0, nil},
		// Flag errors, found before or after loading: no warning first.
		{[]string{"run", "s.yaml", "--shard", "3/2"}, 2, nil},
		{[]string{"run", "s.yaml", "--repeat", "0"}, 2, nil},
		{[]string{"run", "s.yaml", "--workspace-dir", "s.yaml/x"}, 2, nil},
		{[]string{"run", "s.yaml", "--prompt", "missing.txt"}, 2, nil},
		// Nothing runs: list says nothing, validate checks every scenario.
		{[]string{"list", "s.yaml"}, 0, nil},
		{[]string{"validate", "s.yaml"}, 0, []string{"s.yaml:1:1", "s.yaml:5:1"}},
	}
	for _, tt := range tests {
		res := acprun(t, dir, tt.args...)
		if res.code != tt.code {
			t.Errorf("acprun %s: exit %d, want %d\n%s", strings.Join(tt.args, " "), res.code, tt.code, res.stderr)
		}
		if diff := cmp.Diff(tt.want, warned(res.stderr)); diff != "" {
			t.Errorf("acprun %s: warnings at (-want +got):\n%s\nstderr:\n%s", strings.Join(tt.args, " "), diff, res.stderr)
		}
	}
}

// TestProbeNamedAgentWithArgs: `acprun probe mock SCRIPT` is refused
// with a suggestion that works: the suggested command, run, probes the
// mock agent.
func TestProbeNamedAgentWithArgs(t *testing.T) {
	t.Parallel()
	res := acprun(t, filepath.Join(root, "examples"), "probe", "mock", "agents/basic.mock.yaml")
	const prefix = "acprun probe -- "
	_, suggested, ok := strings.Cut(res.stderr, prefix)
	if res.code != 2 || !ok || !strings.Contains(res.stderr, `the named agent "mock" takes no arguments`) {
		t.Fatalf("probe mock SCRIPT: exit %d, stderr %q; want 2 and a suggestion", res.code, res.stderr)
	}
	args := strings.Fields(strings.TrimSpace(suggested))
	if want := []string{"acprun", "mock-agent", "agents/basic.mock.yaml"}; !cmp.Equal(want, args) {
		t.Errorf("suggested acprun probe -- %q, want %q", args, want)
	}
	res = acprun(t, filepath.Join(root, "examples"), append([]string{"probe", "--"}, args...)...)
	if res.code != 0 || !strings.Contains(res.stdout, "basic-mock") {
		t.Errorf("the suggestion %s%s: exit %d\nstdout:\n%s\nstderr:\n%s", prefix, suggested, res.code, res.stdout, res.stderr)
	}
}

// TestExamplesStops: every scripted turn of examples/stops.yaml plays as
// its comments say (none of prompts 1 to 4 hits a match: entry of the
// mock), and the JSON-RPC error's data is kept in the turn's errorData.
func TestExamplesStops(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out.json")
	res := acprun(t, filepath.Join(root, "examples"), "run", "stops.yaml", "-o", out)
	if res.code != 0 {
		t.Fatalf("run stops.yaml: exit %d\n%s", res.code, res.stderr)
	}
	turns := readResults(t, out).Scenarios[0].Turns
	type turn struct{ Stop, Text, Thoughts, Error, Data string }
	var got []turn
	for _, tr := range turns {
		var data bytes.Buffer
		if len(tr.ErrorData) > 0 {
			if err := json.Compact(&data, tr.ErrorData); err != nil {
				t.Errorf("turn %d: errorData %s: %v", tr.Index, tr.ErrorData, err)
			}
		}
		got = append(got, turn{tr.StopReason, tr.Text, tr.Thoughts, tr.Error, data.String()})
	}
	want := []turn{
		{Stop: "max_tokens", Text: "Here is the first part of a very long answer"},
		{Stop: "refusal", Text: "I won't do that: it is not something I may do.", Thoughts: "This request asks for something I must not do."},
		{Stop: "max_turn_requests", Text: "Still searching…"},
		{Stop: "error", Error: "session/prompt: Internal error: model overloaded (code -32603)", Data: `{"retryAfterMs":2000}`},
		{Stop: "end_turn", Text: "Done."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stops.yaml turns (-want +got):\n%s", diff)
	}
}

// TestMiscErrorWithoutMessage: a JSON-RPC error whose message is empty
// (or blank) says so in the turn's error, rather than leaving a gap.
func TestMiscErrorWithoutMessage(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{`""`, `"  "`} {
		res, out, _ := runOne(t, "turns:\n  - error: {code: -32603, message: "+msg+"}\n",
			"name: e\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: go\n    expect: {stopReason: error}\n")
		if res.code != 0 {
			t.Fatalf("message %s: exit %d\n%s", msg, res.code, res.stderr)
		}
		if got, want := out.Scenarios[0].Turns[0].Error, "session/prompt: no message (code -32603)"; got != want {
			t.Errorf("message %s: the turn's error is %q; want %q", msg, got, want)
		}
	}
}

// TestMiscErrorDataRedacted: the data of a JSON-RPC error is redacted
// like the rest of the results: an agent.env value never appears in it.
func TestMiscErrorDataRedacted(t *testing.T) {
	t.Parallel()
	script := `turns:
  - error: {code: -32000, message: "backend said no", data: {token: "s3cr3t-t0ken-value", nested: ["s3cr3t-t0ken-value"]}}
`
	sc := `name: e
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {API_TOKEN: s3cr3t-t0ken-value}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {stopReason: error}
`
	res, out, dir := runOne(t, script, sc)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	data := string(out.Scenarios[0].Turns[0].ErrorData)
	if !strings.Contains(data, `"token"`) || strings.Contains(data, "s3cr3t") {
		t.Errorf("errorData = %s, want the data with the agent.env value redacted", data)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "s3cr3t") {
		t.Errorf("the secret is in the results:\n%s", raw)
	}
}

// TestMiscScenarioTimeoutBoundsShutdown: a scenario's timeout bounds the
// agent's shutdown too. An agent that never initializes is sent
// $/cancel_request at the timeout and killed when cancelGrace has passed
// (no killGrace after it); one that answers its turn but then
// ignores the end of its input and SIGTERM is killed at the timeout even
// though killGrace is a minute, with a warning that says so. The bounds
// are generous: the scenario timeout plus margin, far below the graces;
// the timeout leaves a slow machine ample time for the turn itself.
func TestMiscScenarioTimeoutBoundsShutdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, agent, scenario string
		code                          int
		error, warning                string
	}{
		{
			name:     "never initializes",
			agent:    `[sh, -c, "trap '' TERM; exec sleep 3600"]`,
			scenario: "killGrace: 1m\ncancelGrace: 1s\n",
			code:     3, error: "initialize: not answered before the scenario's timeout passed; acprun sent $/cancel_request and the agent did not answer within cancelGrace (1s): it is hung or dead",
		},
		{
			name:     "ignores the end of its input",
			script:   "ignoreSigterm: true\nturns:\n  - steps: [{text: hi}]\n    after: [{hang: true}]\n",
			agent:    "[acprun, mock-agent, agent.mock.yaml]",
			scenario: "killGrace: 1m\n",
			code:     0, warning: "the agent had not exited by the scenario timeout (10s), after the end of its input; it was killed (SIGKILL)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := "name: s\nagent: {command: " + tt.agent + "}\ntimeout: 10s\n" + tt.scenario +
				"permissions: {default: deny}\nturns: [{prompt: hi}]\n"
			start := time.Now()
			res, out, _ := runOne(t, tt.script, sc)
			took := time.Since(start)
			if res.code != tt.code {
				t.Errorf("exit %d, want %d\n%s", res.code, tt.code, res.stderr)
			}
			r := out.Scenarios[0]
			if r.Error != tt.error {
				t.Errorf("error %q, want %q", r.Error, tt.error)
			}
			var warnings []string
			if tt.warning != "" {
				warnings = []string{tt.warning}
			}
			if diff := cmp.Diff(warnings, r.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			// killGrace (a minute) would take 10s+1m at least, twice that with SIGTERM.
			if took > 40*time.Second {
				t.Errorf("the run took %s: the scenario timeout (10s) did not bound the shutdown", took)
			}
		})
	}
}

// TestMiscRunDirConfigNotLoaded: `acprun run DIR` with an acprun.yaml in
// DIR that it does not load says so in the unknown agent's error, and the
// --config it suggests works; one scenario file named relatively and
// absolutely runs once.
func TestMiscRunDirConfigNotLoaded(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"tests/acprun.yaml":     "agents:\n  mine: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
		"tests/agent.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"tests/s.yaml":          "name: s\nagent: mine\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res := acprun(t, dir, "run", "tests", "-o", "out.json")
	const want = `tests/s.yaml:2:8: unknown agent "mine" (valid agents: claude, codex, gemini, goose, mock, opencode, qwen); ` +
		"tests/acprun.yaml was not loaded: acprun reads its config from acprun.yaml in the working directory, or from --config FILE; pass --config tests/acprun.yaml\n"
	if res.code != 2 || !strings.HasPrefix(res.stderr, want) {
		t.Fatalf("run tests: exit %d, stderr:\n%s\nwant 2 and:\n%s", res.code, res.stderr, want)
	}
	res, out := runResults(t, dir, "tests", "--config", "tests/acprun.yaml")
	if res.code != 0 || len(out.Scenarios) != 1 {
		t.Errorf("run tests --config tests/acprun.yaml: exit %d, %d results\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	res, out = runResults(t, dir, "tests/s.yaml", filepath.Join(dir, "tests", "s.yaml"), "./tests/", "--config", "tests/acprun.yaml")
	if res.code != 0 || len(out.Scenarios) != 1 {
		t.Errorf("run of one file by three paths: exit %d, %d results, want 0 and 1\n%s", res.code, len(out.Scenarios), res.stderr)
	}

	// The same for an --agent that only that config file defines.
	writeFiles(t, dir, map[string]string{
		"own/acprun.yaml": "agents:\n  mine: {command: [acprun, mock-agent, agent.mock.yaml]}\n",
		"own/s.yaml":      "name: own\nagent: {command: [sh]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res = acprun(t, dir, "run", "own", "--agent", "mine")
	const wantAgent = `acprun: --agent mine: unknown agent "mine" (valid agents: claude, codex, gemini, goose, mock, opencode, qwen); ` +
		"own/acprun.yaml was not loaded: acprun reads its config from acprun.yaml in the working directory, or from --config FILE; pass --config own/acprun.yaml\n"
	if res.code != 2 || res.stderr != wantAgent {
		t.Errorf("run own --agent mine: exit %d, stderr:\n%s\nwant 2 and:\n%s", res.code, res.stderr, wantAgent)
	}
}

// TestRunAgentNotFound: a run whose agent's program is not there is an
// error (exit 3) that says so as validate --strict does, at the word of
// the command and with what to do, not in exec's words.
func TestRunAgentNotFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "name: rf\nagent: {command: [nosuchcmd-xyz]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
	const want = "s.yaml:2:19: agent command nosuchcmd-xyz: not found in PATH: install it, or give its path"
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 3 || !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "exec:") {
		t.Errorf("run: exit %d, want 3 and %q:\n%s", res.code, want, res.stderr)
	}
	if sc := out.Scenarios[0]; sc.Status != "error" || sc.Error != want {
		t.Errorf("status %s, error %q; want error, %q", sc.Status, sc.Error, want)
	}
	res = acprun(t, dir, "validate", "--strict", "s.yaml")
	if res.code != 2 || !strings.HasPrefix(res.stderr, want+"\n") {
		t.Errorf("validate --strict: exit %d, want 2 and %q first:\n%s", res.code, want, res.stderr)
	}
}

// TestValidateStrict: validate --strict reports, at the word of each
// scenario's agent command it is about, an agent (or judge) command that does not resolve and a mock
// script that is missing or does not parse, and at client.roots a root
// that is not a directory, and exits 2; without --strict only the
// scripts missing or not parsing are errors (as a run finds them before
// anything runs); a file whose agents all resolve passes both.
func TestValidateStrict(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	rules := "permissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"bad.mock.yaml": "turns:\n  - stps: [{text: hi}]\n",
		"ok.mock.yaml":  "turns: [{steps: [{text: hi}]}]\n",
		"bin/agent":     "#!/bin/sh\n",
		"s.yaml": "name: nobin\nagent: {command: [no-such-agent-bin, --acp]}\n" + rules +
			"---\nname: badmock\nagent: {name: mock, args: [bad.mock.yaml]}\n" + rules +
			"---\nname: missingmock\nagent: {command: [acprun, mock-agent, nope.mock.yaml]}\n" + rules +
			"---\nname: notexec\nagent: {command: [./bin/agent]}\n" + rules +
			"---\nname: judged\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nexpect:\n  judge: {agent: {command: [no-such-judge]}, rubric: x}\n" + rules +
			"---\nname: roots\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nclient: {roots: [bin, typo-dir, bin/agent]}\n" + rules,
		"good.yaml": "name: fine\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nclient: {roots: [., bin]}\n" + rules +
			"---\nname: sh\nagent: {command: [sh, -c, 'true']}\n" + rules,
	})
	missing := "s.yaml:12:39: agent: mock script nope.mock.yaml does not exist (looked for it next to s.yaml and in the agent's cwd " + dir + "): write the script there, or give its path"
	unparsed := `s.yaml:7:28: mock script bad.mock.yaml does not parse: bad.mock.yaml:2:5: unknown key "stps" in turn (did you mean "steps"?)`
	res := acprun(t, dir, "validate", "s.yaml")
	if res.code != 2 || strings.Count(res.stderr, "s.yaml:") != 2 || !strings.HasPrefix(res.stderr, unparsed+"\n") || !strings.Contains(res.stderr, "\n"+missing+"\n") {
		t.Errorf("validate without --strict: exit %d, want 2, %q and %q alone\n%s", res.code, unparsed, missing, res.stderr)
	}
	res = acprun(t, dir, "validate", "--strict", "s.yaml")
	var got []string
	for _, line := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(line, "s.yaml:") {
			got = append(got, line)
		}
	}
	want := []string{
		"s.yaml:2:19: agent command no-such-agent-bin: not found in PATH: install it, or give its path",
		unparsed,
		missing,
		"s.yaml:17:19: agent command ./bin/agent: not executable (chmod +x it)",
		"s.yaml:24:29: agent command no-such-judge: not found in PATH: install it, or give its path",
		"s.yaml:30:23: root " + filepath.Join(dir, "typo-dir") + " does not exist: the agent's file and terminal requests would all fail; create it, or change client.roots",
		"s.yaml:30:33: root " + filepath.Join(dir, "bin", "agent") + " is not a directory: the agent's file and terminal requests would all fail; create it, or change client.roots",
	}
	if res.code != 2 || res.stdout != "" {
		t.Errorf("validate --strict: exit %d, stdout %q; want 2 and nothing", res.code, res.stdout)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("validate --strict errors (-want +got):\n%s\nstderr:\n%s", diff, res.stderr)
	}
	if !strings.Contains(res.stderr, "    7 | agent: {name: mock, args: [bad.mock.yaml]}\n      |                            ^\n") {
		t.Errorf("validate --strict: no source line under the error:\n%s", res.stderr)
	}
	res = acprun(t, dir, "validate", "--strict", "good.yaml")
	if res.code != 0 || res.stdout != "OK: 2 scenarios, 2 turns in 1 file\n" {
		t.Errorf("validate --strict good.yaml: exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
	}
}

// TestValidateReportsEveryMistakeAtOnce: a missing mock script is
// reported with the scenario's other mistakes, not only once they are
// fixed; a problem of the agent's own line stands alone (what the script
// check would read may be what was read wrong).
func TestValidateReportsEveryMistakeAtOnce(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"s.yaml": "name: v\nagent: {command: [acprun, mock-agent, nope.mock.yaml]}\npermissions: {default: deny}\ntimeout: 5x\nturns: [{prompt: hi}]\n" +
			"---\nname: w\nagent: {command: [acprun, mock-agent, gone.mock.yaml], cwd: [x]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res := acprun(t, dir, "validate", "s.yaml")
	var got []string
	for line := range strings.Lines(res.stderr) {
		if strings.HasPrefix(line, "s.yaml:") {
			got = append(got, strings.TrimSuffix(line, "\n"))
		}
	}
	want := []string{
		"s.yaml:2:39: agent: mock script nope.mock.yaml does not exist (looked for it next to s.yaml and in the agent's cwd " + dir + "): write the script there, or give its path",
		`s.yaml:4:10: bad duration "5x": use a Go duration like 90s, 5m or 1h30m`,
	}
	if res.code != 2 || len(got) != 3 || !slices.Equal(got[:2], want) || !strings.HasPrefix(got[2], "s.yaml:8:") || strings.Contains(got[2], "gone.mock.yaml") {
		t.Errorf("validate: exit %d, errors %q; want 2, %q and one problem of line 8's cwd alone\n%s", res.code, got, want, res.stderr)
	}
}

// TestMockScriptBesideTheScenarioFile: the script of `acprun mock-agent
// SCRIPT` is found beside the scenario file when the agent's cwd is
// elsewhere, by validate --strict and by a run, with its own process or a
// shared one alike (a run looked for it in the cwd only, and its agent
// could not start).
func TestMockScriptBesideTheScenarioFile(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: hello}]\n",
		"sub/.keep":       "",
		"s.yaml":          "name: s\nagent: {command: [acprun, mock-agent, agent.mock.yaml], cwd: ./sub}\npermissions: {default: deny}\nturns:\n  - prompt: hi\n    expect: {text: {contains: hello}}\n",
	})
	if res := acprun(t, dir, "validate", "--strict", "s.yaml"); res.code != 0 {
		t.Errorf("validate --strict: exit %d, want 0\n%s", res.code, res.stderr)
	}
	for _, args := range [][]string{{"run", "s.yaml"}, {"run", "s.yaml", "--reuse-agents"}} {
		if res := acprun(t, dir, append(args, "-o", "r.json")...); res.code != 0 {
			t.Errorf("acprun %s: exit %d, want 0\n%s", strings.Join(args, " "), res.code, res.stderr)
		}
	}
}

// TestMiscErrorDataCapped: error data over 16 KiB is not kept; the turn's
// error says how big it was.
func TestMiscErrorDataCapped(t *testing.T) {
	t.Parallel()
	script := "turns:\n  - error: {code: -32000, message: big, data: {blob: \"" + strings.Repeat("x", 20<<10) + "\"}}\n"
	sc := "name: e\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: go\n    expect: {stopReason: error}\n"
	res, out, _ := runOne(t, script, sc)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	const want = "session/prompt: big (code -32000); its data (20491 bytes) was not kept: over 16384 bytes"
	if tr.Error != want || tr.ErrorData != nil {
		t.Errorf("error %q, errorData %d bytes; want %q and none", tr.Error, len(tr.ErrorData), want)
	}
}

// TestRunWarnsEachMissingRoot: the tester's case. A run whose client
// roots include directories the workspace copy lacks warns of each, at
// its place in the scenario, named as the scenario gives it (in the
// source), never by the copy's temporary path.
func TestRunWarnsEachMissingRoot(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{
		"repo/a.txt":   "a\n",
		"ok.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml": "name: roots\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nworkspace: {from: ./repo}\n" +
			"client: {roots: [./repo, ./repo/missing, ./repo/gone]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	_, out := runResults(t, dir, "s.yaml")
	want := []string{
		"s.yaml:4:26: client.roots: root " + filepath.Join(dir, "repo", "missing") + " does not exist in the workspace copy: the agent's file and terminal requests will fail",
		"s.yaml:4:42: client.roots: root " + filepath.Join(dir, "repo", "gone") + " does not exist in the workspace copy: the agent's file and terminal requests will fail",
	}
	if diff := cmp.Diff(want, out.Scenarios[0].Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
