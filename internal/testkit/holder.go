package testkit

import (
	"bufio"
	"fmt"
	"io"
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

// Hold is the holder's side of StartHolder, for the TestMain of the test
// binary started again: it calls take, which takes what is to be held
// and returns how to let it go (nil for nothing), says "held" on stdout,
// keeps it until stdin ends, lets it go and exits 0. When take fails, it
// prints the error and exits 1.
func Hold(take func() (release func(), err error)) {
	release, err := take()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	if release != nil {
		release()
	}
	os.Exit(0)
}
