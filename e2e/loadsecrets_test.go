package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadOutputsRedacted: the errors and warnings of loading scenarios
// and the config show [REDACTED] for a secret-looking variable's value
// that ${VAR} put in a path or URL, in validate, list, run --dry-run, run
// and probe alike, as a run's other outputs do; the file:line:col: prefix
// and the source line (which holds ${VAR}) stay, the caret under the
// column.
func TestLoadOutputsRedacted(t *testing.T) {
	t.Parallel()
	const secret = "e2eLoadSecretValue42"
	dir := realTempDir(t)
	const rest = "permissions: {default: allow}\nturns: [{prompt: one}]\n"
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml":         "turns: [{steps: [{text: ok}]}]\n",
		"proj/f":              "",
		"ws/" + secret + "/f": "",
		"git.yaml":            "name: git\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\nworkspace: {git: \"https://user:${E2E_LOAD_TOKEN}@example.invalid/r.git\"}\n" + rest,
		"cwd.yaml":            "name: cwd\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./${E2E_LOAD_TOKEN}\"}\n" + rest,
		"script.yaml":         "name: script\nagent: {command: [acprun, mock-agent, \"${E2E_LOAD_TOKEN}.mock.yaml\"]}\n" + rest,
		"warn.yaml":           "name: warn\nagent: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./ws/${E2E_LOAD_TOKEN}\"}\nworkspace: {from: proj}\n" + rest,
		"cfg.yaml":            "agents:\n  sec: {command: [acprun, mock-agent, a.mock.yaml], cwd: \"./${E2E_LOAD_TOKEN}\"}\n",
	})
	env := []string{"E2E_LOAD_TOKEN=" + secret}
	gitErr := "git.yaml:3:18: workspace " + filepath.Join(dir, "https:/user:[REDACTED]@example.invalid/r.git") + " does not exist" +
		": create it, or change git (a relative path is relative to " + dir + ")\n" +
		"    3 | workspace: {git: \"https://user:${E2E_LOAD_TOKEN}@example.invalid/r.git\"}\n" +
		"      |                  ^\n"
	cwdErr := "cwd.yaml:2:58: agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist"
	scriptErr := "script.yaml:2:39: agent: mock script [REDACTED].mock.yaml does not exist"
	warning := "warn.yaml:2:58: warning: agent.cwd " + filepath.Join(dir, "ws", "[REDACTED]") + " is outside the workspace"
	cfgErr := "cfg.yaml:2:58: agent cwd " + filepath.Join(dir, "[REDACTED]") + " does not exist"
	tests := []struct {
		args []string
		code int
		want []string // in stderr
	}{
		{[]string{"validate", "git.yaml"}, 2, []string{gitErr}},
		{[]string{"validate", "script.yaml"}, 2, []string{scriptErr}},
		{[]string{"validate", "warn.yaml"}, 0, []string{warning}},
		{[]string{"list", "cwd.yaml"}, 2, []string{cwdErr}},
		{[]string{"list", "warn.yaml"}, 0, []string{warning}},
		{[]string{"run", "--dry-run", "git.yaml"}, 2, []string{gitErr}},
		{[]string{"run", "--dry-run", "script.yaml"}, 2, []string{scriptErr}},
		{[]string{"run", "--dry-run", "warn.yaml"}, 0, []string{warning}},
		{[]string{"run", "cwd.yaml"}, 2, []string{cwdErr}},
		{[]string{"run", "script.yaml"}, 2, []string{scriptErr}},
		{[]string{"run", "warn.yaml"}, 0, []string{warning}},
		{[]string{"run", "--config", "cfg.yaml", "--agent", "sec", "--prompt", "hi"}, 2, []string{"--agent sec: " + cfgErr}},
		{[]string{"probe", "--config", "cfg.yaml", "sec"}, 2, []string{cfgErr}},
	}
	for _, tt := range tests {
		res := acprunEnv(t, dir, env, tt.args...)
		if res.code != tt.code || strings.Contains(res.stderr+res.stdout, secret) {
			t.Errorf("acprun %s: exit %d, want %d, and the secret redacted:\n%s%s", strings.Join(tt.args, " "), res.code, tt.code, res.stdout, res.stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("acprun %s: stderr\n%s\nwant it to hold %q", strings.Join(tt.args, " "), res.stderr, w)
			}
		}
	}
}
