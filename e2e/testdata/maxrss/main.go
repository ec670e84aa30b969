// Command maxrss runs a command and writes its peak resident memory in
// KiB to a file: maxrss OUTFILE COMMAND ARGS…. It stands between a test and
// the process it measures because Linux reports, as a child's peak, at
// least what its parent held when it forked: measured straight from a large
// test binary, acprun would be charged with the test's memory. This small
// process forks acprun instead. Its exit code is the command's.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: maxrss OUTFILE COMMAND ARGS…")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(ru.Maxrss, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		os.Exit(code)
	}
	os.Exit(128 + int(cmd.ProcessState.Sys().(syscall.WaitStatus).Signal()))
}
