package output_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/fatih/color"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ms is n milliseconds.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// noColor turns colour off for the test.
func noColor(t *testing.T) {
	t.Helper()
	old := color.NoColor
	color.NoColor = true
	t.Cleanup(func() { color.NoColor = old })
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
