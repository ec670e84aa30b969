package runner

import (
	"sync"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// Ref names one job, one run of one scenario, to an Observer: the
// scenario, where it is defined, the agent it runs against and its attempt.
// Every Observer call names its job, so that with --repeat or --agent two
// runs of one scenario are told apart.
type Ref struct {
	Name string // the scenario's name
	File string // the scenario's file
	Line int    // the scenario's line in File, from 1
	// Agent names the agent of agents: the job runs against; "" when the
	// scenario gives its own.
	Agent string
	// Attempt counts from 1 when scenarios are repeated; 0 when each runs
	// once.
	Attempt int
	// Retry counts the tries of an attempt after its first failed
	// (the scenario's retries): 0 for the first try, n for the n-th retry.
	Retry int
	// Turns is the number of turns of the scenario.
	Turns int
}

// job is one run of one scenario: the scenario it runs and the Ref that
// names it.
type job struct {
	sc  *scenario.Scenario
	ref Ref
}

// newJob is attempt (0 when the scenario runs once) of sc.
func newJob(sc *scenario.Scenario, attempt int) job {
	return job{sc: sc, ref: Ref{Name: sc.Name, File: sc.File, Line: sc.Pos.Line, Agent: sc.Agent.Name, Attempt: attempt, Turns: len(sc.Turns)}}
}

// tries names every try the job may make: its Ref with each Retry its
// scenario allows.
func (j job) tries() []Ref {
	refs := make([]Ref, j.sc.Retries+1)
	for try := range refs {
		refs[try] = j.ref
		refs[try].Retry = try
	}
	return refs
}

// Observer is told about a run as it happens. Calls are serialised: an
// Observer needs no locking of its own. Everything an Observer is given has
// been redacted.
type Observer interface {
	ScenarioStarted(j Ref)
	TurnStarted(j Ref, index int) // index from 1
	TurnFinished(j Ref, turn report.TurnResult)
	Warning(j Ref, msg string)
	PermissionDecided(j Ref, p report.Permission)
	ScenarioFinished(j Ref, r report.Result)
}

// observer serialises calls to an Observer; a nil one does nothing.
type observer struct {
	mu sync.Mutex
	o  Observer
}

// active reports whether there is an Observer to call.
func (o *observer) active() bool { return o != nil && o.o != nil }

// call runs f with the Observer, serialised; nothing when there is none.
func (o *observer) call(f func(Observer)) {
	if !o.active() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	f(o.o)
}

// jobObserver tells the Observer about one job, redacting everything it
// passes on: it is the one way the runner reports progress, so nothing the
// agent sent reaches an Observer with a secret in it.
type jobObserver struct {
	o   *observer
	job Ref
	red *redact.Redactor
	s   *streamer // nil when no Observer wants Updates
}

func (o *observer) forJob(j Ref, red *redact.Redactor) *jobObserver {
	jo := &jobObserver{o: o, job: j, red: red}
	if u, ok := o.o.(UpdateObserver); ok && u.WantsUpdates() {
		jo.s = &streamer{o: o, u: u, job: j, red: red, text: pendingLine{kind: UpdateText}, thought: pendingLine{kind: UpdateThought}}
	}
	return jo
}

// flush passes on what is left of the job's streamed text, once its agent
// has stopped.
func (jo *jobObserver) flush() {
	if jo.s != nil {
		jo.s.flush()
	}
}

// update passes on a session/update of sess as it arrives, when an
// Observer wants it; otherwise it does nothing.
func (jo *jobObserver) update(u *acp.SessionUpdate, sess *session) {
	if jo == nil || jo.s == nil {
		return
	}
	jo.s.update(u, sess.position())
}

func (jo *jobObserver) turnStarted(index int) {
	jo.o.call(func(ob Observer) { ob.TurnStarted(jo.job, index) })
}

// turn reports a finished turn, after what is left of the text it
// streamed before its answer; t is a snapshot the caller does not share.
func (jo *jobObserver) turn(t report.TurnResult) {
	if jo.s != nil {
		jo.s.answered(t.Index)
	}
	jo.red.Value(&t)
	jo.o.call(func(ob Observer) { ob.TurnFinished(jo.job, t) })
}

func (jo *jobObserver) warning(msg string) {
	jo.o.call(func(ob Observer) { ob.Warning(jo.job, jo.red.String(msg)) })
}

// permission tells the Observer of a decision, redacted; without an
// Observer there is nothing to redact.
func (jo *jobObserver) permission(p report.Permission) {
	if !jo.o.active() {
		return
	}
	p = clonePermission(p) // redacted in place: the record keeps its own
	jo.red.Value(&p)
	jo.o.call(func(ob Observer) { ob.PermissionDecided(jo.job, p) })
}
