package reap

import (
	"slices"
	"strings"
	"testing"
)

// TestPendingHoldsOnlyWhatIsLeft: the guard's list holds the paths given
// to Remove and not forgotten since: a temporary file renamed into place
// or removed (Forget) is no longer listed, nor removed; a name given
// twice stays until forgotten twice; a record cut short by the end of
// the input (a killed acprun) names no path.
func TestPendingHoldsOnlyWhatIsLeft(t *testing.T) {
	in := strings.Join([]string{
		record(opRemove, "/tmp/acprun-text-1"),
		record(opRemove, "/out/.r.json.tmp1"),
		record(opRemove, "/out/.j.xml.tmp2"),
		record(opForget, "/out/.r.json.tmp1"), // renamed into place
		record(opRemove, "/out/.s.json.tmp3"),
		record(opRemove, "/out/.s.json.tmp3"), // two writes tried one name
		record(opForget, "/out/.s.json.tmp3"),
		record(opForget, "/out/.never.tmp4"), // never given: nothing
		record(opRemove, "/out/.j.xml.tmp2")[:8],
	}, "")
	got := pending(strings.NewReader(in))
	want := []string{"/out/.j.xml.tmp2", "/out/.s.json.tmp3", "/tmp/acprun-text-1"}
	if !slices.Equal(got, want) {
		t.Errorf("pending: %q; want %q", got, want)
	}
}
