package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/scenario"
)

// TestConfigFlagUnreadable: a --config file that cannot be read is an
// error that names the flag and the file once, not an error of a file
// acprun found itself; one that can be read is loaded.
func TestConfigFlagUnreadable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	if _, err := (configFlag{Config: missing}).config(&globals{}); err == nil || err.Error() != "--config "+missing+": no such file or directory" {
		t.Errorf("missing --config: error %v, want it to name --config", err)
	}
	if _, err := (configFlag{Config: dir}).config(&globals{}); err == nil || err.Error() != "--config "+dir+": not a regular file (a directory): give a file" {
		t.Errorf("--config DIR: error %v, want it to name --config", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (configFlag{Config: fifo}).config(&globals{}); err == nil || err.Error() != "--config "+fifo+": not a regular file (a FIFO): give a file" {
		t.Errorf("--config FIFO: error %v, want it refused at once", err)
	}
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("agents: {mine: {command: [x]}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := (configFlag{Config: file}).config(&globals{})
	if err != nil || cfg == nil || cfg.File != file {
		t.Errorf("--config %s: %+v, %v; want it loaded", file, cfg, err)
	}
}

// TestConfigNameInAnotherCase: without --config, an Acprun.yaml (or
// ACPRUN.YML) in the working directory, which a case-sensitive file
// system does not let acprun read as acprun.yaml, stops the command naming
// it, as an acprun.yml does, rather than being ignored where a
// case-insensitive one would have it read.
func TestConfigNameInAnotherCase(t *testing.T) {
	for _, name := range []string{"Acprun.yaml", "ACPRUN.YML"} {
		dir := t.TempDir()
		t.Chdir(dir)
		if err := os.WriteFile(name, []byte("defaults: {timeout: 1m}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(scenario.ConfigFile); err == nil {
			t.Skip("the file system does not tell names apart by case: acprun.yaml is that file")
		}
		_, err := (configFlag{}).config(&globals{})
		want := name + ": not read: acprun reads its config from acprun.yaml, in lower case; rename it, or pass --config " + name
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
}

// TestConfigLinkUnreadable: without --config, an acprun.yaml that is a
// symbolic link leading nowhere (or in a loop) says what to do about it,
// not only where it points; one that leads to a config is read.
func TestConfigLinkUnreadable(t *testing.T) {
	const hint = "; acprun reads its config from it: point the link at a config file, or remove it"
	for target, why := range map[string]string{
		"moved.yaml":  "a symbolic link to moved.yaml, which does not exist",
		"acprun.yaml": "a symbolic link to acprun.yaml: too many levels of symbolic links",
	} {
		t.Chdir(t.TempDir())
		if err := os.Symlink(target, scenario.ConfigFile); err != nil {
			t.Fatal(err)
		}
		want := "acprun.yaml: " + why + hint
		if _, err := (configFlag{}).config(&globals{}); err == nil || err.Error() != want {
			t.Errorf("link to %s: error %v, want %q", target, err, want)
		}
	}
	t.Chdir(t.TempDir())
	if err := errors.Join(os.WriteFile("real.yaml", []byte("defaults: {timeout: 1m}\n"), 0o644), os.Symlink("real.yaml", scenario.ConfigFile)); err != nil {
		t.Fatal(err)
	}
	if cfg, err := (configFlag{}).config(&globals{}); err != nil || cfg == nil {
		t.Errorf("link to a config: %v, %v; want it read", cfg, err)
	}
}

// TestLoadOutputsRedacted: the errors and warnings of loading scenarios
// and the config are redacted as a run's outputs are, whichever command
// loads them: a path or URL that ${VAR} filled in with a secret-looking
// variable's value shows [REDACTED], the file:line:col: prefix and the
// source line (which holds ${VAR}, not the value) as they are, the caret
// under the column.
func TestLoadOutputsRedacted(t *testing.T) {
	const secret = "supersecretvalue123"
	t.Setenv("MY_API_TOKEN", secret)
	dir := t.TempDir()
	const rest = "permissions: {default: allow}\nturns: [{prompt: one}]\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"a.mock.yaml":         "turns: [{steps: [{text: ok}]}]\n",
		"proj/f":              "",
		"ws/" + secret + "/f": "",
		"git.yaml":            "name: git\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nworkspace: {git: \"https://user:${MY_API_TOKEN}@example.invalid/r.git\"}\n" + rest,
		"cwd.yaml":            "name: cwd\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./${MY_API_TOKEN}\"}\n" + rest,
		"script.yaml":         "name: script\nagent: {command: [acprun, mock-agent, \"${MY_API_TOKEN}.mock.yaml\"]}\n" + rest,
		"warn.yaml":           "name: warn\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./ws/${MY_API_TOKEN}\"}\nworkspace: {from: proj}\n" + rest,
		"from.yaml":           "name: from\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nworkspace: {from: \"./ws/${MY_API_TOKEN}\"}\n" + rest,
		"cfg.yaml":            "agents:\n  sec: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./${MY_API_TOKEN}\"}\n",
	})
	t.Chdir(dir)
	tests := []struct {
		args []string
		code int
		want []string // in stderr
	}{
		{[]string{"validate", "git.yaml"}, exitUsage, []string{
			"git.yaml:3:18: workspace " + filepath.Join(dir, "https:/user:[REDACTED]@example.invalid/r.git") + " does not exist",
			"    3 | workspace: {git: \"https://user:${MY_API_TOKEN}@example.invalid/r.git\"}\n      |                  ^\n",
		}},
		{[]string{"list", "cwd.yaml"}, exitUsage, []string{
			"cwd.yaml:2:58: agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist",
			"    2 | agent: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./${MY_API_TOKEN}\"}\n      |" + strings.Repeat(" ", 58) + "^\n",
		}},
		{[]string{"explain", "cwd.yaml", "--command", "ls"}, exitUsage, []string{"cwd.yaml:2:58: agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist"}},
		{[]string{"run", "--dry-run", "script.yaml"}, exitUsage, []string{"script.yaml:2:39: agent: mock script [REDACTED].mock.yaml does not exist"}},
		{[]string{"validate", "warn.yaml"}, exitOK, []string{"warn.yaml:2:58: warning: agent.cwd " + filepath.Join(dir, "ws/[REDACTED]") + " is outside the workspace"}},
		{[]string{"list", "warn.yaml"}, exitOK, []string{"warn.yaml:2:58: warning: agent.cwd " + filepath.Join(dir, "ws/[REDACTED]") + " is outside the workspace"}},
		{[]string{"run", "--dry-run", "warn.yaml"}, exitOK, []string{"warn.yaml:2:58: warning: agent.cwd " + filepath.Join(dir, "ws/[REDACTED]") + " is outside the workspace"}},
		{[]string{"run", "--dry-run", "--config", "cfg.yaml", "--agent", "sec", "--prompt", "hi"}, exitUsage, []string{
			"--agent sec: cfg.yaml:2:58: agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist",
		}},
		{[]string{"run", "--dry-run", "--workspace-dir", "ws/" + secret + "/out", "from.yaml"}, exitUsage, []string{
			"acprun: --workspace-dir ws/[REDACTED]/out: it lies inside " + filepath.Join(dir, "ws/[REDACTED]") + ", the workspace source of scenario \"from\" (from.yaml:3:12)",
		}},
		{[]string{"probe", "--config", "cfg.yaml", "sec"}, exitUsage, []string{"cfg.yaml:2:58: agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist"}},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		got := stderr.String()
		if code != tt.code || strings.Contains(got, secret) || strings.Contains(stdout.String(), secret) {
			t.Errorf("acprun %s: exit %d, want %d, and the secret redacted:\n%s%s", strings.Join(tt.args, " "), code, tt.code, stdout.String(), got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("acprun %s: stderr\n%s\nwant it to hold %q", strings.Join(tt.args, " "), got, w)
			}
		}
	}
}

// TestRedactorKnowsTheConfig: once the config is loaded, what acprun
// prints (a file's problem with its source line, a warning, a command's
// error, explain's output: globals.redactor) is redacted of the env
// values of every agent of the config, named or defaults.agent, used by a
// scenario or not, as a run's outputs are; a config with problems, of
// those of what could be read of it, its own problems' lines among what
// is redacted. They were redacted of the scenarios' secrets and the
// environment only.
func TestRedactorKnowsTheConfig(t *testing.T) {
	const named, dflt = "namedAgentSecret-0a1b2c", "defaultAgentSecret-3d4e5f"
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"good.yaml": "agents:\n  keyed: {command: [x], env: {KEY: " + named + "}}\ndefaults:\n  agent: {command: [y], env: {OTHER: " + dflt + "}}\n",
		"bad.yaml":  "agents:\n  keyed: {command: [x], env: {KEY: " + named + "}}\n  bad name: {command: [z], description: " + named + "}\n",
		"s.yaml":    "name: s\nagent: {command: [z]}\nturns: [{prompt: \"" + named + " " + dflt + "\", bogus: 1}]\n",
	})
	said := "told " + named + " and " + dflt
	const want = "told [REDACTED] and [REDACTED]"

	g := &globals{}
	if got := g.redactor(nil).String(said); got != said {
		t.Errorf("before the config: redactor = %q, want nothing of it redacted", got)
	}
	cfg, err := (configFlag{Config: filepath.Join(dir, "good.yaml")}).config(g)
	if err != nil || cfg == nil {
		t.Fatalf("config: %v", err)
	}
	if got := g.redactor(nil).String(said); got != want {
		t.Errorf("redactor(nil) = %q, want %q", got, want)
	}
	var stderr bytes.Buffer
	g.Stderr = &stderr
	_, _, lerr := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{Config: cfg})
	_ = usageError(g, nil, lerr)
	printWarnings(g, nil, []scenario.Warning{{Pos: scenario.Pos{File: "s.yaml", Line: 1, Col: 1}, Msg: said}})
	commandExit(g, errors.New(said), &stderr)
	if got := stderr.String(); strings.Contains(got, named) || strings.Contains(got, dflt) ||
		!strings.Contains(got, `[{prompt: "[REDACTED] [REDACTED]", bogus: 1}]`) || strings.Count(got, want) != 2 {
		t.Errorf("printed:\n%s\nwant the source line, the warning and the error with the config's secrets redacted", got)
	}

	g = &globals{}
	stderr.Reset()
	g.Stderr = &stderr
	if _, err := (configFlag{Config: filepath.Join(dir, "bad.yaml")}).config(g); err == nil {
		t.Fatal("a config with a bad agent name loaded")
	} else {
		_ = usageError(g, nil, err)
	}
	if got := stderr.String(); strings.Contains(got, named) || !strings.Contains(got, "description: [REDACTED]}") {
		t.Errorf("the config's own problem printed:\n%s\nwant its line with the secret of the agent read redacted", got)
	}
}

// TestRedactorKnowsTheFailedScenarios: when scenario files do not load,
// what acprun prints from then on (their problems with their source lines,
// a warning, a command's error: globals.redactor) is redacted of the
// secrets of the scenarios as far as they were read, found as a run finds
// them (runner.Redactor): the failing file's own, defined before or after
// the line of its problem, in its agent's env or its MCP servers', and
// those of a file loaded with it that has no problem. They were printed
// in clear: a load with problems gives no scenarios.
func TestRedactorKnowsTheFailedScenarios(t *testing.T) {
	const own, mcp, other = "ownSecret-0a1b2c", "mcpSecret-3d4e5f", "otherSecret-6a7b8c"
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"a.yaml": "name: a\nagent: {command: [x], env: {KEY: " + other + "}}\nturns: [{prompt: hi}]\n",
		"b.yaml": "name: b\nturns: [{bogus: 1, prompt: \"" + own + " " + mcp + " " + other + "\"}]\n" +
			"agent:\n  command: [x]\n  env: {KEY: " + own + "}\n  mcpServers: [{name: m, command: /bin/m, env: [{name: TOKEN, value: " + mcp + "}]}]\n",
	})
	var stderr bytes.Buffer
	g := &globals{Stderr: &stderr}
	_, _, err := (&selection{}).load(g, []string{dir})
	if err == nil {
		t.Fatal("b.yaml loaded")
	}
	said := "told " + own + ", " + mcp + " and " + other
	const want = "told [REDACTED], [REDACTED] and [REDACTED]"
	commandExit(g, err, &stderr)
	printWarnings(g, nil, []scenario.Warning{{Pos: scenario.Pos{File: "b.yaml", Line: 1, Col: 1}, Msg: said}})
	commandExit(g, errors.New(said), &stderr)
	got := stderr.String()
	for _, s := range []string{own, mcp, other} {
		if strings.Contains(got, s) {
			t.Errorf("printed %q:\n%s", s, got)
		}
	}
	if !strings.Contains(got, `[{bogus: 1, prompt: "[REDACTED] [REDACTED] [REDACTED]"}]`) || strings.Count(got, want) != 2 {
		t.Errorf("printed:\n%s\nwant the source line, the warning and the error with the secrets redacted", got)
	}
}
