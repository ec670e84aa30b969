package progress_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/acprun/acprun/runner"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// writes records every Write call separately.
type writes struct{ calls [][]byte }

func (w *writes) Write(p []byte) (int, error) {
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

// sampleRef names a job of scenario "refuses" against agent claude.
func sampleRef() runner.Ref {
	return runner.Ref{Name: "refuses", File: "examples/basic.yaml", Line: 20, Agent: "claude"}
}

// attempt is j as attempt n.
func attempt(j runner.Ref, n int) runner.Ref {
	j.Attempt = n
	return j
}

func int64p(n int64) *int64 { return &n }

// TestEventsLines checks that each event is one JSON line, written by one
// Write call as it happens, with the fields of its kind.
func TestEventsLines(t *testing.T) {
	ref := sampleRef()
	perm := report.Permission{ToolCallID: "c1", Title: "rm -rf /", Kind: "execute", Decision: "deny", Rule: "deny[0]", OptionID: "reject", Outcome: "selected"}
	res := reporttest.Sample().Scenarios[1]
	steps := []struct {
		call func(e *progress.Events)
		want progress.Event
	}{
		{
			func(e *progress.Events) { e.ScenarioStarted(ref) },
			progress.Event{Event: "scenario_started", Scenario: "refuses", File: "examples/basic.yaml", Line: 20, Agent: "claude"},
		},
		{
			func(e *progress.Events) { e.TurnStarted(ref, 1) },
			progress.Event{Event: "turn_started", Scenario: "refuses", File: "examples/basic.yaml", Line: 20, Agent: "claude", Turn: 1},
		},
		{
			func(e *progress.Events) { e.PermissionDecided(attempt(ref, 2), perm) },
			progress.Event{Event: "permission", Scenario: "refuses", File: "examples/basic.yaml", Line: 20, Agent: "claude", Attempt: 2, Permission: &perm},
		},
		{
			func(e *progress.Events) { e.Warning(ref, "mode \"plan\" not offered") },
			progress.Event{Event: "warning", Scenario: "refuses", File: "examples/basic.yaml", Line: 20, Agent: "claude", Message: "mode \"plan\" not offered"},
		},
		{
			func(e *progress.Events) { e.TurnFinished(ref, res.Turns[1]) },
			progress.Event{
				Event: "turn_finished", Scenario: "refuses", File: "examples/basic.yaml", Line: 20, Agent: "claude", Turn: 2,
				StopReason: "cancelled", CancelCause: "turnTimeout", DurationMs: int64p(60_000),
				Failures: []string{"stopReason is cancelled, want end_turn"},
			},
		},
		{
			func(e *progress.Events) { e.ScenarioFinished(ref, res) },
			progress.Event{
				Event: "scenario_finished", Scenario: "refuses <politely>", File: "examples/basic.yaml", Line: 20, Agent: "claude",
				Status: report.StatusFailed, Attempt: 2, DurationMs: int64p(65_432), Failures: res.Failures,
			},
		},
	}
	w := &writes{}
	e := progress.NewEvents(w)
	before := time.Now()
	for i, step := range steps {
		step.call(e)
		e.Flush()
		if len(w.calls) != i+1 {
			t.Fatalf("after event %d (%s): %d Write calls; want %d", i+1, step.want.Event, len(w.calls), i+1)
		}
		line := w.calls[i]
		if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Errorf("event %d: write %q is not one line", i+1, line)
		}
		var raw map[string]any
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatalf("event %d: %q is not JSON: %v", i+1, line, err)
		}
		ts, _ := raw["time"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || at.Before(before.Truncate(time.Second)) {
			t.Errorf("event %d: time %q is not an RFC 3339 time of this run (err %v)", i+1, ts, err)
		}
		var got progress.Event
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(step.want, got, cmpopts.IgnoreFields(progress.Event{}, "Time")); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", i+1, diff)
		}
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close = %v; want nil", err)
	}
}

// TestEventsOnDisk checks that each event is in the file as soon as it is
// written: nothing waits in a buffer of acprun's once the writer took it.
func TestEventsOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	e, err := progress.CreateEvents(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ref := sampleRef()
	calls := []func(){
		func() { e.ScenarioStarted(ref) },
		func() { e.TurnStarted(ref, 1) },
		func() { e.TurnFinished(ref, report.TurnResult{Index: 1, StopReason: "end_turn"}) },
		func() {
			e.ScenarioFinished(ref, report.Result{Name: ref.Name, Status: report.StatusPassed})
		},
	}
	for i, call := range calls {
		call()
		e.Flush()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(data, []byte("\n")); got != i+1 {
			t.Fatalf("after event %d the file has %d lines; want %d:\n%s", i+1, got, i+1, data)
		}
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close = %v; want nil", err)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

// TestEventsWriteError checks that the first write error is kept and
// nothing more is written.
func TestEventsWriteError(t *testing.T) {
	w := &failingWriter{}
	e := progress.NewEvents(w)
	ref := sampleRef()
	e.ScenarioStarted(ref)
	e.ScenarioFinished(ref, report.Result{})
	if err := e.Close(); err == nil || err.Error() != "disk full" {
		t.Errorf("Close = %v; want the write error, disk full", err)
	}
	if w.n != 1 {
		t.Errorf("%d writes after an error; want 1", w.n)
	}
}

// TestEventsKilled runs a process that writes events and is then killed
// with SIGKILL: every line it wrote is in the file, and each is JSON.
func TestEventsKilled(t *testing.T) {
	if path := os.Getenv("ACPRUN_EVENTS_HELPER"); path != "" {
		eventsHelper(path)
		return
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestEventsKilled$")
	cmd.Env = append(os.Environ(), "ACPRUN_EVENTS_HELPER="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // kept open: the helper waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper says "ready" once its events are written, then hangs.
	ready, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || ready != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q, %v; want ready", ready, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v; want killed by SIGKILL", cmd.ProcessState)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var ev progress.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Errorf("line %d %q is not JSON: %v", i+1, line, err)
		}
		events = append(events, ev.Event)
	}
	if diff := cmp.Diff([]string{"scenario_started", "turn_started", "permission"}, events); diff != "" {
		t.Errorf("events in the file of the killed process (-want +got):\n%s", diff)
	}
}

// eventsHelper writes some events to path, says ready and waits to be
// killed.
func eventsHelper(path string) {
	e, err := progress.CreateEvents(context.Background(), path)
	if err != nil {
		os.Exit(2)
	}
	ref := sampleRef()
	e.ScenarioStarted(ref)
	e.TurnStarted(ref, 1)
	e.PermissionDecided(ref, report.Permission{ToolCallID: "c1", Decision: "allow", Outcome: "selected"})
	e.Flush()
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin) // the test keeps stdin open and kills us
	os.Exit(3)
}

// TestEventsNameAttemptAndAgent checks that every kind of event names the
// job's attempt and agent, so that events of repeated and matrix runs are
// told apart.
func TestEventsNameAttemptAndAgent(t *testing.T) {
	ref := sampleRef()
	j := attempt(ref, 2)
	w := &writes{}
	e := progress.NewEvents(w)
	e.ScenarioStarted(j)
	e.TurnStarted(j, 1)
	e.PermissionDecided(j, report.Permission{ToolCallID: "c1", Decision: "allow"})
	e.Warning(j, "careful")
	e.TurnFinished(j, report.TurnResult{Index: 1, StopReason: "end_turn"})
	e.ScenarioFinished(j, report.Result{Name: ref.Name, File: ref.File, Line: ref.Line, Attempt: 2, Agent: report.AgentInfo{Name: "claude"}, Status: report.StatusPassed})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, line := range w.calls {
		var ev progress.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		kinds[ev.Event] = true
		if ev.Attempt != 2 || ev.Agent != "claude" {
			t.Errorf("%s: attempt %d, agent %q; want 2, claude", ev.Event, ev.Attempt, ev.Agent)
		}
	}
	for _, k := range []string{progress.EventScenarioStarted, progress.EventTurnStarted, progress.EventPermission, progress.EventWarning, progress.EventTurnFinished, progress.EventScenarioFinished} {
		if !kinds[k] {
			t.Errorf("no %s event written", k)
		}
	}
}

// TestStdoutEventsGivesUpItsReader: --events - on a pipe whose reader
// never reads, with more events than the pipe holds. Once ctx ends, Close
// gives that reader up, as CreateEvents gives up a FIFO's: it returns an
// *outfile.UnreadError of ctx's cause, naming stdout. Were it waiting for
// the reader, the guard's minute would pass.
func TestStdoutEventsGivesUpItsReader(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux opens a pipe anew (outfile.ReopenPipe)")
	}
	w := testkit.UnreadPipe(t)
	cause := errors.New("run timeout")
	ctx, cancel := context.WithCancelCause(context.Background())
	e := progress.StdoutEvents(ctx, w, termtext.JSONEscapes)
	j := sampleRef()
	for range 1000 { // some 300 bytes each: more than a pipe holds
		e.Warning(j, strings.Repeat("w", 200))
	}
	cancel(cause)
	closed := make(chan error, 1)
	go func() { closed <- e.Close() }()
	var err error
	select {
	case err = <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close waited for the reader of stdout after ctx ended")
	}
	if ue, ok := errors.AsType[*outfile.UnreadError](err); !ok || !errors.Is(ue.Cause, cause) || !strings.HasPrefix(err.Error(), "write "+w.Name()+": ") {
		t.Errorf("Close: %v; want an *UnreadError of the cause, writing %s", err, w.Name())
	}
}

// TestEventsFileRemoved: an events file removed while it is written (its
// directory too) went nowhere: Close says so, naming it, with the error a
// transcript removed so gets (outfile.ErrRemoved).
func TestEventsFileRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	e, err := progress.CreateEvents(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	e.ScenarioStarted(sampleRef())
	e.Flush()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	err = e.Close()
	if !errors.Is(err, outfile.ErrRemoved) || err.Error() != "write "+path+": the file was removed while it was written" {
		t.Errorf("Close = %v; want write %s: %v", err, path, outfile.ErrRemoved)
	}
}
