package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainRedacted: explain redacts what it prints of a made-up or
// --request request as a run of the scenario would: the scenario's env
// values and the secret-looking variables of acprun's environment.
func TestExplainRedacted(t *testing.T) {
	const envSecret, environSecret = "sk-live-ABCDEF123456", "tokenvalue-abcdef99"
	t.Setenv("MY_API_TOKEN", environSecret)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	req := filepath.Join(dir, "req.json")
	if err := os.WriteFile(file, []byte("name: a\nagent: {command: [my-agent], env: {SECRET: \""+envSecret+"\"}}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(req, []byte(`{"sessionId":"s","toolCall":{"toolCallId":"t","title":"use `+envSecret+`","kind":"execute","rawInput":{"command":"echo `+environSecret+`"}},"options":[{"optionId":"a","name":"a","kind":"allow_once"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--command", "echo " + envSecret + " " + environSecret, "--path", "/tmp/" + envSecret},
		{"--request", req},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"explain", file}, args...), strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("acprun explain %q: exit %d\n%s", args, code, stderr.String())
		}
		out := stdout.String()
		if strings.Contains(out, "ABCDEF") || strings.Contains(out, "abcdef99") || !strings.Contains(out, `commands: "echo [REDACTED]`) {
			t.Errorf("acprun explain %q: want the secrets redacted:\n%s", args, out)
		}
	}
}

// TestExplainNeverBypasses: explain answers claude's ExitPlanMode, under
// a rule with always: true, with the option run would choose: an
// allow_always one that keeps claude asking, not bypassPermissions.
func TestExplainNeverBypasses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	req := filepath.Join(dir, "req.json")
	if err := os.WriteFile(file, []byte("name: a\nagent: claude\npermissions: {allow: [{tool: ExitPlanMode, always: true}]}\nturns: [{prompt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(req, []byte(`{"sessionId":"s","toolCall":{"toolCallId":"t","title":"Ready to code?","kind":"switch_mode","name":"ExitPlanMode"},`+
		`"options":[{"optionId":"bypassPermissions","name":"Yes, and bypass permissions","kind":"allow_always"},{"optionId":"acceptEdits","name":"Yes, and auto-accept edits","kind":"allow_always"},`+
		`{"optionId":"default","name":"Yes, and manually approve edits","kind":"allow_once"},{"optionId":"plan","name":"No, keep planning","kind":"reject_once"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"explain", file, "--request", req}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("acprun explain: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if want := `answer:   select option "acceptEdits" (allow_always)`; !strings.Contains(stdout.String(), want) {
		t.Errorf("acprun explain:\n%s\nwant %q", stdout.String(), want)
	}
}

// TestExplainRequestViolationsRedacted: the protocol violations explain
// --request warns of, as a run records them, are at their place in the
// request (stdin's is "stdin") and redacted as a run of the scenario
// would redact them: a malformed value is quoted in its warning.
func TestExplainRequestViolationsRedacted(t *testing.T) {
	const envSecret = "sk-live-ABCDEF123456"
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("name: a\nagent: {command: [my-agent], env: {SECRET: \""+envSecret+"\"}}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := "\ufeff{\"toolCall\": {\"toolCallId\": \"t\", \"kind\": \"read\",\n  \"locations\": [{\"path\": \"a\", \"line\": \"" + envSecret + "\"}]}}"
	var stdout, stderr bytes.Buffer
	if code := run([]string{"explain", file, "--request", "-"}, strings.NewReader(req), &stdout, &stderr); code != exitOK {
		t.Fatalf("acprun explain: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	want := `stdin:2:39: warning: protocol violation: session/request_permission t: toolCall.locations[0].line: want a non-negative integer, got string "[REDACTED]"; the field took its default` + "\n"
	if !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "ABCDEF") {
		t.Errorf("acprun explain stderr:\n%s\nwant %q, and the secret redacted", stderr.String(), want)
	}
}

// TestExplainEscapesLegacyCommands: explain writes the "##[" of what a
// request holds (an agent's title, an option id) as "#\x23[", as probe and
// run write it: a GitHub Actions log runs "##[error]" anywhere in a line.
// Its control characters were escaped (quoted), its "##[" was not.
func TestExplainEscapesLegacyCommands(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("name: a\nagent: {command: [my-agent]}\npermissions: {default: allow}\nturns: [{prompt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := `{"sessionId":"s","toolCall":{"toolCallId":"t","title":"##[error]x\u001b[2J","kind":"read"},"options":[{"optionId":"o##[group]","name":"n","kind":"allow_once"}]}`
	var stdout, stderr bytes.Buffer
	if code := run([]string{"explain", file, "--request", "-"}, strings.NewReader(req), &stdout, &stderr); code != exitOK {
		t.Fatalf("acprun explain: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{`title="#\x23[error]x\x1b[2J"`, `select option "o#\x23[group]" (allow_once)`} {
		if !strings.Contains(out, want) {
			t.Errorf("acprun explain: want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "##[") || strings.Contains(out, "\x1b") {
		t.Errorf("acprun explain: a \"##[\" or a control character left in:\n%s", out)
	}
}

// TestDryRunEscapesLegacyCommands: run --dry-run writes the "##[" of a
// scenario's name, prompts and rules as "#\x23[", as it writes its agent's
// command and verify commands: a GitHub Actions log runs "##[error]"
// anywhere in a line. The name and the prompts were written as they were.
func TestDryRunEscapesLegacyCommands(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("name: \"##[error]n\"\nagent: {command: [a]}\npermissions: {allow: [{command: \"echo ##[group]*\"}]}\nturns: [{prompt: \"##[error]p\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", "--dry-run", file}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("acprun run --dry-run: exit %d\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{`#\x23[error]n  (`, `turn 1:   "#\x23[error]p"`, `command=echo #\x23[group]*`} {
		if !strings.Contains(out, want) {
			t.Errorf("acprun run --dry-run: want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "##[") {
		t.Errorf("acprun run --dry-run: a \"##[\" left in:\n%s", out)
	}
}
