package scenario_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/scenario"
)

// TestReplayAgent: agent: {replay: path} runs acprun's replay agent on the
// transcript, resolved against the scenario file's directory; the file
// must exist; replay goes with neither command, name nor args.
func TestReplayAgent(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"sub/rec/t.jsonl": "{}\n",
		"sub/ok.yaml":     "name: ok\nagent: {replay: rec/t.jsonl, env: {A: b}}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"sub/var.yaml":    "name: var\nagent: {replay: \"${REC_DIR}/t.jsonl\"}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"judge.yaml": "name: judged\nagent: {command: [x]}\npermissions: {default: deny}\n" +
			"turns: [{prompt: hi, expect: {judge: {agent: {replay: sub/rec/t.jsonl}, rubric: \"is it ok\"}}}]\n",
		"bad.yaml": "name: missing\nagent: {replay: nope.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: dir\nagent: {replay: sub}\nturns: [{prompt: hi}]\n" +
			"---\nname: both\nagent: {name: claude, replay: sub/rec/t.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: args\nagent: {replay: sub/rec/t.jsonl, args: [x]}\nturns: [{prompt: hi}]\n" +
			"---\nname: empty\nagent: {replay: \"\"}\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	transcript := filepath.Join(dir, "sub", "rec", "t.jsonl")
	lookup := func(name string) (string, bool) {
		if name == "REC_DIR" {
			return "rec", true
		}
		return "", false
	}
	scs, _, err := scenario.Load([]string{"sub/ok.yaml", "sub/var.yaml", "judge.yaml"}, scenario.LoadOptions{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*scenario.Scenario{}
	for _, sc := range scs {
		byName[sc.Name] = sc
	}
	want := []string{"acprun", "replay", transcript}
	for _, sc := range []*scenario.Scenario{byName["ok"], byName["var"]} {
		if diff := cmp.Diff(want, sc.Agent.Command); diff != "" {
			t.Errorf("%s: command (-want +got):\n%s", sc.Name, diff)
		}
		if sc.Agent.Name != "" || sc.Agent.Cwd != filepath.Join(dir, "sub") {
			t.Errorf("%s: agent name %q, cwd %q; want no name, the file's directory", sc.Name, sc.Agent.Name, sc.Agent.Cwd)
		}
	}
	if env := byName["ok"].Agent.Env; env["A"] != "b" {
		t.Errorf("env = %v, want the scenario's", env)
	}
	if j := byName["judged"].Turns[0].Expect.Judge; j == nil || !cmp.Equal(j.Agent.Command, want) {
		t.Errorf("judge = %+v, want it replaying the transcript", j)
	}

	_, _, err = scenario.Load([]string{"bad.yaml"}, opts)
	wantErrs := []string{
		`bad.yaml:2:17: replay transcript "nope.jsonl" does not exist`,
		`bad.yaml:6:17: replay transcript "sub" is not a regular file (a directory): give a file`,
		`bad.yaml:10:23: use either replay (a recorded transcript) or name, not both`,
		`bad.yaml:14:34: args adds arguments to a named agent's command: a replay agent takes none`,
		`bad.yaml:18:17: replay transcript path is empty`,
	}
	if diff := cmp.Diff(wantErrs, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestReplayTranscript: the transcript an agent plays and where the file
// names it: the value of agent: {replay: PATH} (absolute already), the
// word after acprun replay and its flags in a command (relative to the
// agent's cwd); none for other agents.
func TestReplayTranscript(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"rec/t.jsonl": "{}\n",
		"s.yaml": "name: value\nagent: {replay: rec/t.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: command\nagent: {command: [acprun, replay, --timing, rec/t.jsonl]}\nturns: [{prompt: hi}]\n" +
			"---\nname: cwd\nagent: {command: [acprun, replay, t.jsonl], cwd: rec}\nturns: [{prompt: hi}]\n" +
			"---\nname: mock\nagent: {command: [acprun, mock-agent, rec/t.jsonl]}\nturns: [{prompt: hi}]\n",
	}
	testkit.WriteFiles(t, dir, files)
	file := filepath.Join(dir, "s.yaml")
	scs, _, err := scenario.Load([]string{file}, opts)
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(dir, "rec", "t.jsonl")
	want := map[string]struct {
		path string
		pos  scenario.Pos
	}{
		"value":   {transcript, scenario.Pos{File: file, Line: 2, Col: 17}},
		"command": {transcript, scenario.Pos{File: file, Line: 6, Col: 45}},
		"cwd":     {transcript, scenario.Pos{File: file, Line: 10, Col: 35}},
		"mock":    {"", scenario.Pos{}},
	}
	for _, sc := range scs {
		path, pos := sc.Agent.ReplayTranscript()
		if w := want[sc.Name]; path != w.path || pos != w.pos {
			t.Errorf("%s: ReplayTranscript = %q at %v, want %q at %v", sc.Name, path, pos, w.path, w.pos)
		}
	}
}

// TestFileWord: the word of an acprun agent's command that names its
// script or transcript is the first after the command's flags, or the
// one after "--" (which may start with "-"); none without one.
func TestFileWord(t *testing.T) {
	for _, tt := range []struct {
		command []string
		sub     string
		want    int
	}{
		{[]string{"acprun", "mock-agent", "a.mock.yaml"}, "mock-agent", 2},
		{[]string{"acprun", "mock-agent", "--", "-x.mock.yaml"}, "mock-agent", 3},
		{[]string{"acprun", "mock-agent", "--", "--"}, "mock-agent", 3},
		{[]string{"acprun", "mock-agent", "-"}, "mock-agent", 2},
		{[]string{"acprun", "replay", "--timing", "t.jsonl"}, "replay", 3},
		{[]string{"acprun", "replay", "--timing", "--", "-t.jsonl"}, "replay", 4},
		{[]string{"acprun", "replay", "--timing"}, "replay", -1},
		{[]string{"acprun", "mock-agent", "--"}, "mock-agent", -1},
		{[]string{"acprun", "mock-agent"}, "mock-agent", -1},
		{[]string{"acprun", "replay", "t.jsonl"}, "mock-agent", -1},
		{[]string{"./agent", "mock-agent", "a.mock.yaml"}, "mock-agent", -1},
	} {
		if got := scenario.FileWord(tt.command, tt.sub); got != tt.want {
			t.Errorf("FileWord(%q, %q) = %d, want %d", tt.command, tt.sub, got, tt.want)
		}
	}
}
