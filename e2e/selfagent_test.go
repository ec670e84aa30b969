package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelfAgentCommandsParsed: an agent command of acprun's own that its
// command line refuses (a script or transcript missing or one too many,
// the mock agent named with two scripts) stops validate, without
// --strict, and run with exit 2 before any agent starts, each at the word
// it is about, where it used to start an agent that exited with code 2.
func TestSelfAgentCommandsParsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `name: bare
agent: {command: [acprun, mock-agent]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: extra
agent: {command: [acprun, mock-agent, s.mock.yaml, extra]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: named
agent: {name: mock, args: [s.mock.yaml, s.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: replay
agent: {command: [acprun, replay]}
permissions: {default: deny}
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{"s.yaml": scenario, "s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n"})
	at := func(line int, word string) string {
		lines := strings.SplitAfter(scenario, "\n")
		off := len(strings.Join(lines[:line-1], "")) + strings.LastIndex(lines[line-1], word)
		return lineCol("s.yaml", scenario, off)
	}
	want := []string{
		at(2, "mock-agent") + `: agent: acprun mock-agent: expected "<script>": the agent would exit before answering initialize; write acprun mock-agent <script>`,
		at(7, "extra") + `: agent: acprun mock-agent: unexpected argument extra: the agent would exit before answering initialize`,
		at(12, "s.mock.yaml") + `: agent: acprun mock-agent: unexpected argument s.mock.yaml: the agent would exit before answering initialize`,
		at(17, "replay") + `: agent: acprun replay: expected "<transcript>": the agent would exit before answering initialize; write acprun replay [flags] <transcript>`,
	}
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", args[0], res.code, res.stderr)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], w, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: an agent ran")
	}
}

// TestSelfAgentEmptyWord: an empty script or transcript in an agent
// command of acprun's own ("${SCRIPT:-}" with SCRIPT unset) stops validate
// and run with exit 2 at that word, saying it is empty, as acprun
// mock-agent "" itself does; it was said as a script or transcript that
// is a directory (the scenario's own, or "."), and probe said the same.
func TestSelfAgentEmptyWord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `name: script
agent: {command: [acprun, mock-agent, "${SCRIPT:-}"]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: transcript
agent: {command: [acprun, replay, "--", ""]}
permissions: {default: deny}
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{"s.yaml": scenario})
	empty := `"": the argument is empty (is the variable that gives it unset?): give a path; the agent would exit before answering initialize`
	want := []string{
		lineCol("s.yaml", scenario, strings.Index(scenario, `"${`)) + `: agent: acprun mock-agent: <script> ` + empty,
		lineCol("s.yaml", scenario, strings.Index(scenario, `""`)) + `: agent: acprun replay: <transcript> ` + empty,
	}
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", args[0], res.code, res.stderr)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], w, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: an agent ran")
	}
	res := acprun(t, dir, "probe", "--", "acprun", "mock-agent", "")
	if w := `acprun: acprun mock-agent: <script> ` + empty; res.code != 2 || !strings.Contains(res.stderr, w) {
		t.Errorf("probe: exit %d, want 2 and %q:\n%s", res.code, w, res.stderr)
	}
}

// TestMockScriptMissing: a mock agent script that the mock agent could not
// open (missing, or a directory), of a scenario's agent command, of agent:
// {name: mock, args: [...]}, of a config agent and of a judge, stops
// validate (without --strict) and run with exit 2 before any agent starts,
// at the word that names it; so does probe's, for a named agent or a
// command. validate said OK, and run exited 3 as if the agent could not
// start.
func TestMockScriptMissing(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	rules := "permissions: {default: deny}\nturns: [{prompt: hi}]\n"
	scenario := "name: command\nagent: {command: [acprun, mock-agent, gone.mock.yaml]}\n" + rules +
		"---\nname: named\nagent: {name: mock, args: [sub]}\n" + rules +
		"---\nname: config\nagent: cfgmock\n" + rules +
		"---\nname: judged\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nexpect:\n  judge: {agent: {command: [acprun, mock-agent, nojudge.mock.yaml]}, rubric: x}\n" + rules
	config := "agents:\n  cfgmock: {command: [acprun, mock-agent, cfg.mock.yaml]}\n"
	writeFiles(t, dir, map[string]string{
		"s.yaml":           scenario,
		"ok.yaml":          "name: ok\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\n" + rules,
		"acprun.yaml":      config,
		"ok.mock.yaml":     "turns: [{steps: [{text: hi}]}]\n",
		"sub/ok.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
	})
	at := func(file, content string, line int, word string) string {
		lines := strings.SplitAfter(content, "\n")
		off := len(strings.Join(lines[:line-1], "")) + strings.LastIndex(lines[line-1], word)
		return lineCol(file, content, off)
	}
	looked := " (looked for it next to s.yaml and in the agent's cwd " + dir + "): write the script there, or give its path"
	want := []string{
		at("s.yaml", scenario, 2, "gone.mock.yaml") + ": agent: mock script gone.mock.yaml does not exist" + looked,
		at("s.yaml", scenario, 7, "sub") + ": agent: mock script sub: not a regular file (a directory): give a file",
		// A named agent's command is the config's: at its word there.
		at("acprun.yaml", config, 2, "cfg.mock.yaml") + ": agent: mock script cfg.mock.yaml does not exist" + looked,
		at("s.yaml", scenario, 19, "nojudge.mock.yaml") + ": judge agent: mock script nojudge.mock.yaml does not exist" + looked,
	}
	for _, args := range [][]string{{"validate", "s.yaml"}, {"validate", "--strict", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if res.code != exitUsage {
			t.Errorf("%s: exit %d, want 2\n%s", strings.Join(args, " "), res.code, res.stderr)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w+"\n") {
				t.Errorf("%s: stderr lacks %q:\n%s", strings.Join(args, " "), w, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: an agent ran")
	}
	if res := acprun(t, dir, "validate", "ok.yaml"); res.code != exitOK {
		t.Errorf("validate ok.yaml: exit %d, want 0\n%s", res.code, res.stderr)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"probe", "--", "acprun", "mock-agent", "gone.mock.yaml"},
			"acprun: mock script gone.mock.yaml does not exist (looked for it in the agent's cwd " + dir + "): write the script there, or give its path\n"},
		{[]string{"probe", "cfgmock"}, at("acprun.yaml", config, 2, "cfg.mock.yaml") +
			": agent cfgmock: mock script cfg.mock.yaml does not exist (looked for it in the agent's cwd " + dir + "): write the script there, or give its path\n"},
	} {
		res := acprun(t, dir, tt.args...)
		if res.code != exitUsage || !strings.HasPrefix(res.stderr, tt.want) || res.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant 2, nothing, and %q first", strings.Join(tt.args, " "), res.code, res.stdout, res.stderr, tt.want)
		}
	}
}

// TestRunAgentFlagConfigAgentErrors: with run --agent NAME, a problem of
// the config agent's command is at its word in the config file, not at the
// scenario's own agent (a different command); one with the flags that
// permissions.enforce adds to an agent named like codex says so, and how
// to leave them out.
func TestRunAgentFlagConfigAgentErrors(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	config := `agents:
  mine: {command: [acprun, mock-agent, m.mock.yaml, extra]}
  gone: {command: [acprun, mock-agent, missing.mock.yaml]}
  codex: {command: [acprun, mock-agent, m.mock.yaml]}
`
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": config,
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"ok.yaml":     "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	at := func(line int, word string) string {
		lines := strings.SplitAfter(config, "\n")
		off := len(strings.Join(lines[:line-1], "")) + strings.LastIndex(lines[line-1], word)
		return lineCol("acprun.yaml", config, off)
	}
	exits := ": the agent would exit before answering initialize; write acprun mock-agent <script>"
	for _, tt := range []struct{ agent, want string }{
		{"mine", at(2, "extra") + ": agent: acprun mock-agent: unexpected argument extra" + exits + "\n"},
		{"gone", at(3, "missing.mock.yaml") + ": agent: mock script missing.mock.yaml does not exist (looked for it next to ok.yaml and in the agent's cwd " +
			dir + "): write the script there, or give its path\n"},
		{"codex", at(4, "m.mock.yaml") + `: agent: acprun mock-agent: unknown flag -c, did you mean "-h"?` + exits +
			" (permissions.enforce adds -c approval_policy=untrusted to an agent named codex, to make it ask before it acts: set permissions.enforce: false to run its command as written)\n"},
	} {
		res := acprunEnv(t, dir, []string{"OPENAI_API_KEY=x"}, "run", "ok.yaml", "--agent", tt.agent, "-q", "-o", "out.json")
		if res.code != exitUsage || !strings.HasPrefix(res.stderr, tt.want) {
			t.Errorf("run --agent %s: exit %d, stderr:\n%s\nwant 2, and first %q", tt.agent, res.code, res.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: an agent ran")
	}
}

// TestConfigAgentWithoutItsScript: a config agent whose command is acprun
// mock-agent without a script (or acprun replay without a transcript) is
// refused with exit 2 at its command's word in the config file, saying
// what to write there, wherever it is named: a scenario's agent, run
// --agent with a scenario or a prompt, and probe. It was reported at the
// scenario's agent name (or nowhere), with advice for the built-in mock.
// The built-in mock without its args keeps its own advice.
func TestConfigAgentWithoutItsScript(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	config := "agents:\n  greeter:\n    command: [acprun, mock-agent]\n  player: {command: [acprun, replay]}\n"
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": config,
		"s.yaml":      "name: s\nagent: greeter\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"ok.yaml":     "name: ok\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	at := func(line int, word string) string {
		lines := strings.SplitAfter(config, "\n")
		off := len(strings.Join(lines[:line-1], "")) + strings.LastIndex(lines[line-1], word)
		return lineCol("acprun.yaml", config, off)
	}
	mock := `acprun mock-agent: expected "<script>": the agent would exit before answering initialize; write acprun mock-agent <script>` + "\n"
	replay := `acprun replay: expected "<transcript>": the agent would exit before answering initialize; write acprun replay [flags] <transcript>` + "\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "s.yaml"}, at(3, "mock-agent") + ": agent: " + mock},
		{[]string{"run", "s.yaml", "-o", "out.json"}, at(3, "mock-agent") + ": agent: " + mock},
		{[]string{"run", "ok.yaml", "--agent", "greeter", "-o", "out.json"}, at(3, "mock-agent") + ": agent: " + mock},
		{[]string{"run", "--agent", "greeter", "--prompt", "hi", "-o", "out.json"}, at(3, "mock-agent") + ": agent: " + mock},
		{[]string{"probe", "greeter"}, at(3, "mock-agent") + ": agent greeter: " + mock},
		{[]string{"probe", "player"}, at(4, "replay") + ": agent player: " + replay},
		{[]string{"probe", "mock"}, "acprun: the mock agent needs its script: acprun probe -- acprun mock-agent SCRIPT\n"},
		{[]string{"run", "--agent", "mock", "--prompt", "hi", "-o", "out.json"}, "acprun: --agent mock: the mock agent needs its script: agent: {name: mock, args: [agents/x.mock.yaml]}"},
	} {
		res := acprun(t, dir, tt.args...)
		if res.code != exitUsage || !strings.HasPrefix(res.stderr, tt.want) || res.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant 2, nothing, and first %q", strings.Join(tt.args, " "), res.code, res.stdout, res.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: an agent ran")
	}
}

// TestMockScriptAfterDoubleDash: a mock agent script given after "--"
// (its name starts with "-", as acprun mock-agent -- -x.mock.yaml takes
// it) is the script validate, validate --strict, run and probe look for:
// the scenario validates and runs, a missing one is named at its word, one
// that does not parse too, by run and validate alike, and by probe before
// it starts the agent (so is a missing replay transcript). validate took
// "--" for the script.
func TestMockScriptAfterDoubleDash(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	rules := "permissions: {default: deny}\nturns: [{prompt: hi}]\n"
	ok := "name: d\nagent: {command: [acprun, mock-agent, --, -x.mock.yaml]}\n" + rules
	gone := "name: g\nagent: {command: [acprun, mock-agent, --, -gone.mock.yaml]}\n" + rules
	bad := "name: b\nagent: {command: [acprun, mock-agent, --, -bad.mock.yaml]}\n" + rules
	writeFiles(t, dir, map[string]string{
		"ok.yaml":        ok,
		"gone.yaml":      gone,
		"bad.yaml":       bad,
		"-x.mock.yaml":   "turns: [{steps: [{text: hi}]}]\n",
		"-bad.mock.yaml": "turns: [{steps: [{nope: 1}]}]\n",
	})
	for _, args := range [][]string{{"validate", "ok.yaml"}, {"validate", "--strict", "ok.yaml"}, {"run", "ok.yaml", "-o", "out.json"}, {"probe", "--", "acprun", "mock-agent", "--", "-x.mock.yaml"}} {
		if res := acprun(t, dir, args...); res.code != exitOK {
			t.Errorf("%s: exit %d, want 0\n%s", strings.Join(args, " "), res.code, res.stderr)
		}
	}
	col := strings.Index(gone, "-gone") - strings.Index(gone, "agent:") + 1
	want := fmt.Sprintf("gone.yaml:2:%d: agent: mock script -gone.mock.yaml does not exist (looked for it next to gone.yaml and in the agent's cwd %s)", col, dir)
	for _, args := range [][]string{{"validate", "gone.yaml"}, {"run", "gone.yaml", "-o", "out2.json"}} {
		if res := acprun(t, dir, args...); res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant 2 and %q first", strings.Join(args, " "), res.code, res.stderr, want)
		}
	}
	col = strings.Index(bad, "-bad") - strings.Index(bad, "agent:") + 1
	want = fmt.Sprintf("bad.yaml:2:%d: mock script -bad.mock.yaml does not parse: ", col)
	for _, args := range [][]string{{"validate", "--strict", "bad.yaml"}, {"validate", "bad.yaml"}, {"run", "bad.yaml", "-o", "out3.json"}} {
		if res := acprun(t, dir, args...); res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant 2 and %q first", strings.Join(args, " "), res.code, res.stderr, want)
		}
	}
	if res := acprun(t, dir, "probe", "--", "acprun", "mock-agent", "--", "-bad.mock.yaml"); res.code != exitUsage ||
		!strings.HasPrefix(res.stderr, "acprun: mock script -bad.mock.yaml does not parse: ") {
		t.Errorf("probe: exit %d, stderr:\n%s\nwant 2 and the script's problem, before the agent starts", res.code, res.stderr)
	}
	if res := acprun(t, dir, "probe", "--", "acprun", "replay", "gone.jsonl"); res.code != exitUsage ||
		!strings.HasPrefix(res.stderr, "acprun: replay transcript gone.jsonl: ") {
		t.Errorf("probe of a missing transcript: exit %d, stderr:\n%s\nwant 2 and the transcript named, before the agent starts", res.code, res.stderr)
	}
}

// TestMockScriptLikeAFlag: a mock agent script whose name starts with "-"
// given without "--" is taken for a flag; validate and run say so at its
// word and show the command with "--", rather than suggest -h.
func TestMockScriptLikeAFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := "name: d\nagent: {command: [acprun, mock-agent, -x.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{"s.yaml": s, "-x.mock.yaml": "turns: [{steps: [{text: hi}]}]\n"})
	col := strings.Index(s, "-x") - strings.Index(s, "agent:") + 1
	want := fmt.Sprintf("s.yaml:2:%d: agent: acprun mock-agent: -x.mock.yaml is not a flag of acprun mock-agent: the agent would exit before answering initialize; "+
		"a <script> whose name starts with - follows --: write acprun mock-agent -- -x.mock.yaml\n", col)
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		if res := acprun(t, dir, args...); res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant 2 and %q first", strings.Join(args, " "), res.code, res.stderr, want)
		}
	}
}
