package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentsRedacted: acprun agents redacts its table as run --dry-run and
// probe redact the same command line: a config agent's env values, and the
// secret-looking variables of acprun's environment, in any agent's command
// or description.
func TestAgentsRedacted(t *testing.T) {
	const envSecret, environSecret = "supersecretvalue42", "sk-live-abcdef123456"
	t.Setenv("OPENAI_API_KEY", environSecret)
	config := filepath.Join(t.TempDir(), "acprun.yaml")
	data := `agents:
  sec:
    command: [env, "MY_TOKEN=` + envSecret + `", my-agent]
    env: {MY_API_KEY: ` + envSecret + `}
    description: "uses ` + envSecret + `"
  k:
    command: [my-agent, --api-key, ` + environSecret + `]
    description: "also knows ` + envSecret + `"
`
	if err := os.WriteFile(config, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"agents", "--config", config}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("acprun agents: exit %d\n%s", code, stderr.String())
	}
	for _, secret := range []string{envSecret, environSecret} {
		if strings.Contains(stdout.String(), secret) {
			t.Errorf("acprun agents shows %q:\n%s", secret, stdout.String())
		}
	}
	var lines []string
	for line := range strings.SplitSeq(stdout.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	for _, want := range []string{
		"k my-agent --api-key '[REDACTED]' - - " + config + " also knows [REDACTED]",
		"sec env 'MY_TOKEN=[REDACTED]' my-agent - - " + config + " uses [REDACTED]",
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("no line %q in:\n%s", want, stdout.String())
		}
	}
}

// TestAgentsWarnsOfWhatARunRefuses: acprun agents lists a config agent
// that a run or a probe of it would refuse (a variable it uses is unset
// here, its cwd is missing), warned of at the config's word, as probe
// says it; the table showed the unset variable as empty and said nothing.
func TestAgentsWarnsOfWhatARunRefuses(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "acprun.yaml")
	data := "agents:\n  v:\n    command: [\"${ACPRUN_TEST_UNSET_PROG}\", acp]\n  w:\n    command: [my-agent]\n    cwd: nodir\n  ok:\n    command: [my-agent]\n"
	if err := os.WriteFile(config, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"agents", "--config", config}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("acprun agents: exit %d\n%s", code, stderr.String())
	}
	want := config + ":3:16: warning: environment variable ACPRUN_TEST_UNSET_PROG is not set (write ${ACPRUN_TEST_UNSET_PROG:-default} to give a default)\n" +
		config + ":6:10: warning: agent cwd " + filepath.Join(dir, "nodir") + " does not exist: create that directory, or change cwd (a relative cwd is relative to " + dir + ")\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	for _, name := range []string{"ok ", "v ", "w "} {
		if !strings.Contains(stdout.String(), "\n"+name) {
			t.Errorf("no agent %q listed:\n%s", name, stdout.String())
		}
	}
}
