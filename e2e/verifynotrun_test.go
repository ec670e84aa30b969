package e2e_test

import "testing"

// TestVerifyNotRunHasNoDuration: a verify command that never ran (the
// scenario's timeout had passed) is recorded with no duration, not the
// moments acprun took to decide not to start it: the same agent gives
// the same results every run.
func TestVerifyNotRunHasNoDuration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.mock.yaml": "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n",
		"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, a.mock.yaml]}\npermissions: {default: deny}\ntimeout: 1s\n" +
			"verify: [\"true\"]\nturns: [{prompt: hi, expect: {stopReason: cancelled}}]\n",
	})
	res, out := runResults(t, dir, "s.yaml")
	v := out.Scenarios[0].Verify
	if len(v) != 1 || v[0].Error != "not run: the scenario's timeout passed" || v[0].DurationMs != 0 {
		t.Errorf("verify %+v; want it not run, with no duration\n%s", v, res.stderr)
	}
}
