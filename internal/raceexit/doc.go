// Package raceexit, imported for its side effect by the tests of every
// package, takes the race detector's second off the end of each test
// binary.
//
// A binary built with -race sleeps GORACE's atexit_sleep_ms (1000 by
// default) before it exits cleanly, to catch the races of goroutines still
// running then. A test binary has no use for it: the testing package fails
// a test that raced, and reports a race outside the tests itself, before
// the exit. With some forty test binaries that second is a good part of
// `go test -race ./...` on two cores. So, in a race build, the package's
// init starts the test binary again in the same process (execve) with
// atexit_sleep_ms=0 added to GORACE, unless GORACE sets atexit_sleep_ms
// already; the processes the tests start inherit it. Without -race it does
// nothing.
package raceexit
