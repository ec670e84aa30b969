package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestNULRefused: a NUL byte in a value handed to a program or the file
// system (argv, environment, cwd, roots, paths, shell lines, MCP servers)
// is an error at load, at the value, in the scenario and in the config's
// named agents alike, rather than a failure without a position at run time.
func TestNULRefused(t *testing.T) {
	base := dirsUnder(t, "cfg", "s/ws")
	cfgFile, scFile := base+"/cfg/acprun.yaml", base+"/s/x.yaml"
	const msg = ` contains a NUL byte, which no program can take: remove it`
	turns := "turns: [{prompt: hi}]\n"
	tests := []struct {
		name   string
		config string // "" for none
		src    string
		want   []string
	}{
		{
			name: "env value",
			src:  "name: x\nagent: {command: [a], env: {X: \"a\\0b\"}}\n" + turns,
			want: []string{scFile + `:2:32: "a\x00b"` + msg},
		},
		{
			name: "env name",
			src:  "name: x\nagent: {command: [a], env: {\"X\\0\": b}}\n" + turns,
			want: []string{scFile + `:2:29: "X\x00"` + msg},
		},
		{
			name: "command word",
			src:  "name: x\nagent: {command: [acprun, mock-agent, \"m.mock.yaml\\0\"]}\n" + turns,
			want: []string{scFile + `:2:39: "m.mock.yaml\x00"` + msg},
		},
		{
			name: "command string",
			src:  "name: x\nagent: {command: \"a b\\0\"}\n" + turns,
			want: []string{scFile + `:2:18: "a b\x00"` + msg},
		},
		{
			name: "cwd",
			src:  "name: x\nagent: {command: [a], cwd: \"\\0x\"}\n" + turns,
			want: []string{scFile + `:2:28: "\x00x"` + msg},
		},
		{
			name: "default in a variable",
			src:  "name: x\nagent: {command: [a], cwd: \"${NOPE:-\\0}\"}\n" + turns,
			want: []string{scFile + `:2:28: "\x00"` + msg},
		},
		{
			name: "roots",
			src:  "name: x\nagent: {command: [a]}\nclient: {roots: [\"r\\0\"]}\n" + turns,
			want: []string{scFile + `:3:18: "r\x00"` + msg},
		},
		{
			name: "workspace and setup",
			src:  "name: x\nagent: {command: [a]}\nworkspace: \"ws\\0\"\nsetup: [\"true\\0\", {run: \"x\\0\"}]\n" + turns,
			want: []string{
				scFile + `:3:12: "ws\x00"` + msg,
				scFile + `:4:9: "true\x00"` + msg,
				scFile + `:4:25: "x\x00"` + msg,
			},
		},
		{
			name: "expected file",
			src:  "name: x\nagent: {command: [a]}\nturns: [{prompt: hi}]\nexpect: {files: {exists: [\"a\\0\"]}}\n",
			want: []string{scFile + `:4:27: "a\x00"` + msg},
		},
		{
			name: "mcp server",
			src:  "name: x\nagent: {command: [a], mcpServers: [{name: m, command: \"m\\0\", args: []}]}\n" + turns,
			want: []string{scFile + `:2:55: "m\x00"` + msg},
		},
		{
			name:   "args of a named agent",
			config: "agents:\n  ok: {command: [a]}\n",
			src:    "name: x\nagent: {name: ok, args: [\"\\0\"]}\n" + turns,
			want:   []string{scFile + `:2:26: "\x00"` + msg},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, loadErrorLines(t, cfgFile, tt.config, scFile, tt.src)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNULRefusedInConfig: the config's named agents are checked as the
// scenario's are.
func TestNULRefusedInConfig(t *testing.T) {
	cfgFile := t.TempDir() + "/acprun.yaml"
	src := "agents:\n  bad: {command: [a], env: {X: \"a\\0b\"}, cwd: \"\\0\"}\n"
	_, err := scenario.LoadConfigBytes(cfgFile, []byte(src), opts)
	const msg = ` contains a NUL byte, which no program can take: remove it`
	want := []string{
		cfgFile + `:2:32: "a\x00b"` + msg,
		cfgFile + `:2:46: "\x00"` + msg,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
