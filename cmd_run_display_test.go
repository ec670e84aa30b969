package main

import (
	"os"
	"testing"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/output/progress"
)

// TestProgressOptions: the live area is drawn on stderr's terminal, and
// the dots written, unless --events - writes where stderr does (its
// terminal, or the same file): then the result lines are.
func TestProgressOptions(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	file, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		format, events string
		stdout, stderr *os.File
		want           progress.Options
	}{
		{formatLines, "-", tty, tty, progress.Options{}},
		{formatLines, "-", file, tty, progress.Options{Terminal: true}},
		{formatLines, "", tty, tty, progress.Options{Terminal: true}},
		{formatLines, "e.jsonl", tty, tty, progress.Options{Terminal: true}},
		{formatDots, "-", tty, tty, progress.Options{}},
		{formatDots, "-", file, file, progress.Options{}},
		{formatDots, "-", file, tty, progress.Options{Dots: true}},
		{formatDots, "e.jsonl", tty, tty, progress.Options{Dots: true}},
		{formatQuiet, "-", tty, tty, progress.Options{Quiet: true}},
	}
	for _, tt := range tests {
		c := &runCmd{Format: tt.format, Events: tt.events}
		if got := c.progressOptions(&globals{Stdout: tt.stdout, Stderr: tt.stderr}); !cmp.Equal(got, tt.want) {
			t.Errorf("--format %s --events %q, stdout %s, stderr %s: %+v; want %+v", tt.format, tt.events, tt.stdout.Name(), tt.stderr.Name(), got, tt.want)
		}
	}
}
