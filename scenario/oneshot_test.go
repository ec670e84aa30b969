package scenario_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// TestOneShot: the scenario of a run without a scenario file is named
// prompt, has no file, runs the named agent in the working directory, and
// has no permissions: every request is denied, as for a file scenario
// without a permissions key.
func TestOneShot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sc, _, err := scenario.OneShot("claude", opts)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != scenario.OneShotName || sc.File != "" || sc.Pos != scenario.OneShotPos {
		t.Errorf("name %q, file %q, pos %v; want prompt, no file, at --prompt", sc.Name, sc.File, sc.Pos)
	}
	if sc.Agent.Name != "claude" || sc.Agent.Cwd != wd || !cmp.Equal(sc.Client.Roots, []string{wd}) {
		t.Errorf("agent %q in %s, roots %v; want claude in the working directory %s", sc.Agent.Name, sc.Agent.Cwd, sc.Client.Roots, wd)
	}
	if sc.Agent.Pos.String() != "--agent claude" {
		t.Errorf("agent pos %v, want --agent claude", sc.Agent.Pos)
	}
	if sc.Enforce != scenario.EnforceOn {
		t.Errorf("enforce %q, want on: a named agent is made to ask", sc.Enforce)
	}
	if sc.Policy != nil {
		t.Errorf("policy %+v, want none", sc.Policy)
	}
	w, ok := sc.NoPermissionsWarning()
	if !ok || w.Pos != scenario.OneShotPos || !strings.Contains(w.Msg, "will be denied (allow some with --allow, e.g. --allow read") {
		t.Errorf("no-permissions warning %v %v, want one at --prompt that points to --allow", w, ok)
	}
	if len(sc.Turns) != 1 {
		t.Errorf("%d turns, want the one placeholder", len(sc.Turns))
	}
}

// TestOneShotConfig: the config's defaults apply to the one-shot scenario,
// and its default agent is used without --agent.
func TestOneShotConfig(t *testing.T) {
	cfg := loadConfig(t, `agents:
  mine: {command: [my-agent, --acp], mode: code}
defaults:
  agent: mine
  turnTimeout: 3m
  permissions: {allow: [{kind: read}]}
`)
	o := opts
	o.Config = cfg
	for _, agent := range []string{"", "mine"} {
		sc, _, err := scenario.OneShot(agent, o)
		if err != nil {
			t.Fatalf("%q: %v", agent, err)
		}
		if !cmp.Equal(sc.Agent.Command, []string{"my-agent", "--acp"}) || sc.Agent.Mode != "code" {
			t.Errorf("%q: agent %v mode %q, want the config's agent", agent, sc.Agent.Command, sc.Agent.Mode)
		}
		if sc.TurnTimeout != 3*time.Minute || sc.Policy == nil || len(sc.Policy.Allow) != 1 {
			t.Errorf("%q: turnTimeout %v, policy %+v; want the config's defaults", agent, sc.TurnTimeout, sc.Policy)
		}
	}
}

// TestOneShotErrors: no agent, an unknown one and the mock agent without
// its script are errors that say what to give.
func TestOneShotErrors(t *testing.T) {
	tests := []struct{ agent, want string }{
		{"", "no agent to send the prompt to: name one with --agent NAME"},
		{"claud", `unknown agent "claud" (did you mean "claude"?)`},
		{"mock", "the mock agent needs its script"},
	}
	for _, tt := range tests {
		_, _, err := scenario.OneShot(tt.agent, opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OneShot(%q): %v, want %q", tt.agent, err, tt.want)
		}
	}
}

// TestWithFlags: flag rules are added after the scenario's own (and make
// a policy for a scenario without one), --model and --mode replace the
// agent's; the scenario itself is unchanged.
func TestWithFlags(t *testing.T) {
	scs := loadWith(t, nil, `name: with
agent: {command: [a], model: small, mode: ask}
permissions: {default: deny, allow: [{kind: read}], deny: [{command: "rm *"}]}
turns: [{prompt: x}]
---
name: without
agent: {command: [a]}
turns: [{prompt: x}]
`)
	allow, err := approve.ParseFlagRule("--allow", "execute:go test *")
	if err != nil {
		t.Fatal(err)
	}
	deny, err := approve.ParseFlagRule("--deny", "path:**/.env")
	if err != nil {
		t.Fatal(err)
	}
	fs := scenario.FlagSettings{Allow: []approve.Rule{allow}, Deny: []approve.Rule{deny},
		Model: "big", ModelPos: scenario.Pos{File: "--model big"}, Mode: "code", ModePos: scenario.Pos{File: "--mode code"}}

	with := scs[0].WithFlags(fs)
	rules := func(rs []approve.Rule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Pos)
		}
		return out
	}
	if diff := cmp.Diff([]string{"/s/x.yaml:3:38", "--allow 'execute:go test *'"}, rules(with.Policy.Allow)); diff != "" {
		t.Errorf("allow rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/s/x.yaml:3:60", "--deny 'path:**/.env'"}, rules(with.Policy.Deny)); diff != "" {
		t.Errorf("deny rules (-want +got):\n%s", diff)
	}
	if with.Agent.Model != "big" || with.Agent.ModelPos != fs.ModelPos || with.Agent.Mode != "code" || with.Agent.ModePos != fs.ModePos {
		t.Errorf("model %q at %v, mode %q at %v; want big at --model big, code at --mode code", with.Agent.Model, with.Agent.ModelPos, with.Agent.Mode, with.Agent.ModePos)
	}
	if len(scs[0].Policy.Allow) != 1 || len(scs[0].Policy.Deny) != 1 || scs[0].Agent.Model != "small" || scs[0].Agent.Mode != "ask" {
		t.Errorf("the scenario itself changed: %+v, model %q", scs[0].Policy, scs[0].Agent.Model)
	}

	without := scs[1].WithFlags(fs)
	if without.Policy == nil || without.Policy.Default != "" || len(without.Policy.Allow) != 1 || len(without.Policy.Deny) != 1 {
		t.Errorf("policy %+v, want the flag rules alone, default deny", without.Policy)
	}
	if _, ok := without.NoPermissionsWarning(); ok {
		t.Error("a scenario given rules by flags is still warned of having no permissions")
	}
	d := without.Policy.Evaluate(approve.Request{Kind: "edit", Locations: []string{"/s/main.go"}, Cwd: "/s"})
	if d.Verdict != approve.Deny {
		t.Errorf("an edit no rule allows: %s, want deny (the default)", d.Verdict)
	}

	if same := scs[1].WithFlags(scenario.FlagSettings{}); same.Policy != nil || same.Agent.Model != "" {
		t.Errorf("no flags: policy %+v, model %q; want the scenario's own", same.Policy, same.Agent.Model)
	}
}

// TestRulesOnOneLineToldApart: rules in a list written on one line are
// named by their columns too, so that the results and explain tell which
// one decided (they were all "file:3"); a rule on a line of its own keeps
// its file and line.
func TestRulesOnOneLineToldApart(t *testing.T) {
	scs := loadWith(t, nil, `name: rules
agent: {command: [a]}
permissions:
  allow: [{kind: read}, {kind: edit}]
  deny:
    - {command: "rm *"}
    - kind: delete
turns: [{prompt: x}]
`)
	var got []string
	for _, r := range append(scs[0].Policy.Allow, scs[0].Policy.Deny...) {
		got = append(got, r.Pos)
	}
	want := []string{"/s/x.yaml:4:11", "/s/x.yaml:4:25", "/s/x.yaml:6", "/s/x.yaml:7"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules' names (-want +got):\n%s", diff)
	}
}
