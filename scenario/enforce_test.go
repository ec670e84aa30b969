package scenario_test

import (
	"slices"
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

// A session mode known to stop an agent made to ask from asking is a
// problem, whether the scenario, its config agent or run's --mode sets it;
// with enforce: false it is the user's choice.
func TestUnaskedModeProblem(t *testing.T) {
	cfg := loadConfig(t, "agents:\n  yolo: {command: [my-agent]}\n")
	for _, tc := range []struct {
		name, src, flagMode string
		mode                string // the mode of the problem; "" for none
	}{
		{name: "claude bypassPermissions", src: "agent: {name: claude, mode: bypassPermissions}\n", mode: "bypassPermissions"},
		{name: "claude dontAsk", src: "agent: {name: claude, mode: dontAsk}\n", mode: "dontAsk"},
		{name: "strict too", src: "agent: {name: claude, mode: dontAsk}\npermissions: {enforce: strict}\n", mode: "dontAsk"},
		{name: "claude acceptEdits still asks", src: "agent: {name: claude, mode: acceptEdits}\n"},
		{name: "claude plan still asks", src: "agent: {name: claude, mode: plan}\n"},
		{name: "enforce false", src: "agent: {name: claude, mode: bypassPermissions}\npermissions: {enforce: false}\n"},
		{name: "codex full-access", src: "agent: {name: codex, mode: full-access}\n", mode: "full-access"},
		{name: "codex agent-full-access", src: "agent: {name: codex, mode: agent-full-access}\n", mode: "agent-full-access"},
		{name: "claude auto", src: "agent: {name: claude, mode: auto}\n", mode: "auto"},
		{name: "qwen yolo", src: "agent: {name: qwen, mode: yolo}\n", mode: "yolo"},
		{name: "qwen auto-edit", src: "agent: {name: qwen, mode: auto-edit}\n", mode: "auto-edit"},
		{name: "qwen auto", src: "agent: {name: qwen, mode: auto}\n", mode: "auto"},
		{name: "qwen default asks", src: "agent: {name: qwen, mode: default}\n"},
		{name: "gemini yolo", src: "agent: {name: gemini, mode: yolo}\n", mode: "yolo"},
		{name: "gemini autoEdit", src: "agent: {name: gemini, mode: autoEdit}\n", mode: "autoEdit"},
		{name: "gemini default asks", src: "agent: {name: gemini, mode: default}\n"},
		{name: "an agent acprun knows nothing of", src: "agent: {name: yolo, mode: yolo}\n"},
		{name: "--mode", src: "agent: {name: claude, mode: default}\n", flagMode: "bypassPermissions", mode: "bypassPermissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loadWith(t, cfg, "name: s\n"+tc.src+"turns: [{prompt: hi}]\n")[0]
			if tc.flagMode != "" {
				s = s.WithFlags(scenario.FlagSettings{Mode: tc.flagMode, ModePos: scenario.Pos{File: "--mode " + tc.flagMode}})
			}
			got := s.Agent.UnaskedModeProblem()
			if tc.mode == "" {
				if got != "" {
					t.Errorf("problem %q, want none", got)
				}
				return
			}
			want := "agent.mode: in mode \"" + tc.mode + "\" " + s.Agent.Name + " does not ask permission (it acts, or refuses, on its own)"
			if !strings.HasPrefix(got, want) || !strings.Contains(got, "permissions.enforce: false") {
				t.Errorf("problem %q, want it to start %q and say permissions.enforce: false", got, want)
			}
		})
	}
	mine := loadConfig(t, "agents:\n  claude: {command: [claude-agent-acp], mode: dontAsk}\n")
	s := loadWith(t, mine, "name: s\nagent: claude\nturns: [{prompt: hi}]\n")[0]
	if s.Agent.UnaskedModeProblem() == "" || s.Agent.ModePos.String() != "/cfg/acprun.yaml:2:47" {
		t.Errorf("the config's claude in mode dontAsk: problem %q at %s, want one at /cfg/acprun.yaml:2:47", s.Agent.UnaskedModeProblem(), s.Agent.ModePos)
	}
}

// UnaskedMode says the problem of any key that sets the mode in the same
// words as agent.mode's; AsksNot holds only for an agent made to ask;
// UnaskedModes, the modes no option acprun chooses may switch to, are the
// named agent's whether it is made to ask or not.
func TestUnaskedMode(t *testing.T) {
	s := loadWith(t, loadConfig(t, ""), "name: s\nagent: {name: claude, config: {mode: dontAsk}}\nturns: [{prompt: hi}]\n")[0]
	got := s.Agent.UnaskedMode("agent.config.mode", "dontAsk")
	want := `agent.config.mode: in mode "dontAsk" claude does not ask permission (it acts, or refuses, on its own), so permissions.enforce cannot make it ask ` +
		`and the permission rules would never be consulted: choose another mode, or set permissions.enforce: false to run in "dontAsk" on purpose`
	if got != want {
		t.Errorf("UnaskedMode = %q, want %q", got, want)
	}
	if s.Agent.UnaskedMode("agent.config.mode", "acceptEdits") != "" || !s.Agent.AsksNot("bypassPermissions") || s.Agent.AsksNot("default") {
		t.Errorf("acceptEdits is a problem, or AsksNot(bypassPermissions) is false, or AsksNot(default) is true")
	}
	off := loadWith(t, loadConfig(t, ""), "name: s\nagent: claude\npermissions: {enforce: false}\nturns: [{prompt: hi}]\n")[0]
	if off.Agent.AsksNot("bypassPermissions") || off.Agent.UnaskedMode("agent.config.mode", "bypassPermissions") != "" {
		t.Errorf("with enforce: false, bypassPermissions is a problem")
	}
	want2 := []string{"bypassPermissions", "dontAsk", "auto"}
	if !slices.Equal(s.Agent.UnaskedModes(), want2) || !slices.Equal(off.Agent.UnaskedModes(), want2) {
		t.Errorf("UnaskedModes = %q, with enforce: false %q; want %q for both", s.Agent.UnaskedModes(), off.Agent.UnaskedModes(), want2)
	}
	if m := (&scenario.Agent{}).UnaskedModes(); m != nil {
		t.Errorf("an agent given by its command: UnaskedModes = %q, want none", m)
	}
	// The ExitPlanMode options of @agentclientprotocol/claude-agent-acp,
	// by the mode each switches to, whether made to ask or not.
	if m := s.Agent.ModeOptions(); m["exit-plan-auto"] != "auto" || m["exit-plan-clear-bypass"] != "bypassPermissions" || off.Agent.ModeOptions()["exit-plan-bypass"] != "bypassPermissions" {
		t.Errorf("ModeOptions = %q, with enforce: false %q; want exit-plan-auto auto, exit-plan-*bypass bypassPermissions", m, off.Agent.ModeOptions())
	}
	if m := (&scenario.Agent{}).ModeOptions(); m != nil {
		t.Errorf("an agent given by its command: ModeOptions = %q, want none", m)
	}
}
