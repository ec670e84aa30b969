package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestNestedDefaultRefused: a ${…} inside a default, which would be passed
// on as written, is an error at its ${, in the scenario and in the config.
func TestNestedDefaultRefused(t *testing.T) {
	dir := t.TempDir()
	const msg = ": a default is taken literally, not expanded: write the value itself"
	src := "name: x\nagent: {command: [a], env: {B: \"${UNSET_X:-${HOME}}\", C: \"${UNSET_X:-${UNSET_Y:-deep}}\"}}\nturns: [{prompt: hi}]\n"
	_, _, err := scenario.LoadBytes(dir+"/x.yaml", []byte(src), opts)
	want := []string{
		dir + "/x.yaml:2:44: ${ inside the default of ${UNSET_X:-…}" + msg,
		dir + "/x.yaml:2:70: ${ inside the default of ${UNSET_X:-…}" + msg,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("scenario errors (-want +got):\n%s", diff)
	}
	cfg := "agents:\n  a: {command: [\"${UNSET_X:-${HOME}/bin/a}\"]}\n"
	_, err = scenario.LoadConfigBytes(dir+"/c.yaml", []byte(cfg), opts)
	want = []string{dir + "/c.yaml:2:29: ${ inside the default of ${UNSET_X:-…}" + msg}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("config errors (-want +got):\n%s", diff)
	}
}
