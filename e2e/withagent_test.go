package e2e_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAgentFlagOfTheScenariosOwnAgent: --agent NAME on a scenario whose
// agent already is NAME runs that agent as the scenario has it: its
// model, mode and env (over the config agent's) stay, and the mock agent
// keeps the script its args give (examples/first with --agent mock).
func TestAgentFlagOfTheScenariosOwnAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": `models: {currentModelId: small, availableModels: [{modelId: small, name: S}, {modelId: big, name: B}]}
modes: {currentModeId: ask, availableModes: [{id: ask, name: Ask}, {id: code, name: Code}]}
turns:
  - steps: [{showConfig: true}, {spawn: 'printf "SHARED=%s" "$SHARED" > shared.txt'}]
`,
		"acprun.yaml": "agents:\n  ma: {command: [acprun, mock-agent, a.mock.yaml], env: {SHARED: from-config}, model: small, mode: ask}\n",
		"s.yaml":      "name: s\nagent: {name: ma, model: big, mode: code, env: {SHARED: from-scenario}}\nturns: [{prompt: hi}]\n",
	})
	const want = "model: big; mode: codespawn: exit 0: "
	for _, args := range [][]string{{"run", "s.yaml", "-o", "plain.json"}, {"run", "s.yaml", "--agent", "ma", "-o", "flag.json"}} {
		r := acprun(t, dir, args...)
		if r.code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		res := readResults(t, filepath.Join(dir, args[len(args)-1]))
		if len(res.Scenarios) != 1 || len(res.Scenarios[0].Turns) != 1 || res.Scenarios[0].Turns[0].Text != want {
			t.Errorf("%v: scenarios %+v; want one turn with text %q", args, res.Scenarios, want)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "shared.txt")); err != nil || string(data) != "SHARED=from-scenario" {
			t.Errorf("%v: the agent had %q (%v); want SHARED=from-scenario", args, data, err)
		}
	}
	first, err := filepath.Abs(filepath.Join(root, "examples", "first"))
	if err != nil {
		t.Fatal(err)
	}
	r := acprun(t, t.TempDir(), "run", first, "--agent", "mock")
	if r.code != exitOK {
		t.Errorf("run examples/first --agent mock: exit %d\n%s", r.code, r.stderr)
	}
}

// TestAgentFlagCwd: under --agent the session cwd is the scenario's own
// agent.cwd, else the named agent's cwd, else the scenario file's
// directory: never the cwd of the agent --agent replaces.
func TestAgentFlagCwd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"work/.keep":  "",
		"a.mock.yaml": "turns: [{steps: [{spawn: pwd}]}]\n",
		"acprun.yaml": "agents:\n  inwork: {command: [acprun, mock-agent, a.mock.yaml], cwd: ./work}\n  plain: {command: [acprun, mock-agent, a.mock.yaml]}\n",
		"s.yaml":      "name: names-plain\nagent: plain\nturns: [{prompt: hi}]\n---\nname: names-inwork\nagent: inwork\nturns: [{prompt: hi}]\n",
	})
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ agent, plain, inwork string }{
		{"inwork", "work", "work"},
		{"plain", "", ""},
	} {
		out := filepath.Join(dir, tt.agent+".json")
		r := acprun(t, dir, "run", "s.yaml", "--agent", tt.agent, "-o", out)
		if r.code != exitOK {
			t.Fatalf("--agent %s: exit %d\n%s", tt.agent, r.code, r.stderr)
		}
		res := readResults(t, out)
		want := map[string]string{"names-plain": tt.plain, "names-inwork": tt.inwork}
		for _, s := range res.Scenarios {
			if len(s.Turns) != 1 || s.Turns[0].Text != "spawn: exit 0: "+filepath.Join(real, want[s.Name]) {
				t.Errorf("--agent %s on %s: %+v; want it in %s", tt.agent, s.Name, s.Turns, filepath.Join(real, want[s.Name]))
			}
		}
	}
}
