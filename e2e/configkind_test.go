package e2e_test

import (
	"strings"
	"testing"
)

// TestConfigThatIsAnotherFileSaysWhat: `--config` given a mock agent
// script or a run's results (or an acprun.yaml that is one) says what the
// file is and what to do with it, before anything runs, not a list of
// unknown keys; validate, run and list alike.
func TestConfigThatIsAnotherFileSaysWhat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: hi}]}]\n",
		"s.yaml":      "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\nturns:\n  - prompt: one\n",
	})
	if res := acprun(t, dir, "run", "s.yaml", "-q", "-o", "r.json"); res.code != exitOK {
		t.Fatalf("the run that writes the results: exit %d\n%s", res.code, res.stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--config", "a.mock.yaml", "s.yaml"}, "a.mock.yaml: a mock agent script, not acprun's config file (defaults, named agents, prices, currency): a scenario's agent plays it"},
		{[]string{"run", "--config", "r.json", "s.yaml"}, "r.json: the results of a run (run -o), not acprun's config file (defaults, named agents, prices, currency): acprun report FILE shows them"},
		{[]string{"list", "--config", "r.json", "s.yaml"}, "r.json: the results of a run (run -o), not acprun's config file"},
	} {
		res := acprun(t, dir, tt.args...)
		if res.code != exitUsage || !strings.HasPrefix(res.stderr, tt.want) || strings.Contains(res.stderr, "unknown key") || res.stdout != "" {
			t.Errorf("acprun %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d and it to begin:\n%s", tt.args, res.code, res.stdout, res.stderr, exitUsage, tt.want)
		}
	}
}
