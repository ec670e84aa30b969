package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
)

func TestMain(m *testing.M) {
	if held := os.Getenv(holdOutputEnv); held != "" {
		holdOutput(held)
		return
	}
	if dir := os.Getenv(holdRunEnv); dir != "" {
		holdRun(dir)
		return
	}
	os.Exit(m.Run())
}

// holdOutputEnv is "FLAG PATH": the test binary, started again with it,
// takes the run output FLAG PATH as a run does and holds it (holdOutput).
const holdOutputEnv = "ACPRUN_TEST_HOLD_OUTPUT"

// holdOutput takes the output held ("FLAG PATH") as a run takes its
// outputs before its agents start, says "held" on stdout and keeps it
// until stdin ends: another run writing the file.
func holdOutput(held string) {
	flag, path, _ := strings.Cut(held, " ")
	testkit.Hold(func() (func(), error) {
		_, err := takeOutputs(withOutput(flag, path)) // let go at exit
		return nil, err
	})
}

// withOutput is a run whose only output is flag (-o, --junit, --html or
// --events) given path.
func withOutput(flag, path string) *runCmd {
	c := &runCmd{}
	*map[string]*string{"-o": &c.JSON, "--junit": &c.JUnit, "--html": &c.HTML, "--events": &c.Events}[flag] = path
	return c
}

// takeOutputs takes the outputs of c as Run does before any agent starts:
// it pins them (c.pins), then opens the events file, which it returns
// (nil without one). The caller closes both.
func takeOutputs(c *runCmd) (*progress.Events, error) {
	if err := c.checkOutputPaths(context.Background(), nil); err != nil {
		return nil, err
	}
	return c.openEvents(context.Background(), &globals{Stdout: io.Discard, Stderr: io.Discard})
}

// runOutputFlags are the flags of run's output files.
var runOutputFlags = []string{"-o", "--junit", "--html", "--events"}

// TestOutputsLockAcrossFlags: a file another run writes, whatever its
// flag, is refused to a run that would write it under any flag, naming
// the other run, and left as it was: the events file and the files
// written whole take one lock.
func TestOutputsLockAcrossFlags(t *testing.T) {
	for _, held := range runOutputFlags {
		path := filepath.Join(t.TempDir(), "out")
		pid, _ := testkit.StartHolder(t, holdOutputEnv+"="+held+" "+path)
		want := "" // the events: the holder has opened it
		if held != "--events" {
			want = "previous\n"
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, flag := range runOutputFlags {
			c := withOutput(flag, path)
			events, err := takeOutputs(c)
			if events != nil {
				events.Close()
			}
			for _, pin := range c.pins {
				pin.Close()
			}
			busy, ok := errors.AsType[*outfile.BusyError](err)
			if !ok || busy.PID != pid {
				t.Errorf("%s of the file another run writes as %s: %v; want it busy, held by pid %d", flag, held, err, pid)
			}
			if got, _ := os.ReadFile(path); string(got) != want {
				t.Errorf("after %s of the file another run writes as %s, it holds %q; want %q", flag, held, got, want)
			}
		}
	}
}

// TestOtherCommandsLockTheirOutput: merge -o, report -o, probe -o and
// schema -o of a file another run writes are refused with exit 2 before
// anything is done, naming the other run, and the file is left as it was.
func TestOtherCommandsLockTheirOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "r.json")
	var data bytes.Buffer
	if err := report.Write(&data, report.Report{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(results, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pid, _ := testkit.StartHolder(t, holdOutputEnv+"=-o "+path)
	busy := fmt.Sprintf("-o %s: another acprun run (pid %d) is writing to it; give each run its own file\n", path, pid)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", results, "-o", path}, "acprun: merge: " + busy},
		{[]string{"report", results, "-o", path}, "acprun: report: " + busy},
		{[]string{"probe", "-o", path, "--", "true"}, "acprun: " + busy},
		{[]string{"schema", "-o", path}, "acprun: " + busy},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || stderr.String() != tt.want {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.args[0], code, stderr.String(), exitUsage, tt.want)
		}
		if got, _ := os.ReadFile(path); string(got) != "previous\n" {
			t.Errorf("%s: %s holds %q; want it untouched", tt.args[0], path, got)
		}
	}
}
