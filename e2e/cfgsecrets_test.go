package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// cfgSecret is the value of an env variable of a config file's agent in
// the tests below: acprun redacts it from everything it prints, as a run
// does, whether or not a scenario uses that agent.
const cfgSecret = "cfgAgentSecret-9f8e7d6c"

// TestConfigSecretsRedactedOutsideTheRun: the secret of a config file's
// agent (its env value) is [REDACTED] in what acprun prints before and
// besides a run's outputs, as in the run's: the source line of a
// scenario's load error that repeats it (a syntax error or a bad key on
// that line), a warning, explain's output, validate's and list's and
// probe's errors, list's JSON, and the error a command ends with. The
// scenarios use another agent: every agent of the config is redacted, used
// or not. They were redacted of the loaded scenarios' secrets and the
// environment only.
func TestConfigSecretsRedactedOutsideTheRun(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	const mock = "agent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: allow}\n"
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  keyed:\n    command: [acprun, mock-agent, a.mock.yaml]\n    env: {SERVICE_KEY: \"" + cfgSecret + "\"}\n" +
			"  other:\n    command: [acprun, mock-agent, a.mock.yaml]\n    cwd: \"./" + cfgSecret + "\"\n",
		"a.mock.yaml": "turns: [{steps: [{text: ok}]}]\n",
		"proj/f":      "",
		"ok.yaml":     "name: ok\n" + mock + "turns: [{prompt: hi}]\n",
		"desc.yaml":   "name: desc\ndescription: \"calls with " + cfgSecret + "\"\n" + mock + "turns: [{prompt: hi}]\n",
		"syntax.yaml": "name: syntax\n" + mock + "turns: [{prompt: \"use " + cfgSecret + "\"}\n",
		"key.yaml":    "name: key\n" + mock + "turns: [{prompt: \"use " + cfgSecret + "\", bogus: 1}]\n",
		"warn.yaml": "name: warn\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./ws/" + cfgSecret + "\"}\n" +
			"permissions: {default: allow}\nworkspace: {from: proj}\nturns: [{prompt: hi}]\n",
		"ws/" + cfgSecret + "/f": "",
	})
	syntaxLine := "    4 | turns: [{prompt: \"use [REDACTED]\"}\n"
	keyLine := "    4 | turns: [{prompt: \"use [REDACTED]\", bogus: 1}]\n"
	warning := "warn.yaml:2:58: warning: agent.cwd " + filepath.Join(dir, "ws", "[REDACTED]") + " is outside the workspace"
	otherCwd := "agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist"
	tests := []struct {
		args []string
		code int
		want []string // in stdout and stderr
	}{
		{[]string{"validate", "syntax.yaml"}, 2, []string{syntaxLine}},
		{[]string{"validate", "key.yaml"}, 2, []string{keyLine}},
		{[]string{"validate", "warn.yaml"}, 0, []string{warning}},
		{[]string{"list", "key.yaml"}, 2, []string{keyLine}},
		{[]string{"list", "warn.yaml"}, 0, []string{warning}},
		{[]string{"list", "--json", "desc.yaml"}, 0, []string{`"description": "calls with [REDACTED]"`}},
		{[]string{"run", "--dry-run", "syntax.yaml"}, 2, []string{syntaxLine}},
		{[]string{"run", "key.yaml"}, 2, []string{keyLine}},
		{[]string{"run", "warn.yaml"}, 0, []string{warning}},
		{[]string{"run", "--agent", "other", "--prompt", "hi"}, 2, []string{otherCwd}},
		{[]string{"probe", "other"}, 2, []string{otherCwd}},
		{[]string{"explain", "key.yaml", "--kind", "read"}, 2, []string{keyLine}},
		{[]string{"explain", "ok.yaml", "--kind", "execute", "--command", "curl " + cfgSecret}, 0, []string{"curl [REDACTED]"}},
		{[]string{"explain", "--kind", "execute", "--command", "curl " + cfgSecret}, 1, []string{"curl [REDACTED]"}},
		{[]string{"run", "ok.yaml", "--junit", "/proc/" + cfgSecret + ".xml"}, 2, []string{"/proc/[REDACTED].xml"}},
	}
	for _, tt := range tests {
		res := acprun(t, dir, tt.args...)
		if res.code != tt.code || strings.Contains(res.stderr+res.stdout, cfgSecret) {
			t.Errorf("acprun %s: exit %d, want %d, and the config's secret redacted:\n%s%s", strings.Join(tt.args, " "), res.code, tt.code, res.stdout, res.stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.stdout+res.stderr, w) {
				t.Errorf("acprun %s: output\n%s%s\nwant it to hold %q", strings.Join(tt.args, " "), res.stdout, res.stderr, w)
			}
		}
	}
}

// TestBrokenConfigSecretsRedacted: a config file that does not load has
// its problems printed redacted of the secrets of what could be read of
// it: an agent's env value that the line of a problem repeats is
// [REDACTED] in that line.
func TestBrokenConfigSecretsRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml": "agents:\n  keyed:\n    command: [my-agent]\n    env: {SERVICE_KEY: \"" + cfgSecret + "\"}\n" +
			"    descripton: \"uses " + cfgSecret + "\"\n",
		"s.yaml": "name: s\nagent: {command: [my-agent]}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
	})
	const line = "    5 |     descripton: \"uses [REDACTED]\"\n"
	for _, args := range [][]string{
		{"validate", "s.yaml"},
		{"list", "s.yaml"},
		{"run", "s.yaml"},
		{"explain", "s.yaml", "--kind", "read"},
		{"agents"},
		{"probe", "keyed"},
	} {
		res := acprun(t, dir, args...)
		if res.code != 2 || strings.Contains(res.stderr+res.stdout, cfgSecret) || !strings.Contains(res.stderr, line) {
			t.Errorf("acprun %s: exit %d, want 2 and the config's problem with its line redacted (%q):\n%s%s", strings.Join(args, " "), res.code, line, res.stdout, res.stderr)
		}
	}
}
