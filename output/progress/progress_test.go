package progress_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/vt"
	"github.com/acprun/acprun/output/progress"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/report/reporttest"
	"github.com/acprun/acprun/runner"
	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// playRun tells obs about the sample report as the runner would.
func playRun(obs runner.Observer) {
	rep := reporttest.Sample()
	for _, r := range rep.Scenarios[:2] {
		ref := runner.Ref{Name: r.Name, File: r.File, Line: r.Line, Agent: r.Agent.Name}
		obs.ScenarioStarted(ref)
		for _, t := range r.Turns {
			if ts, ok := obs.(interface {
				TurnStarted(runner.Ref, int)
			}); ok && t.StopReason != report.OutcomeSkipped {
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

// TestProgressPlain checks what the Printer writes when stderr is not a
// terminal: one plain line per scenario, more with Verbose, none with
// Quiet, and never a bar.
func TestProgressPlain(t *testing.T) {
	noColor(t)
	tests := []struct {
		name string
		opts progress.Options
		want string
	}{
		{
			name: "default",
			want: "PASS basic (end_turn, 1.23s, 1 allowed, 0 denied)\n" +
				"FAIL refuses <politely> [claude] #2 (end_turn, cancelled after turnTimeout, skipped, 1m5s, 0 allowed, 1 denied)\n",
		},
		{
			name: "verbose",
			opts: progress.Options{Verbose: true},
			want: `[basic] turn 1 started
[basic] permission allow: "Read main.go" (read; rule allow[0])
[basic] turn 1: end_turn (1.1s)
PASS basic (end_turn, 1.23s, 1 allowed, 0 denied)
[refuses <politely>@claude] turn 1 started
[refuses <politely>@claude] turn 1: end_turn (2s)
[refuses <politely>@claude] turn 1: text does not contain "hello" | "bye"
[refuses <politely>@claude] turn 2 started
[refuses <politely>@claude] turn 2: cancelled after turnTimeout (1m0s)
[refuses <politely>@claude] turn 2: stopReason is cancelled, want end_turn
[refuses <politely>@claude] turn 3: skipped
[refuses <politely>@claude] warning: mode "plan" not offered by the agent; not set
FAIL refuses <politely> [claude] #2 (end_turn, cancelled after turnTimeout, skipped, 1m5s, 0 allowed, 1 denied)
`,
		},
		{
			name: "dots",
			opts: progress.Options{Dots: true},
			want: ".F\n",
		},
		{name: "quiet", opts: progress.Options{Quiet: true, Verbose: true}},
		{name: "quiet terminal", opts: progress.Options{Quiet: true, Terminal: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := progress.NewPrinter(&buf, 2, tt.opts)
			playRun(p)
			p.Finish()
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("progress output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerboseTurnLineCutsTheStopReason: the verbose line of a finished
// turn shows a stop reason of 100 KB, which the agent chose, cut at 200
// characters, as the summary's lines do.
func TestVerboseTurnLineCutsTheStopReason(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := progress.NewPrinter(&buf, 1, progress.Options{Verbose: true})
	p.TurnFinished(runner.Ref{Name: "s"}, report.TurnResult{Index: 1, StopReason: strings.Repeat("x", 100_000), DurationMs: 1000})
	p.Finish()
	if got, want := buf.String(), "[s] turn 1: "+strings.Repeat("x", 200)+"… (1s)\n"; got != want {
		t.Errorf("line = %.300q; want %q", got, want)
	}
}

// TestProgressErrorLine checks the plain line of a scenario that could not
// run to its end.
func TestProgressErrorLine(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := progress.NewPrinter(&buf, 1, progress.Options{})
	r := reporttest.Sample().Scenarios[2]
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	p.Finish()
	if got, want := buf.String(), "ERROR crash (agent_exited, skipped, 321ms)\n"; got != want {
		t.Errorf("line = %q; want %q", got, want)
	}
}

// TestProgressPlainEscapes: the plain line of a finished scenario (not on
// a terminal) escapes the control characters of its name, its agent's
// name and its stop reasons as \xNN, line breaks among them, so that an
// agent cannot start a line of its own ("::error", a FAKE PASS).
func TestProgressPlainEscapes(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := progress.NewPrinter(&buf, 1, progress.Options{})
	r := report.Result{
		Name: "ok\n::error file=README.md,line=1::injected\x1b[31m", Status: report.StatusFailed,
		Agent: report.AgentInfo{Name: "a\x07"},
		Turns: []report.TurnResult{{Index: 1, StopReason: "evil\x1b]0;pwned\x07\r\nFAKE PASS"}},
	}
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	p.Finish()
	want := `FAIL ok\x0a::error file=README.md,line=1::injected\x1b[31m [a\x07] (evil\x1b]0;pwned\x07\x0d\x0aFAKE PASS, 0s)` + "\n"
	if got := buf.String(); got != want {
		t.Errorf("line = %q; want %q", got, want)
	}
}

// TestProgressTerminal draws on a pseudo-terminal and checks what a person
// sees: the running scenarios with their turn above the bar, PASS/FAIL and
// verbose lines printed above the live area as they come, an agent's
// control characters escaped, no line wrapped, and, after Finish, a screen
// holding only the printed lines: the live area cleared, nothing redrawn.
func TestProgressTerminal(t *testing.T) {
	defer goleak.VerifyNone(t)
	noColor(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	const cols, rows = 120, 12 // wide enough for the FAIL line: scrollback lines may wrap, the live area may not
	scr := vt.New(cols, rows)
	fed := scr.Feed(ptmx)
	waitFor := func(what string, ok func(screen string) bool) {
		t.Helper()
		if !scr.Wait(10*time.Second, ok) {
			t.Fatalf("%s did not appear on the terminal; screen:\n%s", what, strings.Join(scr.Screen(), "\n"))
		}
	}
	has := func(sub string) func(string) bool { return func(s string) bool { return strings.Contains(s, sub) } }

	p := progress.NewPrinter(tty, 3, progress.Options{Terminal: true, Verbose: true, Size: func() (int, int) { return cols, rows }})
	t.Cleanup(func() { p.Finish() }) // when the test fails before it does
	waitFor("the empty bar", has("] 0/3  0 running"))
	rep := reporttest.Sample()
	a := runner.Ref{Name: "basic", Turns: 2}
	b := runner.Ref{Name: "other", Agent: "claude", Attempt: 2, Turns: 1}
	p.ScenarioStarted(a)
	p.ScenarioStarted(b)
	p.TurnStarted(a, 1)
	waitFor("the running scenarios", func(s string) bool {
		return regexp.MustCompile(`(?m)^  basic  turn 1/2  \d+s\n  other@claude #2  starting  \d+s\n\[ +\] 0/3  2 running  \d+s$`).MatchString(s)
	})
	p.Update(b, runner.Update{Kind: runner.UpdateText, Text: "evil \x1b]0;title\x07 text"})
	waitFor("a streamed line", has(`[other@claude #2] text: evil \x1b]0;title\x07 text`))
	p.ScenarioFinished(a, rep.Scenarios[0])
	waitFor("the PASS line and the bar", func(s string) bool {
		return regexp.MustCompile(`(?m)^PASS basic \(end_turn, 1.23s, 1 allowed, 0 denied\)\n  other@claude #2  starting  \d+s\n\[=+> +\] 1/3  1 running  \d+s$`).MatchString(s)
	})
	p.Warning(b, "slow agent")
	p.ScenarioFinished(b, rep.Scenarios[1])
	waitFor("the FAIL line", has("] 2/3  0 running  1 failed"))
	p.Finish()
	p.Finish() // a second call does nothing
	tty.Close()
	<-fed

	want := []string{
		"[basic] turn 1 started",
		`[other@claude #2] text: evil \x1b]0;title\x07 text`,
		"PASS basic (end_turn, 1.23s, 1 allowed, 0 denied)",
		"[other@claude #2] warning: slow agent",
		"FAIL refuses <politely> [claude] #2 (end_turn, cancelled after turnTimeout, skipped, 1m5s, 0 allowed, 1 denied)",
	}
	if diff := cmp.Diff(want, scr.Lines()); diff != "" {
		t.Errorf("the terminal after Finish (-want +got):\n%s", diff)
	}
	if n, unknown := scr.Wraps(), scr.Unknown(); n != 0 || len(unknown) != 0 {
		t.Errorf("%d lines wrapped, unknown sequences %q; want none", n, unknown)
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
	p := progress.NewPrinter(w, 2, progress.Options{Terminal: false})
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
func (r *recorder) TurnFinished(j runner.Ref, t report.TurnResult) {
	r.calls = append(r.calls, "turn "+t.StopReason)
}
func (r *recorder) PermissionDecided(j runner.Ref, p report.Permission) {
	r.calls = append(r.calls, "permission "+p.Decision)
}
func (r *recorder) ScenarioFinished(j runner.Ref, res report.Result) {
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
	obs := progress.Observers(basic, nil, full)
	ref := runner.Ref{Name: "s"}
	obs.ScenarioStarted(ref)
	obs.TurnStarted(ref, 1)
	obs.PermissionDecided(ref, report.Permission{Decision: "allow"})
	obs.TurnFinished(ref, report.TurnResult{StopReason: "end_turn"})
	obs.Warning(ref, "w")
	obs.ScenarioFinished(ref, report.Result{Status: report.StatusPassed})

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
	p := progress.NewPrinter(&buf, 81, progress.Options{Dots: true})
	r := reporttest.Sample().Scenarios[0]
	for range 81 {
		p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	}
	p.Finish()
	p.Finish()
	if got, want := buf.String(), strings.Repeat(".", 80)+"\n.\n"; got != want {
		t.Errorf("dots = %q, want %q", got, want)
	}
}

// TestProgressNote: a note about the run is a line of its own, after a
// line of dots too, with control characters escaped.
func TestProgressNote(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := progress.NewPrinter(&buf, 2, progress.Options{Dots: true})
	r := reporttest.Sample().Scenarios[0]
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	p.Note("interrupted\x1b[2J")
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	p.Finish()
	if got, want := buf.String(), ".\ninterrupted\\x1b[2J\n.\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// TestProgressDotsVerbose: with -v, each verbose line is a line of its
// own after a line of dots.
func TestProgressDotsVerbose(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := progress.NewPrinter(&buf, 2, progress.Options{Dots: true, Verbose: true})
	r := reporttest.Sample().Scenarios[0]
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	p.TurnStarted(runner.Ref{Name: "b", Agent: "mock"}, 1)
	p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	p.Finish()
	if got, want := buf.String(), ".\n[b@mock] turn 1 started\n.\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// streamRecorder is an observer that wants Updates, or not.
type streamRecorder struct {
	recorder
	wants bool
}

func (r *streamRecorder) WantsUpdates() bool { return r.wants }
func (r *streamRecorder) Update(j runner.Ref, u runner.Update) {
	r.calls = append(r.calls, "update "+u.Text)
}

// TestObserversUpdates checks that Observers wants Updates when one of its
// observers does, and passes them to those only.
func TestObserversUpdates(t *testing.T) {
	off, on := &streamRecorder{}, &streamRecorder{wants: true}
	if progress.Observers(off, &recorder{}).(runner.UpdateObserver).WantsUpdates() {
		t.Error("WantsUpdates with no observer wanting them")
	}
	obs := progress.Observers(off, on, &recorder{}).(runner.UpdateObserver)
	if !obs.WantsUpdates() {
		t.Fatal("no WantsUpdates with an observer wanting them")
	}
	obs.Update(runner.Ref{Name: "s"}, runner.Update{Kind: runner.UpdateText, Text: "hi"})
	if len(off.calls) != 0 || !slices.Equal(on.calls, []string{"update hi"}) {
		t.Errorf("calls: off %q, on %q; want none, [update hi]", off.calls, on.calls)
	}
}

// TestProgressVerboseTurnDetails checks the verbose lines of a turn's
// tool calls and permissions with the tool's name, and of its notices and
// questions with their answers, when the turn ends.
func TestProgressVerboseTurnDetails(t *testing.T) {
	noColor(t)
	var buf bytes.Buffer
	p := progress.NewPrinter(&buf, 1, progress.Options{Verbose: true})
	j := runner.Ref{Name: "s"}
	p.Update(j, runner.Update{Turn: 1, Kind: runner.UpdateToolCall, ToolCallID: "c1", Title: "Run tests", ToolName: "Bash", ToolKind: "execute", Status: "in_progress"})
	p.Update(j, runner.Update{Turn: 1, Kind: runner.UpdateToolCall, ToolCallID: "c2", Title: "Think", Status: "pending"})
	p.PermissionDecided(j, report.Permission{Title: "Run tests", Kind: "execute", Name: "Bash", Decision: "allow", Rule: "s.yaml:5:9"})
	p.PermissionDecided(j, report.Permission{Title: "Fetch", Name: "WebFetch", Decision: "deny"})
	p.TurnFinished(j, report.TurnResult{
		Index: 1, StopReason: "end_turn", DurationMs: 1500,
		Notices: []report.Notice{{Severity: "warning", Title: "MCP server unavailable\nretrying"}, {Severity: "info", Title: "done", Late: true}},
		Elicitations: []report.Elicitation{
			{Mode: "form", Message: "Which branch?", Action: "accept", Content: json.RawMessage(`{ "branch": "main" }`)},
			{Mode: "form", Message: "Deploy now?", Action: "decline", Reason: "no answer for the required field env"},
			{Mode: "url", URL: "https://example.com/login", Action: "decline", Late: true},
		},
	})
	p.Finish()
	want := `[s] tool call "Run tests" (execute, Bash): in_progress
[s] tool call "Think" (other): pending
[s] permission allow: "Run tests" (execute, Bash; rule s.yaml:5:9)
[s] permission deny: "Fetch" (WebFetch)
[s] turn 1: end_turn (1.5s)
[s] turn 1: notice warning: MCP server unavailable …
[s] turn 1: late notice info: done
[s] turn 1: question "Which branch?" (form): accept {"branch":"main"}
[s] turn 1: question "Deploy now?" (form): decline
[s] turn 1: late question "https://example.com/login" (url): decline
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("verbose lines (-want +got):\n%s", diff)
	}
}

// TestWriteWaitsForNoReader: what is written to a Printer in a log (the
// run's summary) comes after its progress, ends the line of dots, and is
// held without waiting for a reader that does not read yet; Finish waits
// until it is all written, and returns the writer's error.
func TestWriteWaitsForNoReader(t *testing.T) {
	r, w := io.Pipe()
	p := progress.NewPrinter(w, 1, progress.Options{Dots: true})
	p.ScenarioFinished(runner.Ref{Name: "s"}, report.Result{Name: "s", Status: report.StatusPassed})
	p.EndProgress()
	if n, err := io.WriteString(p, "1 passed\n"); n != len("1 passed\n") || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	read := make(chan string)
	go func() {
		data, _ := io.ReadAll(r)
		read <- string(data)
	}()
	if err := p.Finish(); err != nil {
		t.Errorf("Finish: %v", err)
	}
	w.Close()
	if got, want := <-read, ".\n1 passed\n"; got != want {
		t.Errorf("written %q; want %q", got, want)
	}

	gone := errors.New("the reader quit")
	r, w = io.Pipe()
	r.CloseWithError(gone)
	p = progress.NewPrinter(w, 1, progress.Options{})
	io.WriteString(p, "summary\n")
	if err := p.Finish(); !errors.Is(err, gone) {
		t.Errorf("Finish: %v; want %v", err, gone)
	}
}

// TestProgressBarCounts: the bar counts the results that did not pass as
// the summary's totals line does (output.Counts): failures, errors,
// invalid and interrupted results apart, a retried try in none of them.
func TestProgressBarCounts(t *testing.T) {
	defer goleak.VerifyNone(t)
	noColor(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	const cols, rows = 120, 12
	scr := vt.New(cols, rows)
	fed := scr.Feed(ptmx)
	results := []report.Result{
		{Name: "pass", Status: report.StatusPassed},
		{Name: "fail", Status: report.StatusFailed},
		{Name: "error", Status: report.StatusError, Retried: true},
		{Name: "error", Status: report.StatusError},
		{Name: "invalid", Status: report.StatusInvalid},
		{Name: "cut", Status: report.StatusInterrupted},
	}
	p := progress.NewPrinter(tty, len(results), progress.Options{Terminal: true, Size: func() (int, int) { return cols, rows }})
	t.Cleanup(func() { p.Finish() })
	for _, r := range results {
		p.ScenarioStarted(runner.Ref{Name: r.Name})
		p.ScenarioFinished(runner.Ref{Name: r.Name}, r)
	}
	want := regexp.MustCompile(`(?m)^\[=+> *\] 5/6  0 running  1 failed  1 error  1 invalid  1 interrupted  \d+s$`)
	if !scr.Wait(10*time.Second, want.MatchString) {
		t.Errorf("the bar does not count as the summary does (want %s); screen:\n%s", want, strings.Join(scr.Screen(), "\n"))
	}
	p.Finish()
	tty.Close()
	<-fed
}
