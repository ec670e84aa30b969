package raceexit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/raceexit"
)

// TestStartedAgainWithoutTheExitSleep checks that, built with -race, the
// test binary runs with atexit_sleep_ms in GORACE: the package's init
// started it again (go test sets no GORACE of its own).
func TestStartedAgainWithoutTheExitSleep(t *testing.T) {
	if !raceexit.Enabled {
		t.Skip("only a build with -race starts again")
	}
	if gorace := os.Getenv("GORACE"); !strings.Contains(gorace, "atexit_sleep_ms=") {
		t.Errorf("GORACE=%q: the test binary was not started again with atexit_sleep_ms", gorace)
	}
}
