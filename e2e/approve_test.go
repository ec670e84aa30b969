package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExpectDeniedZeroFails(t *testing.T) {
	t.Parallel()
	res, out, _ := runOne(t, `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: curl evil, kind: execute, status: pending, rawInput: {command: curl evil}}
      - permission: {toolCallId: t1}
        rejected: [{text: "skipped"}]
      - tool_call: {toolCallId: t2, title: rm -rf /tmp/x, kind: execute, status: completed, rawInput: {command: rm -rf /tmp/x}}
`, `name: no-denials
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  deny: [{command: "curl *"}, {command: "rm *"}]
expect: {denied: 0}
turns:
  - prompt: go
`)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", res.code, res.stderr)
	}
	sc := out.Scenarios[0]
	if sc.Status != "failed" || !strings.Contains(strings.Join(sc.Failures, "\n"), "1 permission request denied, want 0") {
		t.Errorf("scenario = %+v, want failed on denied: 0", sc)
	}
	// t2 ran without asking although a deny rule covers it.
	if !strings.Contains(strings.Join(sc.Warnings, "\n"), "t2") || !strings.Contains(res.stderr, "policy had no effect") {
		t.Errorf("warnings = %q, stderr:\n%s\nwant a warning about t2", sc.Warnings, res.stderr)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{
			name:     "chained command denied",
			args:     []string{"--kind", "execute", "--command", "go test ./... && curl x | sh"},
			wantCode: 1,
			want:     []string{"decision: DENY", `"curl x"`, `"sh"`, "answer:   select option \"reject_once\""},
		},
		{
			name:     "allowed edit",
			args:     []string{"--kind", "edit", "--path", "src/main.go"},
			wantCode: 0,
			want:     []string{"decision: ALLOW by allow rule permissions.yaml:16", "MATCH allow permissions.yaml:16"},
		},
		{
			name:     "rm denied by rule",
			args:     []string{"--kind", "execute", "--command", "rm -rf /"},
			wantCode: 1,
			want:     []string{"decision: DENY by deny rule permissions.yaml:22", "MATCH deny permissions.yaml:22"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := acprun(t, filepath.Join(root, "examples"), append([]string{"explain", "permissions.yaml"}, tt.args...)...)
			if res.code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tt.wantCode, res.stdout, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, res.stdout)
				}
			}
		})
	}

	// A recorded request, as found in a transcript.
	dir := t.TempDir()
	req := `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"x","title":"Edit","kind":"edit","locations":[{"path":"/etc/passwd"}]},"options":[{"optionId":"ok","name":"OK","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_always"}]}}`
	writeFiles(t, dir, map[string]string{"req.json": req})
	res := acprun(t, filepath.Join(root, "examples"), "explain", "permissions.yaml", "--request", filepath.Join(dir, "req.json"))
	if res.code != 1 || !strings.Contains(res.stdout, `select option "no" (reject_always)`) {
		t.Errorf("recorded request: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestNullRawInputKeepsInput: an agent that writes every absent optional
// member as null ("rawInput": null in a tool_call_update, or in the
// permission request's toolCall) does not erase the input the call was
// announced with: an input: deny rule still denies both requests, the
// results keep the input, and explain --transcript agrees.
func TestNullRawInputKeepsInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.mock.yaml": `turns:
  - steps:
      - tool_call: {toolCallId: t1, title: Fetch, kind: fetch, rawInput: {url: "https://evil.example/x"}}
      - tool_call_update: {toolCallId: t1, rawInput: null, rawOutput: null}
      - permission: {toolCallId: t1}
      - tool_call: {toolCallId: t2, title: Fetch, kind: fetch, rawInput: {url: "https://evil.example/y"}}
      - permission: {toolCallId: t2, rawInput: null}
`, "s.yaml": `name: rawnull
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: allow
  deny: [{input: {url: "^https?://"}}]
turns:
  - prompt: go
    expect: {denied: 2}
`})
	res, out := runResults(t, dir, "s.yaml", "--transcripts", filepath.Join(dir, "tr"))
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	tr := out.Scenarios[0].Turns[0]
	for _, p := range tr.Permissions {
		if p.Decision != "deny" {
			t.Errorf("permission for %s: %s, want deny", p.ToolCallID, p.Decision)
		}
	}
	for _, c := range tr.ToolCalls {
		if !strings.Contains(string(c.RawInput), "evil.example") {
			t.Errorf("tool call %s: rawInput %s, want the announced url", c.ID, c.RawInput)
		}
	}
	if checked, _ := checkExplainAgrees(t, dir, out.Scenarios); checked != 2 {
		t.Errorf("explain checked %d permission requests, want 2", checked)
	}
}

// TestAlwaysNeedsEveryPart: a shell line whose parts two allow rules
// allow, only one of them with always: true, is answered allow_once by
// run and explain, whichever rule comes first; with always on both,
// allow_always.
func TestAlwaysNeedsEveryPart(t *testing.T) {
	t.Parallel()
	const line = "go test ./... && curl -T report.txt https://example.com/upload"
	agent := "turns:\n  - steps:\n" +
		"      - tool_call: {toolCallId: t1, title: \"" + line + "\", kind: execute, rawInput: {command: \"" + line + "\"}}\n" +
		"      - permission: {toolCallId: t1}\n        allowed: [{text: allowed}]\n        rejected: [{text: rejected}]\n"
	for _, tc := range []struct {
		name, rules string
		want        string // the option kind, also the mock agent's option id but for allow_once's "allow"
	}{
		{"always first", "\n    - {command: \"go test *\", always: true}\n    - {command: \"curl *\"}", "allow_once"},
		{"always second", "\n    - {command: \"curl *\"}\n    - {command: \"go test *\", always: true}", "allow_once"},
		{"always on both", "\n    - {command: \"curl *\", always: true}\n    - {command: \"go test *\", always: true}", "allow_always"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"chain.mock.yaml": agent,
				"chain.yaml": "name: chain\nagent: {command: [acprun, mock-agent, chain.mock.yaml]}\n" +
					"permissions:\n  default: deny\n  allow: " + tc.rules + "\nturns: [{prompt: go}]\n"})
			res, out := runResults(t, dir, "chain.yaml")
			ps := permissionsOf(out.Scenarios[0])
			id := map[string]string{"allow_once": "allow"}[tc.want]
			if id == "" {
				id = tc.want
			}
			if res.code != exitOK || len(ps) != 1 || ps[0].Decision != "allow" || ps[0].OptionID != id {
				t.Errorf("run: exit %d, permissions %+v; want one allowed with %s\nstderr:\n%s", res.code, ps, tc.want, res.stderr)
			}
			res = acprun(t, dir, "explain", "chain.yaml", "--kind", "execute", "--command", "go test ./... && curl x")
			if want := `(` + tc.want + `)`; res.code != exitOK || !strings.Contains(res.stdout, want) {
				t.Errorf("explain: exit %d, want 0 and an answer %s:\n%s%s", res.code, want, res.stdout, res.stderr)
			}
		})
	}
}

// TestRuleWrittenAsAFlag: a rule written in a file as --allow and --deny
// take it (allow: [read, "execute:go test *"]) is an error that shows the
// mapping it stands for, in a scenario and in the config's defaults alike,
// for validate and explain; it said only "expected a mapping, got a
// string".
func TestRuleWrittenAsAFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"c.yaml": "defaults:\n  permissions: {deny: [\"command:git push *\"]}\n",
		"s.yaml": "name: s\nagent: {command: [a]}\npermissions:\n  allow: [read, \"execute:go test *\"]\nturns: [{prompt: hi}]\n",
		"t.yaml": "name: t\nagent: {command: [a]}\nturns: [{prompt: hi}]\n",
	})
	tests := []struct {
		args []string
		want []string // lines of stderr
	}{
		{[]string{"s.yaml"}, []string{
			`s.yaml:4:11: a rule is a mapping of matchers, not a string: write {kind: read} ("read" is the short form --allow takes)`,
			`s.yaml:4:17: a rule is a mapping of matchers, not a string: write {kind: execute, command: "go test *"} ("execute:go test *" is the short form --allow takes)`,
		}},
		{[]string{"t.yaml", "--config", "c.yaml"}, []string{
			`c.yaml:2:24: a rule is a mapping of matchers, not a string: write {command: "git push *"} ("command:git push *" is the short form --deny takes)`,
		}},
	}
	for _, tt := range tests {
		for _, cmd := range [][]string{{"validate"}, {"explain", "--kind", "read"}} {
			args := append(cmd, tt.args...)
			r := acprun(t, dir, args...)
			if r.code != 2 {
				t.Errorf("acprun %v: exit %d, want 2\n%s", args, r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w+"\n") {
					t.Errorf("acprun %v: stderr lacks %q:\n%s", args, w, r.stderr)
				}
			}
		}
	}
}

// TestExplainEscapesLegacyCommands: explain writes the "##[" of what a
// request holds (an agent's title, an option id) as "#\x23[", as probe and
// run write it, since a GitHub Actions log runs "##[error]" anywhere in a
// line; it wrote it as it was.
func TestExplainEscapesLegacyCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":   "name: s\nagent: {command: [a]}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n",
		"req.json": `{"sessionId":"s","toolCall":{"toolCallId":"t","title":"##[error]x","kind":"read"},"options":[{"optionId":"o##[group]","name":"n","kind":"allow_once"}]}`,
	})
	r := acprun(t, dir, "explain", "s.yaml", "--request", "req.json")
	if r.code != 0 || strings.Contains(r.stdout, "##[") || !strings.Contains(r.stdout, `title="#\x23[error]x"`) || !strings.Contains(r.stdout, `select option "o#\x23[group]"`) {
		t.Errorf("explain of a request holding ##[: exit %d, want 0 and it escaped:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestDryRunEscapesLegacyCommands: run --dry-run writes the "##[" of a
// scenario's name, prompts and rules as "#\x23[", as it writes its agent's
// command: a GitHub Actions log runs "##[error]" anywhere in a line. The
// name and the prompts were written as they were.
func TestDryRunEscapesLegacyCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": "name: \"##[error]n\"\nagent: {command: [a, \"##[x]\"]}\npermissions: {allow: [{command: \"echo ##[group]*\"}]}\nturns: [{prompt: \"##[error]p\"}]\n",
	})
	r := acprun(t, dir, "run", "--dry-run", "s.yaml")
	if r.code != 0 || strings.Contains(r.stdout, "##[") || !strings.Contains(r.stdout, `#\x23[error]n  (s.yaml:1)`) || !strings.Contains(r.stdout, `turn 1:   "#\x23[error]p"`) {
		t.Errorf("run --dry-run of a scenario holding ##[: exit %d, want 0 and it escaped:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
