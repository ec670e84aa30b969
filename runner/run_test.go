package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/scenario"
)

// TestLoadWarnings: a result starts with the warnings loading gave about
// its scenario, in order of position, with "no permissions" unless the
// run replaces every policy.
func TestLoadWarnings(t *testing.T) {
	sc := &scenario.Scenario{Pos: at(1, 1), Warnings: []scenario.Warning{{Pos: at(4, 31), Msg: "turn timeout 2m0s is longer than the scenario timeout 1m0s"}}}
	want := []string{
		"s.yaml:1:1: no permissions: every permission request and terminal command will be denied (add permissions to allow some)",
		"s.yaml:4:31: turn timeout 2m0s is longer than the scenario timeout 1m0s",
	}
	if diff := cmp.Diff(want, loadWarnings(sc, nil)); diff != "" {
		t.Errorf("no permissions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], loadWarnings(sc, approve.AllowAll())); diff != "" {
		t.Errorf("--allow-all (-want +got):\n%s", diff)
	}
	sc.Policy = &approve.Policy{}
	if diff := cmp.Diff(want[1:], loadWarnings(sc, nil)); diff != "" {
		t.Errorf("with permissions (-want +got):\n%s", diff)
	}
	if got := notRun(sc, "not run: interrupted first", nil).Warnings; !cmp.Equal(want[1:], got) {
		t.Errorf("not run: warnings %q, want %q", got, want[1:])
	}
}
