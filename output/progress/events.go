package progress

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/outfile"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/writequeue"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// Event names in an events file.
const (
	EventScenarioStarted  = "scenario_started"
	EventTurnStarted      = "turn_started"
	EventTurnFinished     = "turn_finished"
	EventPermission       = "permission"
	EventWarning          = "warning"
	EventScenarioFinished = "scenario_finished"
)

// Event is one line of an events file (--events): what happened, when, and
// to which scenario. Fields that do not apply to an event are left out.
type Event struct {
	Time     time.Time `json:"time"` // RFC 3339 with nanoseconds
	Event    string    `json:"event"`
	Scenario string    `json:"scenario"`
	File     string    `json:"file,omitempty"`
	Line     int       `json:"line,omitempty"`
	Agent    string    `json:"agent,omitempty"` // the named agent, when the scenario uses one

	// turn_started, turn_finished
	Turn int `json:"turn,omitempty"` // from 1

	// turn_finished
	StopReason  string   `json:"stopReason,omitempty"`
	CancelCause string   `json:"cancelCause,omitempty"`
	DurationMs  *int64   `json:"durationMs,omitempty"` // also scenario_finished
	ToolCalls   int      `json:"toolCalls,omitempty"`
	Failures    []string `json:"failures,omitempty"` // also scenario_finished
	Error       string   `json:"error,omitempty"`    // also scenario_finished

	// permission
	Permission *report.Permission `json:"permission,omitempty"`

	// warning
	Message string `json:"message,omitempty"`

	// Attempt counts from 1 when scenarios are repeated (--repeat).
	Attempt int `json:"attempt,omitempty"`
	// Retry numbers the retries of an attempt (retries: N), from 1.
	Retry int `json:"retry,omitempty"`
	// Retried (scenario_finished): this try errored or was invalid and
	// runs again.
	Retried bool `json:"retried,omitempty"`
	// Flaky (scenario_finished): this try passed after tries that did not,
	// as the results' flaky says.
	Flaky bool `json:"flaky,omitempty"`

	// scenario_finished
	Status report.Status `json:"status,omitempty"`
	// Invalid says why the scenario measured nothing (status invalid).
	Invalid *report.Invalid `json:"invalid,omitempty"`
}

// Events writes one JSON line per event (JSONL) as it happens. It
// implements runner.Observer, plus TurnStarted and Warning. Its calls never
// wait for w: each line is written, in a single Write call, by a goroutine
// of its own as soon as w takes it, so w may lag behind a slow reader (a
// pipe, a FIFO) but never holds up a turn. No line is ever dropped: they
// are as many as the run's results hold. After the first write error it
// writes nothing more; Close writes what is left and returns that error.
type Events struct {
	mu  sync.Mutex
	q   *writequeue.Queue
	c   io.Closer
	now func() time.Time
	err error
	// f and path are CreateEvents's file and the path it was given,
	// which Close checks is still there (outfile.Removed); f is nil for
	// the others.
	f    *os.File
	path string
}

// NewEvents returns an events writer on w. The caller closes w, after
// Close.
func NewEvents(w io.Writer) *Events {
	return &Events{q: writequeue.New(w, writequeue.Buf{}), now: time.Now}
}

// CreateEvents opens the events file at path as outfile.Create does:
// a regular file is created (with its parents) or truncated, a symlink is
// followed, a device or FIFO is written in place (opening a FIFO waits for
// its reader, or for ctx to end), whose reader is waited for until ctx
// ends too (outfile.UntilDone). Close closes it, and fails with
// outfile.ErrRemoved when the file was removed (or its directory) while
// it was written: the events went nowhere.
func CreateEvents(ctx context.Context, path string) (*Events, error) {
	f, err := outfile.Create(ctx, path)
	if err != nil {
		return nil, err
	}
	e := NewEvents(outfile.UntilDone(ctx, f))
	e.c, e.f, e.path = f, f, path
	return e, nil
}

// StdoutEvents returns an events writer on stdout with what would be a
// workflow command written with esc (termtext.CommandWriter: stdout is
// often a CI step's log). A pipe is written as CreateEvents writes a FIFO: through
// a file of its own, whose reader is waited for until ctx ends
// (outfile.PipeUntilDone), and which Close closes. Another stdout (a
// terminal, a file, a pipe where ReopenPipe cannot open it) is written as
// NewEvents writes w: its reader is waited for as long as it takes.
func StdoutEvents(ctx context.Context, stdout io.Writer, esc termtext.Escapes) *Events {
	w, c := outfile.PipeUntilDone(ctx, stdout)
	e := NewEvents(termtext.NewCommandWriter(w, esc))
	e.c = c
	return e
}

// Close waits until every event is written, closes the file opened by
// CreateEvents or StdoutEvents and returns the first error met while
// writing or closing. For an Events made by NewEvents it does not close
// the writer. It may be called more than once.
func (e *Events) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.q.Close(); err != nil && e.err == nil {
		e.err = err
	}
	if e.f != nil && e.err == nil {
		e.err = outfile.Removed(e.f, e.path) // the transcripts' rule
	}
	e.f = nil // closed below
	if e.c != nil {
		if err := e.c.Close(); err != nil && e.err == nil {
			e.err = err
		}
		e.c = nil
	}
	return e.err
}

// ScenarioStarted writes a scenario_started event.
func (e *Events) ScenarioStarted(j runner.Ref) {
	e.write(jobEvent(EventScenarioStarted, j))
}

// TurnStarted writes a turn_started event; turn counts from 1, as
// report.TurnResult.Index.
func (e *Events) TurnStarted(j runner.Ref, turn int) {
	ev := jobEvent(EventTurnStarted, j)
	ev.Turn = turn
	e.write(ev)
}

// TurnFinished writes a turn_finished event.
func (e *Events) TurnFinished(j runner.Ref, t report.TurnResult) {
	ev := jobEvent(EventTurnFinished, j)
	ev.Turn = t.Index
	ev.StopReason = t.StopReason
	ev.CancelCause = t.CancelCause
	ms := t.DurationMs
	ev.DurationMs = &ms
	ev.ToolCalls = len(t.ToolCalls)
	ev.Failures = t.Failures
	ev.Error = t.Error
	e.write(ev)
}

// PermissionDecided writes a permission event.
func (e *Events) PermissionDecided(j runner.Ref, p report.Permission) {
	ev := jobEvent(EventPermission, j)
	ev.Permission = &p
	e.write(ev)
}

// Warning writes a warning event.
func (e *Events) Warning(j runner.Ref, msg string) {
	ev := jobEvent(EventWarning, j)
	ev.Message = msg
	e.write(ev)
}

// ScenarioFinished writes a scenario_finished event.
func (e *Events) ScenarioFinished(j runner.Ref, r report.Result) {
	ev := jobEvent(EventScenarioFinished, j)
	ev.Scenario, ev.File, ev.Line, ev.Agent = r.Name, r.File, r.Line, r.Agent.Name
	ev.Status = r.Status
	ev.Attempt, ev.Retry, ev.Retried, ev.Flaky = r.Attempt, r.Retry, r.Retried, r.Flaky
	ms := r.DurationMs
	ev.DurationMs = &ms
	ev.Failures = r.Failures
	ev.Error = r.Error
	ev.Invalid = r.Invalid
	e.write(ev)
}

// jobEvent starts an event about j.
func jobEvent(name string, j runner.Ref) Event {
	return Event{Event: name, Scenario: j.Name, File: j.File, Line: j.Line, Agent: j.Agent, Attempt: j.Attempt, Retry: j.Retry}
}

// write queues ev, to be written as one line in one Write call.
func (e *Events) write(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return
	}
	ev.Time = e.now()
	line, err := json.Marshal(ev)
	if err != nil {
		e.err = err
		return
	}
	e.q.Add(string(line)+"\n", false)
}
