package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acprun/acprun/scenario"
)

// TestWarnBeforeRunQuiet: the warning about a scenario without
// permissions is said before the run, unless the run prints just the
// summary (-q, --format quiet), whose WARN block says it: -q printed it
// twice. A dry run, which prints no summary, says it.
func TestWarnBeforeRunQuiet(t *testing.T) {
	scs := []*scenario.Scenario{{Name: "prompt", Pos: scenario.OneShotPos}}
	for _, tt := range []struct {
		cmd  runCmd
		want int // lines
	}{
		{runCmd{}, 1},
		{runCmd{Quiet: true}, 0},
		{runCmd{Format: formatQuiet}, 0},
		{runCmd{Quiet: true, DryRun: true}, 1},
		{runCmd{Format: "dots"}, 1},
	} {
		var stderr bytes.Buffer
		tt.cmd.warnBeforeRun(&globals{Stderr: &stderr}, scs)
		if got := strings.Count(stderr.String(), "warning: no permissions"); got != tt.want {
			t.Errorf("quiet %v, format %q, dry run %v: %d warnings, want %d:\n%s", tt.cmd.Quiet, tt.cmd.Format, tt.cmd.DryRun, got, tt.want, stderr.String())
		}
	}
}
