package hook

import "testing"

// OnStart has f told the process group id of every command Run starts,
// until the test ends.
func OnStart(t testing.TB, f func(pgid int)) {
	started = f
	t.Cleanup(func() { started = nil })
}
