package e2e_test

import (
	"strings"
	"testing"
)

// quoteSecret holds a ', which acprun's shell quoting closes, escapes and reopens.
const quoteSecret = "Tr0ub4dor's-Horse-99"

// TestSecretsInAcprunsQuoting: a secret that acprun's own shell quoting
// would change (a ' in it) is redacted where acprun writes an argv or an
// env as a shell line: the permission record's commands and reason, a
// terminal's command line (allowed or refused), the events, the HTML
// report, and the agent command --dry-run prints.
func TestSecretsInAcprunsQuoting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `
name: quoted
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {DB_PASSWORD: "Tr0ub4dor's-Horse-99"}
client: {terminal: true}
permissions:
  default: deny
  allow: [{kind: execute, command: "psql *"}]
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `
turns:
  - steps:
      - tool_call: {toolCallId: c1, title: run psql, kind: execute, status: pending, rawInput: {command: ["psql", "--password=Tr0ub4dor's-Horse-99", "-c", "select 1"]}}
      - permission: {toolCallId: c1}
      - terminal: {command: psql, args: ["--password=Tr0ub4dor's-Horse-99"], env: {PGPASSWORD: "Tr0ub4dor's-Horse-99"}, waitForExit: true}
      - terminal: {command: mysql, args: ["-pTr0ub4dor's-Horse-99"]}
`,
		"s.yaml":   scenario,
		"dry.yaml": strings.Replace(scenario, "acprun, mock-agent, agent.mock.yaml", `sh, -c, 'exec my-agent "$0"', "--password=Tr0ub4dor's-Horse-99"`, 1),
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "r.json", "--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	if res.code > 1 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/quoted.jsonl")
	outputs["stderr"] = []byte(res.stdout + res.stderr)
	for _, want := range []string{
		`psql '--password=[REDACTED]' -c 'select 1'`,           // the permission's commands
		`PGPASSWORD='[REDACTED]' psql '--password=[REDACTED]'`, // the terminal's command
		`mysql '-p[REDACTED]'`,                                 // refused
	} {
		if !strings.Contains(string(outputs["r.json"]), want) {
			t.Errorf("the results lack %s\n%s", want, outputs["r.json"])
		}
	}

	dry := acprun(t, dir, "run", "dry.yaml", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.stdout, `'--password=[REDACTED]'`) {
		t.Errorf("--dry-run: exit %d, want the agent command with '--password=[REDACTED]'\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	outputs["--dry-run"] = []byte(dry.stdout + dry.stderr)
	noPartOf(t, quoteSecret, outputs)
	noPartOf(t, "Tr0ub4dor'\\''s-Horse-99", outputs)
}

// TestSecretsOverShellWords: a secret with a blank that an argv splits
// between words, some of which acprun's shell quoting quotes (a ' or a !
// in them), is redacted in the command lines acprun writes of the argv:
// the terminal's command (allowed or refused), the permission's commands
// and reason, and the agent command --dry-run prints. Each word alone is
// no secret; the line holds the secret as a shell reads it.
func TestSecretsOverShellWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `
name: words
agent:
  command: [acprun, mock-agent, agent.mock.yaml]
  env: {PASS1: "don't tell anyone", PASS2: "hunter2! now-1234"}
client: {terminal: true}
permissions:
  default: deny
  allow: [{kind: execute, command: "echo *"}]
turns: [{prompt: hi}]
`
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": `
turns:
  - steps:
      - tool_call: {toolCallId: c1, title: run mysql, kind: execute, status: pending, rawInput: {command: "mysql -p 'hunter2!' now-1234"}}
      - permission: {toolCallId: c1}
      - terminal: {command: echo, args: ["don't", "tell", "anyone"], waitForExit: true}
      - terminal: {command: mysql, args: ["-p", "hunter2!", "now-1234"]}
`,
		"s.yaml":   scenario,
		"dry.yaml": strings.Replace(scenario, "acprun, mock-agent, agent.mock.yaml", `my-agent, --say, "don't", tell, anyone`, 1),
	})
	res := acprun(t, dir, "run", "s.yaml", "-v", "-o", "r.json", "--junit", "junit.xml", "--events", "events.jsonl", "--transcripts", "tr", "--html", "r.html")
	if res.code > 1 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	outputs := readFiles(t, dir, "r.json", "junit.xml", "events.jsonl", "r.html", "tr/words.jsonl")
	outputs["stderr"] = []byte(res.stdout + res.stderr)
	for _, want := range []string{
		`"echo [REDACTED]"`,     // the terminal's command
		`"mysql -p [REDACTED]"`, // the permission's commands, and the refused terminal's
	} {
		if !strings.Contains(string(outputs["r.json"]), want) {
			t.Errorf("the results lack %s\n%s", want, outputs["r.json"])
		}
	}
	dry := acprun(t, dir, "run", "dry.yaml", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.stdout, `my-agent --say [REDACTED]`) {
		t.Errorf("--dry-run: exit %d, want the agent command with my-agent --say [REDACTED]\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	outputs["--dry-run"] = []byte(dry.stdout + dry.stderr)
	for name, out := range outputs {
		// The transcript keeps the agent's own messages, whose args are
		// JSON arrays: no shell line, and no word of them a secret.
		for _, leak := range []string{"tell anyone", `'don'\''t' tell`, `hunter2!' now`, `hunter2!'\'' now`, `hunter2!\u0027 now`} {
			if strings.Contains(string(out), leak) {
				t.Errorf("%s holds %s:\n%s", name, leak, out)
			}
		}
	}
}
