package progress_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
	"github.com/google/go-cmp/cmp"
)

// returnsWhileBlocked calls calls in a goroutine of their own and fails
// the test unless they all return while w is blocked, which it stays
// until then: an observer that waits for its writer would wait forever,
// so the bound only says how long the test waits to say so.
func returnsWhileBlocked(t *testing.T, w *testkit.BlockedWriter, calls func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		calls()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		close(w.Release) // let the calls end, and the test
		<-done
		t.Fatal("the observer's calls waited for a writer that was blocked")
	}
	close(w.Release)
}

// TestPrinterSlowWriter: with -v and a stderr that is not read, the
// Printer's calls never wait for it; the -v lines past MaxHeld are
// dropped, a line says how many where they were, and the PASS line, the
// notes and every line kept come out in order once the writer takes them.
func TestPrinterSlowWriter(t *testing.T) {
	noColor(t)
	w := testkit.NewBlockedWriter()
	p := progress.NewPrinter(w, 1, progress.Options{Verbose: true})
	j := runner.Ref{Name: "s"}
	text := func(i int) string { return fmt.Sprintf("%05d %s", i, strings.Repeat("x", 1000)) }
	line := func(i int) string { return "[s] text: " + text(i) + "\n" }
	kept := progress.MaxHeld / len(line(0))
	const n, after = 3000, 3
	returnsWhileBlocked(t, w, func() {
		p.TurnStarted(j, 1)
		<-w.Started // the writer took that line and is blocked: what follows waits behind it
		for i := range n {
			p.Update(j, runner.Update{Kind: runner.UpdateText, Text: text(i)})
		}
		p.ScenarioFinished(j, report.Result{Name: "s", Status: report.StatusPassed})
		p.Note("acprun: interrupted")
		for i := range after {
			p.Update(j, runner.Update{Kind: runner.UpdateText, Text: text(n + i)})
		}
	})
	p.Finish()

	var want strings.Builder
	want.WriteString("[s] turn 1 started\n")
	for i := range kept {
		want.WriteString(line(i))
	}
	fmt.Fprintf(&want, "acprun: %d log lines dropped: stderr was not read fast enough\n", n-kept)
	want.WriteString("PASS s (no turns, 0s)\nacprun: interrupted\n")
	fmt.Fprintf(&want, "acprun: %d log lines dropped: stderr was not read fast enough\n", after)
	if diff := cmp.Diff(want.String(), w.Buf.String()); diff != "" {
		t.Errorf("what the writer got (-want +got):\n%s", diff)
	}
}

// TestEventsSlowWriter: the events writer's calls never wait for a writer
// that is blocked, and once it is released every event is written, in
// order, each in one Write call: events are never dropped.
func TestEventsSlowWriter(t *testing.T) {
	w := testkit.NewBlockedWriter()
	e := progress.NewEvents(w)
	ref := sampleRef()
	const n = 5000 // far more than a pipe holds
	returnsWhileBlocked(t, w, func() {
		e.ScenarioStarted(ref)
		<-w.Started
		for i := range n {
			e.PermissionDecided(ref, report.Permission{ToolCallID: fmt.Sprintf("c%d", i), Decision: "deny"})
		}
		e.ScenarioFinished(ref, report.Result{Name: ref.Name, Status: report.StatusPassed})
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for l := range strings.Lines(w.Buf.String()) {
		var ev progress.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if ev.Permission != nil {
			got = append(got, ev.Permission.ToolCallID)
		} else {
			got = append(got, ev.Event)
		}
	}
	want := []string{progress.EventScenarioStarted}
	for i := range n {
		want = append(want, fmt.Sprintf("c%d", i))
	}
	want = append(want, progress.EventScenarioFinished)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events written (-want +got):\n%s", diff)
	}
	if w.Writes != len(want) {
		t.Errorf("%d Write calls for %d events; want one each", w.Writes, len(want))
	}
}
