package runner

import (
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// TestMalformedUpdateParams: a session/update whose params the schema
// does not allow (no update, an update that is no object or has no
// string sessionUpdate, params that are no object) is the scenario's
// protocol violation, said in the schema's words, and is not recorded:
// no update of kind "" is counted.
func TestMalformedUpdateParams(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		notes := []string{
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1"}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":null}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":5}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":"x"}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":[1]}`,
		}
		res, _ := playRequests(t, dir, notes, nil)
		want := []string{
			"session/update: update is required",
			"session/update: update is required",
			"session/update: update.sessionUpdate: want a string, got number 5",
			`session/update: update: want an object, got string "x"`,
			"session/update: params: want an object, got an array",
		}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		tr := res.Turns[0]
		if _, ok := tr.Updates[""]; ok || len(tr.UnknownUpdates) != 0 {
			t.Errorf("updates %v, unknown updates %s: want none recorded for the malformed ones", tr.Updates, tr.UnknownUpdates)
		}
		if tr.Text != "done" {
			t.Errorf("text %q: want the turn to go on", tr.Text)
		}
	})
}
