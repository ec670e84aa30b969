package testkit

import (
	"os"
	"testing"
)

// UnreadPipe returns the write end of a pipe whose reader never reads,
// blocking, as stdout is: not one Go's poller waits on. Both ends are
// closed when the test ends.
func UnreadPipe(t testing.TB) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	w.Fd() // makes it blocking
	return w
}
