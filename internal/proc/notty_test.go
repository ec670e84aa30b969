package proc_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/acprun/acprun/internal/proc"
)

// ttyEnv set to 1 makes the test binary a process whose controlling
// terminal is a pseudo-terminal, which starts a child that opens /dev/tty
// (openTTYs); set to "child", that child (openTTY).
const ttyEnv = "PROC_TEST_TTY"

// TestNoControllingTerminal: a process Start starts from a process whose
// controlling terminal is a pseudo-terminal (acprun run from a terminal)
// cannot open /dev/tty (ENXIO, at once): it cannot prompt on acprun's
// terminal, wait for its keystrokes nor write to it past acprun.
func TestNoControllingTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	go io.Copy(io.Discard, ptmx) // whatever reaches the terminal
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(self)
	parent.Env = append(os.Environ(), ttyEnv+"=1")
	parent.Stdin = tty
	parent.Stderr = os.Stderr
	parent.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out, err := parent.Output()
	tty.Close()
	if err != nil {
		t.Fatalf("the parent: %v; it printed %q", err, out)
	}
	lines := map[string]string{}
	for line := range strings.Lines(string(out)) {
		who, what, _ := strings.Cut(strings.TrimSpace(line), ": ")
		lines[who] = what
	}
	if lines["parent"] != "opened" {
		t.Fatalf("the parent could not open its terminal (%q): the test proves nothing", lines["parent"])
	}
	if got := lines["child"]; got != "ENXIO" {
		t.Errorf("the child opening /dev/tty got %q; want ENXIO (no such device or address)", got)
	}
}

// openTTYs opens /dev/tty, its controlling terminal, then starts itself
// as a child that does the same (openTTY): it prints "parent: " and
// "child: " lines of what each got.
func openTTYs() int {
	fmt.Println("parent:", openTTY())
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer r.Close()
	env := append(os.Environ(), ttyEnv+"=child")
	p, err := proc.Start(proc.Config{Args: []string{self}, Env: env, Stdout: w})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	said, err := io.ReadAll(r) // to its end: the group is killed
	<-p.Done()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("child:", strings.TrimSpace(string(said)))
	return 0
}

// openTTY opens /dev/tty and says what it got: "opened", "ENXIO" or
// another error.
func openTTY() string {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	switch {
	case err == nil:
		f.Close()
		return "opened"
	case errors.Is(err, syscall.ENXIO):
		return "ENXIO"
	default:
		return err.Error()
	}
}
