package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/scenario"
)

// TestTranscriptErrors: each replay transcript the agents of the
// scenarios play (a judge's too) is read as acprun replay reads it, and
// one it would refuse is an error at the word that names it, saying what
// replay says after the transcript's name; a good one is none, and the
// agents of a scenario with unset variables are not checked.
func TestTranscriptErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"t":0,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}` + "\n"
	files := map[string]string{
		"rec/good.jsonl":  good,
		"rec/bad.jsonl":   good + "not json\n",
		"rec/empty.jsonl": "",
		"s.yaml": "name: good\nagent: {replay: rec/good.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: bad\nagent: {replay: rec/bad.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: judged\nagent: {replay: rec/good.jsonl}\n" +
			"turns: [{prompt: hi, expect: {judge: {agent: {command: [acprun, replay, rec/empty.jsonl]}, rubric: ok}}}]\n" +
			"---\nname: unset\nagent: {command: [acprun, replay, \"${NOPE:-rec/bad.jsonl}${UNSET_HERE}\"]}\nturns: [{prompt: hi}]\n",
	}
	testkit.WriteFiles(t, dir, files)
	t.Chdir(dir)
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{DeferUnset: true, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range startErrors(scs) {
		got = append(got, e.Error(), e.Source)
	}
	want := []string{
		"s.yaml:6:17: agent: replay transcript rec/bad.jsonl: line 2, column 1: not a JSON object (a transcript has one JSON object per line); record it again with acprun run --transcripts DIR",
		"agent: {replay: rec/bad.jsonl}",
		"s.yaml:11:73: judge agent: replay transcript rec/empty.jsonl: the transcript is empty; record it again with acprun run --transcripts DIR",
		"turns: [{prompt: hi, expect: {judge: {agent: {command: [acprun, replay, rec/empty.jsonl]}, rubric: ok}}}]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("startErrors (-want +got):\n%s", diff)
	}
}

// TestScriptErrors: each mock agent script the agents of the scenarios
// play (a judge's, agent: {name: mock, args: [...]} and absolute paths
// too) is opened as the mock agent opens it, found beside the scenario
// file or in the agent's cwd; one it could not open (missing, a
// directory, a link that leads nowhere) is an error at the word that
// names it, and so is one that does not parse (the mock agent would exit
// before initialize with it), for run and validate alike; validate
// --strict adds none of its own for them. One missing from the agent's
// cwd, where setup may make it before the agent starts, is no error.
func TestScriptErrors(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"ok.mock.yaml":      "turns: [{steps: [{text: hi}]}]\n",
		"bad.mock.yaml":     "turns: [{stps: []}]\n",
		"work/in.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml": "name: good\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\nturns: [{prompt: hi}]\n" +
			"---\nname: in-cwd\nagent: {command: [acprun, mock-agent, in.mock.yaml], cwd: work}\nturns: [{prompt: hi}]\n" +
			"---\nname: missing\nagent: {command: [acprun, mock-agent, gone.mock.yaml]}\nturns: [{prompt: hi}]\n" +
			"---\nname: dir\nagent: {name: mock, args: [work]}\nturns: [{prompt: hi}]\n" +
			"---\nname: abs\nagent: {command: [acprun, mock-agent, /nonexistent/x.mock.yaml]}\nturns: [{prompt: hi}]\n" +
			"---\nname: link\nagent: {command: [acprun, mock-agent, link.mock.yaml]}\nturns: [{prompt: hi}]\n" +
			"---\nname: judged\nagent: {command: [acprun, mock-agent, ok.mock.yaml]}\n" +
			"turns: [{prompt: hi, expect: {judge: {agent: {command: [acprun, mock-agent, nojudge.mock.yaml]}, rubric: ok}}}]\n" +
			"---\nname: unparsed\nagent: {command: [acprun, mock-agent, bad.mock.yaml]}\nturns: [{prompt: hi}]\n" +
			"---\nname: made\nagent: {command: [acprun, mock-agent, made.mock.yaml]}\nsetup: [\"cp ok.mock.yaml made.mock.yaml\"]\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	if err := os.Symlink("moved.mock.yaml", "link.mock.yaml"); err != nil {
		t.Fatal(err)
	}
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	start := map[string]bool{}
	for _, e := range startErrors(scs) {
		got = append(got, e.Error(), e.Source)
		start[e.Error()] = true
	}
	want := []string{
		"s.yaml:10:39: agent: mock script gone.mock.yaml does not exist (looked for it next to s.yaml and in the agent's cwd " + dir + "): write the script there, or give its path",
		"agent: {command: [acprun, mock-agent, gone.mock.yaml]}",
		"s.yaml:14:28: agent: mock script work: not a regular file (a directory): give a file",
		"agent: {name: mock, args: [work]}",
		"s.yaml:18:39: agent: mock script /nonexistent/x.mock.yaml does not exist: write the script there, or give its path",
		"agent: {command: [acprun, mock-agent, /nonexistent/x.mock.yaml]}",
		"s.yaml:22:39: agent: mock script link.mock.yaml: a symbolic link to moved.mock.yaml, which does not exist",
		"agent: {command: [acprun, mock-agent, link.mock.yaml]}",
		"s.yaml:27:77: judge agent: mock script nojudge.mock.yaml does not exist (looked for it next to s.yaml and in the agent's cwd " + dir + "): write the script there, or give its path",
		"turns: [{prompt: hi, expect: {judge: {agent: {command: [acprun, mock-agent, nojudge.mock.yaml]}, rubric: ok}}}]",
		`s.yaml:30:39: mock script bad.mock.yaml does not parse: bad.mock.yaml:1:10: unknown key "stps" in turn (did you mean "steps"?)`,
		"agent: {command: [acprun, mock-agent, bad.mock.yaml]}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("startErrors (-want +got):\n%s", diff)
	}
	got = nil
	for _, e := range strictErrors(t.Context(), scs) {
		if !start[e.Error()] { // validate --strict says those once
			got = append(got, e.Error())
		}
	}
	if len(got) != 0 {
		t.Errorf("strictErrors %q; want none of its own (a script's problems are startErrors')", got)
	}
}

// TestConfigAgentErrors: a problem of a config agent's command, named by
// the scenario or put in by run --agent (WithAgent), is at its word in
// the config file, not at the scenario's agent; one with the flags that
// permissions.enforce adds says they are its, and how to leave them out.
func TestConfigAgentErrors(t *testing.T) {
	dir := t.TempDir()
	config := "agents:\n  mine: {command: [acprun, mock-agent, m.mock.yaml, extra]}\n  codex: {command: [acprun, mock-agent, m.mock.yaml]}\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"m.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"acprun.yaml": config,
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, m.mock.yaml]}\nturns: [{prompt: hi}]\n",
		"named.yaml":  "name: named\nagent: mine\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	opts := scenario.LoadOptions{LookupEnv: func(string) (string, bool) { return "x", true }}
	cfg, err := scenario.LoadConfig("acprun.yaml", opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Config = cfg
	scs, _, err := scenario.Load([]string{"s.yaml", "named.yaml"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mine", "codex"} {
		sc, err := scs[0].WithAgent(name, opts)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	var got []string
	for _, e := range startErrors(scs) {
		got = append(got, e.Error(), e.Source)
	}
	exits := ": the agent would exit before answering initialize; write acprun mock-agent <script>"
	want := []string{
		"acprun.yaml:2:53: agent: acprun mock-agent: unexpected argument extra" + exits,
		"  mine: {command: [acprun, mock-agent, m.mock.yaml, extra]}",
		`acprun.yaml:3:41: agent: acprun mock-agent: unknown flag -c, did you mean "-h"?` + exits +
			" (permissions.enforce adds -c approval_policy=untrusted to an agent named codex, to make it ask before it acts: set permissions.enforce: false to run its command as written)",
		"  codex: {command: [acprun, mock-agent, m.mock.yaml]}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("startErrors (-want +got):\n%s", diff)
	}
}

// TestWorkspaceStrictErrors: validate --strict reports a workspace that
// a run could not make at the value it is about (git for a directory that
// is not a repository, ref for a ref that names no commit); a repository
// and a ref it has are none, and the workspace of a scenario with unset
// variables is not checked (its unset variables are the errors).
func TestWorkspaceStrictErrors(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	for _, args := range [][]string{{"init", "--quiet", repo}, {"-C", repo, "commit", "--quiet", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	rest := "agent: {command: [sh]}\nturns: [{prompt: hi}]\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"plain/f": "x",
		"s.yaml": "name: plain\nworkspace: {git: plain}\n" + rest +
			"---\nname: bad-ref\nworkspace: {git: repo, ref: nope}\n" + rest +
			"---\nname: good\nworkspace: {git: repo, ref: HEAD}\n" + rest +
			"---\nname: unset\nworkspace: {git: repo, ref: \"${UNSET_HERE}\"}\n" + rest,
	})
	t.Chdir(dir)
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{DeferUnset: true, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range strictErrors(t.Context(), scs) {
		got = append(got, e.Error(), e.Source)
	}
	want := []string{
		"s.yaml:2:18: workspace: git " + filepath.Join(dir, "plain") + ": not a git repository (git rev-parse: fatal: not a git repository",
		"workspace: {git: plain}",
		"s.yaml:7:29: workspace: ref nope: unknown revision in " + repo + ": give a branch, tag or commit of it",
		"workspace: {git: repo, ref: nope}",
		"s.yaml:17:30: environment variable UNSET_HERE is not set (write ${UNSET_HERE:-default} to give a default)",
		`workspace: {git: repo, ref: "${UNSET_HERE}"}`,
	}
	ok := len(got) == len(want) // git words the first error's end
	for i := range min(len(got), len(want)) {
		ok = ok && strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("strictErrors = %q; want, each beginning with, %q", got, want)
	}
}

// TestUnaskedModeErrors: agent.config's option "mode" (claude's mode
// option) set to a mode in which the enforced agent does not ask is an
// error at its value, in the words of agent.mode's; another option, a
// mode that asks, or enforce: false is none.
func TestUnaskedModeErrors(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"s.yaml": "name: cfg\nagent: {name: claude, config: {effort: high, mode: bypassPermissions}}\nturns: [{prompt: hi}]\n" +
			"---\nname: other\nagent: {name: claude, config: {style: bypassPermissions}}\nturns: [{prompt: hi}]\n" +
			"---\nname: asks\nagent: {name: claude, config: {mode: acceptEdits}}\nturns: [{prompt: hi}]\n" +
			"---\nname: off\nagent: {name: claude, config: {mode: dontAsk}}\npermissions: {enforce: false}\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range startErrors(scs) {
		got = append(got, e.Error())
	}
	want := []string{`s.yaml:2:52: agent.config.mode: in mode "bypassPermissions" claude does not ask permission (it acts, or refuses, on its own), ` +
		`so permissions.enforce cannot make it ask and the permission rules would never be consulted: choose another mode, or set permissions.enforce: false to run in "bypassPermissions" on purpose`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("startErrors (-want +got):\n%s", diff)
	}
}

// TestCassetteStrictErrors: validate --strict reads the cassette that
// the first try of each scenario whose gateway replays (in the file, or by
// --gateway replay) reads before its agent starts, as the run reads it,
// and one replay would refuse (missing, of another version) is an error
// at the gateway value, in the run's words; one given its gateway by the
// flag has it at the scenario, saying so. A good cassette is none, and so
// is a missing one of a gateway that records, or of a retry.
func TestCassetteStrictErrors(t *testing.T) {
	dir := t.TempDir()
	gw := func(mode string) string { return "gateway: {mode: " + mode + ", env: ANTHROPIC_BASE_URL}\n" }
	rest := "agent: {command: [acprun, mock-agent, ok.mock.yaml]}\nturns: [{prompt: hi}]\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"ok.mock.yaml":                    "turns: [{steps: [{text: hi}]}]\n",
		"cassettes/good.cassette.json":    `{"version": 1, "exchanges": []}`,
		"cassettes/old.cassette.json":     `{"version": 0, "exchanges": []}`,
		"cassettes/retried.cassette.json": `{"version": 1, "exchanges": []}`,
		"s.yaml": "name: missing\n" + gw("replay") + rest +
			"---\nname: good\n" + gw("replay") + rest +
			"---\nname: old\n" + gw("replay") + rest +
			"---\nname: recorded\n" + gw("record") + rest +
			"---\nname: retried\nretries: 1\n" + gw("replay") + rest,
		"flag.yaml": "name: flagged\nagent: claude\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	cassette := func(name string) string { return filepath.Join(dir, "cassettes", name+".cassette.json") }
	for _, tt := range []struct {
		mode  string
		files []string
		want  []string
	}{
		{"", []string{"s.yaml"}, []string{
			"s.yaml:2:10: gateway: cassette " + cassette("missing") + " does not exist: record it with --gateway record",
			"gateway: {mode: replay, env: ANTHROPIC_BASE_URL}",
			"s.yaml:12:10: gateway: cassette " + cassette("old") + " is version 0; this acprun reads version 1: record it again with --gateway record",
			"gateway: {mode: replay, env: ANTHROPIC_BASE_URL}",
		}},
		{"replay", []string{"s.yaml", "flag.yaml"}, []string{
			"flag.yaml:1:1: gateway: cassette " + cassette("flagged@claude") + " does not exist: record it with --gateway record (--gateway replay gives every scenario a gateway)",
			"name: flagged",
			"s.yaml:2:10: gateway: cassette " + cassette("missing") + " does not exist: record it with --gateway record",
			"gateway: {mode: replay, env: ANTHROPIC_BASE_URL}",
			"s.yaml:12:10: gateway: cassette " + cassette("old") + " is version 0; this acprun reads version 1: record it again with --gateway record",
			"gateway: {mode: replay, env: ANTHROPIC_BASE_URL}",
			"s.yaml:17:10: gateway: cassette " + cassette("recorded") + " does not exist: record it with --gateway record",
			"gateway: {mode: record, env: ANTHROPIC_BASE_URL}",
		}},
	} {
		scs, _, err := scenario.Load(tt.files, scenario.LoadOptions{Gateway: tt.mode})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range strictErrors(t.Context(), scs) {
			if !strings.Contains(e.Msg, "agent command") { // claude is not installed here
				got = append(got, e.Error(), e.Source)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("--gateway %q: strictErrors (-want +got):\n%s", tt.mode, diff)
		}
	}
}

// TestMadeLaterStrictErrors: validate --strict leaves an agent command
// that is a path relative to the agent's cwd, missing there, to the
// agent's start when the scenario's setup commands or its git workspace
// may make it first, as it leaves a mock agent script; a command missing
// without setup, one given by its absolute path and one looked up in PATH
// are errors all the same.
func TestMadeLaterStrictErrors(t *testing.T) {
	dir := t.TempDir()
	setup := "setup: [\"touch x\"]\n"
	turns := "turns: [{prompt: hi}]\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"s.yaml": "name: made\n" + setup + "agent: {command: [./agent.sh]}\n" + turns +
			"---\nname: nested\n" + setup + "agent: {command: [node_modules/.bin/agent, --acp]}\n" + turns +
			"---\nname: judged\n" + setup + "agent: {command: [sh]}\nexpect: {judge: {agent: {command: [./judge.sh]}, rubric: ok}}\n" + turns +
			"---\nname: nosetup\nagent: {command: [./agent.sh]}\n" + turns +
			"---\nname: abs\n" + setup + "agent: {command: [/nonexistent/agent]}\n" + turns +
			"---\nname: path\n" + setup + "agent: {command: [no-such-agent-bin]}\n" + turns,
	})
	t.Chdir(dir)
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range strictErrors(t.Context(), scs) {
		got = append(got, e.Error())
	}
	want := []string{
		"s.yaml:18:19: agent command ./agent.sh: no such file (relative to the agent's cwd " + dir + ")",
		"s.yaml:23:19: agent command /nonexistent/agent: no such file",
		"s.yaml:28:19: agent command no-such-agent-bin: not found in PATH: install it, or give its path",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("strictErrors (-want +got):\n%s", diff)
	}
}

// TestValidateInterrupted: an interrupt stops validate's walk of the
// directories that workspaces copy; validate then exits 130, saying it
// was interrupted, and does not say the scenarios are valid.
func TestValidateInterrupted(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"src/a.txt": "a\n",
		"m.yaml":    "turns: []\n",
		"s.yaml":    "name: s\nagent: {command: [acprun, mock-agent, m.yaml]}\nworkspace: {from: src}\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	ctx, interrupt := context.WithCancelCause(context.Background())
	interrupt(errInterrupted)
	var stdout, stderr bytes.Buffer
	g := &globals{Stdout: &stdout, Stderr: &stderr}
	err := (&validateCmd{Paths: []string{"s.yaml"}}).Run(ctx, g)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != exitInterrupted || ee.err == nil || !strings.Contains(ee.err.Error(), "interrupted") {
		t.Errorf("Run = %#v; want exit %d saying interrupted", err, exitInterrupted)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q; want nothing", stdout.String())
	}
}

// TestValidateWarnsUnusedPrices: the config's prices, which no scenario's
// gateway applies, are warned about by validate as by run (and run
// --dry-run), once, at prices:, naming the scenarios as validate sees
// them (in the files validated, not of a run); not when --gateway gives
// every scenario a gateway.
func TestValidateWarnsUnusedPrices(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"acprun.yaml": "prices:\n  gpt-5: {input: 1, output: 2}\n",
		"m.yaml":      "turns: []\n",
		"s.yaml": "name: a\nagent: {command: [acprun, mock-agent, m.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n" +
			"---\nname: b\nagent: {command: [acprun, mock-agent, m.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	t.Chdir(dir)
	const warning = "acprun.yaml:2:3: warning: prices: no scenario in the files validated has a gateway, so the prices price nothing"
	for _, tt := range []struct {
		args []string
		want int // how many times the warning is printed
	}{
		{[]string{"validate", "--config", "acprun.yaml", "s.yaml"}, 1},
		{[]string{"validate", "--config", "acprun.yaml", "--gateway", "meter", "s.yaml"}, 0},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitOK || strings.Count(stderr.String(), warning) != tt.want || strings.Count(stderr.String(), "prices: no scenario") != tt.want {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant 0 and the warning %d times: %s", tt.args, code, stderr.String(), tt.want, warning)
		}
	}
}
