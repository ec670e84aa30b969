package scenario_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestAgentCwdErrors: a session cwd that is not a directory is an error at
// load, positioned at the cwd value that gave it: in the scenario, or in
// the config file for a named or default agent.
func TestAgentCwdErrors(t *testing.T) {
	base := dirsUnder(t, "cfg/work", "s/ok")
	if err := os.WriteFile(filepath.Join(base, "s/file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgFile, scFile := base+"/cfg/acprun.yaml", base+"/s/x.yaml"
	const agents = `agents:
  good: {command: [a], cwd: work}
  gone: {command: [a], cwd: ../nowhere}
`
	relS := "(a relative cwd is relative to " + base + "/s)"
	relCfg := "(a relative cwd is relative to " + base + "/cfg)"
	missing := func(dir, rel string) string {
		return "agent cwd " + dir + " does not exist: create that directory, or change cwd " + rel
	}
	tests := []struct {
		name   string
		config string // "" for none
		src    string
		want   []string
	}{
		{
			name: "scenario cwd missing",
			src:  "name: x\nagent: {command: [a], cwd: ./missing}\nturns: [{prompt: hi}]\n",
			want: []string{scFile + ":2:28: " + missing(base+"/s/missing", relS)},
		},
		{
			name: "scenario cwd through a variable",
			src:  "name: x\nagent:\n  command: [a]\n  cwd: ${NOPE:-gone}/deeper\nturns: [{prompt: hi}]\n",
			want: []string{scFile + ":4:8: " + missing(base+"/s/gone/deeper", relS)},
		},
		{
			name: "scenario cwd a file",
			src:  "name: x\nagent: {command: [a], cwd: file}\nturns: [{prompt: hi}]\n",
			want: []string{scFile + ":2:28: agent cwd " + base + "/s/file is not a directory: " +
				"cwd must name the directory the agent works in " + relS},
		},
		{
			name: "absolute cwd missing",
			src:  "name: x\nagent: {command: [a], cwd: " + base + "/abs}\nturns: [{prompt: hi}]\n",
			want: []string{scFile + ":2:28: " + missing(base+"/abs", relS)},
		},
		{
			name: "existing cwd and the default",
			src:  "name: x\nagent: {command: [a], cwd: ok}\nturns: [{prompt: hi}]\n---\nname: y\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
		},
		{
			name:   "named agent's cwd, reported once in the config",
			config: agents,
			src:    "name: x\nagent: gone\nturns: [{prompt: hi}]\n---\nname: y\nagent: {name: gone}\nturns: [{prompt: hi}]\n",
			want:   []string{cfgFile + ":3:29: " + missing(base+"/nowhere", relCfg)},
		},
		{
			name:   "named agent's cwd replaced by the scenario's",
			config: agents,
			src:    "name: x\nagent: {name: gone, cwd: ok}\nturns: [{prompt: hi}]\n---\nname: y\nagent: good\nturns: [{prompt: hi}]\n",
		},
		{
			name:   "unused named agent",
			config: agents,
			src:    "name: x\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
		},
		{
			name:   "default agent's cwd",
			config: "defaults:\n  agent: {command: [a], cwd: missing}\n",
			src:    "name: x\nturns: [{prompt: hi}]\n",
			want:   []string{cfgFile + ":2:30: " + missing(base+"/cfg/missing", relCfg)},
		},
		{
			name:   "default agent naming an agent with a bad cwd",
			config: agents + "defaults: {agent: gone}\n",
			src:    "name: x\nturns: [{prompt: hi}]\n",
			want:   []string{cfgFile + ":3:29: " + missing(base+"/nowhere", relCfg)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			if tt.config != "" {
				o.Config = loadConfigAt(t, cfgFile, tt.config)
			}
			_, _, err := scenario.LoadBytes(scFile, []byte(tt.src), o)
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
