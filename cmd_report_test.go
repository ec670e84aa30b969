package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fatih/color"

	"github.com/acprun/acprun/output/htmlreport"
	"github.com/acprun/acprun/report"
)

// TestReportLine: report's stderr line counts every status of the
// results, as run's summary counts them: invalid scenarios too, and the
// interrupted apart from those that never ran.
func TestReportLine(t *testing.T) {
	old := color.NoColor
	color.NoColor = true
	t.Cleanup(func() { color.NoColor = old })
	tests := []struct {
		rs   []report.Result
		want string
	}{
		{[]report.Result{{Status: report.StatusPassed}}, "report: r.html (1 scenario: 1 passed, 0 failed)"},
		{[]report.Result{
			{Status: report.StatusFailed},
			{Status: report.StatusError},
			{Status: report.StatusInvalid},
		}, "report: r.html (3 scenarios: 0 passed, 1 failed, 1 error, 1 invalid)"},
		{[]report.Result{
			{Status: report.StatusPassed},
			{Status: report.StatusInterrupted},
			{Status: report.StatusInterrupted, NotRun: true},
		}, "report: r.html (3 scenarios: 1 passed, 0 failed, 1 interrupted, 1 not run)"},
	}
	for _, tt := range tests {
		if got := reportLine("r.html", report.Report{Scenarios: tt.rs}); got != tt.want {
			t.Errorf("reportLine = %q, want %q", got, tt.want)
		}
	}
}

// TestReportRefusesAnEmbeddedTranscript: report -o refuses a transcript
// it would embed, found where the results say or in --transcripts, and
// leaves it as it was.
func TestReportRefusesAnEmbeddedTranscript(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("tr", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("tr", "s.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var results bytes.Buffer
	rep := report.Report{Scenarios: []report.Result{{Name: "s", Status: report.StatusPassed, Transcript: filepath.Join("tr", "s.jsonl")}}}
	if err := report.Write(&results, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("r.json", results.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "r.json", "-o", "tr/s.jsonl"},
		{"report", "r.json", "--transcripts", "tr", "-o", "tr/s.jsonl"},
	} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		want := "acprun: report: -o tr/s.jsonl: it is a transcript the report embeds; give the report another file\n"
		if code != exitUsage || stderr.String() != want {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
		if data, _ := os.ReadFile(filepath.Join("tr", "s.jsonl")); string(data) != "{}\n" {
			t.Errorf("%q: the transcript became %q", args, data)
		}
	}
}

// TestReportTranscriptBytes: --transcript-bytes takes 0 (embed none) and
// refuses less, naming the flag and what it takes, before reading any
// file; left out, it is the page's default.
func TestReportTranscriptBytes(t *testing.T) {
	for _, args := range []string{"--transcript-bytes -1", "--transcript-bytes=-1", "--transcript-bytes=-2097152"} {
		var stderr bytes.Buffer
		code := run(append([]string{"report", "missing.json"}, strings.Fields(args)...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		want := `acprun: --transcript-bytes: "` + args[strings.IndexAny(args, " =")+1:] + `": want a number of bytes, 0 or more` + "\n"
		if first, _, _ := strings.Cut(stderr.String(), "see '"); code != exitUsage || first != want {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
	for args, want := range map[string]int64{"": htmlreport.DefaultTranscriptBytes, "--transcript-bytes 0": 0, "--transcript-bytes=600": 600} {
		var c cli
		g := &globals{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		parser, err := newParser(t.Context(), &c, g, g.Stdout, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(append([]string{"report", "r.json"}, strings.Fields(args)...)); err != nil {
			t.Errorf("%q: %v", args, err)
		} else if got := c.Report.TranscriptBytes.n; got != want {
			t.Errorf("%q: --transcript-bytes %d, want %d", args, got, want)
		}
	}
}

// TestReportTranscriptsDirMissing: a --transcripts directory that is not
// there is said as other paths are ("PATH: no such file or directory"),
// without the name of the system call that found it.
func TestReportTranscriptsDirMissing(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("r.json", []byte(`{"schemaVersion": 3, "scenarios": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := run([]string{"report", "r.json", "--transcripts", "nope", "-o", "r.html"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if want := "acprun: report: --transcripts nope: no such file or directory\n"; code != exitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), exitUsage, want)
	}
}
