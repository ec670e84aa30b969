package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// TestResolveCommand checks how an agent command resolves, for a run and
// validate --strict alike: "acprun" is the running acprun; the script of
// `acprun mock-agent SCRIPT` is the file beside the scenario file when
// there is one, else relative to the agent's cwd, and the argv names it
// by its absolute path only when the cwd would not find that file by
// SCRIPT.
func TestResolveCommand(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"beside.mock.yaml", "sub/inner.mock.yaml", "sub/beside.mock.yaml", "-x.mock.yaml"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir) // a scenario file named relative to acprun's working directory
	file, sub, self := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "sub"), "/bin/acprun-self"
	tests := []struct {
		name            string
		command         []string
		file, cwd, self string
		wantArgv        []string
		wantScript      string
	}{
		{"acprun is self", []string{"acprun", "replay", "t.jsonl"}, file, dir, self,
			[]string{self, "replay", "t.jsonl"}, ""},
		{"no self: acprun from PATH", []string{"acprun", "mock-agent", "beside.mock.yaml"}, file, dir, "",
			[]string{"acprun", "mock-agent", "beside.mock.yaml"}, filepath.Join(dir, "beside.mock.yaml")},
		{"other program", []string{"./agent", "--acp"}, file, dir, self,
			[]string{"./agent", "--acp"}, ""},
		{"script beside the file, cwd the file's directory", []string{"acprun", "mock-agent", "beside.mock.yaml"}, file, dir, self,
			[]string{self, "mock-agent", "beside.mock.yaml"}, filepath.Join(dir, "beside.mock.yaml")},
		{"relative file name", []string{"acprun", "mock-agent", "beside.mock.yaml"}, "s.yaml", dir, self,
			[]string{self, "mock-agent", "beside.mock.yaml"}, "beside.mock.yaml"},
		{"script beside the file, cwd elsewhere", []string{"acprun", "mock-agent", "beside.mock.yaml"}, file, sub, self,
			[]string{self, "mock-agent", filepath.Join(dir, "beside.mock.yaml")}, filepath.Join(dir, "beside.mock.yaml")},
		{"script only in the cwd", []string{"acprun", "mock-agent", "inner.mock.yaml"}, file, sub, self,
			[]string{self, "mock-agent", "inner.mock.yaml"}, filepath.Join(sub, "inner.mock.yaml")},
		{"missing script: the cwd's", []string{"acprun", "mock-agent", "nope.mock.yaml"}, file, sub, self,
			[]string{self, "mock-agent", "nope.mock.yaml"}, filepath.Join(sub, "nope.mock.yaml")},
		{"absolute script", []string{"acprun", "mock-agent", "/x/a.mock.yaml"}, file, sub, self,
			[]string{self, "mock-agent", "/x/a.mock.yaml"}, "/x/a.mock.yaml"},
		{"no scenario file: the cwd's", []string{"acprun", "mock-agent", "beside.mock.yaml"}, "", sub, self,
			[]string{self, "mock-agent", "beside.mock.yaml"}, filepath.Join(sub, "beside.mock.yaml")},
		{"mock-agent without a script", []string{"acprun", "mock-agent"}, file, dir, self,
			[]string{self, "mock-agent"}, ""},
		{"mock-agent -- only", []string{"acprun", "mock-agent", "--"}, file, dir, self,
			[]string{self, "mock-agent", "--"}, ""},
		{"script after --", []string{"acprun", "mock-agent", "--", "-x.mock.yaml"}, file, dir, self,
			[]string{self, "mock-agent", "--", "-x.mock.yaml"}, filepath.Join(dir, "-x.mock.yaml")},
		{"script after -- beside the file, cwd elsewhere", []string{"acprun", "mock-agent", "--", "-x.mock.yaml"}, file, sub, self,
			[]string{self, "mock-agent", "--", filepath.Join(dir, "-x.mock.yaml")}, filepath.Join(dir, "-x.mock.yaml")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			command := append([]string(nil), tt.command...)
			got := ResolveCommand(command, tt.file, tt.cwd, tt.self)
			want := Command{Argv: tt.wantArgv, Script: tt.wantScript}
			if tt.wantScript != "" {
				want.ScriptWord = len(tt.wantArgv) - 1 // the last word in every case
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ResolveCommand(%q, %q, %q) (-want +got):\n%s", tt.command, tt.file, tt.cwd, diff)
			}
			if diff := cmp.Diff(tt.command, command); diff != "" {
				t.Errorf("the command given was changed:\n%s", diff)
			}
		})
	}
}

// TestLookPath checks how an agent's program is found, and the words
// validate --strict reports when it is not.
func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"agent": 0o755, "script": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	tests := []struct{ name, want, err string }{
		{"agent", filepath.Join(dir, "agent"), ""},
		{"./agent", filepath.Join(dir, "agent"), ""},
		{filepath.Join(dir, "agent"), filepath.Join(dir, "agent"), ""},
		{"no-such-agent", "", "not found in PATH"},
		{"script", "", "not found in PATH"},
		{"./nope", "", "no such file (relative to the agent's cwd " + dir + ")"},
		{"/nonexistent/agent", "", "no such file"},
		{"./script", "", "not executable (chmod +x it)"},
		{"./", "", "is a directory"},
	}
	for _, tt := range tests {
		got, err := LookPath(tt.name, dir)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		if got != tt.want || errText != tt.err {
			t.Errorf("LookPath(%q) = %q, %q; want %q, %q", tt.name, got, errText, tt.want, tt.err)
		}
	}
}

// TestCheckProgram: an agent whose program is not there is named at the
// word of its command that gives the program (at the agent for a built-in
// agent's), with what to do when the cause does not say it; a path that
// does not exist is fs.ErrNotExist (validate --strict leaves one that
// setup may make to the agent's start).
func TestCheckProgram(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	at := func(line, col int) scenario.Pos { return scenario.Pos{File: "s.yaml", Line: line, Col: col} }
	tests := []struct {
		name string
		a    scenario.Agent
		want string // "" when found
	}{
		{"found", scenario.Agent{Command: []string{"/bin/sh"}, ArgvPos: []scenario.Pos{at(2, 19)}}, ""},
		{"not in PATH", scenario.Agent{Pos: at(2, 8), Command: []string{"nosuchcmd-xyz", "--acp"}, ArgvPos: []scenario.Pos{at(2, 19), at(2, 34)}},
			"s.yaml:2:19: agent command nosuchcmd-xyz: not found in PATH: install it, or give its path"},
		{"named agent", scenario.Agent{Pos: at(2, 8), Name: "mine", Command: []string{"nosuchcmd-xyz"}, ArgvPos: make([]scenario.Pos, 1)},
			"s.yaml:2:8: agent mine: command nosuchcmd-xyz: not found in PATH: install it, or give its path"},
		{"no such file", scenario.Agent{Command: []string{"./bin/agent"}, ArgvPos: []scenario.Pos{at(3, 12)}},
			"s.yaml:3:12: agent command ./bin/agent: no such file (relative to the agent's cwd " + dir + ")"},
		{"no position", scenario.Agent{Command: []string{"nosuchcmd-xyz"}},
			"agent command nosuchcmd-xyz: not found in PATH: install it, or give its path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			e := CheckProgram(&tt.a, tt.a.Command[0], dir)
			if e != nil {
				got = e.Error()
			}
			if missing := e != nil && errors.Is(e, fs.ErrNotExist); missing != (tt.name == "no such file") {
				t.Errorf("CheckProgram = %v: errors.Is(fs.ErrNotExist) %v", e, missing)
			}
			if got != tt.want {
				t.Errorf("CheckProgram = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAgentNotFound: a run whose agent's program is not there ends the
// scenario with status error (exit 3) before it starts anything, saying
// so as validate --strict does: at the word of the command, with what to
// do, not exec's words.
func TestAgentNotFound(t *testing.T) {
	t.Parallel()
	rep := runScenarios(t, Options{}, "name: gone\nagent: {command: [nosuchcmd-xyz, --acp]}\npermissions: {}\nturns: [{prompt: hi}]\n", nil)
	r := rep.Scenarios[0]
	want := r.File + ":2:19: agent command nosuchcmd-xyz: not found in PATH: install it, or give its path"
	if r.Status != report.StatusError || !r.StartFailed || r.Error != want {
		t.Errorf("status %s, startFailed %v, error %q; want error, true, %q", r.Status, r.StartFailed, r.Error, want)
	}
	if code := exitOf(rep); code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
}
