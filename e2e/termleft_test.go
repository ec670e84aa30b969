package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// TestTerminalLeftRunning: a terminal the agent never released, still
// running at the scenario's end, is killed with a warning naming it and
// its command, secrets redacted, in the results and on stderr; one it
// released, or whose command exited, is no warning.
func TestTerminalLeftRunning(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	const secret = "tok-8f3a9c1e5d7b2f4a6c"
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `turns:
  - steps:
      - terminal: {command: "sleep 1000 # ` + secret + `"}
      - terminal: {command: "sleep 999", release: true}
      - terminal: {command: "true", waitForExit: true}
      - text: started a server
`,
		"s.yaml": `name: left
agent: {command: [acprun, mock-agent, agent.mock.yaml], env: {API_TOKEN: "` + secret + `"}}
client: {terminal: true}
permissions: {default: allow}
turns: [{prompt: go}]
`,
	})
	res, out := runResults(t, dir, "s.yaml")
	if res.code != 0 || len(out.Scenarios) != 1 {
		t.Fatalf("exit %d, %d scenarios; want 0, 1\nstderr:\n%s", res.code, len(out.Scenarios), res.stderr)
	}
	var about []string
	for _, w := range out.Scenarios[0].Warnings {
		if strings.Contains(w, "terminal") {
			about = append(about, w)
		}
	}
	if len(about) != 1 || !strings.HasPrefix(about[0], `terminal term-1 ("sleep 1000 # `) ||
		!strings.HasSuffix(about[0], `") was still running at the scenario's end and was killed; the agent never released it`) {
		t.Errorf("warnings %q; want one about term-1 alone", out.Scenarios[0].Warnings)
	}
	if strings.Contains(res.stderr, secret) || slices.ContainsFunc(about, func(w string) bool { return strings.Contains(w, secret) }) {
		t.Errorf("the secret is in the warnings %q or on stderr:\n%s", about, res.stderr)
	}
	if !strings.Contains(res.stderr, "was still running at the scenario's end and was killed") {
		t.Errorf("stderr:\n%s\nwant the warning", res.stderr)
	}
}
