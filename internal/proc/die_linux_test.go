package proc_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
)

// TestKilledWithItsParent: a process Start started is killed when the
// process that started it is killed with SIGKILL (which it cannot catch,
// to stop its children first), although the child ignores its input and
// is in a process group of its own.
func TestKilledWithItsParent(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(self)
	parent.Env = append(os.Environ(), parentEnv+"=1")
	stdin, err := parent.StdinPipe() // held open: the parent waits for its end
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	parent.Stderr = os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		parent.Process.Kill()
		parent.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the parent printed no pid: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	exited := testkit.Watch(t, child) // the child runs until its parent dies
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	if !exited() {
		t.Errorf("process %d still runs %v after its parent was killed", child, testkit.Failsafe)
		testkit.Leftovers(t, func(pid int) bool { return pid == child }) // killed at the test's end
	}
}
