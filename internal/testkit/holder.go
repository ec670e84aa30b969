package testkit

import (
	"bufio"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// StartHolder starts the test binary again, running no test, with kv
// (NAME=value) added to its environment, for its TestMain to take and
// hold what value names (a lock of another process) until its stdin
// ends; it says "held" on stdout once it holds it. StartHolder returns
// its pid then. release closes its stdin and waits for its exit; the
// test's end does too.
func StartHolder(t testing.TB, kv string) (pid int, release func()) {
	t.Helper()
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), kv)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() {
		stdin.Close()
		if err := holder.Wait(); err != nil {
			t.Errorf("holder: %v", err)
		}
	})
	t.Cleanup(release)
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "held\n" {
		t.Fatalf("the holder (%s) says %q; want held", kv, line)
	}
	return holder.Process.Pid, release
}
