package progress

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acprun/acprun/internal/cellwidth"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/writequeue"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
	"golang.org/x/term"
)

// refreshEvery is how often the live area is redrawn between events, so
// that the elapsed times keep moving during a long turn.
const refreshEvery = time.Second

// maxShown is the most running scenarios the live area names; on a short
// terminal it names fewer (its height less shownMargin), and the others are
// counted in a "+N more" line.
const (
	maxShown    = 8
	shownMargin = 4
)

// liveArea is what a Printer draws at the bottom of a terminal: a line per
// running scenario (its name, agent, turn and elapsed time), a "+N more"
// line when they do not all fit, and a bar with the counts. Lines printed
// above it (PASS/FAIL lines, -v lines) go to the scrollback as they are;
// the area is redrawn below them. Events wake the drawing goroutine and a
// ticker redraws every refreshEvery; each frame is one write that
// overwrites the last one in place, every line cut to the terminal's
// width, read on each frame (a SIGWINCH redraws at once).
type liveArea struct {
	w    io.Writer
	size func() (cols, rows int)

	// mu guards state, drawn and halted; it is never held while a frame
	// is written, so that halt never waits for a terminal.
	mu    sync.Mutex
	state liveState
	// drawn are the area's lines on the screen, or being written to it;
	// only the drawing goroutine changes them. Once halted is set, no
	// frame is written (halt).
	drawn  []string
	halted bool

	wake     chan struct{}
	stop     chan struct{} // closed by finish
	stopOnce sync.Once
	stopped  chan struct{} // closed when loop returns
}

// liveState is what the live area shows.
type liveState struct {
	total, done int
	// counts are the results that finished, counted as the run's summary
	// counts them (report.Summarize).
	counts  report.Summary
	started time.Time
	running []*runningJob  // in the order they started
	pending writequeue.Buf // lines to print above the area, in order
}

// runningJob is a scenario that is running.
type runningJob struct {
	ref   runner.Ref
	turn  int // from 1; 0 before the first turn
	since time.Time
}

// newLiveArea starts drawing the live area of a run of total scenarios on
// w. size gives the terminal's size; nil reads it from w when w is a
// terminal (80×24 otherwise).
func newLiveArea(w io.Writer, total int, size func() (int, int)) *liveArea {
	if size == nil {
		size = termSize(w)
	}
	l := &liveArea{
		w: w, size: size,
		state:   liveState{total: total, started: time.Now(), pending: logLines()},
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go l.loop()
	return l
}

// termSize returns a function reading the size of w's terminal.
func termSize(w io.Writer) func() (int, int) {
	return func() (int, int) {
		if f, ok := w.(*os.File); ok {
			if cols, rows, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				return cols, rows
			}
		}
		return 80, 24
	}
}

// loop draws a frame on every event, every refreshEvery and on every
// change of the terminal's size, until stop; then it prints what is left
// and clears the area.
func (l *liveArea) loop() {
	defer close(l.stopped)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	tick := time.NewTicker(refreshEvery)
	defer tick.Stop()
	l.draw(false)
	for {
		select {
		case <-l.stop:
			l.draw(true)
			return
		case <-l.wake:
		case <-tick.C:
		case <-winch:
		}
		l.draw(false)
	}
}

// update changes the state and wakes the drawing goroutine.
func (l *liveArea) update(f func(*liveState)) {
	l.mu.Lock()
	f(&l.state)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a frame is due already
	}
}

// finished shows j as finished with the result r, its line above the
// area; a retried try is not counted as done (the same attempt runs again).
func (l *liveArea) finished(j runner.Ref, r report.Result, line string) {
	l.update(func(st *liveState) {
		st.remove(j)
		if r.Verdict() {
			st.done++
		}
		st.counts.Add(r)
		st.pending.Add(line+"\n", false)
	})
}

// find returns the running job j; nil if it is not running.
func (st *liveState) find(j runner.Ref) *runningJob {
	for _, rj := range st.running {
		if rj.ref == j {
			return rj
		}
	}
	return nil
}

// remove shows j as no longer running.
func (st *liveState) remove(j runner.Ref) {
	st.running = slices.DeleteFunc(st.running, func(rj *runningJob) bool { return rj.ref == j })
}

// print puts line above the area, as a permanent line; a droppable one
// (-v's) is dropped when too many wait for the terminal (writequeue.Buf).
func (l *liveArea) print(line string, droppable bool) {
	l.update(func(st *liveState) { st.pending.Add(line+"\n", droppable) })
}

// finish stops drawing: what is left to print is printed and the area is
// cleared, so that what follows starts on a clean line. It waits for the
// last frame; it may be called more than once.
func (l *liveArea) finish() {
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.stopped
}

// halt stops drawing at once, for acprun to exit (a third interrupt),
// without waiting for the drawing goroutine, which may be held up in a
// write to a terminal that takes no more output, and returns what erases
// the area from the terminal, to be written before acprun's last line:
// back to the start of the area (drawn, or being written), then erase
// down; "" when nothing is drawn. No frame is written after it, nor the
// lines waiting to be printed above the area.
func (l *liveArea) halt() string {
	cols, _ := l.size()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.halted = true
	if up := areaRows(l.drawn, cols); up > 0 {
		return "\r" + cursorUp(up-1) + "\x1b[J"
	}
	return ""
}

// draw writes one frame: the pending lines, then the area (none when last);
// nothing once halted. Only the drawing goroutine calls it.
func (l *liveArea) draw(last bool) {
	cols, rows := l.size()
	l.mu.Lock()
	if l.halted {
		l.mu.Unlock()
		return
	}
	var lines []string
	if last {
		l.state.pending.End()
	} else {
		lines = liveLines(&l.state, time.Now(), cols, rows)
	}
	pending := l.state.pending.Take()
	l.mu.Unlock()

	var b strings.Builder
	// Back to the start of the area drawn last.
	if up := areaRows(l.drawn, cols); up > 0 {
		b.WriteByte('\r')
		b.WriteString(cursorUp(up - 1))
	}
	for _, p := range pending {
		// Each line clears what is left of the area drawn where it goes.
		b.WriteString(strings.ReplaceAll(p, "\n", "\x1b[K\n"))
	}
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		b.WriteString("\x1b[K")
	}
	b.WriteString("\x1b[J") // what is left of a taller frame
	l.mu.Lock()
	if l.halted { // since the frame began: the area is erased as it was
		l.mu.Unlock()
		return
	}
	l.drawn = lines
	l.mu.Unlock()
	_, _ = io.WriteString(l.w, b.String())
}

// areaRows is how many rows the area's lines take on a terminal cols wide:
// a terminal that reflows its lines when it gets narrower wraps a line
// that no longer fits.
func areaRows(lines []string, cols int) int {
	n := 0
	for _, line := range lines {
		n += lineRows(line, cols)
	}
	return n
}

// cursorUp moves the cursor n rows up; "" for none.
func cursorUp(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("\x1b[%dA", n)
}

// lineRows is how many rows line takes on a terminal cols wide that reflowed
// it: a wide character that does not fit at the end of a row goes whole on
// the next.
func lineRows(line string, cols int) int {
	n, col := 1, 0
	for _, r := range line {
		w := cellwidth.Rune(r)
		if col+w > cols {
			n++
			col = 0
		}
		col += w
	}
	return n
}

// liveLines lays out the area for a terminal of cols×rows at now: a line per
// running scenario shown, "+N more" for the others, and the bar. No line
// takes more than cols-1 cells, so none wraps.
func liveLines(st *liveState, now time.Time, cols, rows int) []string {
	width := max(cols-1, 1)
	shown := min(len(st.running), maxShown)
	if rows > 0 {
		shown = min(shown, max(rows-shownMargin, 0))
	}
	var lines []string
	for _, j := range st.running[:shown] {
		lines = append(lines, runningLine(j, now, width))
	}
	if more := len(st.running) - shown; more > 0 {
		lines = append(lines, termtext.Clip(fmt.Sprintf("  … +%d more", more), width))
	}
	return append(lines, barLine(st, now, width))
}

// runningLine is "  name@agent  turn 2/3  12s", the name cut first when it
// does not fit.
func runningLine(j *runningJob, now time.Time, width int) string {
	turn := "starting"
	if j.turn > 0 {
		turn = fmt.Sprintf("turn %d", j.turn)
		if j.ref.Turns > 0 {
			turn += fmt.Sprintf("/%d", j.ref.Turns)
		}
	}
	const indent = "  "
	tail := "  " + turn + "  " + elapsed(now.Sub(j.since))
	name := termtext.Printable(refLabel(j.ref))
	if room := width - len(indent) - cellwidth.String(tail); room >= 8 {
		return indent + termtext.Clip(name, room) + tail
	}
	return termtext.Clip(indent+name+tail, width)
}

// barLine is "[=====>      ] 3/10  2 running  1 failed  1 error  1m05s":
// the results that did not pass are counted in the words of the summary's
// totals line (output.Counts), those it would say of a run that ended
// here: failed, errors, invalid and interrupted, each when there are some.
func barLine(st *liveState, now time.Time, width int) string {
	counts := fmt.Sprintf(" %d/%d  %d running", st.done, st.total, len(st.running))
	s := st.counts
	errors := "errors"
	if s.Errored == 1 {
		errors = "error"
	}
	for _, c := range []struct {
		n    int
		what string
	}{{s.Failed, "failed"}, {s.Errored, errors}, {s.Invalid, "invalid"}, {s.Interrupted - s.NotRun, "interrupted"}} {
		if c.n > 0 {
			counts += fmt.Sprintf("  %d %s", c.n, c.what)
		}
	}
	counts += "  " + elapsed(now.Sub(st.started))
	barWidth := min(30, width-cellwidth.String(counts)-2)
	if barWidth < 5 {
		return termtext.Clip(strings.TrimPrefix(counts, " "), width)
	}
	filled := 0
	if st.total > 0 {
		filled = min(barWidth*st.done/st.total, barWidth)
	}
	bar := strings.Repeat("=", filled)
	if filled < barWidth {
		if filled > 0 {
			bar = bar[:filled-1] + ">"
		}
		bar += strings.Repeat(" ", barWidth-filled)
	}
	return termtext.Clip("["+bar+"]"+counts, width)
}

// elapsed is a whole number of seconds: "7s", "1m05s", "1h02m".
func elapsed(d time.Duration) string {
	s := int(max(d, 0) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// refLabel names a job in the live area and in -v lines: "fix-vet@claude",
// "fix-vet@claude #2".
func refLabel(j runner.Ref) string {
	s := j.Name
	if j.Agent != "" {
		s += "@" + j.Agent
	}
	if j.Attempt > 0 {
		s += fmt.Sprintf(" #%d", j.Attempt)
	}
	return s
}
