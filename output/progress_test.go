package output_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/runner"
	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// playRun tells obs about the sample report as the runner would.
func playRun(obs runner.Observer) {
	rep := sampleReport()
	for _, r := range rep.Scenarios[:2] {
		ref := runner.Ref{Name: r.Name, File: r.File, Line: r.Line, Agent: r.Agent.Name}
		obs.ScenarioStarted(ref)
		for _, t := range r.Turns {
			if ts, ok := obs.(interface {
				TurnStarted(runner.Ref, int)
			}); ok && t.StopReason != runner.OutcomeSkipped {
				ts.TurnStarted(ref, t.Index)
			}
			for _, p := range t.Permissions {
				obs.PermissionDecided(ref, p)
			}
			obs.TurnFinished(ref, t)
		}
		if w, ok := obs.(interface {
			Warning(runner.Ref, string)
		}); ok && len(r.Warnings) > 0 {
			w.Warning(ref, r.Warnings[0])
		}
		obs.ScenarioFinished(ref, r)
	}
}

// TestProgressPlain checks what Progress writes when stderr is not a
// terminal: one plain line per scenario, more with Verbose, none with
// Quiet, and never a bar.
func TestProgressPlain(t *testing.T) {
	noColor(t)
	tests := []struct {
		name string
		opts output.ProgressOptions
		want string
	}{
		{
			name: "default",
			want: "PASS basic (end_turn, 1.23s, 1 allowed, 0 denied)\n" +
				"FAIL refuses <politely> [claude] #2 (end_turn, cancelled after turnTimeout, skipped, 1m5s, 0 allowed, 1 denied)\n",
		},
		{
			name: "verbose",
			opts: output.ProgressOptions{Verbose: true},
			want: `basic: turn 1 started
basic: permission allow: "Read main.go" (read; rule allow[0])
basic: turn 1: tool call "Read main.go" (read, completed)
basic: turn 1: end_turn (1.1s)
PASS basic (end_turn, 1.23s, 1 allowed, 0 denied)
refuses <politely> [claude]: turn 1 started
refuses <politely> [claude]: turn 1: end_turn (2s)
refuses <politely> [claude]: turn 1: text does not contain "hello" | "bye"
refuses <politely> [claude]: turn 2 started
refuses <politely> [claude]: turn 2: cancelled after turnTimeout (1m0s)
refuses <politely> [claude]: turn 2: stopReason is cancelled, want end_turn
refuses <politely> [claude]: turn 3: skipped
refuses <politely> [claude]: warning: mode "plan" not offered by the agent; not set
FAIL refuses <politely> [claude] #2 (end_turn, cancelled after turnTimeout, skipped, 1m5s, 0 allowed, 1 denied)
`,
		},
		{
			name: "dots",
			opts: output.ProgressOptions{Dots: true},
			want: ".F\n",
		},
		{name: "quiet", opts: output.ProgressOptions{Quiet: true, Verbose: true}},
		{name: "quiet terminal", opts: output.ProgressOptions{Quiet: true, Terminal: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := output.NewProgress(&buf, 2, tt.opts)
			playRun(p)
			p.Finish()
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("progress output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProgressErrorLine checks the plain line of a scenario that could not
// run to its end.
func TestProgressErrorLine(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := output.NewProgress(&buf, 1, output.ProgressOptions{})
	r := sampleReport().Scenarios[2]
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	if got, want := buf.String(), "ERROR crash (agent_exited, skipped, 321ms)\n"; got != want {
		t.Errorf("line = %q; want %q", got, want)
	}
}

// TestProgressTerminal draws the bar on a pseudo-terminal and checks that
// it shows done/total and the running count, that verbose lines go above
// it, and that Finish clears it and stops redrawing.
func TestProgressTerminal(t *testing.T) {
	defer goleak.VerifyNone(t)
	noColor(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()

	// Everything written to tty is read from ptmx by this goroutine.
	chunks := make(chan []byte)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(chunks)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				chunks <- bytes.Clone(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var seen bytes.Buffer
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !strings.Contains(seen.String(), want) {
			select {
			case c, ok := <-chunks:
				if !ok {
					t.Fatalf("terminal closed before %q appeared; got %q", want, seen.String())
				}
				seen.Write(c)
			case <-deadline:
				t.Fatalf("%q did not appear on the terminal; got %q", want, seen.String())
			}
		}
	}

	p := output.NewProgress(tty, 2, output.ProgressOptions{Terminal: true, Verbose: true})
	waitFor("(0/2)")
	rep := sampleReport()
	a := runner.Ref{Name: "basic"}
	b := runner.Ref{Name: "other"}
	p.ScenarioStarted(a)
	p.ScenarioStarted(b)
	waitFor("2 running")
	p.ScenarioFinished(a, rep.Scenarios[0])
	waitFor("1 running")
	waitFor("(1/2)")
	waitFor("█")
	p.Warning(b, "slow agent")
	waitFor("other: warning: slow agent")
	p.ScenarioFinished(b, rep.Scenarios[1])
	p.Finish()
	p.Finish() // a second call does nothing
	tty.Close()
	for c := range chunks {
		seen.Write(c)
	}
	<-readDone

	out := seen.String()
	if strings.Contains(out, "PASS") || strings.Contains(out, "FAIL") {
		t.Errorf("the terminal got plain result lines; want only the bar:\n%q", out)
	}
	// The bar is cleared: the output ends by blanking the line.
	if !regexpMatch(`\r +\r$`, out) {
		t.Errorf("output does not end by clearing the bar: %q", tail(out, 200))
	}
}

// TestProgressNoBarOnPipe checks that with Terminal false nothing but
// plain lines reaches a pipe.
func TestProgressNoBarOnPipe(t *testing.T) {
	noColor(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := output.NewProgress(w, 2, output.ProgressOptions{Terminal: false})
	playRun(p)
	p.Finish()
	w.Close()
	data, err := io.ReadAll(r)
	if err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(line, "PASS ") && !strings.HasPrefix(line, "FAIL ") {
			t.Errorf("line %q on the pipe is not a result line", line)
		}
	}
	if bytes.ContainsAny(data, "\r█") {
		t.Errorf("the pipe got bar output: %q", data)
	}
}

// recorder records the calls an Observer gets.
type recorder struct {
	calls []string
}

func (r *recorder) ScenarioStarted(j runner.Ref) {
	r.calls = append(r.calls, "started "+j.Name)
}
func (r *recorder) TurnFinished(j runner.Ref, t runner.TurnResult) {
	r.calls = append(r.calls, "turn "+t.StopReason)
}
func (r *recorder) PermissionDecided(j runner.Ref, p runner.Permission) {
	r.calls = append(r.calls, "permission "+p.Decision)
}
func (r *recorder) ScenarioFinished(j runner.Ref, res runner.Result) {
	r.calls = append(r.calls, "finished "+string(res.Status))
}

func (r *recorder) TurnStarted(j runner.Ref, turn int) {
	r.calls = append(r.calls, "turn started")
}
func (r *recorder) Warning(j runner.Ref, msg string) {
	r.calls = append(r.calls, "warning "+msg)
}

// TestObservers checks that every call reaches every observer in turn.
func TestObservers(t *testing.T) {
	basic, full := &recorder{}, &recorder{}
	obs := output.Observers(basic, nil, full)
	ref := runner.Ref{Name: "s"}
	obs.ScenarioStarted(ref)
	obs.TurnStarted(ref, 1)
	obs.PermissionDecided(ref, runner.Permission{Decision: "allow"})
	obs.TurnFinished(ref, runner.TurnResult{StopReason: "end_turn"})
	obs.Warning(ref, "w")
	obs.ScenarioFinished(ref, runner.Result{Status: runner.StatusPassed})

	wantBasic := []string{"started s", "turn started", "permission allow", "turn end_turn", "warning w", "finished passed"}
	wantFull := []string{"started s", "turn started", "permission allow", "turn end_turn", "warning w", "finished passed"}
	if diff := cmp.Diff(wantBasic, basic.calls); diff != "" {
		t.Errorf("basic observer calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantFull, full.calls); diff != "" {
		t.Errorf("full observer calls (-want +got):\n%s", diff)
	}
}

// TestProgressDotsWrap: dots break every 80 scenarios, and Finish ends the
// last line once, however often it is called.
func TestProgressDotsWrap(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := output.NewProgress(&buf, 81, output.ProgressOptions{Dots: true})
	r := sampleReport().Scenarios[0]
	for range 81 {
		p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	}
	p.Finish()
	p.Finish()
	if got, want := buf.String(), strings.Repeat(".", 80)+"\n.\n"; got != want {
		t.Errorf("dots = %q, want %q", got, want)
	}
}
