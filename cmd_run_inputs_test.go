package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestRunCheckInputs: run refuses an output that is one of its inputs,
// those its scenarios name included (a replay transcript, a mock agent
// script, a judge's, a prompt's attachment); -o alone may be the
// --rerun-failed file.
func TestRunCheckInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"s.yaml", "t.jsonl", "m.mock.yaml", "att.txt", "r.json", "p.txt", "cfg.yaml", "j.mock.yaml", "tj.jsonl"} {
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs := []*scenario.Scenario{
		{File: "s.yaml", Agent: scenario.Agent{Command: []string{"acprun", "replay", filepath.Join(dir, "t.jsonl")}, Cwd: dir}},
		{File: "s.yaml", Agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "m.mock.yaml"}, Cwd: dir},
			Turns: []scenario.Turn{{Prompt: []scenario.Part{{Text: "hi"}, {File: filepath.Join(dir, "att.txt")}}}}},
		{File: "s.yaml", Agent: scenario.Agent{Command: []string{"sh"}, Cwd: dir},
			Expect: scenario.Expect{Judge: &scenario.Judge{Agent: scenario.Agent{Command: []string{"acprun", "mock-agent", "j.mock.yaml"}, Cwd: dir}}},
			Turns:  []scenario.Turn{{Expect: scenario.Expect{Judge: &scenario.Judge{Agent: scenario.Agent{Command: []string{"acprun", "replay", filepath.Join(dir, "tj.jsonl")}, Cwd: dir}}}}}},
	}
	tests := []struct {
		name string
		cmd  runCmd
		want string
	}{
		{"new files", runCmd{JSON: "out.json", JUnit: "out.xml"}, ""},
		{"a scenario file", runCmd{JSON: "s.yaml"}, "-o s.yaml: it is a scenario file of this run; give the results another file"},
		{"a replay transcript", runCmd{JSON: "r2.json", Events: "t.jsonl"}, "--events t.jsonl: it is a replay transcript of this run; give the events another file"},
		{"a mock agent script", runCmd{JSON: "m.mock.yaml"}, "-o m.mock.yaml: it is a mock agent script of this run; give the results another file"},
		{"a judge's mock agent script", runCmd{JSON: "j.mock.yaml"}, "-o j.mock.yaml: it is a mock agent script of this run; give the results another file"},
		{"a turn's judge's replay transcript", runCmd{JSON: "r2.json", JUnit: "tj.jsonl"}, "--junit tj.jsonl: it is a replay transcript of this run; give the JUnit report another file"},
		{"an attachment", runCmd{JSON: "r2.json", HTML: "att.txt"}, "--html att.txt: it is a file a prompt of this run attaches; give the HTML report another file"},
		{"the config file", runCmd{JSON: "cfg.yaml", selection: selection{configFlag: configFlag{Config: "cfg.yaml"}}},
			"-o cfg.yaml: it is the config file of this run; give the results another file"},
		{"a --prompt file", runCmd{Paths: []string{"s.yaml"}, Prompt: []string{"-", "p.txt"}, JSON: "p.txt"},
			"-o p.txt: it is a --prompt file of this run; give the results another file"},
		{"a one-shot prompt is text", runCmd{Prompt: []string{"p.txt"}, JSON: "p.txt"}, ""},
		{"-o replaces the rerun's file", runCmd{RerunFailed: "r.json", JSON: "r.json"}, ""},
		{"--junit does not", runCmd{RerunFailed: "r.json", JSON: "r2.json", JUnit: "r.json"},
			"--junit r.json: it is the results file --rerun-failed reads; give the JUnit report another file"},
		{"--balance-from", runCmd{JSON: "r.json", selection: selection{BalanceFrom: "r.json"}},
			"-o r.json: it is the results file --balance-from reads; give the results another file"},
	}
	g := &globals{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	for _, tt := range tests {
		err := tt.cmd.checkInputs(g, scs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: checkInputs = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestRunCheckStateFiles: an output that is the session state file (or its
// lock) of a scenario that continues its session (session.resume, or
// every scenario with --resume) is refused naming the scenario, whether
// the file was made yet or not; the state file of one that does not
// continue it is no input.
func TestRunCheckStateFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	shared := filepath.Join(dir, "shared.json")
	if err := os.WriteFile(shared, []byte(`{"version": 1, "sessions": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared.json", "link.json"); err != nil {
		t.Fatal(err)
	}
	scs := []*scenario.Scenario{
		{Name: "nightly", File: "s.yaml", Session: scenario.Session{Resume: true}}, // .acprun/state.json, not made yet
		{Name: "weekly", File: "s.yaml", Session: scenario.Session{Resume: true, StateFile: shared}},
		{Name: "once", File: "s.yaml", Session: scenario.Session{StateFile: filepath.Join(dir, "once.json")}},
	}
	tests := []struct {
		name string
		cmd  runCmd
		want string
	}{
		{"another file", runCmd{JSON: "out.json"}, ""},
		{"the default state file", runCmd{JSON: ".acprun/state.json"},
			`-o .acprun/state.json: it is the session state file of scenario "nightly"; give the results another file`},
		{"its lock", runCmd{JSON: "out.json", Events: ".acprun/state.json.lock"},
			`--events .acprun/state.json.lock: it is the lock file of the session state file of scenario "nightly"; give the events another file`},
		{"through a symlink", runCmd{JSON: "out.json", JUnit: "link.json"},
			`--junit link.json: it is the session state file of scenario "weekly"; give the JUnit report another file`},
		{"not resumed", runCmd{JSON: "out.json", HTML: "once.json"}, ""},
		{"--resume", runCmd{JSON: "out.json", HTML: "once.json", Resume: true},
			`--html once.json: it is the session state file of scenario "once"; give the HTML report another file`},
	}
	g := &globals{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	for _, tt := range tests {
		err := tt.cmd.checkInputs(g, scs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: checkInputs = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestRepeatBounds: --repeat takes 1 to maxRepeat attempts per scenario,
// and at most maxAttempts in all once the scenarios are selected.
func TestRepeatBounds(t *testing.T) {
	for _, tt := range []struct {
		repeat, scenarios int
		want              string
	}{
		{1, 1_000_000, ""},
		{maxRepeat, maxAttempts / maxRepeat, ""},
		{0, 1, "--repeat 0: want at least 1 attempt per scenario"},
		{maxRepeat + 1, 1, "--repeat 1001: want at most 1000 attempts per scenario (they give its pass rate within about 3 points)"},
		{100_000_000, 1, "--repeat 100000000: want at most 1000 attempts per scenario (they give its pass rate within about 3 points)"},
		{2, 50_001, "--repeat 2: 50001 scenarios × 2 attempts is 100002, want at most 100000 attempts in a run: select fewer scenarios (--run, --tag, --shard) or repeat them fewer times"},
	} {
		c := runCmd{Repeat: repeat{tt.repeat}}
		err := checkRepeat(c.Repeat.n)
		if err == nil {
			err = c.checkAttempts(tt.scenarios)
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("--repeat %d, %d scenarios: %q, want %q", tt.repeat, tt.scenarios, got, tt.want)
		}
	}
}

// TestRunCheckWorkspaceDir: a --workspace-dir inside the workspace source
// of a selected scenario (named directly, or through a symlink) is refused,
// naming the flag, the source and the scenario, and nothing is created.
func TestRunCheckWorkspaceDir(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, d := range []string{"proj", "other"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("proj", "link"); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "proj")
	scs := []*scenario.Scenario{
		{Name: "plain", File: "s.yaml"},
		{Name: "copy", File: "s.yaml", Workspace: &scenario.Workspace{Pos: scenario.Pos{File: "s.yaml", Line: 3, Col: 12}, From: proj}},
	}
	inside := func(flag string) string {
		return "--workspace-dir " + flag + ": it lies inside " + proj + `, the workspace source of scenario "copy" (s.yaml:3:12), ` +
			"so each workspace would be made inside its own source; give a directory outside it"
	}
	for _, tt := range []struct{ flag, want string }{
		{"", ""},
		{"ws", ""},
		{"other/ws", ""},
		{"proj/.ws", inside("proj/.ws")},
		{"proj", inside("proj")},
		{"link/ws", inside("link/ws")},
	} {
		c := runCmd{WorkspaceDir: tt.flag}
		got := ""
		if err := c.checkWorkspaceDir(scs); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("--workspace-dir %q: checkWorkspaceDir = %q, want %q", tt.flag, got, tt.want)
		}
	}
	for _, made := range []string{"ws", "other/ws", "proj/.ws", "proj/ws"} {
		if _, err := os.Lstat(made); err == nil {
			t.Errorf("%s was made", made)
		}
	}
}

// TestDirFlagNamesAFile: --workspace-dir or --transcripts naming a file,
// or a directory under one, is refused before anything runs (exit 2),
// saying the path is a file and what to do, where mkdir's error said only
// "not a directory".
func TestDirFlagNamesAFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, s.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
		"afile":       "",
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const fix = " is a file, not a directory: give a directory (it is made when missing), or move the file away\n"
	for _, tt := range []struct{ flag, value, want string }{
		{"--workspace-dir", "afile", "acprun: --workspace-dir afile: " + filepath.Join(dir, "afile") + fix},
		{"--workspace-dir", "afile/sub", "acprun: --workspace-dir afile/sub: " + filepath.Join(dir, "afile") + fix},
		{"--transcripts", "afile", "acprun: --transcripts afile: afile" + fix},
	} {
		var stderr bytes.Buffer
		code := run([]string{"run", "s.yaml", "-o", "r.json", tt.flag, tt.value}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != exitUsage || stderr.String() != tt.want {
			t.Errorf("%s %s: exit %d, stderr %q; want %d and %q", tt.flag, tt.value, code, stderr.String(), exitUsage, tt.want)
		}
	}
	if _, err := os.Stat("r.json"); err == nil {
		t.Error("r.json was written; want nothing run")
	}
}
