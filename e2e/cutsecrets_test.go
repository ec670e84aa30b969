package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// throughSecret is the agent env value of the tests below: a secret that a
// message's cut goes through.
const throughSecret = "sk_live_CutThroughSecret0123456789"

// noSecretPart fails t when out holds 4 bytes or more of the start of
// throughSecret: all a cut through it leaves.
func noSecretPart(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(out, throughSecret[:4]) {
		t.Errorf("%s shows the start of the secret %q:\n%s", what, throughSecret[:4], out)
	}
}

// TestValidateExampleLongCommand: the error of a rule example that does
// not match quotes the command that decided whole, not cut at 200 bytes:
// a secret of the scenario that the cut went through was shown in part,
// since the message's redaction no longer recognized what was left of it.
func TestValidateExampleLongCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The secret starts 191 bytes into the command: a cut at 200 leaves 9.
	command := "deploy " + strings.Repeat("a", 175) + " --token " + throughSecret
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: ok}]}]\n",
		"s.yaml": `name: ex
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {API_KEY: "` + throughSecret + `"}}
permissions:
  default: deny
  allow:
    - kind: execute
      command: "go test *"
      examples:
        match: ["` + command + `"]
turns: [{prompt: one}]
`,
	})
	res := acprun(t, dir, "validate", "s.yaml")
	if res.code != exitUsage {
		t.Errorf("exit %d, want %d\n%s", res.code, exitUsage, res.stderr)
	}
	shown := strings.ReplaceAll(command, throughSecret, "[REDACTED]")
	if want := `should match but does not ("` + shown + `" matches none of ["go test *"])`; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr\n%s\nwant it to hold %q", res.stderr, want)
	}
	noSecretPart(t, "validate", res.stdout+res.stderr)
}

// TestDryRunPromptCutRedacted: run --dry-run shows a turn's prompt cut at
// 60 characters; a secret of the scenario (its agent's env value, which
// the prompt quotes) where the cut goes through is [REDACTED], not shown
// in part.
func TestDryRunPromptCutRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: ok}]}]\n",
		// The secret starts at character 46: a cut at 60 left 15.
		"s.yaml": `name: plan
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {API_KEY: "` + throughSecret + `"}}
permissions: {default: deny}
turns: [{prompt: "` + strings.Repeat("p", 45) + throughSecret + ` and more"}]
`,
	})
	res := acprun(t, dir, "run", "--dry-run", "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	if want := `  turn 1:   "` + strings.Repeat("p", 45) + `[REDACTED] and …" (`; !strings.Contains(res.stdout, want) {
		t.Errorf("stdout\n%s\nwant it to hold %q", res.stdout, want)
	}
	noSecretPart(t, "run --dry-run", res.stdout+res.stderr)
}

// TestLeftoverCommandCutRedacted: the warning naming what the agent left
// running outside its process group cuts each command line at 80 bytes;
// a secret the cut goes through is [REDACTED], in the results and on
// stderr, not shown in part.
func TestLeftoverCommandCutRedacted(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := realTempDir(t)
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	// The daemon's command line: sh -c SCRIPT PAD SECRET, the secret
	// starting 71 bytes in (a cut at 80 leaves 9). It tells that it runs
	// through the FIFO, so that it is there when the agent is stopped.
	script := "echo > ready; sleep 1000; :" // in the session cwd, dir
	pad := strings.Repeat("p", 71-len("sh -c ")-len(script)-2)
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": `turns:
  - steps:
      - spawn: "(setsid sh -c '` + script + `' ` + pad + ` \"$E2E_CUT_TOKEN\" </dev/null >/dev/null 2>&1 &); read x < ready"
      - text: done
`,
		"s.yaml": `name: left
agent: {command: [acprun, mock-agent, a.mock.yaml], env: {E2E_CUT_TOKEN: "` + throughSecret + `"}}
permissions: {default: allow}
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	warnings := strings.Join(out.Scenarios[0].Warnings, "\n")
	if want := "acprun killed them: sh -c " + script + " " + pad + " [REDACTED]…"; !strings.Contains(warnings, want) {
		t.Errorf("warnings %q, want one holding %q", warnings, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	noSecretPart(t, "run", res.stdout+res.stderr+string(data))
}

// TestTerminalLeftCommandCutRedacted: the warning about a terminal the
// agent left running quotes its command cut at 80 bytes; a secret the cut
// goes through is [REDACTED], in the results and on stderr, not shown in
// part.
func TestTerminalLeftCommandCutRedacted(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	// The secret starts 71 bytes into the command: a cut at 80 leaves 9.
	head := "sleep 1000 # " + strings.Repeat("p", 71-len("sleep 1000 # ")-1) + " "
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "` + head + throughSecret + `"}
      - text: started a server
`,
		"s.yaml": `name: left
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {API_TOKEN: "` + throughSecret + `"}}
client: {terminal: true}
permissions: {default: allow}
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != exitOK {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	warnings := strings.Join(out.Scenarios[0].Warnings, "\n")
	if want := `terminal term-1 ("` + head + `[REDACTED]…") was still running`; !strings.Contains(warnings, want) {
		t.Errorf("warnings %q, want one holding %q", warnings, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	noSecretPart(t, "run", res.stdout+res.stderr+string(data))
}
