package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the help snapshots in testdata/help")

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
			golden := filepath.Join("testdata", "help", name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestHelpSnapshots -update)", err)
			}
			if got := stdout.String(); got != string(want) {
				t.Errorf("%s --help changed; run go test -run TestHelpSnapshots -update if intended\ngot:\n%s", name, got)
			}
		})
	}
}
