package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPermissionRulesEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent, err := os.ReadFile(filepath.Join(root, "examples", "agents", "permissions.mock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": string(agent),
		"noreject.mock.yaml": `permissionOptions:
  - {optionId: yes, name: "Yes", kind: allow_once}
  - {optionId: always, name: "Always", kind: allow_always}
turns:
  - steps:
      - permission: {toolCallId: t1, title: rm -rf /, kind: execute, rawInput: {command: rm -rf /}}
        allowed: [{text: "ran"}]
        rejected: [{text: "skipped"}]
        cancelled: [{text: "cancelled"}]
`,
		"rules.yaml": `name: rules
agent: {command: [acprun, mock-agent, agent.mock.yaml]}
permissions:
  default: deny
  allow:
    - kind: edit
      path: "src/**"
    - command: "go test *"
  deny:
    - command: "rm -rf *"
turns:
  - prompt: go
    expect: {text: {contains: ["edit: applied", "rm: skipped", "test+upload: skipped"]}}
---
name: no-reject-option
agent: {command: [acprun, mock-agent, noreject.mock.yaml]}
permissions: {default: deny}
turns:
  - prompt: go
    expect: {stopReason: cancelled}
`,
	})
	res, out := runResults(t, dir, "rules.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	turn := out.Scenarios[0].Turns[0]
	if len(turn.Permissions) != 3 {
		t.Fatalf("permissions = %+v, want 3", turn.Permissions)
	}
	edit, rm, chain := turn.Permissions[0], turn.Permissions[1], turn.Permissions[2]
	if edit.Decision != "allow" || edit.OptionID != "allow" || edit.Rule != "rules.yaml:6" ||
		len(edit.Paths) != 1 || edit.Paths[0] != filepath.Join(dir, "src/greet.go") {
		t.Errorf("edit = %+v, want allowed by rules.yaml:6 with option allow", edit)
	}
	if rm.Decision != "deny" || rm.OptionID != "reject" || rm.Rule != "rules.yaml:10" {
		t.Errorf("rm = %+v, want denied by rules.yaml:10 with option reject", rm)
	}
	if chain.Decision != "deny" || chain.OptionID != "reject" || chain.Rule != "" ||
		strings.Join(chain.Commands, "|") != "go test ./...|curl -X POST https://example.com/report -d @report.json" {
		t.Errorf("chain = %+v, want denied by the default, the curl part not allowed", chain)
	}
	if out.Scenarios[0].Allowed != 1 || out.Scenarios[0].Denied != 2 {
		t.Errorf("allowed/denied = %d/%d, want 1/2", out.Scenarios[0].Allowed, out.Scenarios[0].Denied)
	}

	noReject := out.Scenarios[1].Turns[0]
	if len(noReject.Permissions) != 1 {
		t.Fatalf("no-reject permissions = %+v, want 1", noReject.Permissions)
	}
	if p := noReject.Permissions[0]; p.Decision != "deny" || p.Outcome != "cancelled" || p.OptionID != "" || !strings.Contains(p.Reason, "cancelled") {
		t.Errorf("no-reject permission = %+v, want deny answered cancelled with the reason", p)
	}
	if !strings.Contains(noReject.Text, "cancelled") {
		t.Errorf("no-reject text = %q, want the agent's cancelled branch", noReject.Text)
	}
}

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
