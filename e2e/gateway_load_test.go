package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatewayScenarioDryRun: the plan shows each scenario's gateway as the file,
// the config and --gateway give it: the mode, where the cassettes are,
// each variable pointed at the gateway with the upstream it forwards to
// (the agent's own value from acprun's environment here) and the key
// variable; budgets with maxRequests; and an agent given by its command
// pointed by gateway.env.
func TestGatewayScenarioDryRun(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "defaults:\n  gateway: {mode: replay, dir: tapes}\nprices:\n  claude-sonnet-4-5: {input: 3, output: 15}\n",
		"suite/s.yaml": `name: named
agent: claude
budget: {maxRequests: 5}
permissions: {default: deny}
turns: [{prompt: hi, budget: {maxRequests: 2}}]
---
name: command
agent: {command: [my-agent], env: {MY_URL: "https://mine.example/v1"}}
gateway: {mode: record, env: MY_URL, key: MY_KEY}
permissions: {default: deny}
turns: [{prompt: hi}]
`,
	})
	env := []string{"ANTHROPIC_BASE_URL=https://corp.example/anthropic"}
	res := acprunEnv(t, dir, env, "run", "suite", "--dry-run", "--gateway-timing")
	if res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"  budget:   maxRequests 5 (for the whole scenario; the turn that passes it is cancelled)\n",
		"  gateway:  replay: answers from the cassettes under " + filepath.Join(dir, "tapes") + " with no network and a dummy key, at the recorded pace; prices for 1 model, in USD\n" +
			"    ANTHROPIC_BASE_URL (key ANTHROPIC_API_KEY)\n",
		`  turn 1:   "hi" (timeout 10m0s, expect end_turn, budget maxRequests 2)` + "\n",
		"  gateway:  record: forwards each model request to its upstream and keeps the exchange, redacted, in a cassette under " + filepath.Join(dir, "suite", "cassettes") + "; prices for 1 model, in USD\n" +
			// A value of the agent's env is redacted wherever it shows.
			"    MY_URL → [REDACTED] (key MY_KEY)\n",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the plan lacks %q:\n%s", want, res.stdout)
		}
	}

	res = acprunEnv(t, dir, env, "run", "suite", "--dry-run", "--gateway", "meter")
	if res.code != exitOK || strings.Count(res.stdout, "  gateway:  meter: forwards each model request to its upstream and counts what the agent spends") != 2 {
		t.Errorf("--gateway meter: exit %d, want both scenarios metered:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestGatewayScenarioErrors: a gateway acprun cannot set up is a usage error
// (exit 2) before anything runs, at its file:line:col with what to write.
func TestGatewayScenarioErrors(t *testing.T) {
	underRace(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "",
		"s.yaml": `name: s
agent: {command: [my-agent]}
gateway: {mode: replai}
budget: {maxRequests: 1}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: t
agent: {command: [my-agent]}
gateway: meter
permissions: {default: deny}
turns: [{prompt: hi}]
`,
		"u.yaml": "name: u\nagent: claude\nbudget: {maxRequests: 1}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	res := acprun(t, dir, "run", "s.yaml", "u.yaml")
	if res.code != exitUsage {
		t.Fatalf("exit %d, want 2\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		`s.yaml:3:17: unknown gateway mode "replai" (did you mean "replay"?)`,
		"s.yaml:10:10: acprun does not know how to point this agent at its gateway",
		"set gateway.env to the variable your agent reads its model base URL from, and gateway.upstream to that URL",
		"u.yaml:3:23: budget maxRequests counts the agent's model requests through acprun's gateway, and this scenario has none: add gateway: {mode: meter}",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if res.stdout != "" {
		t.Errorf("stdout: %q", res.stdout)
	}
	if res := acprun(t, dir, "run", "u.yaml", "--gateway", "meter", "--dry-run"); res.code != exitOK {
		t.Errorf("--gateway meter allows maxRequests: exit %d\n%s", res.code, res.stderr)
	}
}

// TestGatewayEnvNotASystemVariable: a gateway.env that names a variable
// the agent relies on (PATH, HOME, LD_*) or an API-key variable, which
// the gateway would set to its URL, and a gateway.key that names one of
// the system's, which a replay would set to a dummy key, are usage errors
// (exit 2) before anything runs, at their values, saying what to name;
// validate says so too, and the schema refuses them.
func TestGatewayEnvNotASystemVariable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": "name: s\nagent: {command: [sh, -c, 'touch ran']}\npermissions: {default: deny}\n" +
			"gateway: {mode: meter, env: PATH, upstream: 'https://api.example.com/v1'}\nturns: [{prompt: hi}]\n" +
			"---\nname: h\nagent: claude\npermissions: {default: deny}\ngateway: {mode: replay, env: HOME}\nturns: [{prompt: hi}]\n" +
			"---\nname: k\nagent: claude\npermissions: {default: deny}\ngateway: {mode: replay, env: ANTHROPIC_API_KEY}\nturns: [{prompt: hi}]\n" +
			"---\nname: l\nagent: {command: [sh, -c, 'touch ran']}\npermissions: {default: deny}\ngateway: {mode: replay, env: MY_URL, key: LD_PRELOAD}\nturns: [{prompt: hi}]\n",
	})
	const url = ", a variable the agent and the commands it runs rely on, which the gateway would set to its URL: name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL"
	want := []string{
		"s.yaml:4:29: gateway.env names PATH" + url,
		"s.yaml:10:30: gateway.env names HOME" + url,
		"s.yaml:16:30: gateway.env names ANTHROPIC_API_KEY, an API-key variable, which the gateway would set to its URL: name the variable the agent reads its model provider's base URL from, such as ANTHROPIC_BASE_URL (the key's goes in gateway.key)",
		"s.yaml:22:43: gateway.key names LD_PRELOAD, a variable the agent and the commands it runs rely on, which a replay would set to a dummy key: name the variable the agent reads its API key from (such as ANTHROPIC_API_KEY), or leave key out",
	}
	for _, cmd := range []string{"validate", "run"} {
		res := acprun(t, dir, cmd, "s.yaml")
		var got []string
		for _, l := range strings.Split(res.stderr, "\n") {
			if strings.HasPrefix(l, "s.yaml:") {
				got = append(got, l)
			}
		}
		if res.code != exitUsage || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: exit %d, want 2 and only\n%s\ngot:\n%s", cmd, res.code, strings.Join(want, "\n"), res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("an agent ran")
	}
	sch := schemaOf(t, "schema")
	for _, g := range []string{"{mode: meter, env: PATH}", "{mode: meter, env: ANTHROPIC_API_KEY}", "{mode: replay, env: X, key: LD_PRELOAD}"} {
		text := "name: s\nagent: claude\npermissions: {default: deny}\ngateway: " + g + "\nturns: [{prompt: hi}]\n"
		if err := sch.Validate(schemaInstance(t, text)); err == nil {
			t.Errorf("the schema takes gateway: %s", g)
		}
	}
}
