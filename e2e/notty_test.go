package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoControllingTerminal runs acprun from a terminal (a pseudo-terminal
// that is its controlling terminal) and has every kind of process it
// starts open /dev/tty: a setup, a verify and a teardown command, a
// command the agent runs through the client's terminal/create, and a
// child of the agent (the mock's spawn step). Each must fail at once
// with "No such device or address" (ENXIO): none can prompt on acprun's
// terminal and wait for a person's keystrokes (a git credential prompt,
// ssh's host-key question, sudo), which with no terminal (CI, cron)
// fails at once, nor write to it past acprun's escaping.
func TestNoControllingTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// open is a shell line that writes to NAME.txt the error of opening
	// /dev/tty, or "opened".
	open := func(name string) string {
		out := filepath.Join(dir, name+".txt")
		return fmt.Sprintf("if ( : </dev/tty ) 2>%s; then echo opened >%s; fi", out, out)
	}
	writeFiles(t, dir, map[string]string{
		"tty.mock.yaml": fmt.Sprintf(`turns:
  - steps:
      - terminal: {command: /bin/sh, args: ["-c", %q], waitForExit: true}
      - spawn: %q
`, open("terminal"), open("spawn")),
		"tty.yaml": fmt.Sprintf(`name: tty
agent: {name: mock, args: [tty.mock.yaml]}
permissions: {default: deny, allow: [{kind: execute}]}
setup: [%q]
verify: [%q]
teardown: [%q]
turns:
  - prompt: hi
`, open("setup"), open("verify"), open("teardown")),
	})
	r := startTTY(t, dir, 100, 20, "run", "tty.yaml", "-o", "out.json")
	if code := r.wait(); code != exitOK {
		t.Errorf("exit %d; want %d; screen:\n%s", code, exitOK, strings.Join(r.scr.Lines(), "\n"))
	}
	got := readFiles(t, dir, "setup.txt", "terminal.txt", "spawn.txt", "verify.txt", "teardown.txt")
	for name, b := range got {
		if s := string(b); !strings.Contains(s, "No such device or address") {
			t.Errorf("%s: opening /dev/tty gave %q; want No such device or address (ENXIO)", name, s)
		}
	}
}
