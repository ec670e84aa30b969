package main

import (
	"bytes"
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
