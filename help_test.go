package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestHelpSnapshots keeps every command's --help in testdata/help, so that
// a change to the CLI shows up in review. Run with -update to accept one.
func TestHelpSnapshots(t *testing.T) {
	t.Setenv("COLUMNS", "80") // kong wraps help to the terminal's width
	commands := [][]string{
		{}, {"run"}, {"list"}, {"validate"}, {"schema"}, {"explain"}, {"merge"}, {"report"},
		{"agents"}, {"probe"}, {"mock-agent"}, {"replay"},
	}
	for _, cmd := range commands {
		name := strings.Join(append([]string{"acprun"}, cmd...), "-")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append(cmd, "--help"), strings.NewReader(""), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			testkit.Golden(t, filepath.Join("testdata", "help", name+".txt"), stdout.Bytes())
		})
	}
}

// TestHelpShowsFileDefaults: a flag that names a file and has a default
// (run -o, merge -o, report -o) says the default in its help, as the file
// is written there without the flag.
func TestHelpShowsFileDefaults(t *testing.T) {
	g := &globals{Stdout: io.Discard, Stderr: io.Discard}
	parser, err := newParser(t.Context(), &cli{}, g, io.Discard, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, cmd := range parser.Model.Leaves(false) {
		for _, flags := range cmd.AllFlags(false) {
			for _, f := range flags {
				if _, ok := emptyPlaceholders[f.PlaceHolder]; !ok || f.Default == "" || f.Default == "-" {
					continue // "-", stdout, is said as such
				}
				checked++
				if !strings.Contains(f.Help, f.Default) {
					t.Errorf("acprun %s --%s: help %q does not say the default, %s", cmd.Path(), f.Name, f.Help, f.Default)
				}
			}
		}
	}
	if checked < 3 {
		t.Errorf("checked %d flags; want at least run -o, merge -o and report -o", checked)
	}
}

// TestMaxFailuresHelpSaysAttempts: run --max-failures and --fail-fast say
// that with --repeat each attempt counts, so that N failures may be of one
// scenario, and the first failed attempt stops a --fail-fast run.
func TestMaxFailuresHelpSaysAttempts(t *testing.T) {
	g := &globals{Stdout: io.Discard, Stderr: io.Discard}
	parser, err := newParser(t.Context(), &cli{}, g, io.Discard, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"max-failures": "With --repeat each failed attempt counts",
		"fail-fast":    "With --repeat the first failed attempt stops the run",
	}
	for _, cmd := range parser.Model.Leaves(false) {
		if cmd.Path() != "run" {
			continue
		}
		for _, flags := range cmd.AllFlags(false) {
			for _, f := range flags {
				if w, ok := want[f.Name]; ok {
					if !strings.Contains(f.Help, w) {
						t.Errorf("run --%s: help %q does not say %q", f.Name, f.Help, w)
					}
					delete(want, f.Name)
				}
			}
		}
	}
	for name := range want {
		t.Errorf("no run --%s", name)
	}
}
