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
