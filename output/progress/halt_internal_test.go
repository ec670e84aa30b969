package progress

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/internal/vt"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// haltFixture is a live area of two running scenarios drawn on scr below
// a PASS line, drawn by the test (no drawing goroutine).
func haltFixture(scr *vt.Screen, w *bytes.Buffer) *liveArea {
	now := time.Now()
	l := &liveArea{
		w:    onlcr{scr, w},
		size: func() (int, int) { return 80, 24 },
		state: liveState{total: 3, done: 1, started: now, pending: logLines(), running: []*runningJob{
			{ref: runner.Ref{Name: "alpha", Turns: 1}, turn: 1, since: now},
			{ref: runner.Ref{Name: "beta", Turns: 2}, turn: 2, since: now},
		}},
	}
	l.state.pending.Add("PASS before\n", false)
	l.draw(false)
	return l
}

// TestLiveAreaHalt: halt stops the live area at once and returns what
// erases it, for acprun's last line at a third interrupt to be written
// after: the screen then holds the lines printed above the area and that
// line, nothing of the area; no frame is drawn after it.
func TestLiveAreaHalt(t *testing.T) {
	scr := vt.New(80, 24)
	var written bytes.Buffer
	l := haltFixture(scr, &written)
	if got := scr.Lines(); len(got) != 4 || !strings.Contains(got[3], "1/3  2 running") {
		t.Fatalf("the fixture's screen is not a line and the area:\n%s", strings.Join(got, "\n"))
	}
	erase := l.halt()
	onlcr{scr, nil}.Write([]byte(erase + "acprun: exiting\n"))
	if got, want := strings.Join(scr.Lines(), "\n"), "PASS before\nacprun: exiting"; got != want {
		t.Errorf("the screen after halt:\n%s\nwant:\n%s", got, want)
	}
	written.Reset()
	l.print("PASS later", false)
	l.draw(false)
	l.draw(true)
	if written.Len() > 0 {
		t.Errorf("a frame was drawn after halt: %q", written.String())
	}
	if u := scr.Unknown(); len(u) > 0 {
		t.Errorf("halt wrote sequences beyond cursor up and erase: %q", u)
	}
}

// TestLiveAreaHaltDuringAFrame: halt does not wait for a frame being
// written (a terminal that takes no more output holds it up): it returns
// at once what erases that frame, a taller one than the last, once
// written; no frame is drawn after it.
func TestLiveAreaHaltDuringAFrame(t *testing.T) {
	scr := vt.New(80, 24)
	var written bytes.Buffer
	l := haltFixture(scr, &written)
	held := &heldWriter{w: l.w, entered: make(chan struct{}), release: make(chan struct{})}
	l.w = held
	l.update(func(st *liveState) {
		st.running = append(st.running, &runningJob{ref: runner.Ref{Name: "gamma", Turns: 1}, since: time.Now()})
	})
	drawn := make(chan struct{})
	go func() {
		l.draw(false)
		close(drawn)
	}()
	<-held.entered
	erase := l.halt() // the frame's write is held up
	close(held.release)
	<-drawn
	if got := scr.Lines(); len(got) != 5 || !strings.HasPrefix(got[3], "  gamma") {
		t.Fatalf("the frame being written is not the line and the taller area:\n%s", strings.Join(got, "\n"))
	}
	onlcr{scr, nil}.Write([]byte(erase + "acprun: exiting\n"))
	if got, want := strings.Join(scr.Lines(), "\n"), "PASS before\nacprun: exiting"; got != want {
		t.Errorf("the screen after halt:\n%s\nwant:\n%s", got, want)
	}
	written.Reset()
	l.draw(false)
	if written.Len() > 0 {
		t.Errorf("a frame was drawn after halt: %q", written.String())
	}
}

// heldWriter is a writer whose first write says it has begun (entered),
// then waits for release before it writes to w.
type heldWriter struct {
	w                io.Writer
	entered, release chan struct{}
	once             sync.Once
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.once.Do(func() {
		close(h.entered)
		<-h.release
	})
	return h.w.Write(p)
}

// TestPrinterHaltWithoutLiveArea: a Printer that draws no live area (a
// log, -q) has nothing to erase.
func TestPrinterHaltWithoutLiveArea(t *testing.T) {
	var buf bytes.Buffer
	p := NewPrinter(&buf, 2, Options{Dots: true})
	defer p.Finish()
	if got := p.Halt(); got != "" {
		t.Errorf("Halt = %q; want nothing", got)
	}
}

// TestPrinterHaltAfterDots: in a log, a third interrupt that comes while
// the line of dots is open (the notes of the first two still wait for
// the writer, held up by the dot) gets a line break from Halt, for its
// line to start a line of its own; nothing p was given is written after
// Halt. It was glued to the dots: "racprun: interrupted a third time".
func TestPrinterHaltAfterDots(t *testing.T) {
	w := testkit.NewBlockedWriter()
	p := NewPrinter(w, 2, Options{Dots: true})
	p.ScenarioFinished(runner.Ref{Name: "a"}, report.Result{Status: report.StatusError, Retried: true})
	<-w.Started // the writer took the dot and is held up
	p.Note("acprun: interrupted: cancelling")
	p.Note("acprun: interrupted again")
	if got := p.Halt(); got != "\n" {
		t.Errorf("Halt = %q after a dot; want a line break", got)
	}
	close(w.Release)
	p.Flush()
	if got := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(w.Buf.String(), ""); got != "r" {
		t.Errorf("written %q; want the dot alone: nothing after Halt", got)
	}
}
