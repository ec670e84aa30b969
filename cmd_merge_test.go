package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// TestMergeRedactsTheEnvironment: merge writes the merged results and
// prints their summary redacted of the values of the secret-looking
// variables of its environment, as report does, whatever the shards
// hold (a shard run where the secret was not set, nor known).
func TestMergeRedactsTheEnvironment(t *testing.T) {
	const secret = "ghp_MergeT0ken123456"
	t.Setenv("GH_TOKEN", secret)
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard.json")
	var data bytes.Buffer
	err := report.Write(&data, report.Report{Scenarios: []report.Result{{
		Name: "s", File: "s.yaml", Line: 1, Status: report.StatusFailed,
		Failures: []string{"turn 1: text holds " + secret},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shard, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "all.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"merge", shard, "-o", out}, strings.NewReader(""), &stdout, &stderr); code != exitFailed {
		t.Fatalf("merge: exit %d, want %d\n%s", code, exitFailed, stderr.String())
	}
	merged, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"-o": merged, "stderr": stderr.Bytes()} {
		if bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte("text holds "+redact.Marker)) {
			t.Errorf("merge's %s: want the secret redacted, got\n%s", name, b)
		}
	}
}
