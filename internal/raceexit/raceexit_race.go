//go:build race

package raceexit

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Enabled reports whether the binary was built with -race.
const Enabled = true

func init() {
	gorace := os.Getenv("GORACE")
	if strings.Contains(gorace, "atexit_sleep_ms=") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return // the binary runs on as it was started: only slower to end
	}
	os.Setenv("GORACE", strings.TrimSpace(gorace+" atexit_sleep_ms=0"))
	err = syscall.Exec(exe, os.Args, os.Environ())
	fmt.Fprintf(os.Stderr, "raceexit: start %s again: %v\n", exe, err)
	os.Setenv("GORACE", gorace)
}
