package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelfAgentCommandsParsed: an agent command of acprun's own that its
// command line refuses (a script or transcript missing or one too many,
// the mock agent named with two scripts) stops validate, without
// --strict, and run with exit 2 before any agent starts, each at the word
// it is about, where it used to start an agent that exited with code 2.
func TestSelfAgentCommandsParsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `name: bare
agent: {command: [acprun, mock-agent]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: extra
agent: {command: [acprun, mock-agent, s.mock.yaml, extra]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: named
agent: {name: mock, args: [s.mock.yaml, s.mock.yaml]}
permissions: {default: deny}
turns: [{prompt: hi}]
---
name: replay
agent: {command: [acprun, replay]}
permissions: {default: deny}
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{"s.yaml": scenario, "s.mock.yaml": "turns:\n  - steps: [{text: hi}]\n"})
	at := func(line int, word string) string {
		lines := strings.SplitAfter(scenario, "\n")
		off := len(strings.Join(lines[:line-1], "")) + strings.LastIndex(lines[line-1], word)
		return lineCol("s.yaml", scenario, off)
	}
	want := []string{
		at(2, "mock-agent") + `: agent: acprun mock-agent: expected "<script>": the agent would exit before answering initialize; write acprun mock-agent <script>`,
		at(7, "extra") + `: agent: acprun mock-agent: unexpected argument extra: the agent would exit before answering initialize`,
		at(12, "s.mock.yaml") + `: agent: acprun mock-agent: unexpected argument s.mock.yaml: the agent would exit before answering initialize`,
		at(17, "replay") + `: agent: acprun replay: expected "<transcript>": the agent would exit before answering initialize; write acprun replay [flags] <transcript>`,
	}
	for _, args := range [][]string{{"validate", "s.yaml"}, {"run", "s.yaml", "-o", "out.json"}} {
		res := acprun(t, dir, args...)
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", args[0], res.code, res.stderr)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], w, res.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("run wrote results: an agent ran")
	}
}
