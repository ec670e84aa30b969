// Package progress tells of a run as it happens, as a runner.Observer:
// Printer shows it to a person (a line or a dot per finished scenario, or on
// a terminal a live area of the running scenarios and a bar; -v streams
// what the agents say), and Events writes it as JSONL for tools (--events).
// Observers fans a run out to several of them.
package progress

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/writequeue"
	"github.com/acprun/acprun/output"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
	"github.com/fatih/color"
)

// maxHeld is how many bytes of -v lines may wait for a stderr that is not
// read; past it they are dropped, and counted.
const maxHeld = 1 << 20

// logLines holds the lines that wait for stderr: -v lines past maxHeld are
// dropped, and a line says how many.
func logLines() writequeue.Buf {
	return writequeue.Buf{Limit: maxHeld, Note: func(n int) string {
		return fmt.Sprintf("acprun: %d log lines dropped: stderr was not read fast enough\n", n)
	}}
}

// Options says how a Printer shows a run.
type Options struct {
	// Terminal draws the live area (running scenarios and a bar) below the
	// PASS/FAIL lines; otherwise the Printer writes one plain line per
	// finished scenario. Set it when the writer is a terminal.
	Terminal bool
	// Quiet writes nothing at all.
	Quiet bool
	// Dots writes, when not on a terminal, one character per finished
	// scenario instead of a line: "." passed, "F" failed, "E" error, "?"
	// invalid, "I" interrupted, "r" a try that errored or was invalid and
	// runs again.
	Dots bool
	// Verbose also writes turns, permission decisions and warnings, and
	// streams the agents' text, thoughts and tool calls as they arrive,
	// each line labelled with its scenario and agent.
	Verbose bool
	// Size gives the terminal's columns and rows; nil reads them from the
	// writer, when it is a terminal.
	Size func() (cols, rows int)
}

// Printer shows a run as it happens on a writer (stderr). It implements
// runner.UpdateObserver, plus TurnStarted and Warning. On a terminal it
// prints a PASS/FAIL line per finished scenario above a live area that
// names the running scenarios (with their agent, turn and elapsed time)
// above a bar with done/total; otherwise it writes one plain line per
// finished scenario ("PASS name (end_turn, 1.2s)", "FAIL name [agent] #2
// (max_tokens, 3s)"), or with Dots one character. Call Finish when the run
// ends: it clears the live area and stops redrawing it, or ends the line of
// dots, and writes what is left.
//
// The Printer never makes its caller (the runner, in the middle of a turn)
// wait for the writer: what it prints is written by a goroutine of its own.
// When the writer's reader is slow, the -v lines waiting for it are held up
// to maxHeld bytes, and those past it dropped: a line says how many, where
// they were. The other lines (PASS/FAIL, dots, notes) are never dropped.
type Printer struct {
	mu   sync.Mutex
	opts Options
	live *liveArea         // nil when nothing is drawn
	out  *writequeue.Queue // what is written, when nothing is drawn
	dots int               // dots written on the current line (Dots)
}

// NewPrinter returns a Printer for a run of total scenario results,
// writing to w. When it draws the live area it redraws it on every event
// and every second until Finish.
func NewPrinter(w io.Writer, total int, opts Options) *Printer {
	p := &Printer{opts: opts}
	if opts.Quiet || !opts.Terminal || total <= 0 {
		p.out = writequeue.New(w, logLines())
		return p
	}
	p.live = newLiveArea(w, total, opts.Size)
	return p
}

// EndProgress ends the run's progress: on a terminal it prints what is
// left and clears the live area, and stops redrawing it (waiting for the
// last frame); in a log it ends the line of dots, without waiting for the
// writer. What is written to p from then on (Write) comes after it.
func (p *Printer) EndProgress() {
	if p.live != nil {
		p.live.finish()
		return
	}
	p.mu.Lock()
	p.endDots()
	p.mu.Unlock()
}

// Halt stops p at once, without waiting for the goroutine that writes,
// and returns what the caller writes before its last line (acprun exiting
// at a third interrupt) for that line to stand on a line of its own: on a
// terminal, what erases the live area, which would otherwise stay on the
// screen with the line glued to the bar ("" when p no longer draws it:
// EndProgress); in a log, a line break when what was written may end
// mid-line (a line of dots, a line being written), "" otherwise. Nothing
// p was given is written after it: in a log, the lines still waiting for
// the writer are left out.
func (p *Printer) Halt() string {
	if p.live != nil {
		return p.live.halt()
	}
	if p.out.Halt() {
		return "\n"
	}
	return ""
}

// Flush waits until what p was given so far is written (or given up after
// a write error).
func (p *Printer) Flush() {
	if p.out != nil {
		p.out.Flush()
	}
}

// Finish ends the progress (EndProgress) and waits until all is written,
// returning the first error of the writer (nil on a terminal). It may be
// called more than once; what is written to p after it is not written.
func (p *Printer) Finish() error {
	p.EndProgress()
	if p.live != nil {
		return nil
	}
	return p.out.Close()
}

// Write has b, text for a person (the run's summary, a message about an
// output), written after what p printed so far: on a terminal it ends the
// live area first (EndProgress) and writes b there; in a log it holds b
// for the writer after the progress, never dropped, and does not wait
// for the writer (Finish does). It never fails.
func (p *Printer) Write(b []byte) (int, error) {
	if p.live != nil {
		p.live.finish()
		_, _ = p.live.w.Write(b) // a terminal: written at once
		return len(b), nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endDots()
	p.out.Add(string(b), false)
	return len(b), nil
}

// ScenarioStarted shows j as running.
func (p *Printer) ScenarioStarted(j runner.Ref) {
	if p.live == nil {
		return
	}
	now := time.Now()
	p.live.update(func(st *liveState) {
		st.running = append(st.running, &runningJob{ref: j, since: now})
	})
}

// TurnStarted shows the turn j is in and notes, when verbose, that turn
// (from 1) of j started.
func (p *Printer) TurnStarted(j runner.Ref, turn int) {
	if p.live != nil {
		p.live.update(func(st *liveState) {
			if rj := st.find(j); rj != nil {
				rj.turn = turn
			}
		})
	}
	p.verbose(j, "turn %d started", turn)
}

// TurnFinished notes, when verbose, the turn's outcome; its tool calls
// were streamed as they happened (Update).
func (p *Printer) TurnFinished(j runner.Ref, t report.TurnResult) {
	if !p.opts.Verbose || p.opts.Quiet {
		return
	}
	outcome := termtext.Cut(t.StopReason, maxStopReason) // the agent chose it
	if t.CancelCause != "" {
		outcome += " after " + t.CancelCause
	}
	if t.StopReason == report.OutcomeSkipped {
		p.verbose(j, "turn %d: %s", t.Index, outcome)
		return
	}
	p.verbose(j, "turn %d: %s (%s)", t.Index, outcome, output.Duration(time.Duration(t.DurationMs)*time.Millisecond))
	if t.Error != "" {
		p.verbose(j, "turn %d: %s", t.Index, firstLine(t.Error))
	}
	for _, f := range t.Failures {
		p.verbose(j, "turn %d: %s", t.Index, firstLine(f))
	}
	for _, n := range t.Notices {
		p.verbose(j, "turn %d: %snotice %s: %s", t.Index, late(n.Late), n.Severity, firstLine(cmp.Or(n.Title, n.Description)))
	}
	for _, e := range t.Elicitations {
		answer := e.Action
		var b bytes.Buffer
		if json.Compact(&b, e.Content) == nil && b.Len() > 0 {
			answer += " " + b.String()
		}
		p.verbose(j, "turn %d: %squestion %q (%s): %s", t.Index, late(e.Late), firstLine(cmp.Or(e.Message, e.URL)), e.Mode, answer)
	}
}

// maxStopReason is how many characters of a stop reason a verbose line
// shows, as the summary's lines do.
const maxStopReason = 200

// late is "late " for what came after the turn's answer, else "".
func late(l bool) string {
	if l {
		return "late "
	}
	return ""
}

// WantsUpdates reports whether the Printer streams what the agents say and
// do: with Verbose, unless Quiet.
func (p *Printer) WantsUpdates() bool { return p.opts.Verbose && !p.opts.Quiet }

// Update writes, when verbose, a line of an agent's text or thoughts, or
// a tool call that started or changed status.
func (p *Printer) Update(j runner.Ref, u runner.Update) {
	if !p.WantsUpdates() {
		return
	}
	switch u.Kind {
	case runner.UpdateText, runner.UpdateThought:
		kind := u.Kind
		if u.Late {
			kind = "late " + kind // after the turn's answer
		}
		p.verbose(j, "%s: %s", kind, u.Text)
	case runner.UpdateToolCall:
		what := cmp.Or(u.Title, u.ToolCallID)
		kind := cmp.Or(u.ToolKind, "other")
		if u.ToolName != "" {
			kind += ", " + firstLine(u.ToolName)
		}
		p.verbose(j, "%stool call %q (%s): %s", late(u.Late), firstLine(what), kind, u.Status)
	}
}

// PermissionDecided notes, when verbose, how a permission request was
// answered.
func (p *Printer) PermissionDecided(j runner.Ref, perm report.Permission) {
	what := cmp.Or(perm.Title, perm.ToolCallID)
	detail := perm.Kind
	if perm.Name != "" {
		detail = strings.TrimPrefix(detail+", "+firstLine(perm.Name), ", ")
	}
	if perm.Rule != "" {
		if detail != "" {
			detail += "; "
		}
		detail += "rule " + perm.Rule
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	p.verbose(j, "permission %s: %q%s", perm.Decision, firstLine(what), detail)
}

// Note writes msg, a line about the whole run (an interrupt taken), at
// once: on a terminal above the live area, in a log on a line of its own.
func (p *Printer) Note(msg string) {
	p.printLine(termtext.Printable(msg), false)
}

// printLine writes line on a line of its own: above the live area if
// there is one, else after ending the line of dots. A droppable line is
// dropped when too many wait for the writer (see Printer).
func (p *Printer) printLine(line string, droppable bool) {
	if p.live != nil {
		p.live.print(line, droppable)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endDots()
	p.out.Add(line+"\n", droppable)
}

// endDots ends the line of dots, if one was begun. The caller holds p.mu.
func (p *Printer) endDots() {
	if p.dots > 0 {
		p.out.Add("\n", false)
		p.dots = 0
	}
}

// Warning notes, when verbose, a warning about j.
func (p *Printer) Warning(j runner.Ref, msg string) {
	p.verbose(j, "warning: %s", firstLine(msg))
}

// ScenarioFinished writes the scenario's line: on a terminal above the
// live area, which no longer shows it as running.
func (p *Printer) ScenarioFinished(j runner.Ref, r report.Result) {
	if p.opts.Quiet {
		return
	}
	if p.live != nil {
		// Control characters the agent sent (in a failure's excerpt, say)
		// must not drive the terminal; the line's colours stay.
		p.live.finished(j, r, termtext.PrintableSGR(output.Line(r)))
		return
	}
	if p.opts.Terminal {
		return // the bar was not drawn (no total); the summary says it all
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.Dots {
		p.writeDot(r)
		return
	}
	p.out.Add(output.Line(r)+"\n", false)
}

// dotsPerLine is where a line of dots is broken.
const dotsPerLine = 80

// writeDot writes the character of a finished scenario (Dots). The
// caller holds p.mu.
func (p *Printer) writeDot(r report.Result) {
	dot := termtext.Paint(color.FgGreen).Sprint(".")
	switch {
	case r.Retried:
		dot = termtext.Paint(color.FgYellow).Sprint("r") // errored or invalid, and runs again
	case r.Status == report.StatusPassed:
	case r.Status == report.StatusFailed:
		dot = termtext.Paint(color.FgRed).Sprint("F")
	case r.Status == report.StatusInterrupted:
		dot = termtext.Paint(color.FgYellow).Sprint("I") // cut short: no verdict
	case r.Status == report.StatusInvalid:
		dot = termtext.Paint(color.FgMagenta).Sprint("?") // measured nothing: no verdict
	default:
		dot = termtext.Paint(color.FgRed).Sprint("E")
	}
	if p.dots++; p.dots == dotsPerLine {
		dot += "\n"
		p.dots = 0
	}
	p.out.Add(dot, false)
}

// verbose writes one line when verbose, labelled "[name@agent] ", as
// printLine does; it is dropped when too many wait for the writer
// (Printer). Control characters an agent sent are escaped.
func (p *Printer) verbose(j runner.Ref, format string, args ...any) {
	if !p.opts.Verbose || p.opts.Quiet {
		return
	}
	p.printLine(termtext.Printable("["+refLabel(j)+"] "+fmt.Sprintf(format, args...)), true)
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

// each calls f with every observer, in turn.
func (m multiObserver) each(f func(runner.Observer)) {
	for _, o := range m {
		f(o)
	}
}

func (m multiObserver) ScenarioStarted(j runner.Ref) {
	m.each(func(o runner.Observer) { o.ScenarioStarted(j) })
}

func (m multiObserver) TurnStarted(j runner.Ref, turn int) {
	m.each(func(o runner.Observer) { o.TurnStarted(j, turn) })
}

func (m multiObserver) TurnFinished(j runner.Ref, t report.TurnResult) {
	m.each(func(o runner.Observer) { o.TurnFinished(j, t) })
}

func (m multiObserver) PermissionDecided(j runner.Ref, p report.Permission) {
	m.each(func(o runner.Observer) { o.PermissionDecided(j, p) })
}

func (m multiObserver) Warning(j runner.Ref, msg string) {
	m.each(func(o runner.Observer) { o.Warning(j, msg) })
}

func (m multiObserver) ScenarioFinished(j runner.Ref, r report.Result) {
	m.each(func(o runner.Observer) { o.ScenarioFinished(j, r) })
}

// WantsUpdates reports whether one of the observers wants Updates.
func (m multiObserver) WantsUpdates() bool {
	return slices.ContainsFunc(m, func(o runner.Observer) bool {
		u, ok := o.(runner.UpdateObserver)
		return ok && u.WantsUpdates()
	})
}

// Update passes u to the observers that want Updates.
func (m multiObserver) Update(j runner.Ref, u runner.Update) {
	m.each(func(o runner.Observer) {
		if uo, ok := o.(runner.UpdateObserver); ok && uo.WantsUpdates() {
			uo.Update(j, u)
		}
	})
}

var (
	_ runner.UpdateObserver = (*Printer)(nil)
	_ runner.Observer       = (*Events)(nil)
	_ runner.UpdateObserver = multiObserver(nil)
)
