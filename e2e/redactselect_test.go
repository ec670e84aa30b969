package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/report"
)

// TestRedactionIgnoresTheSelection: a run of some of the scenarios (--run,
// --tag, --shard) redacts what a run of all of them does: the secrets of
// the scenarios it leaves out and of the config's agents it does not use,
// which its own agents can read from acprun's environment (here b's agent
// prints the variable a's agent and the config agent prod map into theirs).
func TestRedactionIgnoresTheSelection(t *testing.T) {
	t.Parallel()
	const scSecret, cfgSecret = "sk-ant-prod-0123456789", "sk-cfg-only-ABCDEF123456"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns:\n  - steps: [{spawn: \"printenv PROD_ANTHROPIC CFG_ONLY\"}]\n",
		"t.yaml": `name: a
tags: [first]
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {ANTHROPIC_API_KEY: "${PROD_ANTHROPIC}"}}
turns: [{prompt: hi}]
---
name: b
tags: [second]
agent: {command: [acprun, mock-agent, a.mock.yaml]}
turns: [{prompt: hi}]
`,
		"acprun.yaml": `agents:
  prod: {command: [acprun, mock-agent, a.mock.yaml], env: {ANTHROPIC_API_KEY: "${PROD_ANTHROPIC}", OTHER: "${CFG_ONLY}"}}
`,
	})
	env := []string{"PROD_ANTHROPIC=" + scSecret, "CFG_ONLY=" + cfgSecret}
	for _, sel := range [][]string{nil, {"--shard", "2/2"}, {"--run", "^b$"}, {"--tag", "second"}} {
		name := strings.Join(append([]string{"all"}, sel...), " ")
		out, tr := filepath.Join(dir, "out.json"), t.TempDir()
		args := append([]string{"run", "t.yaml", "-o", out, "--transcripts", tr}, sel...)
		r := acprunEnv(t, dir, env, args...)
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
		res := readResults(t, out)
		i := slices.IndexFunc(res.Scenarios, func(s report.Result) bool { return s.Name == "b" })
		if i < 0 || len(res.Scenarios[i].Turns) != 1 {
			t.Fatalf("%s: no b with one turn in %+v", name, res.Scenarios)
		}
		if got, want := res.Scenarios[i].Turns[0].Text, "spawn: exit 0: [REDACTED]\n[REDACTED]"; got != want {
			t.Errorf("%s: b's text %q; want %q", name, got, want)
		}
		data, err := os.ReadFile(filepath.Join(tr, "b.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{scSecret, cfgSecret} {
			if strings.Contains(string(data)+r.stdout+r.stderr, s) {
				t.Errorf("%s: b's transcript or acprun's output holds %q", name, s)
			}
		}
	}
}

// TestAgentsAndProbeSpareWhatARunSpares: acprun agents and acprun probe
// redact as a run does: a value of an agent's env that is part of the
// agent's name or of a word of the protocol (APP_MODE: agent) is no
// secret, so the table, the probe's text and its JSON keep the agent's
// name, commands and descriptions whole.
func TestAgentsAndProbeSpareWhatARunSpares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"acprun.yaml": `agents:
  greeter:
    command: [acprun, mock-agent, a.mock.yaml]
    env: {APP_MODE: agent, MODEL_NAME: greeter}
    description: An agent that greets
`,
	})
	agents := acprun(t, dir, "agents")
	probe := acprun(t, dir, "probe", "greeter", "-o", "probe.json")
	for name, r := range map[string]result{"agents": agents, "probe": probe} {
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "REDACTED") {
			t.Errorf("%s redacts what a run spares:\n%s", name, r.stdout)
		}
	}
	lines := squashLines(agents.stdout)
	for _, want := range []string{
		"greeter acprun mock-agent a.mock.yaml - - acprun.yaml An agent that greets",
		"claude npx -y @agentclientprotocol/claude-agent-acp",
	} {
		if !hasLinePrefix(lines, want) {
			t.Errorf("acprun agents: no line starting %q in:\n%s", want, agents.stdout)
		}
	}
	if !slices.Contains(squashLines(probe.stdout), "named agent: greeter") {
		t.Errorf("probe: no \"named agent: greeter\" in:\n%s", probe.stdout)
	}
	var saved struct{ Agent string }
	readJSON(t, filepath.Join(dir, "probe.json"), &saved)
	if saved.Agent != "greeter" {
		t.Errorf("probe -o: agent %q; want greeter", saved.Agent)
	}
}
