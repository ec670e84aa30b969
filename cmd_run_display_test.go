package main

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

// TestLiveArea: the live area is drawn on stderr's terminal unless
// --events - writes to that terminal too.
func TestLiveArea(t *testing.T) {
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
		events string
		stdout *os.File
		want   bool
	}{
		{"-", tty, false},
		{"-", file, true},
		{"", tty, true},
		{"e.jsonl", tty, true},
	}
	for _, tt := range tests {
		c := &runCmd{Format: formatLines, Events: tt.events}
		if got := c.liveArea(&globals{Stdout: tt.stdout, Stderr: tty}); got != tt.want {
			t.Errorf("--events %q, stdout %s: live area %v; want %v", tt.events, tt.stdout.Name(), got, tt.want)
		}
	}
}
