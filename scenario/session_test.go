package scenario_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

func TestSession(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	load := func(t *testing.T, session string) *scenario.Scenario {
		t.Helper()
		src := "name: x\nagent: {command: [a]}\npermissions: {}\nturns: [{prompt: hi}]\n" + session
		scs, _, err := scenario.LoadBytes(file, []byte(src), opts)
		if err != nil {
			t.Fatal(err)
		}
		return scs[0]
	}
	tests := []struct {
		name, src string
		want      scenario.Session
		stateFile string
	}{
		{"absent", "", scenario.Session{}, filepath.Join(dir, ".acprun", "state.json")},
		{"null", "session: null\n", scenario.Session{}, filepath.Join(dir, ".acprun", "state.json")},
		{"resume", "session: {resume: true}\n",
			scenario.Session{Pos: scenario.Pos{File: file, Line: 5, Col: 10}, Resume: true},
			filepath.Join(dir, ".acprun", "state.json")},
		{"state file relative to the scenario file", "session:\n  resume: true\n  stateFile: ${HOME}/../state/s.json\n",
			scenario.Session{Pos: scenario.Pos{File: file, Line: 6, Col: 3}, Resume: true, StateFile: "/home/state/s.json"},
			"/home/state/s.json"},
		{"relative state file", "session: {stateFile: run/state.json}\n",
			scenario.Session{Pos: scenario.Pos{File: file, Line: 5, Col: 10}, StateFile: filepath.Join(dir, "run", "state.json")},
			filepath.Join(dir, "run", "state.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := load(t, tt.src)
			if diff := cmp.Diff(tt.want, sc.Session); diff != "" {
				t.Errorf("Session (-want +got):\n%s", diff)
			}
			if got := sc.StateFile(); got != tt.stateFile {
				t.Errorf("StateFile() = %q, want %q", got, tt.stateFile)
			}
		})
	}
}

func TestSessionErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "bad.yaml")
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown key", "session: {resum: true}\n",
			[]string{file + `:5:11: unknown key "resum" (did you mean "resume"?)`}},
		{"not a mapping", "session: true\n",
			[]string{file + ":5:10: expected a mapping, got a boolean"}},
		{"not a boolean", "session: {resume: yes please}\n",
			[]string{file + `:5:19: expected true or false, got the string "yes please"`}},
		{"empty state file", "session: {stateFile: ''}\n",
			[]string{file + ":5:22: stateFile is empty: name the JSON file that records the session between runs (default .acprun/state.json, relative to the scenario file)"}},
		{"a directory", "session: {stateFile: state}\n",
			[]string{file + ":5:22: stateFile " + filepath.Join(dir, "state") + " is a directory: name a file in it, such as state/state.json"}},
		{"unset variable", "session: {stateFile: '${NOPE}/s.json'}\n",
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: x\nagent: {command: [a]}\npermissions: {}\nturns: [{prompt: hi}]\n" + tt.src
			_, _, err := scenario.LoadBytes(file, []byte(src), opts)
			if err == nil {
				t.Fatal("no error")
			}
			got := errorLines(t, err)
			if tt.want == nil {
				if len(got) != 1 {
					t.Errorf("errors: %q, want one", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionWithWorkspaceWarns(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "repo"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	src := "name: x\nagent: {command: [a]}\npermissions: {}\nworkspace: repo\nturns: [{prompt: hi}]\nsession: {resume: true}\n"
	_, warns, err := scenario.LoadBytes(file, []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{file + ":6:10: session.resume with a workspace: each attempt works in a fresh copy, so its session cwd differs from the recorded one and every run starts a new session (give agent.cwd a fixed directory to continue sessions)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestWorkspaceCwdOutsideWarns: an agent.cwd outside the workspace's
// source is warned about (the agent would work there, not in the copy);
// one inside it, or none, is not, nor a fixed cwd for a resumed session.
// Inside means with symlinks resolved: a cwd named through a link to the
// source, or a source named through a link, is inside.
func TestWorkspaceCwdOutsideWarns(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"repo/sub", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("repo", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	for _, tt := range []struct {
		agent, ws, extra string
		want             []string
	}{
		{"{command: [a], cwd: elsewhere}", "repo", "", []string{file + ":2:28: agent.cwd " + dir + "/elsewhere is outside the workspace (" + dir + "/repo): " +
			"the agent works there, not in its copy, so its edits are real and setup, verify and expect.files see the copy instead; put agent.cwd inside " + dir + "/repo, or leave it out"}},
		{"{command: [a], cwd: repo/sub}", "repo", "", nil},
		{"{command: [a], cwd: link/sub}", "repo", "", nil},
		{"{command: [a], cwd: repo/sub}", "link", "", nil},
		{"{command: [a]}", "repo", "", nil},
		{"{command: [a], cwd: elsewhere}", "repo", "session: {resume: true}\n", nil},
	} {
		src := "name: x\nagent: " + tt.agent + "\npermissions: {}\nworkspace: " + tt.ws + "\nturns: [{prompt: hi}]\n" + tt.extra
		_, warns, err := scenario.LoadBytes(file, []byte(src), opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range warns {
			got = append(got, w.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("agent: %s, workspace: %s %s: warnings (-want +got):\n%s", tt.agent, tt.ws, tt.extra, diff)
		}
	}
}

// TestSessionDefaults: the config's session key is every scenario's, its
// stateFile relative to the config file; a scenario's replaces it whole.
func TestSessionDefaults(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  session: {resume: true, stateFile: state/all.json}\n")
	base := "name: x\nagent: {command: [a]}\npermissions: {}\nturns: [{prompt: hi}]\n"
	sc := loadWith(t, cfg, base)[0]
	if !sc.Session.Resume || sc.StateFile() != "/cfg/state/all.json" {
		t.Errorf("from the config: %+v, state file %s", sc.Session, sc.StateFile())
	}
	sc = loadWith(t, cfg, base+"session: {stateFile: mine.json}\n")[0]
	if sc.Session.Resume || sc.StateFile() != "/s/mine.json" {
		t.Errorf("the scenario's own: %+v, state file %s", sc.Session, sc.StateFile())
	}
	sc = loadWith(t, loadConfig(t, "defaults:\n  session: {resume: true}\n"), base)[0]
	if !sc.Session.Resume || sc.StateFile() != "/s/.acprun/state.json" {
		t.Errorf("no stateFile in the config: %+v, state file %s", sc.Session, sc.StateFile())
	}
}
