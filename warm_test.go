package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestWarmRunLeavesNothing checks that nothing warmRun starts outlives
// the run: no goroutine is left once its wait has returned (goleak looks
// again for a while, so this catches what would never end, not a
// goroutine on its way out).
func TestWarmRunLeavesNothing(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	warmRun()()
	goleak.VerifyNone(t, opt)
}
