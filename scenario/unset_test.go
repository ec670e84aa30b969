package scenario_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestDeferUnset checks that with LoadOptions.DeferUnset an unset variable
// is no error of the load but a problem of the scenario that uses it, in
// its own file or in a config agent it runs: UnsetErrors gives them for
// the scenarios selected, UnsetWarnings for the others. Problems of the
// file itself stay errors.
func TestDeferUnset(t *testing.T) {
	cfg := loadConfig(t, "agents:\n  keyed: {command: [a], env: {K: \"${NO_SUCH_KEY}\"}}\n")
	src := "name: plain\nagent: {command: [a]}\nturns: [{prompt: hi}]\n" +
		"---\nname: direct\nagent: {command: [a], env: {K: \"${NO_SUCH_KEY}\"}}\nturns: [{prompt: hi}]\n" +
		"---\nname: named\nagent: keyed\nturns: [{prompt: hi}]\n"
	scs, o := loadDeferred(t, cfg, src)
	const msg = "environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)"
	direct := "s.yaml:6:33: " + msg
	named := "/cfg/acprun.yaml:2:35: " + msg
	for i, want := range [][]string{nil, {direct}, {named}} {
		if diff := cmp.Diff(want, unsetLines(scs[i].Unset)); diff != "" {
			t.Errorf("scenario %s: Unset (-want +got):\n%s", scs[i].Name, diff)
		}
	}
	if errs := scenario.UnsetErrors(scs[:1]); errs != nil {
		t.Errorf("UnsetErrors(plain) = %v; want nil", errs)
	}
	// An --agent matrix repeats a scenario: each problem once.
	if diff := cmp.Diff([]string{named, direct}, unsetLines(scenario.UnsetErrors(append(scs, scs[1])))); diff != "" {
		t.Errorf("UnsetErrors(all) (-want +got):\n%s", diff)
	}
	if errs := scenario.UnsetErrors(scs[1:2]); len(errs) != 1 || errs[0].Source != `agent: {command: [a], env: {K: "${NO_SUCH_KEY}"}}` {
		t.Errorf("UnsetErrors(direct) = %#v; want the error with its source line", errs)
	}
	var warns []string
	for _, w := range scenario.UnsetWarnings(scs) {
		warns = append(warns, w.String())
	}
	want := []string{named + `; scenario "named" needs it to run`, direct + `; scenario "direct" needs it to run`}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("UnsetWarnings (-want +got):\n%s", diff)
	}

	// Without DeferUnset, the same file does not load.
	o.DeferUnset = false
	if _, _, err := scenario.LoadBytes("s.yaml", []byte(src), o); err == nil {
		t.Errorf("LoadBytes without DeferUnset = nil error; want the unset variable")
	}
	// A bad reference is the file's problem, deferred or not.
	o.DeferUnset = true
	if _, _, err := scenario.LoadBytes("s.yaml", []byte("name: x\nagent: {command: [a], env: {K: \"${NO_SUCH_KEY\"}}\nturns: [{prompt: hi}]\n"), o); err == nil {
		t.Errorf("LoadBytes of an unterminated reference = nil error; want it")
	}
}

// loadDeferred loads src as s.yaml with the config cfg and DeferUnset,
// and returns the options it used.
func loadDeferred(t *testing.T, cfg *scenario.Config, src string) ([]*scenario.Scenario, scenario.LoadOptions) {
	t.Helper()
	o := opts
	o.Config, o.DeferUnset = cfg, true
	scs, _, err := scenario.LoadBytes("s.yaml", []byte(src), o)
	if err != nil {
		t.Fatalf("LoadBytes with DeferUnset: %v", err)
	}
	return scs, o
}

// unsetLines is each error's Error().
func unsetLines(errs scenario.Errors) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// TestDeferUnsetWithAgent: an agent given by --agent (Select's Agents)
// whose config entry uses an unset variable is, with DeferUnset, a
// problem of each scenario run against it, as when the scenario names it:
// Select succeeds and the copies' Unset holds it (and the scenario's own);
// without DeferUnset it is an error of the selection.
func TestDeferUnsetWithAgent(t *testing.T) {
	cfg := loadConfig(t, "agents:\n  plain: {command: [a]}\n  keyed: {command: [a], env: {K: \"${NO_SUCH_KEY}\"}}\n")
	src := "name: own\nagent: {command: [a], env: {L: \"${NO_SUCH_OTHER}\"}}\nturns: [{prompt: hi}]\n"
	scs, o := loadDeferred(t, cfg, src)
	got, err := scenario.Select(scs, scenario.Selection{Agents: []string{"keyed", "plain"}}, o)
	if err != nil {
		t.Fatalf("Select --agent keyed --agent plain with DeferUnset: %v", err)
	}
	keyed := "/cfg/acprun.yaml:3:35: environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)"
	own := "s.yaml:2:33: environment variable NO_SUCH_OTHER is not set (write ${NO_SUCH_OTHER:-default} to give a default)"
	for i, want := range [][]string{{keyed, own}, {own}} {
		if diff := cmp.Diff(want, unsetLines(got[i].Unset)); diff != "" {
			t.Errorf("%s with agent %s: Unset (-want +got):\n%s", got[i].Name, got[i].Agent.Name, diff)
		}
	}
	if diff := cmp.Diff([]string{own}, unsetLines(scs[0].Unset)); diff != "" {
		t.Errorf("the loaded scenario's Unset changed (-want +got):\n%s", diff)
	}

	o.DeferUnset = false
	if _, err := scenario.Select(scs, scenario.Selection{Agents: []string{"keyed"}}, o); err == nil || !strings.Contains(err.Error(), "--agent keyed: ") || !strings.Contains(err.Error(), "NO_SUCH_KEY is not set") {
		t.Errorf("Select --agent keyed without DeferUnset = %v; want the unset variable", err)
	}
}

// TestDeferUnsetOfAReplacedAgent: with DeferUnset, a scenario run against
// another agent (--agent) no longer needs the unset variables of the
// values of its own agent that the other does not take: a named agent's
// env, a command, a config's default agent; it still needs those of its
// own env and cwd, which the other agent takes, and those of a judge's
// agent, even when the judge uses the same config agent.
func TestDeferUnsetOfAReplacedAgent(t *testing.T) {
	cfg := loadConfig(t, "defaults:\n  agent: {command: [d], env: {D: \"${NO_SUCH_DEFAULT}\"}}\n"+
		"agents:\n  plain: {command: [a]}\n  keyed: {command: [a], env: {K: \"${NO_SUCH_KEY}\"}}\n")
	src := "name: named\nagent: keyed\nturns: [{prompt: hi}]\n" +
		"---\nname: command\nagent: {command: [a, \"${NO_SUCH_ARG}\"]}\nturns: [{prompt: hi}]\n" +
		"---\nname: default\nturns: [{prompt: hi}]\n" +
		"---\nname: own\nagent: {name: keyed, env: {L: \"${NO_SUCH_OTHER}\"}}\nturns: [{prompt: hi}]\n" +
		"---\nname: judged\nagent: keyed\nturns: [{prompt: hi, expect: {judge: {agent: keyed, rubric: r}}}]\n"
	scs, o := loadDeferred(t, cfg, src)
	got, err := scenario.Select(scs, scenario.Selection{Agents: []string{"plain"}}, o)
	if err != nil {
		t.Fatalf("Select --agent plain: %v", err)
	}
	keyed := "/cfg/acprun.yaml:5:35: environment variable NO_SUCH_KEY is not set (write ${NO_SUCH_KEY:-default} to give a default)"
	own := "s.yaml:13:32: environment variable NO_SUCH_OTHER is not set (write ${NO_SUCH_OTHER:-default} to give a default)"
	want := map[string][]string{"named": nil, "command": nil, "default": nil, "own": {own}, "judged": {keyed}}
	for _, sc := range got {
		if diff := cmp.Diff(want[sc.Name], unsetLines(sc.Unset)); diff != "" {
			t.Errorf("%s with agent plain: Unset (-want +got):\n%s", sc.Name, diff)
		}
	}
	for _, sc := range scs {
		if len(sc.Unset) == 0 {
			t.Errorf("%s: the loaded scenario has no Unset; want its agent's", sc.Name)
		}
	}
}

// TestDeferUnsetOfDefaults: an unset variable in one of the config's
// defaults (other than agent, see TestDeferUnset) does not stop the config
// from loading: it is a problem of each scenario that uses that default,
// at its place in the config, and no problem of one whose own key
// replaces it (client's roots, as client merges key by key). A scenario
// with vars that renders a default with templates has it once, and not
// when its own key replaces it. Without
// DeferUnset, it is an error of the scenarios that use it alone.
func TestDeferUnsetOfDefaults(t *testing.T) {
	dir := t.TempDir()
	cfg := loadConfig(t, "defaults:\n"+
		"  client: {roots: [\"${NO_SUCH_ROOT}{{.d}}\"]}\n"+
		"  workspace: {from: \"${NO_SUCH_FIXTURES}\"}\n"+
		"  gateway: {mode: meter, env: B, upstream: \"${NO_SUCH_UPSTREAM}\"}\n"+
		"  session: {stateFile: \"${NO_SUCH_STATE}/{{.d}}.json\"}\n")
	const agent = "agent: {command: [a]}\nturns: [{prompt: hi}]\n"
	src := "name: uses\n" + agent +
		"---\nname: replaces\nclient: {roots: [.]}\nworkspace: " + dir + "\ngateway: {mode: meter, env: B, upstream: \"http://x\"}\nsession: {}\n" + agent +
		"---\nname: flags\nclient: {fs: false}\nworkspace: null\ngateway: null\nsession: {}\n" + agent +
		"---\nname: templated\nvars: {d: [x]}\nclient: {roots: [\"{{.d}}\"]}\nworkspace: null\ngateway: null\n" + agent +
		"---\nname: rendered\nvars: {d: [x]}\nclient: {fs: false}\nworkspace: null\ngateway: null\n" + agent
	scs, o := loadDeferred(t, cfg, src)
	unset := func(pos, name string) string {
		return "/cfg/acprun.yaml:" + pos + ": environment variable " + name + " is not set (write ${" + name + ":-default} to give a default)"
	}
	root, from, upstream, state := unset("2:21", "NO_SUCH_ROOT"), unset("3:22", "NO_SUCH_FIXTURES"), unset("4:45", "NO_SUCH_UPSTREAM"), unset("5:25", "NO_SUCH_STATE")
	want := map[string][]string{
		"uses":           {root, from, upstream, state},
		"replaces":       nil,
		"flags":          {root},
		"templated[d=x]": {state},
		"rendered[d=x]":  {root, state},
	}
	for _, sc := range scs {
		if diff := cmp.Diff(want[sc.Name], unsetLines(sc.Unset)); diff != "" {
			t.Errorf("scenario %s: Unset (-want +got):\n%s", sc.Name, diff)
		}
	}
	var warns []string
	for _, w := range scenario.UnsetWarnings(scs[1:3]) {
		warns = append(warns, w.String())
	}
	if diff := cmp.Diff([]string{root + `; scenario "flags" needs it to run`}, warns); diff != "" {
		t.Errorf("UnsetWarnings (-want +got):\n%s", diff)
	}

	// Without DeferUnset, a scenario that uses them does not load; one
	// that replaces them does.
	o.DeferUnset = false
	_, _, err := scenario.LoadBytes("s.yaml", []byte(src), o)
	if diff := cmp.Diff([]string{root, from, upstream, state}, errorLines(t, err)); diff != "" {
		t.Errorf("LoadBytes without DeferUnset: errors (-want +got):\n%s", diff)
	}
	if _, _, err := scenario.LoadBytes("s.yaml", []byte(src[strings.Index(src, "name: replaces"):strings.Index(src, "---\nname: flags")]), o); err != nil {
		t.Errorf("LoadBytes of a scenario that replaces the defaults: %v", err)
	}
}

// TestDeferUnsetOfGatewayUpstream: a gateway upstream that uses an unset
// variable is, with DeferUnset, the scenario's problem alone: the
// upstream is given, so nothing asks for one.
func TestDeferUnsetOfGatewayUpstream(t *testing.T) {
	src := "name: g\nagent: {command: [a]}\ngateway: {mode: meter, env: B, upstream: \"${NO_SUCH_UPSTREAM}/v1\"}\nturns: [{prompt: hi}]\n"
	scs, _ := loadDeferred(t, nil, src)
	want := []string{"s.yaml:3:43: environment variable NO_SUCH_UPSTREAM is not set (write ${NO_SUCH_UPSTREAM:-default} to give a default)"}
	if diff := cmp.Diff(want, unsetLines(scs[0].Unset)); diff != "" {
		t.Errorf("Unset (-want +got):\n%s", diff)
	}
}
