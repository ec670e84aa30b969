package scenario_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

func TestEnforce(t *testing.T) {
	const opencodeConfig = `{"permission":{"edit":"ask","bash":"ask"}}`
	for _, tc := range []struct {
		name, cfg, src string
		enforce        scenario.Enforce
		command        []string
		env            map[string]string
		warnings       []string
	}{
		{name: "a named agent asks by default",
			src:     "name: s\nagent: opencode\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOn, command: []string{"opencode", "acp"},
			env: map[string]string{"OPENCODE_CONFIG_CONTENT": opencodeConfig}},
		{name: "args go after the named agent's own",
			src:     "name: s\nagent: {name: gemini, args: [--debug]}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOn, command: []string{"npx", "-y", "@google/gemini-cli", "--acp", "--debug", "--approval-mode", "default"}},
		{name: "enforce false leaves the agent as it is",
			src:     "name: s\nagent: codex\npermissions: {enforce: false}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOff, command: []string{"npx", "-y", "@zed-industries/codex-acp"}},
		{name: "strict applies the settings too",
			src:     "name: s\nagent: codex\npermissions: {enforce: strict}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceStrict, command: []string{"npx", "-y", "@zed-industries/codex-acp", "-c", "approval_policy=untrusted"}},
		{name: "a command agent is left as it is",
			src:     "name: s\nagent: {command: [my-agent]}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOff, command: []string{"my-agent"}},
		{name: "strict on a command agent, without a warning",
			src:     "name: s\nagent: {command: [my-agent]}\npermissions: {enforce: strict}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceStrict, command: []string{"my-agent"}},
		{name: "enforce true where acprun knows no settings is warned about",
			src:     "name: s\nagent: {command: [my-agent]}\npermissions: {enforce: true}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOn, command: []string{"my-agent"},
			warnings: []string{"/s/x.yaml:3:24: permissions.enforce: acprun knows no settings that make this agent ask before it acts " +
				"(only claude, codex, gemini, opencode and qwen); enforce: strict fails a turn whose tool calls ran without asking"}},
		{name: "the agent's own value of a variable enforce sets is kept, and warned about",
			src:     "name: s\nagent: {name: opencode, env: {OPENCODE_CONFIG_CONTENT: '{}'}}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOn, command: []string{"opencode", "acp"},
			env: map[string]string{"OPENCODE_CONFIG_CONTENT": "{}"},
			warnings: []string{"/s/x.yaml:2:8: agent.env sets OPENCODE_CONFIG_CONTENT, which permissions.enforce sets to make opencode ask " +
				"before it acts; yours is kept, so opencode may act without asking: leave OPENCODE_CONFIG_CONTENT out, or set permissions.enforce: false"}},
		{name: "the config's defaults apply",
			cfg:     "defaults: {permissions: {default: deny, enforce: false}}\n",
			src:     "name: s\nagent: opencode\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOff, command: []string{"opencode", "acp"}},
		{name: "a scenario's permissions replace the config's enforce with theirs",
			cfg:     "defaults: {permissions: {default: deny, enforce: false}}\n",
			src:     "name: s\nagent: opencode\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
			enforce: scenario.EnforceOn, command: []string{"opencode", "acp"},
			env: map[string]string{"OPENCODE_CONFIG_CONTENT": opencodeConfig}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg *scenario.Config
			if tc.cfg != "" {
				cfg = loadConfig(t, tc.cfg)
			}
			s := loadWith(t, cfg, tc.src)[0]
			if s.Enforce != tc.enforce {
				t.Errorf("Enforce = %q, want %q", s.Enforce, tc.enforce)
			}
			if diff := cmp.Diff(tc.command, s.Agent.Command); diff != "" {
				t.Errorf("command (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.env, s.Agent.Env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
			var warnings []string
			for _, w := range s.Warnings {
				warnings = append(warnings, w.String())
			}
			if diff := cmp.Diff(tc.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnforceErrors(t *testing.T) {
	_, _, err := scenario.LoadBytes("/s/x.yaml", []byte("name: s\nagent: codex\npermissions: {enforce: always}\nturns: [{prompt: hi}]\n"), opts)
	want := `/s/x.yaml:3:24: unknown enforce "always" (valid values: true, false, strict)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}

// WithAgent settles the default of enforce for the agent it puts in, and
// keeps an explicit one.
func TestWithAgentEnforce(t *testing.T) {
	cmd := loadWith(t, nil, "name: s\nagent: {command: [my-agent]}\nturns: [{prompt: hi}]\n")[0]
	got, err := cmd.WithAgent("opencode", opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Enforce != scenario.EnforceOn || got.Agent.Env["OPENCODE_CONFIG_CONTENT"] == "" || got.Agent.Enforcement == nil {
		t.Errorf("WithAgent(opencode) of a command agent: Enforce %q, env %v, enforcement %v; want it enforced", got.Enforce, got.Agent.Env, got.Agent.Enforcement)
	}
	off := loadWith(t, nil, "name: s\nagent: {command: [my-agent]}\npermissions: {enforce: false}\nturns: [{prompt: hi}]\n")[0]
	got, err = off.WithAgent("codex", opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Enforce != scenario.EnforceOff || len(got.Agent.Command) != 3 || got.Agent.Enforcement != nil {
		t.Errorf("WithAgent(codex) with enforce: false: Enforce %q, command %q, enforcement %v; want it left as it is", got.Enforce, got.Agent.Command, got.Agent.Enforcement)
	}
}
