package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/runner"
	"github.com/acprun/acprun/scenario"
)

// holdRunEnv is a directory of lockRunFiles: the test binary, started
// again with it, takes the locks of a run of it (lockRun) and holds them
// (holdRun).
const holdRunEnv = "ACPRUN_TEST_HOLD_RUN"

// lockRunFiles is a scenario that continues its session (a state file
// in .acprun/ beside it) and is run with -o out.json.
var lockRunFiles = map[string]string{
	"s.yaml": "name: nightly\nagent: {command: [my-agent]}\nsession: {resume: true}\nturns: [{prompt: hi}]\n",
}

// lockRunOf is the run of lockRunFiles in dir with -o out.json and
// --lock mode, and its scenarios.
func lockRunOf(dir, mode string) (*runCmd, []*scenario.Scenario, error) {
	c := withOutput("-o", filepath.Join(dir, "out.json"))
	c.Lock = mode
	scs, _, err := scenario.Load([]string{filepath.Join(dir, "s.yaml")}, scenario.LoadOptions{})
	return c, scs, err
}

// holdRun takes the locks of a run of lockRunFiles in dir, as a run
// does before its agents start, and holds them until stdin ends.
func holdRun(dir string) {
	testkit.Hold(func() (func(), error) {
		c, scs, err := lockRunOf(dir, "wait")
		if err == nil {
			_, err = c.lockRun(context.Background(), &globals{Stdout: io.Discard, Stderr: io.Discard}, runner.Options{}, scs)
		}
		return nil, err // let go at exit
	})
}

// TestLockRunTakesTheStateFileFirst: a run given the state file and the
// -o file of a run still going (the next run of the same cron line) is
// refused for the state file, exit 6 with --lock fail, not for the -o
// file (exit 2, as two runs given one output by mistake).
func TestLockRunTakesTheStateFileFirst(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, lockRunFiles)
	testkit.StartHolder(t, holdRunEnv+"="+dir)
	c, scs, err := lockRunOf(dir, "fail")
	if err != nil {
		t.Fatal(err)
	}
	states, err := c.lockRun(t.Context(), &globals{Stdout: io.Discard, Stderr: io.Discard}, runner.Options{}, scs)
	for _, pin := range c.pins {
		pin.Close()
	}
	for _, f := range states {
		f.Close()
	}
	if ee, ok := errors.AsType[exitError](err); !ok || ee.code != exitLocked {
		t.Errorf("lockRun with --lock fail: %v; want exit %d, the state file locked", err, exitLocked)
	}
}
