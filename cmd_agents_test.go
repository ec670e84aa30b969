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
