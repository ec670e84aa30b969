package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
)

// TestRerunKeepsEarlierResultsRedacted: the earlier results a rerun keeps
// in the file it replaces (those its selection left out) are redacted as
// the run's own are: the earlier run may not have known a secret of this
// run's environment, which -o must not hold in clear all the same.
func TestRerunKeepsEarlierResultsRedacted(t *testing.T) {
	const secret = "ghp_RerunT0ken123456"
	t.Setenv("GH_TOKEN", secret)
	out := filepath.Join(t.TempDir(), "last.json")
	c := &runCmd{JSON: out, kept: []report.Result{{
		Name: "f2", File: "f.yaml", Line: 6, Status: report.StatusFailed,
		Failures: []string{"turn 1: text holds " + secret},
	}}}
	var stderr bytes.Buffer
	g := &globals{Stdout: io.Discard, Stderr: &stderr}
	printer := progress.NewPrinter(&stderr, 0, progress.Options{})
	if err := c.writeOutputs(t.Context(), g, printer, report.Report{}, nil); err != nil {
		t.Fatalf("writeOutputs: %v", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("text holds "+redact.Marker)) {
		t.Errorf("-o: want the kept result with the secret redacted, got\n%s", data)
	}
}
