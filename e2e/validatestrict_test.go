package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateStrictCassette: validate --strict reads the cassette that a
// scenario whose gateway replays (in the file, or by --gateway replay)
// reads before its agent starts, and reports one missing at the gateway
// value in the words of the run, which would stop on it (exit 3); without
// --strict the file is valid, and with the cassette there validate
// --strict passes.
func TestValidateStrictCassette(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	rest := "permissions: {default: allow}\nturns: [{prompt: hi}]\n"
	writeFiles(t, dir, map[string]string{
		"gw.mock.yaml": "turns:\n  - steps:\n      - model: {api: anthropic, model: claude-sonnet-4-5, prompt: \"Answer: {{prompt}}\"}\n",
		"gw.yaml":      "name: gw\nagent: {command: [acprun, mock-agent, gw.mock.yaml]}\ngateway: {mode: replay, env: ANTHROPIC_BASE_URL}\n" + rest,
		"rec.yaml":     "name: rec\nagent: {command: [acprun, mock-agent, gw.mock.yaml]}\ngateway: {mode: record, env: ANTHROPIC_BASE_URL}\n" + rest,
	})
	missing := func(name string) string {
		return "gateway: cassette " + filepath.Join(dir, "cassettes", name+".cassette.json") + " does not exist: record it with --gateway record"
	}
	want := "gw.yaml:3:10: " + missing("gw")
	res := acprun(t, dir, "run", "gw.yaml", "-o", "r.json")
	if res.code != exitAgent || !strings.Contains(res.stderr, want+"\n") {
		t.Errorf("run: exit %d, want 3 and %q\n%s", res.code, want, res.stderr)
	}
	if res := acprun(t, dir, "validate", "gw.yaml"); res.code != exitOK {
		t.Errorf("validate: exit %d, want 0\n%s", res.code, res.stderr)
	}
	res = acprun(t, dir, "validate", "--strict", "gw.yaml")
	if res.code != exitUsage || res.stdout != "" || !strings.HasPrefix(res.stderr, want+"\n") ||
		!strings.Contains(res.stderr, "    3 | gateway: {mode: replay, env: ANTHROPIC_BASE_URL}\n      |          ^\n") {
		t.Errorf("validate --strict: exit %d, stdout %q; want 2, nothing, and %q first with its line\n%s", res.code, res.stdout, want, res.stderr)
	}
	// --gateway replay makes the recording scenario replay.
	if res := acprun(t, dir, "validate", "--strict", "rec.yaml"); res.code != exitOK {
		t.Errorf("validate --strict rec.yaml: exit %d, want 0\n%s", res.code, res.stderr)
	}
	want = "rec.yaml:3:10: " + missing("rec")
	res = acprun(t, dir, "validate", "--strict", "--gateway", "replay", "rec.yaml")
	if res.code != exitUsage || !strings.HasPrefix(res.stderr, want+"\n") {
		t.Errorf("validate --strict --gateway replay: exit %d, want 2 and %q first\n%s", res.code, want, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"cassettes/gw.cassette.json": `{"version": 1, "exchanges": []}`})
	if res := acprun(t, dir, "validate", "--strict", "gw.yaml"); res.code != exitOK {
		t.Errorf("validate --strict with the cassette: exit %d, want 0\n%s", res.code, res.stderr)
	}
}

// TestValidateStrictMadeBySetup: an agent command relative to the
// agent's cwd that the scenario's setup makes in the workspace's copy
// passes validate --strict, as the run it passes; without setup to make
// it, validate --strict reports it.
func TestValidateStrictMadeBySetup(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	rest := "agent: {command: [./agent.sh]}\npermissions: {default: allow}\nturns: [{prompt: hi, expect: {text: {contains: hello}}}]\n"
	writeFiles(t, dir, map[string]string{
		"project/ok.mock.yaml": "turns: [{steps: [{text: hello}]}]\n",
		"agent.sh.in":          "#!/bin/sh\nexec '" + acprunFor(t) + "' mock-agent ok.mock.yaml\n",
		"ws.yaml": "name: ws\nworkspace: {from: project}\n" +
			"setup: [\"cp '" + filepath.Join(dir, "agent.sh.in") + "' agent.sh && chmod +x agent.sh\"]\n" + rest,
		"nosetup.yaml": "name: nosetup\nworkspace: {from: project}\n" + rest,
	})
	if res := acprun(t, dir, "validate", "--strict", "ws.yaml"); res.code != exitOK {
		t.Errorf("validate --strict: exit %d, want 0\n%s", res.code, res.stderr)
	}
	if res := acprun(t, dir, "run", "ws.yaml", "-o", "r.json"); res.code != exitOK {
		t.Errorf("run: exit %d, want 0\n%s", res.code, res.stderr)
	}
	want := "nosetup.yaml:3:19: agent command ./agent.sh: no such file (relative to the agent's cwd " + filepath.Join(dir, "project") + ")\n"
	if res := acprun(t, dir, "validate", "--strict", "nosetup.yaml"); res.code != exitUsage || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("validate --strict nosetup.yaml: exit %d, want 2 and %q first\n%s", res.code, want, res.stderr)
	}
}
