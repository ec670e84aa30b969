package progress_test

import (
	"testing"

	"github.com/fatih/color"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// noColor turns colour off for the test.
func noColor(t *testing.T) {
	t.Helper()
	old := color.NoColor
	color.NoColor = true
	t.Cleanup(func() { color.NoColor = old })
}
