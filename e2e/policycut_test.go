package e2e_test

import (
	"strings"
	"testing"
)

// TestPolicyReasonCutRedacted: a permission's reason, and the error
// refusing a terminal command, quote a long command cut at 200 bytes; a
// secret the cut goes through shows none of its start in the results,
// the events, the HTML report, -v, nor in what acprun explain prints.
func TestPolicyReasonCutRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := "echo " + strings.Repeat("x", 185) + " " + cutKey + " done"
	writeFiles(t, dir, map[string]string{
		"m.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: run it, kind: execute, status: pending, rawInput: {command: "` + line + `"}}
      - permission: {toolCallId: t1}
      - terminal: {command: "` + line + `", waitForExit: true}
`,
		"s.yaml": `name: cut
agent:
  command: [acprun, mock-agent, m.yaml]
  env: {OPENAI_API_KEY: ` + cutKey + `}
client: {terminal: true}
permissions:
  default: deny
  allow: [{kind: [execute], command: ["ls *"]}]
turns:
  - prompt: hi
`,
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "r.json", "--html", "r.html", "--events", "e.jsonl")
	outs := map[string]string{"stderr": res.stderr, "stdout": res.stdout}
	for name, data := range readFiles(t, dir, "r.json", "r.html", "e.jsonl") {
		outs[name] = string(data)
	}
	for name, out := range outs {
		if showsPartOf(out, cutKey) {
			t.Errorf("%s shows a part of the key:\n%s", name, out)
		}
	}
	if n := strings.Count(outs["r.json"], `[REDACTED]…\"`); n < 2 {
		t.Errorf("r.json has %d commands cut at a secret, want the permission's and the terminal's:\n%s", n, outs["r.json"])
	}

	ex := acprun(t, dir, "explain", "s.yaml", "--kind", "execute", "--command", line)
	if showsPartOf(ex.stdout+ex.stderr, cutKey) || !strings.Contains(ex.stdout, `[REDACTED]…"`) {
		t.Errorf("explain shows a part of the key, or no cut of it:\nstdout:\n%s\nstderr:\n%s", ex.stdout, ex.stderr)
	}
}
