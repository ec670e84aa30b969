package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ranScenario is a scenario whose agent leaves the file "ran" in the
// directory it was started from: a test that finds no such file knows that
// no agent started.
const ranScenario = "name: s\nagent: {command: [sh, -c, 'touch ran']}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"

// TestEmptyPathFlagsAreUsageErrors checks that every flag naming a file or
// a directory, given an empty value (an unset CI variable: -o "$OUT"), is a
// usage error before anything runs: no agent starts and nothing is
// written, whatever the command and however the value is given.
func TestEmptyPathFlagsAreUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		flag string // as the error names it
		args []string
	}{
		{"-o/--output", []string{"run", "s.yaml", "-o", ""}},
		{"-o/--output", []string{"run", "s.yaml", "--output="}},
		{"-o/--output", []string{"run", "s.yaml", "--json", ""}},
		{"-o/--output", []string{"run", "s.yaml", "-o", "", "--dry-run"}},
		{"--junit", []string{"run", "s.yaml", "--junit", ""}},
		{"--events", []string{"run", "s.yaml", "--events="}},
		{"--html", []string{"run", "s.yaml", "--html", ""}},
		{"--transcripts", []string{"run", "s.yaml", "--transcripts", ""}},
		{"--prompt", []string{"run", "s.yaml", "--prompt", ""}},
		{"--rerun-failed", []string{"run", "s.yaml", "--rerun-failed", ""}},
		{"--config", []string{"run", "s.yaml", "--config", ""}},
		{"--workspace-dir", []string{"run", "s.yaml", "--workspace-dir", ""}},
		{"--config", []string{"list", "s.yaml", "--config", ""}},
		{"--config", []string{"validate", "s.yaml", "--config", ""}},
		{"--config", []string{"explain", "s.yaml", "--config", "", "--kind", "execute"}},
		{"--config", []string{"agents", "--config", ""}},
		{"-o/--output", []string{"merge", "r.json", "-o", ""}},
		{"-o/--output", []string{"report", "r.json", "-o", ""}},
		{"--transcripts", []string{"report", "r.json", "--transcripts", ""}},
		{"-o/--output", []string{"schema", "-o", ""}},
		{"-o/--output", []string{"probe", "-o", "", "--", "sh", "-c", "touch ran"}},
		{"--config", []string{"probe", "--config", "", "--", "sh", "-c", "touch ran"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario, "r.json": "{}"})
			res := acprun(t, dir, tt.args...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2 (usage)\nstderr:\n%s", res.code, res.stderr)
			}
			want := "acprun: " + tt.flag + ` "": the path is empty`
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{"r.json", "s.yaml"}) {
				t.Errorf("the directory holds %q after the command; want nothing run or written", got)
			}
		})
	}
}

// TestOutputErrorsNameNoTemporaryFile checks that an output acprun cannot
// write (a new file in /proc, which takes none, whoever runs the test) is
// named as the user gave it, never as the temporary file acprun tried.
func TestOutputErrorsNameNoTemporaryFile(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	const out = "/proc/acprun-e2e-results.json"
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"run", "s.yaml", "-o", out}, 2},      // checked before any agent starts
		{[]string{"run", "s.yaml", "--junit", out}, 2}, // likewise
		{[]string{"run", "s.yaml", "--transcripts", "/proc"}, 2},
		{[]string{"schema", "-o", out}, 4}, // written at once
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"s.yaml": ranScenario})
			res := acprun(t, dir, tt.args...)
			if res.code != tt.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, tt.code, res.stderr)
			}
			path := tt.args[len(tt.args)-1]
			if strings.Contains(res.stderr, ".tmp") || !strings.Contains(res.stderr, path) {
				t.Errorf("stderr names a temporary file, or not %s:\n%s", path, res.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Errorf("an agent started")
			}
		})
	}
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
