package e2e_test

import (
	"strings"
	"testing"
)

// TestValidateOtherFilesOfAcprun: the config file, a mock agent script
// and a gateway cassette named as scenario files get one line each that
// says what the file is and what takes it (exit 2), not an error for each
// of their keys.
func TestValidateOtherFilesOfAcprun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"acprun.yaml":     "defaults: {timeout: 5m}\n",
		"agent.mock.yaml": "agentInfo: {name: m}\nturns:\n  - steps: [{text: hi}]\n",
		"c.cassette.json": "{\n  \"version\": 1,\n  \"exchanges\": []\n}\n",
	})
	res := acprun(t, dir, "validate", "acprun.yaml", "agent.mock.yaml", "c.cassette.json")
	want := "acprun.yaml: acprun's config file (defaults, named agents, prices), not scenarios: acprun reads acprun.yaml in the working directory by itself; give another with --config FILE\n" +
		"agent.mock.yaml: a mock agent script, not scenarios: a scenario's agent plays it, agent: {name: mock, args: [FILE]} (acprun mock-agent --help describes it)\n" +
		"c.cassette.json: a model gateway cassette, not scenarios: a scenario whose gateway replays answers its agent's model requests from it (gateway: {mode: replay, dir: DIR})\n"
	if res.code != exitUsage || res.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", res.code, res.stderr, exitUsage, want)
	}
	if strings.Contains(res.stderr, "unknown key") {
		t.Errorf("stderr holds an error for a key:\n%s", res.stderr)
	}
}
