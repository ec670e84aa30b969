package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestConfigFlagUnreadable: a --config file that cannot be read is an
// error that names the flag and the file once, not an error of a file
// acprun found itself; one that can be read is loaded.
func TestConfigFlagUnreadable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	if _, err := (configFlag{Config: missing}).config(); err == nil || err.Error() != "--config "+missing+": no such file or directory" {
		t.Errorf("missing --config: error %v, want it to name --config", err)
	}
	if _, err := (configFlag{Config: dir}).config(); err == nil || err.Error() != "--config "+dir+": not a regular file (a directory): give a file" {
		t.Errorf("--config DIR: error %v, want it to name --config", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (configFlag{Config: fifo}).config(); err == nil || err.Error() != "--config "+fifo+": not a regular file (a FIFO): give a file" {
		t.Errorf("--config FIFO: error %v, want it refused at once", err)
	}
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("agents: {mine: {command: [x]}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := (configFlag{Config: file}).config()
	if err != nil || cfg == nil || cfg.File != file {
		t.Errorf("--config %s: %+v, %v; want it loaded", file, cfg, err)
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
