package output

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/acprun/acprun/runner"
	"github.com/fatih/color"
	"github.com/schollz/progressbar/v3"
)

// refreshEvery is how often the bar is redrawn between events, so that its
// elapsed time and ETA keep moving during a long scenario.
const refreshEvery = time.Second

// ProgressOptions says how Progress shows a run.
type ProgressOptions struct {
	// Terminal draws a progress bar; otherwise Progress writes one plain
	// line per finished scenario. Set it when the writer is a terminal.
	Terminal bool
	// Quiet writes nothing at all.
	Quiet bool
	// Dots writes, when not on a terminal, one character per finished
	// scenario instead of a line: "." passed, "F" failed, "E" error.
	Dots bool
	// Verbose also writes turns, permission decisions, tool calls and
	// warnings as they happen.
	Verbose bool
}

// Progress shows a run as it happens on a writer (stderr). It implements
// runner.Observer, plus TurnStarted and Warning. On a terminal it draws a
// bar with done/total, the number of scenarios running, the elapsed time
// and an ETA; otherwise it writes one plain line per finished scenario
// ("PASS name (end_turn, 1.2s)", "FAIL name [agent] #2 (max_tokens, 3s)"),
// or with Dots one character. Call Finish when the run ends: it clears
// the bar and stops redrawing it, or ends the line of dots.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	opts    ProgressOptions
	bar     *progressbar.ProgressBar
	running int
	stop    chan struct{} // closed by Finish; nil when nothing redraws
	stopped chan struct{} // closed when the redraw goroutine returns
	dots    int           // dots written on the current line (Dots)
}

// NewProgress returns a Progress for a run of total scenario results,
// writing to w. When it draws a bar it redraws it every second until
// Finish.
func NewProgress(w io.Writer, total int, opts ProgressOptions) *Progress {
	p := &Progress{w: w, opts: opts}
	if opts.Quiet || !opts.Terminal || total <= 0 {
		return p
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetDescription(p.description()),
		progressbar.OptionSetRenderBlankState(true),
	)
	p.stop = make(chan struct{})
	p.stopped = make(chan struct{})
	go p.redraw(p.stop)
	return p
}

// redraw redraws the bar every refreshEvery until Finish.
func (p *Progress) redraw(stop <-chan struct{}) {
	defer close(p.stopped)
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.bar.Describe(p.description())
			p.mu.Unlock()
		}
	}
}

// description is the text before the bar.
func (p *Progress) description() string {
	return fmt.Sprintf("%d running ", p.running)
}

// Finish clears the bar and stops redrawing it. It may be called more
// than once.
func (p *Progress) Finish() {
	p.mu.Lock()
	stop := p.stop
	p.stop = nil
	if p.dots > 0 {
		fmt.Fprintln(p.w) // end the line of dots
		p.dots = 0
	}
	p.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Finish() // with OptionClearOnFinish: clears the bar
}

// ScenarioStarted counts j as running.
func (p *Progress) ScenarioStarted(j runner.Ref) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running++
	if p.bar != nil {
		p.bar.Describe(p.description())
	}
}

// TurnStarted notes, when verbose, that turn (from 1) of j started.
func (p *Progress) TurnStarted(j runner.Ref, turn int) {
	p.verbose("%s: turn %d started", jobName(j), turn)
}

// TurnFinished notes, when verbose, the turn's tool calls and outcome.
func (p *Progress) TurnFinished(j runner.Ref, t runner.TurnResult) {
	if !p.opts.Verbose || p.opts.Quiet {
		return
	}
	name := jobName(j)
	for _, tc := range t.ToolCalls {
		kind := tc.Kind
		if kind == "" {
			kind = "other"
		}
		p.verbose("%s: turn %d: tool call %q (%s, %s)", name, t.Index, firstLine(tc.Title), kind, tc.Status)
	}
	outcome := t.StopReason
	if t.CancelCause != "" {
		outcome += " after " + t.CancelCause
	}
	if t.StopReason == runner.OutcomeSkipped {
		p.verbose("%s: turn %d: %s", name, t.Index, outcome)
		return
	}
	p.verbose("%s: turn %d: %s (%s)", name, t.Index, outcome, duration(time.Duration(t.DurationMs)*time.Millisecond))
	if t.Error != "" {
		p.verbose("%s: turn %d: %s", name, t.Index, firstLine(t.Error))
	}
	for _, f := range t.Failures {
		p.verbose("%s: turn %d: %s", name, t.Index, firstLine(f))
	}
}

// PermissionDecided notes, when verbose, how a permission request was
// answered.
func (p *Progress) PermissionDecided(j runner.Ref, perm runner.Permission) {
	what := perm.Title
	if what == "" {
		what = perm.ToolCallID
	}
	detail := perm.Kind
	if perm.Rule != "" {
		if detail != "" {
			detail += "; "
		}
		detail += "rule " + perm.Rule
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	p.verbose("%s: permission %s: %q%s", jobName(j), perm.Decision, firstLine(what), detail)
}

// Warning notes, when verbose, a warning about j.
func (p *Progress) Warning(j runner.Ref, msg string) {
	p.verbose("%s: warning: %s", jobName(j), firstLine(msg))
}

// ScenarioFinished advances the bar, or writes the scenario's line.
func (p *Progress) ScenarioFinished(j runner.Ref, r runner.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running > 0 {
		p.running--
	}
	if p.opts.Quiet {
		return
	}
	if p.bar != nil {
		p.bar.Describe(p.description())
		if !r.Retried { // the bar counts attempts; a retry is the same one
			_ = p.bar.Add(1)
		}
		return
	}
	if p.opts.Terminal {
		return // the bar was not drawn (no total); the summary says it all
	}
	if p.opts.Dots {
		p.writeDot(r)
		return
	}
	fmt.Fprintln(p.w, finishedLine(r))
}

// dotsPerLine is where a line of dots is broken.
const dotsPerLine = 80

// writeDot writes the character of a finished scenario (Dots).
func (p *Progress) writeDot(r runner.Result) {
	dot := color.New(color.FgGreen).Sprint(".")
	switch {
	case r.Retried:
		dot = color.New(color.FgYellow).Sprint("r") // failed, and runs again
	case r.Status == runner.StatusPassed:
	case r.Status == runner.StatusFailed:
		dot = color.New(color.FgRed).Sprint("F")
	default:
		dot = color.New(color.FgRed).Sprint("E")
	}
	fmt.Fprint(p.w, dot)
	if p.dots++; p.dots == dotsPerLine {
		fmt.Fprintln(p.w)
		p.dots = 0
	}
}

// finishedLine is the plain line of a finished scenario: its status,
// label, stop reasons and duration (the summary explains failures).
func finishedLine(r runner.Result) string { return scenarioLine(r, false) }

// verbose writes one line when verbose, above the bar if there is one.
func (p *Progress) verbose(format string, args ...any) {
	if !p.opts.Verbose || p.opts.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	fmt.Fprintf(p.w, format+"\n", args...)
	if p.bar != nil {
		_ = p.bar.RenderBlank()
	}
}

// jobName names a job as label names its result: "login [claude] #2".
func jobName(j runner.Ref) string {
	s := j.Name
	if j.Agent != "" {
		s += " [" + j.Agent + "]"
	}
	if j.Attempt > 0 {
		s += fmt.Sprintf(" #%d", j.Attempt)
	}
	return s
}

// firstLine keeps the first line of s (trimmed), marking what was cut
// with " …".
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Observers returns an Observer that passes every call to each of obs in
// turn, skipping nil ones.
func Observers(obs ...runner.Observer) runner.Observer {
	var m multiObserver
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	return m
}

// multiObserver fans calls out to several observers.
type multiObserver []runner.Observer

func (m multiObserver) ScenarioStarted(j runner.Ref) {
	for _, o := range m {
		o.ScenarioStarted(j)
	}
}

func (m multiObserver) TurnStarted(j runner.Ref, turn int) {
	for _, o := range m {
		o.TurnStarted(j, turn)
	}
}

func (m multiObserver) TurnFinished(j runner.Ref, t runner.TurnResult) {
	for _, o := range m {
		o.TurnFinished(j, t)
	}
}

func (m multiObserver) PermissionDecided(j runner.Ref, p runner.Permission) {
	for _, o := range m {
		o.PermissionDecided(j, p)
	}
}

func (m multiObserver) Warning(j runner.Ref, msg string) {
	for _, o := range m {
		o.Warning(j, msg)
	}
}

func (m multiObserver) ScenarioFinished(j runner.Ref, r runner.Result) {
	for _, o := range m {
		o.ScenarioFinished(j, r)
	}
}

var (
	_ runner.Observer = (*Progress)(nil)
	_ runner.Observer = (*Events)(nil)
	_ runner.Observer = multiObserver(nil)
)
